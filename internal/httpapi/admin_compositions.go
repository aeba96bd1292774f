package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// validationJSON is the outcome of validating a composition, graded
// under one validation mode.
type validationJSON struct {
	Valid      bool                  `json:"valid"`
	Validation grading.Mode          `json:"validation"`
	Digest     string                `json:"digest"`
	Tools      []composition.ToolRef `json:"tools"`
	Edges      []composition.EdgeRef `json:"edges"`
	Issues     []verdict.Issue       `json:"issues"`
}

func validationOf(res *composition.Result, m grading.Mode) validationJSON {
	res = res.Under(m)
	issues := res.Issues
	if issues == nil {
		issues = []verdict.Issue{}
	}
	return validationJSON{Valid: res.Valid(), Validation: m, Digest: res.Digest, Tools: res.Tools, Edges: res.Edges, Issues: issues}
}

// compositionJSON is a stored composition and its latest validation.
type compositionJSON struct {
	Name       string                `json:"name"`
	Definition json.RawMessage       `json:"definition"`
	Digest     string                `json:"digest"`
	UpdatedAt  time.Time             `json:"updated_at"`
	Validation *storedValidationJSON `json:"validation,omitempty"`
	// Stale: the validation no longer stands (never validated, or a tool
	// or stored composition it used has changed since), so its valid says
	// nothing about the registry as it is; revalidate to know.
	Stale bool `json:"stale"`
}

// storedValidationJSON is the recorded validation of a stored composition.
type storedValidationJSON struct {
	DefinitionDigest string             `json:"definition_digest"`
	Valid            bool               `json:"valid"`
	Issues           json.RawMessage    `json:"issues"`
	Tools            []registry.ToolRef `json:"tools"`
	// Compositions are the stored compositions it flattened, with the
	// digests of their definitions then.
	Compositions []registry.CompositionRef `json:"compositions"`
	ValidatedAt  time.Time                 `json:"validated_at"`
}

func compositionOf(c registry.Composition, stale map[string]bool) compositionJSON {
	out := compositionJSON{Name: c.Name, Definition: c.Definition, Digest: c.Digest, UpdatedAt: c.UpdatedAt, Stale: stale[c.Name]}
	if v := c.Validation; v != nil {
		subs := v.Compositions
		if subs == nil {
			subs = []registry.CompositionRef{}
		}
		out.Validation = &storedValidationJSON{DefinitionDigest: v.DefinitionDigest, Valid: v.Valid, Issues: v.Issues,
			Tools: v.Tools, Compositions: subs, ValidatedAt: v.ValidatedAt}
	}
	return out
}

// staleNames is the set of stored compositions whose validation no longer
// stands, read after the compositions answered, so that a change between
// the two reads shows as stale rather than hides.
func (a *Admin) staleNames(r *http.Request) (map[string]bool, error) {
	list, err := a.Registry.StaleCompositions(r.Context())
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(list))
	for _, c := range list {
		out[c.Name] = true
	}
	return out, nil
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

// validateComposition is the dry run: validate, store nothing. The body
// is the definition itself, so the validation mode to grade it under
// (a client's, to see what that client would be answered) is the query
// parameter validation, lenient by default.
func (a *Admin) validateComposition(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if len(q["validation"]) > 1 {
		a.fail(w, r, badRequest("validation may be given once"))
		return
	}
	mode, err := grading.ParseMode(q.Get("validation"))
	if err != nil {
		a.fail(w, r, badRequest(err.Error()))
		return
	}
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
	writeJSON(w, http.StatusOK, validationOf(res, mode))
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
	stale, err := a.staleNames(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, compositionOf(c, stale))
}

func (a *Admin) listCompositions(w http.ResponseWriter, r *http.Request) {
	list, err := a.Registry.ListCompositions(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	stale, err := a.staleNames(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]compositionJSON, len(list))
	for i, c := range list {
		out[i] = compositionOf(c, stale)
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
	rec, err := composition.Record(r.Context(), a.Registry, a.Validator, c)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	stale, err := a.staleNames(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, map[string]any{"composition": compositionOf(rec.Composition, stale), "validation": validationOf(rec.Result, grading.Lenient)})
}
