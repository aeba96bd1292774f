package httpapi

import (
	"io"
	"log/slog"
	"mime"
	"net/http"
	"time"

	"github.com/typeward/typeward/internal/oauth"
	"github.com/typeward/typeward/internal/registration"
)

// maxRegistrationBody bounds a registration's metadata: far above any
// real host's.
const maxRegistrationBody = 64 << 10

type registerHandler struct {
	svc *oauth.Registrar
	log *slog.Logger
}

// register is RFC 7591 dynamic client registration. Off, the endpoint
// does not exist.
func (h *registerHandler) register(w http.ResponseWriter, r *http.Request) {
	if h.svc == nil || h.svc.Mode == registration.Off {
		writeOAuthJSON(w, http.StatusNotFound, map[string]string{"error": "not_found"})
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeOAuthError(w, r, h.log, &oauth.Error{Kind: oauth.KindBadRequest, Code: oauth.CodeInvalidClientMetadata,
			Description: "the metadata must be sent as application/json"})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBody))
	if err != nil {
		writeOAuthError(w, r, h.log, &oauth.Error{Kind: oauth.KindBadRequest, Code: oauth.CodeInvalidClientMetadata,
			Description: "the metadata is larger than 64 KiB or was not received whole"})
		return
	}
	resp, err := h.svc.Register(r.Context(), body, r.RemoteAddr, r.Header.Get("Authorization"))
	if err != nil {
		if e := oauth.AsError(err); e.Code == oauth.CodeInvalidToken {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		}
		writeOAuthError(w, r, h.log, err)
		return
	}
	writeOAuthJSON(w, http.StatusCreated, resp)
}

// createRegistrationToken makes an initial access token for
// --registration token: {"expires_in": seconds} (default a day).
func (a *Admin) createRegistrationToken(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ExpiresIn int64 `json:"expires_in"`
	}
	if r.ContentLength != 0 {
		if err := readJSON(r, &in, true); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	if in.ExpiresIn < 0 || in.ExpiresIn > int64(oauth.MaxAccessTokenTTL/time.Second) {
		a.fail(w, r, badRequest("expires_in must be from 60 to 2592000 seconds"))
		return
	}
	token, exp, err := a.Registration.NewToken(r.Context(), time.Duration(in.ExpiresIn)*time.Second)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store") // the token must not be cached anywhere
	writeJSON(w, http.StatusCreated, map[string]any{"token": token, "expires_at": exp})
}
