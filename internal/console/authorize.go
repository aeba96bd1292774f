package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/internal/users"
)

// PathAuthorize is the authorization endpoint, which the console serves.
const PathAuthorize = "/oauth2/authorize"

// Authorizer checks authorization requests (their query) and answers a
// person's decision with the redirect to the client; *oauth.Service
// implements it. A *grant.RequestError is a refused request.
type Authorizer interface {
	AuthorizationRequest(ctx context.Context, q url.Values) (*grant.Request, error)
	Approve(ctx context.Context, q url.Values, subject string, approver bool, shown string) (string, error)
	Deny(ctx context.Context, q url.Values) (string, error)
}

// The authorization endpoint's page: a person signs in (as to the
// console), sees what the client asks for (the client, where the answer
// goes, the audience, the composition drawn as the console draws it) and
// approves or denies. The request itself travels in the forms as its
// query, and is checked again in full on every post, so nothing is kept
// between the pages and a changed registry is noticed at the click.

func (c *console) authorizePage(w http.ResponseWriter, r *http.Request) {
	a, ok := c.authorization(w, r, r.URL.Query())
	if !ok {
		return
	}
	s, err := c.sessionOf(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	if s == nil {
		token := users.NewCSRF()
		c.setCookie(w, c.preSessionCookie(), token, 600)
		c.renderAuthorize(w, r, http.StatusOK, a, r.URL.RawQuery, map[string]any{"SignIn": true, "CSRF": token})
		return
	}
	c.renderConsent(w, r, http.StatusOK, a, r.URL.RawQuery, s, "")
}

// authorizePost is the sign-in, Approve or Deny of the page.
func (c *console) authorizePost(w http.ResponseWriter, r *http.Request) {
	raw := r.PostFormValue("request")
	q, err := url.ParseQuery(raw)
	if err != nil {
		http.Error(w, "the form's request is not a query string", http.StatusBadRequest)
		return
	}
	a, ok := c.authorization(w, r, q)
	if !ok {
		return
	}
	if r.PostFormValue("action") == "signin" {
		c.authorizeSignIn(w, r, a, raw)
		return
	}
	s, err := c.sessionOf(r)
	switch {
	case err != nil:
		c.fail(w, r, err)
		return
	case s == nil || !sameToken(r.PostFormValue("csrf"), s.CSRF):
		c.renderAuthorize(w, r, http.StatusForbidden, a, raw, map[string]any{"SignIn": true,
			"Problem": "The form is stale or forged (CSRF token mismatch): nothing was decided. Sign in and decide again."})
		return
	}
	var to string
	var refusal *grant.RequestError
	switch r.PostFormValue("action") {
	case "deny":
		to, err = c.cfg.Authorizer.Deny(r.Context(), q)
	case "approve":
		to, err = c.cfg.Authorizer.Approve(r.Context(), q, s.user.Name, s.user.Role == users.Approver, r.PostFormValue("digest"))
	default:
		http.Error(w, "action must be signin, approve or deny", http.StatusBadRequest)
		return
	}
	switch {
	case errors.Is(err, grant.ErrConsentStale), errors.Is(err, grant.ErrNeedsApprover), errors.Is(err, grant.ErrNotConsentable):
		c.renderConsent(w, r, http.StatusConflict, a, raw, s, "Not approved: "+err.Error()+".")
	case errors.As(err, &refusal):
		c.refused(w, r, refusal) // the server failed after the request was checked: the client is told
	case err != nil:
		c.fail(w, r, err) // the request was checked just above: what fails now is the server
	default:
		http.Redirect(w, r, to, http.StatusSeeOther)
	}
}

// authorizeSignIn signs the person in as the console's sign-in does,
// then shows the request again.
func (c *console) authorizeSignIn(w http.ResponseWriter, r *http.Request, a *grant.Request, raw string) {
	failure, err := c.signInAttempt(w, r)
	switch {
	case err != nil:
		c.fail(w, r, err)
	case failure != nil:
		if failure.csrf == "" { // a stale form: a fresh one, on this page
			failure.csrf = users.NewCSRF()
			c.setCookie(w, c.preSessionCookie(), failure.csrf, 600)
		}
		c.renderAuthorize(w, r, failure.status, a, raw, map[string]any{"SignIn": true, "CSRF": failure.csrf, "Error": failure.problem})
	default:
		http.Redirect(w, r, PathAuthorize+"?"+raw, http.StatusSeeOther)
	}
}

// authorization checks the request; on a refusal it answers: a page when
// the client or its redirect URI is not valid, else the redirect with
// the error.
func (c *console) authorization(w http.ResponseWriter, r *http.Request, q url.Values) (*grant.Request, bool) {
	a, err := c.cfg.Authorizer.AuthorizationRequest(r.Context(), q)
	var re *grant.RequestError
	switch {
	case errors.As(err, &re):
		c.refused(w, r, re)
		return nil, false
	case err != nil:
		c.fail(w, r, err)
		return nil, false
	}
	return a, true
}

// refused answers a refused request: the redirect with the error when
// there is one (a server failure behind it logged), else the page.
func (c *console) refused(w http.ResponseWriter, r *http.Request, re *grant.RequestError) {
	if re.Cause != nil {
		c.cfg.Log.ErrorContext(r.Context(), "authorization request failed", "err", re.Cause, "answered", re.Code)
	}
	if re.Redirect != "" {
		http.Redirect(w, r, re.Redirect, http.StatusSeeOther)
		return
	}
	c.render(w, r, http.StatusBadRequest, "authorize", map[string]any{"Failure": re})
}

func (c *console) renderConsent(w http.ResponseWriter, r *http.Request, status int, a *grant.Request, raw string, s *session, problem string) {
	approver := s.user.Role == users.Approver
	c.renderAuthorize(w, r, status, a, raw, map[string]any{"User": s.user, "CSRF": s.CSRF, "Problem": problem,
		"IsApprover": approver, "UserRole": string(s.user.Role),
		"CanApprove": a.Refusal == nil && (!a.NeedsApprover || approver)})
}

// renderAuthorize draws the request onto the page with data. The page's
// forms post here, and the Approve or Deny that follows redirects to the
// client: its origin joins form-action, which governs that redirect.
func (c *console) renderAuthorize(w http.ResponseWriter, r *http.Request, status int, a *grant.Request, raw string, data map[string]any) {
	u, _ := url.Parse(a.RedirectURI) // one the client registered: it parses
	data["ClientName"], data["ClientID"], data["RedirectHost"], data["RedirectURI"] = a.ClientName, a.ClientID, u.Host, a.RedirectURI
	data["AllLoopback"] = clients.AllLoopback(a.ClientRedirects)
	data["Audience"], data["Scopes"], data["Refresh"], data["Tools"], data["Digest"] = a.Audience, a.Scopes, a.Refresh, a.Tools, a.Digest
	data["Refusal"], data["NeedsApprover"], data["Request"], data["Action"] = a.Refusal, a.NeedsApprover, raw, PathAuthorize
	if a.Details != "" {
		data["Graph"] = c.draw.fromDetails(r.Context(), a.Details, a.Validation)
	}
	w.Header().Set("Content-Security-Policy", authorizeCSP(u.Scheme+"://"+u.Host))
	c.render(w, r, status, "authorize", data)
}

// authorizeCSP is the console's policy with the client's origin among
// the form targets (it was matched against the client's registration).
func authorizeCSP(origin string) string {
	return "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' " + origin +
		"; frame-ancestors 'none'; base-uri 'none'"
}
