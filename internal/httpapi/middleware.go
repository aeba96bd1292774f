package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/typeward/typeward/internal/metrics"
)

type requestIDKey struct{}

// maxRequestIDLen bounds a caller-supplied X-Request-Id.
const maxRequestIDLen = 128

// requestID takes a sane X-Request-Id from the caller or makes one, and
// echoes it, so a log line and an answer can be matched.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for _, c := range []byte(id) {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// observe logs every request as one JSON line and counts it under its
// route pattern (never the raw path: ids in paths would make the label
// set unbounded). It also recovers a panic into a bare 500, so that a bug
// costs one request and is logged with its stack.
func observe(log *slog.Logger, m *metrics.Metrics) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			started := time.Now()
			sw := &metrics.StatusWriter{ResponseWriter: w}
			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					log.ErrorContext(r.Context(), "panic serving request", "panic", p,
						"stack", string(debug.Stack()), "request_id", requestIDFrom(r.Context()))
					if sw.Status == 0 {
						writeOAuthJSON(sw, http.StatusInternalServerError, map[string]string{"error": "server_error"})
					}
				}
				route := routeLabel(r)
				status := sw.Status
				if status == 0 {
					status = http.StatusOK
				}
				took := time.Since(started)
				m.ObserveHTTP(methodLabel(r.Method), route, status, took)
				log.LogAttrs(r.Context(), slog.LevelInfo, "request",
					slog.String("request_id", requestIDFrom(r.Context())),
					slog.String("method", r.Method),
					slog.String("route", route),
					slog.String("path", r.URL.Path),
					slog.Int("status", status),
					slog.Int("bytes", sw.Bytes),
					slog.Duration("duration", took),
					slog.String("remote", r.RemoteAddr),
				)
			}()
			next.ServeHTTP(sw, r)
		})
	}
}

// routeLabel is the pattern of the route a request reached, or would
// have reached when a mounted router's middleware answered first (the
// admin API refusing a request without a token), or "unmatched" when no
// route has its method and path: never the bare mount "/admin/v1/*",
// which would lump every refused admin request together.
func routeLabel(r *http.Request) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return "unmatched"
	}
	route := rctx.RoutePattern()
	if strings.HasSuffix(route, "/*") && rctx.Routes != nil {
		route = rctx.Routes.Find(chi.NewRouteContext(), r.Method, routingPath(r))
	}
	if route == "" {
		return "unmatched"
	}
	return route
}

// routingPath is the path as chi routes it: escaped, so that a %2F in a
// tool name stays inside its segment.
func routingPath(r *http.Request) string {
	if r.URL.RawPath != "" {
		return r.URL.RawPath
	}
	return r.URL.Path
}

// methodLabel is the method as a metric label: any other than the
// standard ones is "other", since a client may send any token as a method.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// limitBody bounds a request body; a declared length beyond it is refused
// before reading with refuse, and a body that grows beyond it fails the
// read (which the handlers answer 413 through tooLarge).
func limitBody(max int64, refuse func(http.ResponseWriter, *http.Request)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > max {
				w.Header().Set("Connection", "close")
				refuse(w, r)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, max)
			next.ServeHTTP(w, r)
		})
	}
}

// tooLarge reports whether err came from a body over its limit.
func tooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

// deadline gives every request a server-side deadline: whatever it waits
// on (a stalled database, a lock) is abandoned when it passes, and the
// request is answered (503 for an outage) while its client still listens.
func deadline(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}
