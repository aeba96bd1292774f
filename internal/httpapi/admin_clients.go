package httpapi

import (
	"net/http"

	"github.com/typeward/typeward/internal/clients"
)

// createClient registers a client from RFC 7591-style metadata and answers
// 201 with its id and, this once, its secret.
func (a *Admin) createClient(w http.ResponseWriter, r *http.Request) {
	var reg clients.Registration
	if err := readJSON(r, &reg, true); err != nil {
		a.fail(w, r, err)
		return
	}
	reg.Issuer = a.Tokens.Issuer
	c, secret, err := clients.Register(r.Context(), a.Clients, a.Hasher, reg, a.now())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := clients.ViewOf(c)
	out.ClientSecret = secret
	w.Header().Set("Cache-Control", "no-store") // the secret must not be cached anywhere
	w.Header().Set("Location", r.URL.Path+"/"+c.ID)
	writeJSON(w, http.StatusCreated, out)
}

func (a *Admin) listClients(w http.ResponseWriter, r *http.Request) {
	list, err := a.Clients.List(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]clients.View, len(list))
	for i, c := range list {
		out[i] = clients.ViewOf(c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"clients": out})
}

func (a *Admin) getClient(w http.ResponseWriter, r *http.Request) {
	c, err := a.Clients.Get(r.Context(), pathParam(r, "id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, clients.ViewOf(c))
}

// updateClient applies a JSON merge patch of the client's policy fields.
func (a *Admin) updateClient(w http.ResponseWriter, r *http.Request) {
	var u clients.Update
	if err := readJSON(r, &u, true); err != nil {
		a.fail(w, r, err)
		return
	}
	c, err := clients.Apply(r.Context(), a.Clients, pathParam(r, "id"), u)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, clients.ViewOf(c))
}

// disableClient stops a client from authenticating; the tokens it holds
// become inactive (oauth.Service checks the client on every use).
func (a *Admin) disableClient(w http.ResponseWriter, r *http.Request) {
	id := pathParam(r, "id")
	if err := a.Clients.Disable(r.Context(), id); err != nil {
		a.fail(w, r, err)
		return
	}
	c, err := a.Clients.Get(r.Context(), id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, clients.ViewOf(c))
}
