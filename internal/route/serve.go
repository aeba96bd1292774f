package route

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve runs the router on ln (and the metrics on metrics, when not nil)
// until ctx ends, then shuts down gracefully: no new requests, the ones in
// flight get shutdown to finish.
func (rt *Router) Serve(ctx context.Context, ln, metrics net.Listener, shutdown time.Duration) error {
	srv := &http.Server{
		Handler:           rt,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// No WriteTimeout: it would cut a GET stream. Each answer sets its
		// own write deadline (serveMCP, stream).
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: rt.cfg.MaxHeaderBytes,
	}
	servers := []*http.Server{srv}
	errs := make(chan error, 2)
	go func() { errs <- srv.Serve(ln) }()
	if metrics != nil {
		ms := &http.Server{Handler: rt.metrics.Handler(), ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, ms)
		go func() { errs <- ms.Serve(metrics) }()
	}
	rt.cfg.Log.Info("typeward route listening", "addr", ln.Addr().String(), "upstream", rt.cfg.Upstream,
		"resource", rt.cfg.Resource, "enforce_order", rt.cfg.EnforceOrder)
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdown)
	defer cancel()
	var err error
	for _, s := range servers {
		if e := s.Shutdown(sctx); e != nil && !errors.Is(e, http.ErrServerClosed) {
			err = e
		}
	}
	return err
}
