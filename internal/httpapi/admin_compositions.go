package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// validationJSON is the outcome of validating a composition.
type validationJSON struct {
	Valid  bool                  `json:"valid"`
	Digest string                `json:"digest"`
	Tools  []composition.ToolRef `json:"tools"`
	Edges  []composition.EdgeRef `json:"edges"`
	Issues []verdict.Issue       `json:"issues"`
}

func validationOf(res *composition.Result) validationJSON {
	issues := res.Issues
	if issues == nil {
		issues = []verdict.Issue{}
	}
	return validationJSON{Valid: res.Valid(), Digest: res.Digest, Tools: res.Tools, Edges: res.Edges, Issues: issues}
}

// compositionJSON is a stored composition and its latest validation.
type compositionJSON struct {
	Name       string                `json:"name"`
	Definition json.RawMessage       `json:"definition"`
	Digest     string                `json:"digest"`
	UpdatedAt  time.Time             `json:"updated_at"`
	Validation *storedValidationJSON `json:"validation,omitempty"`
}

// storedValidationJSON is the recorded validation of a stored composition.
type storedValidationJSON struct {
	DefinitionDigest string             `json:"definition_digest"`
	Valid            bool               `json:"valid"`
	Issues           json.RawMessage    `json:"issues"`
	Tools            []registry.ToolRef `json:"tools"`
	ValidatedAt      time.Time          `json:"validated_at"`
}

func compositionOf(c registry.Composition) compositionJSON {
	out := compositionJSON{Name: c.Name, Definition: c.Definition, Digest: c.Digest, UpdatedAt: c.UpdatedAt}
	if v := c.Validation; v != nil {
		out.Validation = &storedValidationJSON{DefinitionDigest: v.DefinitionDigest, Valid: v.Valid, Issues: v.Issues,
			Tools: v.Tools, ValidatedAt: v.ValidatedAt}
	}
	return out
}

// validate parses and validates a definition.
func (a *Admin) validate(r *http.Request, definition []byte) (*composition.Composition, *composition.Result, error) {
	c, err := composition.Parse(definition)
	if err != nil {
		return nil, nil, err
	}
	res, err := a.Validator.Validate(r.Context(), c)
	if err != nil {
		return nil, nil, err
	}
	return c, res, nil
}

// validateComposition is the dry run: validate, store nothing.
func (a *Admin) validateComposition(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	_, res, err := a.validate(r, body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, validationOf(res))
}

// putComposition stores a definition, validates it and records the
// result. A definition that does not parse is refused; one that parses
// but does not type-check is stored with its failing validation, so that
// fixing a tool and revalidating is enough.
func (a *Admin) putComposition(w http.ResponseWriter, r *http.Request) {
	name := pathParam(r, "name")
	body, err := io.ReadAll(r.Body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if _, err := composition.Parse(body); err != nil {
		a.fail(w, r, err)
		return
	}
	stored, err := a.Registry.PutComposition(r.Context(), name, body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.record(w, r, stored, http.StatusOK)
}

func (a *Admin) getComposition(w http.ResponseWriter, r *http.Request) {
	c, err := a.Registry.Composition(r.Context(), pathParam(r, "name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, compositionOf(c))
}

func (a *Admin) listCompositions(w http.ResponseWriter, r *http.Request) {
	list, err := a.Registry.ListCompositions(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]compositionJSON, len(list))
	for i, c := range list {
		out[i] = compositionOf(c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"compositions": out})
}

// revalidateComposition validates a stored composition against the
// registry as it is now and records the result.
func (a *Admin) revalidateComposition(w http.ResponseWriter, r *http.Request) {
	c, err := a.Registry.Composition(r.Context(), pathParam(r, "name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.record(w, r, c, http.StatusOK)
}

// record validates a stored composition, records the validation and
// answers both.
func (a *Admin) record(w http.ResponseWriter, r *http.Request, c registry.Composition, status int) {
	parsed, res, err := a.validate(r, c.Definition)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	issues, err := json.Marshal(validationOf(res).Issues)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := registry.Validation{DefinitionDigest: c.Digest, Valid: res.Valid(), Issues: issues,
		Tools: toolRefs(parsed, res.Tools), ValidatedAt: a.now().UTC()}
	if err := a.Registry.RecordValidation(r.Context(), c.Name, v); err != nil {
		if errors.Is(err, registry.ErrConflict) {
			a.fail(w, r, problem(http.StatusConflict, "the composition changed while it was validated; try again"))
			return
		}
		a.fail(w, r, err)
		return
	}
	c.Validation = &v
	a.refreshStale(r)
	writeJSON(w, status, map[string]any{"composition": compositionOf(c), "validation": validationOf(res)})
}

// toolRefs turns validated tools into registry references, pinned where a
// node of the composition named the version.
func toolRefs(c *composition.Composition, tools []composition.ToolRef) []registry.ToolRef {
	refs := make([]registry.ToolRef, len(tools))
	for i, t := range tools {
		server, name, _ := registry.SplitName(t.Name)
		refs[i] = registry.ToolRef{Server: server, Name: name, Version: t.Version, Digest: t.Digest}
		for _, n := range c.Nodes {
			_, nodeTool, _ := registry.SplitName(n.Tool)
			if n.Version != 0 && n.Version == t.Version && nodeTool == name {
				refs[i].Pinned = true
			}
		}
	}
	return refs
}

// refreshStale updates the stale-compositions gauge after a validation.
func (a *Admin) refreshStale(r *http.Request) {
	if a.Metrics == nil {
		return
	}
	if stale, err := a.Registry.StaleCompositions(r.Context()); err == nil {
		a.Metrics.CompositionsStale.Set(float64(len(stale)))
	}
}
