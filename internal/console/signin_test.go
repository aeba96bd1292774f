package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/console"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/users"
)

// TestSignInLockoutIsPerAddress, over HTTP: twelve wrong passwords for
// an approver from one address get that address 429 with Retry-After;
// the approver's correct password from another address signs in (303 to
// the approvals), where it got 429 when failures backed off per user
// whatever the address.
func TestSignInLockoutIsPerAddress(t *testing.T) {
	store := memory.NewUsers()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	const password = "correct horse battery staple"
	if err := users.Add(context.Background(), store, "alice", password, users.Approver, now); err != nil {
		t.Fatal(err)
	}
	h := console.New(console.Config{Users: store, Now: func() time.Time { return now }})
	signIn := func(remote, pw string) *httptest.ResponseRecorder {
		form := url.Values{"csrf": {"pre-session"}, "username": {"alice"}, "password": {pw}}
		r := httptest.NewRequest(http.MethodPost, console.Prefix+"/signin", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: "typeward_signin", Value: "pre-session"})
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	codes := map[int]int{}
	var last *httptest.ResponseRecorder
	for range 12 {
		last = signIn("203.0.113.7:40000", "a wrong password")
		codes[last.Code]++
	}
	if codes[http.StatusUnauthorized] == 0 || codes[http.StatusTooManyRequests] == 0 {
		t.Errorf("12 wrong passwords from one address: %v, want 401s then 429s", codes)
	}
	if s, err := strconv.Atoi(last.Header().Get("Retry-After")); last.Code != http.StatusTooManyRequests || err != nil || s < 1 {
		t.Errorf("last failure: %d, Retry-After %q", last.Code, last.Header().Get("Retry-After"))
	}
	if w := signIn("203.0.113.7:40001", password); w.Code != http.StatusTooManyRequests {
		t.Errorf("the right password from the guessing address: %d, want 429", w.Code)
	}
	w := signIn("198.51.100.1:50000", password)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != console.Prefix+"/approvals" {
		t.Fatalf("the approver from another address: %d %s, want 303 to the approvals", w.Code, w.Body)
	}
}

// TestSignInFormCookieIsHostOnlyWhenSecure, over HTTP: on an https
// issuer the sign-in form's CSRF cookie is __Host- (Secure, Path=/, no
// Domain), as the session cookie is. A plain typeward_signin cookie, which
// a sibling subdomain or an http page of the host can plant with a token
// it knows, no longer passes the double-submit check: that was a login
// CSRF, signing a person into the planter's account.
func TestSignInFormCookieIsHostOnlyWhenSecure(t *testing.T) {
	store := memory.NewUsers()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	const password = "correct horse battery staple"
	if err := users.Add(context.Background(), store, "mallory", password, users.Approver, now); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(console.New(console.Config{Users: store, Secure: true, Now: func() time.Time { return now }}))
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(srv.URL + console.Prefix + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	set := resp.Header.Get("Set-Cookie")
	if !strings.HasPrefix(set, "__Host-typeward_signin=") || !strings.Contains(set, "Secure") || !strings.Contains(set, "Path=/") {
		t.Errorf("sign-in form cookie %q, want __Host-typeward_signin, Secure, Path=/", set)
	}
	form := url.Values{"csrf": {"planted"}, "username": {"mallory"}, "password": {password}}
	r, _ := http.NewRequest(http.MethodPost, srv.URL+console.Prefix+"/signin", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.AddCookie(&http.Cookie{Name: "typeward_signin", Value: "planted"})
	resp, err = client.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("sign-in with a planted form cookie: %d %q, want 403 and no session", resp.StatusCode, resp.Header.Get("Set-Cookie"))
	}
}
