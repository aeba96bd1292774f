package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/typeward/typeward/internal/outage"
	"github.com/typeward/typeward/internal/registry"
)

// PathRegistryVersion is the public read endpoint of one immutable tool
// version: what a router fetches to validate arguments and results
// against the exact schemas a token pins.
const PathRegistryVersion = "/registry/v1/tools/{name}/versions/{version}"

// VersionReader finds one version of a tool; registry.Store implements it.
type VersionReader interface {
	ToolVersion(ctx context.Context, name string, version int) (registry.ToolVersion, error)
}

// registryVersionJSON is a tool version as the public endpoint serves it:
// the schemas verbatim, as declared, so a reader recomputes the digest.
type registryVersionJSON struct {
	Name         string          `json:"name"`
	Version      int             `json:"version"`
	Digest       string          `json:"digest"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

type registryHandlers struct {
	versions VersionReader
	log      *slog.Logger
}

// toolVersion serves a version forever: versions are immutable, so the
// answer to a tool's qualified name may be cached without revalidation,
// and its ETag is its digest (a bare name's must be revalidated).
// Only explicit versions are served (no "current"), else the answer could
// change.
func (h *registryHandlers) toolVersion(w http.ResponseWriter, r *http.Request) {
	version, err := strconv.Atoi(pathParam(r, "version"))
	if err != nil || version < 1 {
		writeOAuthJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": "version must be a positive integer"})
		return
	}
	v, err := h.versions.ToolVersion(r.Context(), pathParam(r, "name"), version)
	if errors.Is(err, registry.ErrNotFound) || errors.Is(err, registry.ErrAmbiguous) {
		writeOAuthJSON(w, http.StatusNotFound, map[string]string{"error": "not_found", "error_description": err.Error()})
		return
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "registry read", "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(outage.RetryAfter))
		writeOAuthJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable"})
		return
	}
	etag := strconv.Quote(v.Digest)
	hd := w.Header()
	if pathParam(r, "name") == v.QualifiedName() {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		// A bare name is an alias for the tool of the one server that
		// declares it now: when that server drops it and another declares
		// it, this URL serves other schemas. Cacheable, but revalidated
		// (the ETag tells whether it still is the same version).
		hd.Set("Cache-Control", "public, no-cache")
	}
	hd.Set("ETag", etag)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeJSON(w, http.StatusOK, registryVersionJSON{Name: v.QualifiedName(), Version: v.Version, Digest: v.Digest,
		InputSchema: v.InputSchema, OutputSchema: v.OutputSchema})
}
