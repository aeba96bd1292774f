package metrics

import "net/http"

// StatusWriter records the status and size of an answer, for the request
// log and metrics.
type StatusWriter struct {
	http.ResponseWriter
	// Status is the first status written: 200 once a body is written
	// without one, 0 while nothing is.
	Status int
	// Bytes counts the body written.
	Bytes int
}

func (w *StatusWriter) WriteHeader(code int) {
	if w.Status == 0 {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.Bytes += n
	return n, err
}

// Flush passes a flush on, so that a streamed answer (the router's SSE)
// is not held back by the wrapper.
func (w *StatusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
