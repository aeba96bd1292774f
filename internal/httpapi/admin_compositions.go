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

func compositionOf(e composition.Entry) compositionJSON {
	c := e.Composition
	out := compositionJSON{Name: c.Name, Definition: c.Definition, Digest: c.Digest, UpdatedAt: c.UpdatedAt, Stale: e.Stale}
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
	res, err := a.Compositions.Check(r.Context(), body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, validationOf(res, mode))
}

// putComposition stores a definition and answers it with its validation.
func (a *Admin) putComposition(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	e, res, err := a.Compositions.Put(r.Context(), pathParam(r, "name"), body)
	a.recorded(w, r, e, res, err)
}

func (a *Admin) getComposition(w http.ResponseWriter, r *http.Request) {
	e, err := a.Compositions.Get(r.Context(), pathParam(r, "name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, compositionOf(e))
}

func (a *Admin) listCompositions(w http.ResponseWriter, r *http.Request) {
	list, err := a.Compositions.List(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]compositionJSON, len(list))
	for i, e := range list {
		out[i] = compositionOf(e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"compositions": out})
}

// revalidateComposition validates a stored composition against the
// registry as it is now and records the result.
func (a *Admin) revalidateComposition(w http.ResponseWriter, r *http.Request) {
	e, res, err := a.Compositions.Revalidate(r.Context(), pathParam(r, "name"))
	a.recorded(w, r, e, res, err)
}

// recorded answers a recorded validation: the composition as stored and
// the validation, graded lenient.
func (a *Admin) recorded(w http.ResponseWriter, r *http.Request, e composition.Entry, res *composition.Result, err error) {
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"composition": compositionOf(e), "validation": validationOf(res, grading.Lenient)})
}
