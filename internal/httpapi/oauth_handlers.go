package httpapi

import (
	"context"
	"log/slog"
	"mime"
	"net/http"
	"net/url"

	"github.com/typeward/typeward/internal/oauth"
	"github.com/typeward/typeward/verify/dpop"
)

// oauthHandlers serves the token, introspection and revocation endpoints:
// decode the form, call the oauth.Service, encode.
type oauthHandlers struct {
	svc *oauth.Service
	log *slog.Logger
}

func (h *oauthHandlers) token(w http.ResponseWriter, r *http.Request) {
	r = r.WithContext(oauth.WithDPoPProofs(r.Context(), r.Header.Values(dpop.Header)))
	if resp, ok := call(h, w, r, h.svc.Token); ok {
		if resp.DPoPNonce != "" {
			w.Header().Set("DPoP-Nonce", resp.DPoPNonce)
		}
		writeOAuthJSON(w, http.StatusOK, resp)
	}
}

func (h *oauthHandlers) backchannel(w http.ResponseWriter, r *http.Request) {
	if resp, ok := call(h, w, r, h.svc.BackchannelAuthorize); ok {
		writeOAuthJSON(w, http.StatusOK, resp)
	}
}

func (h *oauthHandlers) introspect(w http.ResponseWriter, r *http.Request) {
	if resp, ok := call(h, w, r, h.svc.Introspect); ok {
		writeOAuthJSON(w, http.StatusOK, resp)
	}
}

func (h *oauthHandlers) revoke(w http.ResponseWriter, r *http.Request) {
	revoke := func(ctx context.Context, form url.Values, authorization string) (struct{}, error) {
		return struct{}{}, h.svc.Revoke(ctx, form, authorization)
	}
	if _, ok := call(h, w, r, revoke); ok {
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
	}
}

// call decodes the form and calls one endpoint of the Service with the
// Authorization header and the remote address, which every endpoint needs:
// each authenticates a client, and the per-address failure limit counts
// its failures. ok false: an error answer was written.
func call[T any](h *oauthHandlers, w http.ResponseWriter, r *http.Request,
	endpoint func(ctx context.Context, form url.Values, authorization string) (T, error)) (resp T, ok bool) {
	form, ok := h.form(w, r)
	if !ok {
		return resp, false
	}
	resp, err := endpoint(oauth.WithRemoteAddr(r.Context(), r.RemoteAddr), form, r.Header.Get("Authorization"))
	if err != nil {
		writeOAuthError(w, r, h.log, err)
		return resp, false
	}
	return resp, true
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
