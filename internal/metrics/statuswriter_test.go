package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestStatusWriter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		write      func(w http.ResponseWriter)
		wantStatus int
		wantBytes  int
	}{
		{"nothing written", func(http.ResponseWriter) {}, 0, 0},
		{"body without a status", func(w http.ResponseWriter) { _, _ = w.Write([]byte("abc")) }, http.StatusOK, 3},
		{"first status wins", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusTeapot)
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte("ab"))
		}, http.StatusTeapot, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			sw := &StatusWriter{ResponseWriter: rec}
			tc.write(sw)
			if sw.Status != tc.wantStatus || sw.Bytes != tc.wantBytes {
				t.Errorf("status %d, %d bytes; want %d, %d", sw.Status, sw.Bytes, tc.wantStatus, tc.wantBytes)
			}
		})
	}
}

// A flush through the wrapper reaches the writer underneath.
func TestStatusWriterFlushes(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := &StatusWriter{ResponseWriter: rec}
	sw.Flush()
	if !rec.Flushed {
		t.Error("Flush did not reach the underlying writer")
	}
	if err := http.NewResponseController(sw).Flush(); err != nil {
		t.Errorf("ResponseController through the wrapper: %v", err)
	}
}
