package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/typeward/typeward/internal/outage"
	"github.com/typeward/typeward/internal/registry"
)

// PathRegistryCompositions lists the stored compositions a host may ask
// for by scope (mcp:composition:NAME), each with the tool versions its
// last validation proved: what typeward route reads to say, in its
// protected-resource metadata, which of them its upstream serves.
const PathRegistryCompositions = "/registry/v1/compositions"

// maxListedCompositions bounds the public listing.
const maxListedCompositions = 1000

// CompositionLister lists stored compositions; registry.Store implements it.
type CompositionLister interface {
	ListCompositions(ctx context.Context) ([]registry.Composition, error)
}

type compositionsHandler struct {
	list CompositionLister
	log  *slog.Logger
}

type listedTool struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

type listedComposition struct {
	Name  string       `json:"name"`
	Tools []listedTool `json:"tools"`
}

// serve lists the valid stored compositions: names and tool digests only,
// never definitions or issues.
func (h *compositionsHandler) serve(w http.ResponseWriter, r *http.Request) {
	if h.list == nil {
		writeOAuthJSON(w, http.StatusNotFound, map[string]string{"error": "not_found"})
		return
	}
	all, err := h.list.ListCompositions(r.Context())
	if err != nil {
		h.log.ErrorContext(r.Context(), "registry compositions read", "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(outage.RetryAfter))
		writeOAuthJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable"})
		return
	}
	out := []listedComposition{}
	for _, c := range all {
		if c.Validation == nil || !c.Validation.Valid || len(out) == maxListedCompositions {
			continue
		}
		lc := listedComposition{Name: c.Name, Tools: []listedTool{}}
		for _, t := range c.Validation.Tools {
			lc.Tools = append(lc.Tools, listedTool{Name: t.Name, Digest: t.Digest})
		}
		out = append(out, lc)
	}
	w.Header().Set("Cache-Control", "public, max-age=30")
	writeJSON(w, http.StatusOK, map[string]any{"compositions": out})
}
