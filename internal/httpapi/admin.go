package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/oauth"
	"github.com/typeward/typeward/internal/outage"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/resources"
)

// KeyAdmin is the signing-key management the admin API exposes;
// *keys.Keyring implements it.
type KeyAdmin interface {
	Rotate(ctx context.Context, opts keys.RotateOptions) (keys.Record, error)
	Keys() []keys.Info
}

// Admin holds the admin API's dependencies.
type Admin struct {
	// Tokens verifies the bearer tokens: they must be typeward's own,
	// active, for the issuer, with scope typeward:admin.
	Tokens   *oauth.Service
	Registry registry.Store
	// Compositions is the stored compositions' service.
	Compositions *composition.Stored
	Clients      clients.Store
	Hasher       *clients.Hasher
	Keys         KeyAdmin
	Audit        audit.Store
	// Resources is the server's protected-resource list.
	Resources *resources.List
	// Registration makes initial access tokens (--registration token).
	Registration *oauth.Registrar
	Now          func() time.Time

	log *slog.Logger
}

func (a *Admin) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// authenticate admits a request whose bearer token typeward issued for
// itself with scope typeward:admin: 401 without a valid token (RFC 6750),
// 403 when the token lacks the scope.
func (a *Admin) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, raw, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || raw == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="typeward-admin"`)
			writeProblem(w, r, a.log, problem(http.StatusUnauthorized, "a bearer token with scope "+clients.AdminScope+" is required"))
			return
		}
		tok, err := a.Tokens.Active(r.Context(), strings.TrimSpace(raw))
		if err != nil {
			a.fail(w, r, err) // a store that does not answer is a 503, like any admin route's
			return
		}
		if tok == nil || !slices.Contains(tok.Audience, a.Tokens.Issuer) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="typeward-admin", error="invalid_token"`)
			writeProblem(w, r, a.log, problem(http.StatusUnauthorized, "the bearer token is invalid, expired, revoked or not for this server"))
			return
		}
		if !slices.Contains(tok.Scope, clients.AdminScope) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="typeward-admin", error="insufficient_scope", scope="`+clients.AdminScope+`"`)
			writeProblem(w, r, a.log, problem(http.StatusForbidden, "the bearer token lacks scope "+clients.AdminScope))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (a *Admin) refuseLarge(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, r, a.log, problem(http.StatusRequestEntityTooLarge, "request body too large"))
}

// fail writes err as a problem.
func (a *Admin) fail(w http.ResponseWriter, r *http.Request, err error) {
	writeProblem(w, r, a.log, err)
}

// adminProblem is the one place domain errors become admin API statuses.
// Anything unrecognised is internal and not echoed.
func adminProblem(err error) *Problem {
	var (
		decl  *registry.DeclarationError
		valid *clients.ValidationError
		parse *composition.ParseError
	)
	var refused *keys.RotationRefused
	switch {
	case errors.As(err, &refused):
		p := problem(http.StatusTooManyRequests, refused.Reason)
		if !refused.RetryAt.IsZero() {
			p.retryAfter = max(int(time.Until(refused.RetryAt).Seconds()+1), 1)
		}
		return p
	case outage.Is(err):
		p := problem(http.StatusServiceUnavailable, "a dependency of the server is unavailable; retry later")
		p.retryAfter, p.cause = outage.RetryAfter, err
		return p
	case tooLarge(err):
		return problem(http.StatusRequestEntityTooLarge, "request body too large")
	case errors.As(err, &decl):
		p := problem(http.StatusBadRequest, "the tool declaration is invalid")
		p.Extensions = map[string]any{"problems": decl.Problems}
		return p
	case errors.As(err, &valid):
		p := problem(http.StatusBadRequest, "invalid client metadata")
		p.Extensions = map[string]any{"error": "invalid_client_metadata", "problems": valid.Problems}
		return p
	case errors.As(err, &parse):
		return problem(http.StatusBadRequest, parse.Error())
	case errors.Is(err, registry.ErrNotFound), errors.Is(err, clients.ErrNotFound), errors.Is(err, resources.ErrNotFound), errors.Is(err, grant.ErrNotFound):
		return problem(http.StatusNotFound, err.Error())
	case errors.Is(err, registry.ErrConflict), errors.Is(err, clients.ErrConflict), errors.Is(err, resources.ErrConflict):
		return problem(http.StatusConflict, err.Error())
	case errors.Is(err, registry.ErrAmbiguous):
		return problem(http.StatusConflict, err.Error())
	case errors.Is(err, registry.ErrInvalidDeclaration), errors.Is(err, registry.ErrInvalidComposition),
		errors.Is(err, registry.ErrToolsFile), errors.Is(err, audit.ErrInvalidQuery), errors.Is(err, resources.ErrInvalid),
		errors.Is(err, oauth.ErrInvalidAccessTokenTTL):
		return problem(http.StatusBadRequest, err.Error())
	}
	return internalProblem(err)
}

// badRequest is a 400 problem with detail.
func badRequest(detail string) *Problem { return problem(http.StatusBadRequest, detail) }

// pathParam is a path parameter, unescaped: a qualified tool name's slash
// travels as %2F.
func pathParam(r *http.Request, key string) string {
	v := chi.URLParam(r, key)
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// readJSON decodes a JSON body into v, strictly (unknown members refused)
// when strict is set. A body over the limit is the reader's
// *http.MaxBytesError, which adminProblem answers 413.
func readJSON(r *http.Request, v any, strict bool) error {
	dec := json.NewDecoder(r.Body)
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		if tooLarge(err) {
			return err
		}
		return badRequest("the body is not the expected JSON: " + jsonReason(err))
	}
	if dec.More() {
		return badRequest("the body holds more than one JSON value")
	}
	return nil
}

// jsonReason words a decoding error without Go type names.
func jsonReason(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return "member " + typeErr.Field + " has the wrong JSON type " + typeErr.Value
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return "not JSON"
	}
	if errors.Is(err, io.EOF) {
		return "empty body"
	}
	return err.Error()
}
