// Package console is the operator console typeward serves at /console:
// people sign in, approve or deny backchannel requests next to a drawing
// of their composition, and watch issuance. Pages are html/template
// (auto-escaped: every name, description and binding message is
// untrusted), everything is embedded, and a strict Content-Security-Policy
// forbids scripts and any asset from elsewhere.
package console

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/outage"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/users"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Prefix is where the console is mounted.
const Prefix = "/console"

// CSP allows nothing but this server's stylesheet and forms posting back
// to it: no script at all, no frames, no remote asset.
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Requests reads what a pending request asks for; *oauth.Service
// implements it.
type Requests interface {
	// RequestedComposition is the composition document an
	// authorization_details parameter names: inline, or a stored
	// composition's definition.
	RequestedComposition(ctx context.Context, details string) (json.RawMessage, error)
}

// Config is every dependency of the console.
type Config struct {
	Users     users.Store
	Approvals approval.Store
	Clients   clients.Getter
	Registry  registry.Store
	Validator composition.Validates
	Requests  Requests
	Audit     audit.Store
	// Revalidator checks a composition again when a person approves it.
	Revalidator approval.Revalidator
	// Authorizer answers the authorization endpoint's page (nil: none).
	Authorizer Authorizer
	// SignIns throttles failed sign-ins per (user, address) and per
	// address (nil: a throttle of the console's own).
	SignIns *users.Throttle
	// Secure marks cookies Secure (the issuer is https).
	Secure bool
	Log    *slog.Logger
	Now    func() time.Time
}

type console struct {
	cfg   Config
	pages map[string]*template.Template
	draw  *drawer
}

// New returns the console's handler, to mount at Prefix.
func New(cfg Config) http.Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.SignIns == nil {
		cfg.SignIns = users.NewThrottle()
	}
	c := &console{cfg: cfg, pages: map[string]*template.Template{},
		draw: &drawer{validator: cfg.Validator, requests: cfg.Requests, registry: cfg.Registry}}
	funcs := template.FuncMap{"time": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }}
	for _, page := range []string{"signin", "approvals", "activity", "authorize"} {
		c.pages[page] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html",
			"templates/graph.html", "templates/signinform.html", "templates/"+page+".html"))
	}
	static, _ := fs.Sub(staticFS, "static")
	mux := http.NewServeMux()
	mux.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", http.FileServerFS(static)))
	home := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"/approvals", http.StatusSeeOther)
	}
	mux.HandleFunc("GET "+Prefix+"/{$}", home)
	mux.HandleFunc("GET "+Prefix, home)
	if cfg.Authorizer != nil {
		mux.HandleFunc("GET "+PathAuthorize, c.authorizePage)
		mux.HandleFunc("POST "+PathAuthorize, c.authorizePost)
	}
	mux.HandleFunc("GET "+Prefix+"/signin", c.signinPage)
	mux.HandleFunc("POST "+Prefix+"/signin", c.signin)
	mux.HandleFunc("POST "+Prefix+"/signout", c.withSession(c.signout))
	mux.HandleFunc("GET "+Prefix+"/approvals", c.withSession(c.approvals))
	mux.HandleFunc("POST "+Prefix+"/approvals/{id}", c.withSession(c.decide))
	mux.HandleFunc("GET "+Prefix+"/activity", c.withSession(c.activity))
	return secureHeaders(mux)
}

func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		next.ServeHTTP(w, r)
	})
}

// session is the signed-in person of a request.
type session struct {
	*users.Session
	user *users.User
}

func (c *console) cookieName() string {
	if c.cfg.Secure {
		return "__Host-typeward_session"
	}
	return "typeward_session"
}

// preSessionCookie is the sign-in form's CSRF cookie, __Host- on https
// as the session's is: a cookie another host of the site (or an http page
// of this one) planted with a token it knows must not pass the
// double-submit check, or it could sign a person into its own account.
func (c *console) preSessionCookie() string {
	if c.cfg.Secure {
		return "__Host-typeward_signin"
	}
	return "typeward_signin"
}

func (c *console) setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: c.cfg.Secure, SameSite: http.SameSiteStrictMode})
}

// sessionOf is the request's signed-in person, nil when there is none.
func (c *console) sessionOf(r *http.Request) (*session, error) {
	ck, err := r.Cookie(c.cookieName())
	if err != nil || len(ck.Value) > 100 {
		return nil, nil
	}
	sess, err := c.cfg.Users.Session(r.Context(), users.HashToken(ck.Value), c.cfg.Now())
	if errors.Is(err, users.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	u, err := c.cfg.Users.Get(r.Context(), sess.User)
	if err != nil {
		return nil, err
	}
	return &session{Session: sess, user: u}, nil
}

func (c *console) withSession(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := c.sessionOf(r)
		if err != nil {
			c.fail(w, r, err)
			return
		} else if s == nil {
			http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost && !sameToken(r.PostFormValue("csrf"), s.CSRF) {
			c.render(w, r, http.StatusForbidden, "signin", map[string]any{"Error": "The form is stale or forged (CSRF token mismatch); reload the page."})
			return
		}
		h(w, r, s)
	}
}

func sameToken(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// fail answers a store failure: 503 with Retry-After when the database is
// out (the person should retry, as the API's clients are told), 500 otherwise.
func (c *console) fail(w http.ResponseWriter, r *http.Request, err error) {
	if outage.Is(err) {
		c.cfg.Log.WarnContext(r.Context(), "console unavailable", "err", err, "path", r.URL.Path)
		w.Header().Set("Retry-After", strconv.Itoa(outage.RetryAfter))
		http.Error(w, "the database is unavailable; try again in a moment", http.StatusServiceUnavailable)
		return
	}
	c.cfg.Log.ErrorContext(r.Context(), "console failed", "err", err, "path", r.URL.Path)
	http.Error(w, "internal error; see the server log", http.StatusInternalServerError)
}

func (c *console) render(w http.ResponseWriter, r *http.Request, status int, page string, data map[string]any) {
	data["Page"] = page
	var buf strings.Builder
	if err := c.pages[page].Execute(&buf, data); err != nil {
		c.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
}

func (c *console) signinPage(w http.ResponseWriter, r *http.Request) {
	token := users.NewCSRF()
	c.setCookie(w, c.preSessionCookie(), token, 600)
	c.render(w, r, http.StatusOK, "signin", map[string]any{"CSRF": token})
}

// signin is the console's sign-in form's post.
func (c *console) signin(w http.ResponseWriter, r *http.Request) {
	failure, err := c.signInAttempt(w, r)
	switch {
	case err != nil:
		c.fail(w, r, err)
	case failure != nil:
		c.render(w, r, failure.status, "signin", map[string]any{"CSRF": failure.csrf, "Error": failure.problem})
	default:
		http.Redirect(w, r, Prefix+"/approvals", http.StatusSeeOther)
	}
}

// signInFailure is what a refused sign-in shows: its status, the problem,
// and the CSRF token the form shown again carries ("" when the form was
// stale or forged: it has to be loaded afresh).
type signInFailure struct {
	status  int
	problem string
	csrf    string
}

// signInAttempt checks a sign-in form's CSRF token against the
// pre-session cookie (so another site cannot sign a browser in), then the
// password under the throttle: per (user, address), per address
// (r.RemoteAddr, which the router has set from X-Forwarded-For behind a
// trusted proxy) and per user. On success it sets the session cookie. The
// console's sign-in page and the authorization page both post here.
func (c *console) signInAttempt(w http.ResponseWriter, r *http.Request) (*signInFailure, error) {
	pre, err := r.Cookie(c.preSessionCookie())
	if err != nil || !sameToken(r.PostFormValue("csrf"), pre.Value) {
		return &signInFailure{status: http.StatusForbidden, problem: "The sign-in form is stale or forged (CSRF token mismatch); reload the page."}, nil
	}
	sess, token, err := users.SignIn(r.Context(), c.cfg.Users, c.cfg.SignIns, r.PostFormValue("username"), r.PostFormValue("password"),
		r.RemoteAddr, c.cfg.Now())
	var te *users.ThrottledError
	switch {
	case errors.As(err, &te):
		w.Header().Set("Retry-After", retryAfter(te.RetryAt.Sub(c.cfg.Now())))
		return &signInFailure{status: http.StatusTooManyRequests, csrf: pre.Value,
			problem: "Too many failed sign-ins: wait " + retryAfter(te.RetryAt.Sub(c.cfg.Now())) + " s before trying again."}, nil
	case errors.Is(err, users.ErrBadCredentials):
		return &signInFailure{status: http.StatusUnauthorized, csrf: pre.Value, problem: "Wrong user name or password."}, nil
	case err != nil:
		return nil, err
	}
	c.setCookie(w, c.preSessionCookie(), "", -1)
	c.setCookie(w, c.cookieName(), token, int(sess.ExpiresAt.Sub(sess.CreatedAt)/time.Second))
	return nil, nil
}

func retryAfter(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	return itoa(max(s, 1))
}

func (c *console) signout(w http.ResponseWriter, r *http.Request, s *session) {
	if err := c.cfg.Users.DeleteSession(r.Context(), s.TokenHash); err != nil {
		c.fail(w, r, err)
		return
	}
	c.setCookie(w, c.cookieName(), "", -1)
	http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
}
