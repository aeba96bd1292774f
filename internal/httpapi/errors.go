package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/typeward/typeward/internal/oauth"
	"github.com/typeward/typeward/internal/ratelimit"
)

// Problem is an admin API error, written as RFC 9457
// application/problem+json. Extensions carry machine-readable detail
// (the issues of a refused composition, the problems of a registration).
type Problem struct {
	Status     int
	Title      string
	Detail     string
	Extensions map[string]any
	cause      error // logged, never written
	retryAfter int   // seconds, for a 429 or 503
}

func (p *Problem) Error() string {
	if p.cause != nil {
		return p.Title + ": " + p.Detail + ": " + p.cause.Error()
	}
	return p.Title + ": " + p.Detail
}

func (p *Problem) Unwrap() error { return p.cause }

func problem(status int, detail string) *Problem {
	return &Problem{Status: status, Title: http.StatusText(status), Detail: detail}
}

// internalProblem hides err from the answer and keeps it for the log.
func internalProblem(err error) *Problem {
	return &Problem{Status: http.StatusInternalServerError, Title: http.StatusText(http.StatusInternalServerError),
		Detail: "internal error; see the server log for the request id", cause: err}
}

// oauthStatus is the one place an OAuth error kind becomes a status.
func oauthStatus(e *oauth.Error) int {
	switch e.Kind {
	case oauth.KindBadRequest:
		return http.StatusBadRequest
	case oauth.KindUnauthorized:
		return http.StatusUnauthorized
	case oauth.KindForbidden:
		return http.StatusForbidden
	case oauth.KindRateLimited:
		return http.StatusTooManyRequests
	case oauth.KindUnavailable:
		return http.StatusServiceUnavailable
	case oauth.KindCanceled:
		return statusClientClosed
	}
	return http.StatusInternalServerError
}

// statusClientClosed is logged and counted for a request whose client hung
// up before the answer (nginx's 499): nobody receives it.
const statusClientClosed = 499

// oauthBody is the RFC 6749 §5.2 error answer, plus the issue list of a
// refused composition.
type oauthBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
	Issues      any    `json:"issues,omitempty"`
}

// writeOAuthError answers an OAuth endpoint's error. Server errors are
// logged with the request id and answered without their cause.
func writeOAuthError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	e := oauth.AsError(err)
	status := oauthStatus(e)
	switch status {
	case http.StatusInternalServerError:
		log.ErrorContext(r.Context(), "oauth endpoint failed", "err", err, "request_id", requestIDFrom(r.Context()))
		e = &oauth.Error{Kind: oauth.KindServer, Code: oauth.CodeServerError, Description: "internal error"}
	case http.StatusServiceUnavailable, statusClientClosed:
		// Not a bug: an outage fails every request alike, and a client
		// that hung up is its own business. The request line says enough.
		log.DebugContext(r.Context(), "oauth endpoint did not complete", "err", err, "request_id", requestIDFrom(r.Context()))
	}
	h := w.Header()
	if e.BasicChallenge {
		h.Set("WWW-Authenticate", `Basic realm="typeward", charset="UTF-8"`)
	}
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(e.RetryAfter)))
	}
	if e.DPoPNonce != "" {
		h.Set("DPoP-Nonce", e.DPoPNonce)
	}
	body := oauthBody{Error: e.Code, Description: e.Description}
	if len(e.Issues) > 0 {
		body.Issues = e.Issues
	}
	writeOAuthJSON(w, status, body)
}

// writeOAuthJSON writes an OAuth answer: never cached (RFC 6749 §5.1).
func writeOAuthJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, status, v)
}

// writeProblem answers an admin API error.
func writeProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var p *Problem
	if !errors.As(err, &p) {
		p = adminProblem(err)
	}
	if p.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(p.retryAfter))
	}
	switch {
	case p.Status == http.StatusServiceUnavailable:
		// An outage fails every request alike: the request log line and
		// the readiness probe say enough.
		log.DebugContext(r.Context(), "admin endpoint unavailable", "err", err, "request_id", requestIDFrom(r.Context()))
	case p.Status >= 500:
		log.ErrorContext(r.Context(), "admin endpoint failed", "err", err, "request_id", requestIDFrom(r.Context()))
	}
	body := map[string]any{"type": "about:blank", "title": p.Title, "status": p.Status, "instance": r.URL.Path}
	if p.Detail != "" {
		body["detail"] = p.Detail
	}
	for k, v := range p.Extensions {
		body[k] = v
	}
	if id := requestIDFrom(r.Context()); id != "" {
		body["request_id"] = id
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	encode(w, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	encode(w, v)
}

// encode writes v as JSON without HTML escaping: field paths read "a->b".
func encode(w http.ResponseWriter, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
