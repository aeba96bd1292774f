package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/keys"
)

func (a *Admin) listKeys(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"keys": a.Keys.Keys()})
}

// rotateRequest is the optional body of a rotation.
type rotateRequest struct {
	Alg       string `json:"alg"`
	Emergency bool   `json:"emergency"`
}

// rotateKeys creates the next signing key: published now, signing once
// every verifier's cached JWKS has it (at once for an emergency).
func (a *Admin) rotateKeys(w http.ResponseWriter, r *http.Request) {
	var req rotateRequest
	if r.ContentLength != 0 {
		if err := readJSON(r, &req, true); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	var alg keys.Alg
	if req.Alg != "" {
		parsed, err := keys.ParseAlg(req.Alg)
		if err != nil {
			a.fail(w, r, badRequest(err.Error()))
			return
		}
		alg = parsed
	}
	rec, err := a.Keys.Rotate(r.Context(), keys.RotateOptions{Alg: alg, Emergency: req.Emergency})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	info := keys.Describe([]keys.Record{rec}, a.now())[0]
	writeJSON(w, http.StatusCreated, info)
}

// queryIssuances pages through the audit log, newest first.
func (a *Admin) queryIssuances(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := audit.Query{ClientID: q.Get("client_id"), Cursor: q.Get("cursor")}
	if o := q.Get("outcome"); o != "" {
		outcome, err := audit.ParseOutcome(o)
		if err != nil {
			a.fail(w, r, badRequest(err.Error()))
			return
		}
		query.Outcome = outcome
	}
	if s := q.Get("since"); s != "" {
		since, err := time.Parse(time.RFC3339, s)
		if err != nil {
			a.fail(w, r, badRequest("since must be an RFC 3339 time"))
			return
		}
		query.Since = since
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > audit.MaxLimit {
			a.fail(w, r, badRequest("limit must be an integer from 1 to "+strconv.Itoa(audit.MaxLimit)))
			return
		}
		query.Limit = n
	}
	page, err := a.Audit.Query(r.Context(), query)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if page.Items == nil {
		page.Items = []audit.Issuance{}
	}
	writeJSON(w, http.StatusOK, page)
}
