package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/oauth"
)

// JWKSSource is the published key set; *keys.Keyring implements it.
type JWKSSource interface {
	JWKS() keys.JWKS
}

// ReadinessCheck reports why the server cannot serve yet, or nil.
type ReadinessCheck func(ctx context.Context) error

type publicHandlers struct {
	metadata oauth.Metadata
	jwks     JWKSSource
	ready    ReadinessCheck
	log      *slog.Logger
}

func (h *publicHandlers) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeJSON(w, http.StatusOK, h.metadata)
}

// serveJWKS publishes the public keys with the caching verifiers rely on:
// max-age is the rotation's publication delay, the ETag lets them
// revalidate cheaply.
func (h *publicHandlers) serveJWKS(w http.ResponseWriter, r *http.Request) {
	doc := h.jwks.JWKS()
	hd := w.Header()
	hd.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(doc.MaxAge/time.Second)))
	hd.Set("ETag", doc.ETag)
	if etagMatches(r.Header.Get("If-None-Match"), doc.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Type", "application/jwk-set+json")
	_, _ = w.Write(doc.Body)
}

func (h *publicHandlers) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (h *publicHandlers) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := h.ready(ctx); err != nil {
		h.log.WarnContext(r.Context(), "not ready", "err", err)
		// The reason is logged only: it may name hosts or describe the store.
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
