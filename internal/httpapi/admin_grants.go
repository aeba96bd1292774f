package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/typeward/typeward/internal/grant"
)

// familyView is a refresh family as the admin API shows it: what a person
// consented to for a client, never a token.
type familyView struct {
	ID            string    `json:"id"`
	ClientID      string    `json:"client_id"`
	Subject       string    `json:"subject"`
	Audience      string    `json:"audience"`
	Scopes        []string  `json:"scopes"`
	Digest        string    `json:"composition_digest,omitempty"`
	Tools         []string  `json:"tools"`
	ConsentedAt   time.Time `json:"consented_at"`
	CreatedAt     time.Time `json:"created_at"`
	ExpiresAt     time.Time `json:"expires_at"`
	LastUsedAt    time.Time `json:"last_used_at"`
	Revoked       bool      `json:"revoked"`
	RevokedAt     time.Time `json:"revoked_at,omitzero"`
	RevokedReason string    `json:"revoked_reason,omitempty"`
}

func viewFamily(f *grant.Family) familyView {
	orEmpty := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return familyView{ID: f.ID, ClientID: f.ClientID, Subject: f.Subject, Audience: f.Audience, Scopes: orEmpty(f.Scopes),
		Digest: f.Digest, Tools: orEmpty(f.Tools), ConsentedAt: f.ConsentedAt, CreatedAt: f.CreatedAt, ExpiresAt: f.ExpiresAt,
		LastUsedAt: f.LastUsedAt, Revoked: !f.RevokedAt.IsZero(), RevokedAt: f.RevokedAt, RevokedReason: f.RevokedReason}
}

// listFamilies lists refresh families, per client (client_id=) and per
// person (subject=), newest first.
func (a *Admin) listFamilies(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 100
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > grant.MaxListed {
			a.fail(w, r, badRequest("limit must be 1 to "+strconv.Itoa(grant.MaxListed)))
			return
		}
		limit = n
	}
	f := grant.Filter{ClientID: q.Get("client_id"), Subject: q.Get("subject")}
	if len(f.ClientID) > 256 || len(f.Subject) > 256 {
		a.fail(w, r, badRequest("client_id and subject are at most 256 bytes"))
		return
	}
	list, err := a.Tokens.Grants.Store.Families(r.Context(), f, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]familyView, len(list))
	for i, fam := range list {
		out[i] = viewFamily(fam)
	}
	writeJSON(w, http.StatusOK, map[string]any{"families": out})
}

func (a *Admin) getFamily(w http.ResponseWriter, r *http.Request) {
	f, err := a.Tokens.Grants.Store.Family(r.Context(), pathParam(r, "id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, viewFamily(f))
}

// revokeFamily ends a refresh family and its latest access token: the
// person consents again to go on.
func (a *Admin) revokeFamily(w http.ResponseWriter, r *http.Request) {
	id := pathParam(r, "id")
	if err := a.Tokens.RevokeFamily(r.Context(), id, "revoked by an admin"); err != nil {
		a.fail(w, r, err)
		return
	}
	a.getFamily(w, r)
}
