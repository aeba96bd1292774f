package cimd_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/cimd"
	"github.com/typeward/typeward/internal/cimd/cimdtest"
)

// docServer serves documents on a real https server on 127.0.0.1 under
// the test CA; each handler gets the document URL its path makes.
type docServer struct {
	t    *testing.T
	ca   *cimdtest.CA
	base string
	mux  *http.ServeMux
	hits atomic.Int64
}

func newDocServer(t *testing.T) *docServer {
	s := &docServer{t: t, ca: cimdtest.NewCA(t), mux: http.NewServeMux()}
	srv := s.ca.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mux.ServeHTTP(w, r)
	}))
	s.base = srv.URL
	return s
}

// url is the document URL of path.
func (s *docServer) url(path string) string { return s.base + path }

// serveDoc serves a valid document for path with the given changes.
func (s *docServer) serveDoc(path string, edit func(map[string]any), header ...string) string {
	id := s.url(path)
	doc := map[string]any{"client_id": id, "client_name": "Test host", "redirect_uris": []string{"http://127.0.0.1/callback"},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}}
	if edit != nil {
		edit(doc)
	}
	body, _ := json.Marshal(doc)
	s.mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		_, _ = w.Write(body)
	})
	return id
}

func (s *docServer) fetcher(edit func(*cimd.Config)) *cimd.Fetcher {
	cfg := cimd.Config{RootCAs: s.ca.Pool(), AllowLoopback: true}
	if edit != nil {
		edit(&cfg)
	}
	return cimd.New(cfg)
}

func reasonOf(t *testing.T, err error) cimd.Reason {
	t.Helper()
	var e *cimd.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a *cimd.Error", err, err)
	}
	return e.Reason
}

func TestFetchAcceptsAValidDocumentAndCachesIt(t *testing.T) {
	s := newDocServer(t)
	id := s.serveDoc("/client.json", nil)
	f := s.fetcher(nil)
	for range 3 {
		d, err := f.Fetch(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if d.ClientID != id || d.ClientName != "Test host" || d.TokenEndpointAuthMethod != "none" ||
			len(d.RedirectURIs) != 1 || d.RedirectURIs[0] != "http://127.0.0.1/callback" {
			t.Fatalf("document = %+v", d)
		}
	}
	if n := s.hits.Load(); n != 1 {
		t.Errorf("three fetches made %d requests, want 1 (cached)", n)
	}
}

func TestCacheControlIsClampedTo5MinutesAnd24Hours(t *testing.T) {
	for _, tc := range []struct {
		cacheControl string
		fresh, stale time.Duration
	}{
		{"", 4 * time.Minute, 6 * time.Minute},
		{"max-age=1", 4 * time.Minute, 6 * time.Minute},
		{"no-store", 4 * time.Minute, 6 * time.Minute},
		{"max-age=3600", 59 * time.Minute, 61 * time.Minute},
		{"public, max-age=31536000", 23 * time.Hour, 25 * time.Hour},
	} {
		t.Run(tc.cacheControl, func(t *testing.T) {
			s := newDocServer(t)
			id := s.serveDoc("/c", nil, "Cache-Control", tc.cacheControl)
			now := time.Now()
			f := s.fetcher(func(c *cimd.Config) { c.Now = func() time.Time { return now } })
			ctx := context.Background()
			if _, err := f.Fetch(ctx, id); err != nil {
				t.Fatal(err)
			}
			now = now.Add(tc.fresh)
			if _, err := f.Fetch(ctx, id); err != nil || s.hits.Load() != 1 {
				t.Fatalf("after %s: err %v, %d requests; want the cached document", tc.fresh, err, s.hits.Load())
			}
			now = now.Add(tc.stale - tc.fresh)
			if _, err := f.Fetch(ctx, id); err != nil || s.hits.Load() != 2 {
				t.Fatalf("after %s: err %v, %d requests; want a second fetch", tc.stale, err, s.hits.Load())
			}
		})
	}
}

func TestFetchRefusesBadDocuments(t *testing.T) {
	s := newDocServer(t)
	big := strings.Repeat("x", cimd.DefaultMaxBytes)
	s.mux.HandleFunc("GET /redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/client.json", http.StatusFound)
	})
	s.serveDoc("/client.json", nil)
	// The slow handlers hold on until the test ends, whatever becomes of
	// the request: only the fetcher's own bound may end the wait.
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s.mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) { <-release })
	s.mux.HandleFunc("GET /slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"client_id":`))
		w.(http.Flusher).Flush()
		<-release
	})
	s.mux.HandleFunc("GET /huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"client_id":%q,"client_name":"x","redirect_uris":["http://127.0.0.1/cb"],"pad":%q}`, s.url("/huge"), big)
	})
	s.mux.HandleFunc("GET /huge-chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for range 70 {
			_, _ = w.Write([]byte(strings.Repeat(" ", 1024)))
			w.(http.Flusher).Flush()
		}
	})
	s.mux.HandleFunc("GET /html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>hello</html>"))
	})
	s.mux.HandleFunc("GET /notjson", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("<html>hello</html>"))
	})
	s.mux.HandleFunc("GET /missing", http.NotFound)
	s.serveDoc("/other", func(d map[string]any) { d["client_id"] = "https://attacker.example/client.json" })
	s.serveDoc("/trailing", func(d map[string]any) { d["client_id"] = s.url("/trailing/") })
	s.serveDoc("/noname", func(d map[string]any) { delete(d, "client_name") })
	s.serveDoc("/noredirects", func(d map[string]any) { delete(d, "redirect_uris") })
	s.serveDoc("/secret", func(d map[string]any) { d["token_endpoint_auth_method"] = "client_secret_basic" })
	s.serveDoc("/haskey", func(d map[string]any) { d["client_secret"] = "s3cret" })
	s.serveDoc("/nojwks", func(d map[string]any) { d["token_endpoint_auth_method"] = "private_key_jwt" })
	s.serveDoc("/bigjwks", func(d map[string]any) {
		d["token_endpoint_auth_method"], d["jwks_uri"] = "private_key_jwt", s.url("/huge")
	})
	s.serveDoc("/token", func(d map[string]any) { d["response_types"] = []string{"token"} })

	other := cimdtest.NewCA(t).Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"client_id":"https://%s/c","client_name":"x","redirect_uris":["http://127.0.0.1/cb"]}`, r.Host)
	}))

	for _, tc := range []struct {
		name, id string
		want     cimd.Reason
		config   func(*cimd.Config)
	}{
		{"redirect", s.url("/redirect"), cimd.ReasonRedirect, nil},
		{"slow to answer", s.url("/slow"), cimd.ReasonTimeout, func(c *cimd.Config) { c.Timeout = 300 * time.Millisecond }},
		{"slow body", s.url("/slow-body"), cimd.ReasonTimeout, func(c *cimd.Config) { c.Timeout = 300 * time.Millisecond }},
		{"huge", s.url("/huge"), cimd.ReasonTooLarge, nil},
		{"huge without length", s.url("/huge-chunked"), cimd.ReasonTooLarge, nil},
		{"html", s.url("/html"), cimd.ReasonContentType, nil},
		{"not json", s.url("/notjson"), cimd.ReasonNotJSON, nil},
		{"404", s.url("/missing"), cimd.ReasonStatus, nil},
		{"another client_id", s.url("/other"), cimd.ReasonClientID, nil},
		{"client_id not exactly the URL", s.url("/trailing"), cimd.ReasonClientID, nil},
		{"no client_name", s.url("/noname"), cimd.ReasonInvalid, nil},
		{"no redirect_uris", s.url("/noredirects"), cimd.ReasonInvalid, nil},
		{"a secret method", s.url("/secret"), cimd.ReasonInvalid, nil},
		{"a secret", s.url("/haskey"), cimd.ReasonInvalid, nil},
		{"private_key_jwt without jwks_uri", s.url("/nojwks"), cimd.ReasonInvalid, nil},
		{"huge jwks_uri", s.url("/bigjwks"), cimd.ReasonJWKS, nil},
		{"response type token", s.url("/token"), cimd.ReasonInvalid, nil},
		{"loopback when not allowed", s.url("/client.json"), cimd.ReasonAddress, func(c *cimd.Config) { c.AllowLoopback = false }},
		{"a name resolving to loopback", strings.Replace(s.url("/client.json"), "127.0.0.1", "localhost", 1), cimd.ReasonAddress,
			func(c *cimd.Config) { c.AllowLoopback = false }},
		{"private address", "https://10.0.0.1/client.json", cimd.ReasonAddress, nil},
		{"link-local (cloud metadata)", "https://169.254.169.254/latest/meta-data", cimd.ReasonAddress, nil},
		{"unspecified", "https://0.0.0.0:1/c", cimd.ReasonAddress, nil},
		{"multicast", "https://[ff02::1]/c", cimd.ReasonAddress, nil},
		{"mapped private", "https://[::ffff:192.168.1.1]/c", cimd.ReasonAddress, nil},
		{"another CA", other.URL + "/c", cimd.ReasonUnreachable, nil},
		{"untrusted domain", s.url("/client.json"), cimd.ReasonUntrustedDomain, func(c *cimd.Config) { c.TrustedDomains = []string{"example.com"} }},
		{"http", strings.Replace(s.url("/c"), "https://", "http://", 1), cimd.ReasonClientIDURL, nil},
		{"no path", s.url("/"), cimd.ReasonClientIDURL, nil},
		{"fragment", s.url("/client.json#x"), cimd.ReasonClientIDURL, nil},
		{"user info", strings.Replace(s.url("/c"), "https://", "https://u:p@", 1), cimd.ReasonClientIDURL, nil},
		{"dot segment", s.url("/a/../client.json"), cimd.ReasonClientIDURL, nil},
		{"too long", s.url("/" + strings.Repeat("a", cimd.MaxURLLen)), cimd.ReasonClientIDURL, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.hits.Load()
			_, err := s.fetcher(tc.config).Fetch(context.Background(), tc.id)
			if got := reasonOf(t, err); got != tc.want {
				t.Errorf("reason = %s (%v), want %s", got, err, tc.want)
			}
			if tc.want == cimd.ReasonAddress && s.hits.Load() != before {
				t.Errorf("a refused address was still requested")
			}
		})
	}
}

func TestTrustedDomainsAdmitTheirSubdomains(t *testing.T) {
	s := newDocServer(t)
	id := s.serveDoc("/c", nil)
	f := s.fetcher(func(c *cimd.Config) { c.TrustedDomains = []string{"127.0.0.1"} })
	if _, err := f.Fetch(context.Background(), id); err != nil {
		t.Fatalf("a trusted host was refused: %v", err)
	}
}

func TestPrivateKeyJWTFetchesTheKeys(t *testing.T) {
	s := newDocServer(t)
	jwks := `{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","use":"sig","alg":"ES256"}]}`
	s.mux.HandleFunc("GET /jwks.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(jwks))
	})
	id := s.serveDoc("/c", func(d map[string]any) {
		d["token_endpoint_auth_method"], d["jwks_uri"] = "private_key_jwt", s.url("/jwks.json")
	})
	d, err := s.fetcher(nil).Fetch(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if string(d.JWKS) != jwks {
		t.Errorf("JWKS = %s", d.JWKS)
	}
}

func TestRefusalsAreNotCached(t *testing.T) {
	s := newDocServer(t)
	var broken atomic.Bool
	broken.Store(true)
	id := s.url("/flaky")
	s.mux.HandleFunc("GET /flaky", func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"client_id":%q,"client_name":"x","redirect_uris":["http://127.0.0.1/cb"]}`, id)
	})
	f := s.fetcher(nil)
	if _, err := f.Fetch(context.Background(), id); reasonOf(t, err) != cimd.ReasonStatus {
		t.Fatal(err)
	}
	broken.Store(false)
	if _, err := f.Fetch(context.Background(), id); err != nil {
		t.Fatalf("a fixed document is still refused: %v", err)
	}
}

// Fetches in flight are bounded: past MaxFetches one more is refused at
// once rather than holding another connection for the whole timeout.
func TestFetchesInFlightAreBounded(t *testing.T) {
	s := newDocServer(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	started := make(chan struct{}, 4)
	s.mux.HandleFunc("GET /held/", func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
	})
	f := s.fetcher(func(c *cimd.Config) { c.MaxFetches = 2 })
	for i := range 2 {
		go func() { _, _ = f.Fetch(context.Background(), s.url(fmt.Sprintf("/held/%d", i))) }()
	}
	for range 2 {
		<-started
	}
	_, err := f.Fetch(context.Background(), s.url("/held/third"))
	if got := reasonOf(t, err); got != cimd.ReasonBusy {
		t.Errorf("third fetch: %s (%v), want busy", got, err)
	}
}
