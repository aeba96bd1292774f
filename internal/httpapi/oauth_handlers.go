package httpapi

import (
	"log/slog"
	"mime"
	"net/http"
	"net/url"

	"github.com/typeward/typeward/internal/oauth"
)

// oauthHandlers serves the token, introspection and revocation endpoints:
// decode the form, call the oauth.Service, encode.
type oauthHandlers struct {
	svc *oauth.Service
	log *slog.Logger
}

func (h *oauthHandlers) token(w http.ResponseWriter, r *http.Request) {
	form, ok := h.form(w, r)
	if !ok {
		return
	}
	resp, err := h.svc.Token(oauth.WithRemoteAddr(r.Context(), r.RemoteAddr), form, r.Header.Get("Authorization"))
	if err != nil {
		writeOAuthError(w, r, h.log, err)
		return
	}
	writeOAuthJSON(w, http.StatusOK, resp)
}

func (h *oauthHandlers) backchannel(w http.ResponseWriter, r *http.Request) {
	form, ok := h.form(w, r)
	if !ok {
		return
	}
	resp, err := h.svc.BackchannelAuthorize(r.Context(), form, r.Header.Get("Authorization"))
	if err != nil {
		writeOAuthError(w, r, h.log, err)
		return
	}
	writeOAuthJSON(w, http.StatusOK, resp)
}

func (h *oauthHandlers) introspect(w http.ResponseWriter, r *http.Request) {
	form, ok := h.form(w, r)
	if !ok {
		return
	}
	resp, err := h.svc.Introspect(oauth.WithRemoteAddr(r.Context(), r.RemoteAddr), form, r.Header.Get("Authorization"))
	if err != nil {
		writeOAuthError(w, r, h.log, err)
		return
	}
	writeOAuthJSON(w, http.StatusOK, resp)
}

func (h *oauthHandlers) revoke(w http.ResponseWriter, r *http.Request) {
	form, ok := h.form(w, r)
	if !ok {
		return
	}
	if err := h.svc.Revoke(oauth.WithRemoteAddr(r.Context(), r.RemoteAddr), form, r.Header.Get("Authorization")); err != nil {
		writeOAuthError(w, r, h.log, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// form reads an application/x-www-form-urlencoded body. Parameters in the
// query string are refused: credentials there would end up in logs.
func (h *oauthHandlers) form(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	fail := func(status int, desc string) (url.Values, bool) {
		writeOAuthJSON(w, status, oauthBody{Error: oauth.CodeInvalidRequest, Description: desc})
		return nil, false
	}
	if r.URL.RawQuery != "" {
		return fail(http.StatusBadRequest, "parameters belong in the form body, not the query string")
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return fail(http.StatusUnsupportedMediaType, "Content-Type must be application/x-www-form-urlencoded")
	}
	if err := r.ParseForm(); err != nil {
		if tooLarge(err) {
			w.Header().Set("Connection", "close")
			return fail(http.StatusRequestEntityTooLarge, "request body too large")
		}
		return fail(http.StatusBadRequest, "the form body does not parse")
	}
	return r.PostForm, true
}

// refuseLargeOAuth answers a declared body over the limit.
func refuseLargeOAuth(w http.ResponseWriter, _ *http.Request) {
	writeOAuthJSON(w, http.StatusRequestEntityTooLarge, oauthBody{Error: oauth.CodeInvalidRequest, Description: "request body too large"})
}
