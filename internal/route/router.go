package route

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/typeward/typeward/verify"
)

// Router is typeward route's handler. It is safe for concurrent use.
type Router struct {
	cfg      Config
	upstream *url.URL
	upClient *http.Client // HTTPClient, following no redirect
	mcpPath  string       // the resource URI's path, where MCP is served
	metaURL  string       // this router's RFC 9728 metadata URL
	origin   string       // the resource URI's origin, the one Origin allowed
	verifier *verify.Verifier
	schemas  *schemaCache
	live     *liveTools
	limit    *limiter
	talk     *conversations
	order    *orderState
	// advertise is what hosts are told to ask for (advertise.go).
	advertise *advertised
	metrics   *Metrics
	handler   http.Handler
}

// New checks cfg, finds the JWKS URL in the issuer's metadata when not
// given, and returns a Router.
func New(ctx context.Context, cfg Config) (*Router, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	up, _ := url.Parse(cfg.Upstream)
	res, _ := url.Parse(cfg.Resource)
	rt := &Router{cfg: cfg, upstream: up, mcpPath: res.EscapedPath(), metrics: newMetrics(), origin: originOf(res)}
	rt.advertise = &advertised{rt: rt}
	if rt.mcpPath == "" {
		rt.mcpPath = "/"
	}
	rt.metaURL = res.Scheme + "://" + res.Host + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(rt.mcpPath, "/")
	if cfg.Keys == nil && cfg.JWKSURL == "" {
		jwks, err := discoverJWKS(ctx, cfg.HTTPClient, cfg.Issuer)
		if err != nil {
			return nil, err
		}
		rt.cfg.JWKSURL = jwks
	}
	v, err := verify.New(verify.Config{
		Issuer: cfg.Issuer, Audience: cfg.Resource, JWKSURL: rt.cfg.JWKSURL, Keys: cfg.Keys,
		HTTPClient: cfg.HTTPClient, Now: cfg.Now, ResourceMetadata: rt.metaURL, ChallengeScope: rt.challengeScope,
		MaxBodyBytes: cfg.MaxBodyBytes, Logger: cfg.Log,
	})
	if err != nil {
		return nil, err
	}
	rt.verifier = v
	// The upstream's redirects are not followed: a 307 would send the call
	// wherever the upstream names, from the router's place in the network.
	upClient := *cfg.HTTPClient
	upClient.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if upClient.Transport == nil {
		// net/http's default keeps two idle connections per host: past two
		// calls at once, it closed the others after each answer and dialled
		// again for the next call. Every exchange slot may keep one.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = cfg.MaxInFlight
		upClient.Transport = t
	}
	rt.upClient = &upClient
	rt.schemas = newSchemaCache(cfg.HTTPClient, cfg.RegistryURL, cfg.SchemaCacheBytes)
	rt.limit = newLimiter(cfg.MaxInFlight, cfg.MaxStreams, cfg.MaxBufferedBytes)
	rt.talk = newConversations(cfg.UpstreamTimeout, cfg.Now)
	rt.metrics.watch(rt.limit)
	rt.live = &liveTools{rt: rt, ttl: cfg.ListTTL, timeout: cfg.ListTimeout}
	if cfg.EnforceOrder {
		rt.order = newOrderState(cfg.OrderStateBytes, cfg.Now)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", rt.serveMetadata)
	if rt.mcpPath != "/" {
		mux.HandleFunc("GET /.well-known/oauth-protected-resource"+strings.TrimSuffix(rt.mcpPath, "/"), rt.serveMetadata)
	}
	mux.Handle(rt.mcpPath, rt.checkOrigin(http.MaxBytesHandler(v.Middleware(http.HandlerFunc(rt.serveMCP)), cfg.MaxBodyBytes+1)))
	rt.handler = rt.observe(mux)
	return rt, nil
}

// ServeHTTP serves the metadata and the MCP endpoint.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.handler.ServeHTTP(w, r) }

// Metrics is the router's private Prometheus registry.
func (rt *Router) Metrics() *Metrics { return rt.metrics }

// MaxHeaderBytes is the header bound the command's http.Server applies.
func (rt *Router) MaxHeaderBytes() int { return rt.cfg.MaxHeaderBytes }

// serveMetadata is the RFC 9728 protected resource metadata.
func (rt *Router) serveMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"resource":                 rt.cfg.Resource,
		"authorization_servers":    []string{rt.cfg.Issuer},
		"bearer_methods_supported": []string{"header"},
		// RFC 9449 §5.1: DPoP-bound tokens are accepted, bearer ones too.
		"dpop_signing_alg_values_supported": rt.verifier.DPoPAlgorithms(),
		"scopes_supported":                  rt.scopesSupported(r.Context()),
		"resource_name":                     "MCP server behind typeward route",
	})
}

// discoverJWKS reads jwks_uri from the issuer's RFC 8414 metadata.
func discoverJWKS(ctx context.Context, client *http.Client, issuer string) (string, error) {
	u := strings.TrimSuffix(issuer, "/") + "/.well-known/oauth-authorization-server"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("route: the issuer's metadata: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("route: GET %s: %s", u, resp.Status)
	}
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil {
		return "", fmt.Errorf("route: the issuer's metadata: %w", err)
	}
	if meta.Issuer != issuer || meta.JWKSURI == "" {
		return "", fmt.Errorf("route: the metadata at %s names issuer %q and jwks_uri %q; want issuer %q and a jwks_uri", u, meta.Issuer, meta.JWKSURI, issuer)
	}
	return meta.JWKSURI, nil
}

// checkOrigin answers 403 to a request whose Origin header is present and
// not the resource's own origin: MCP requires servers to validate Origin
// against DNS rebinding (a page whose name now resolves to the router
// sends its own origin).
func (rt *Router) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vs := r.Header.Values("Origin")
		if len(vs) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		u, err := url.Parse(vs[0])
		if len(vs) > 1 || err != nil || u.Host == "" || originOf(u) != rt.origin {
			rt.refuse(r, "origin")
			http.Error(w, "Origin not allowed: typeward route accepts requests from its own origin only", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originOf is u's origin, lowercased, with the scheme's default port.
func originOf(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
