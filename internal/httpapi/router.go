// Package httpapi is typeward's HTTP surface: one chi router on which every
// route is mounted (NewRouter), thin handlers that decode a request, call a
// domain function and encode its answer, the admin API, and the
// middleware every request passes through.
package httpapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/oauth"
)

// Default body limits.
const (
	// DefaultOAuthBodyLimit fits the largest authorization_details
	// (oauth.MaxAuthorizationDetailsBytes) form-encoded.
	DefaultOAuthBodyLimit = 4 << 20
	// DefaultAdminBodyLimit fits a snapshot of a large server's tools/list.
	DefaultAdminBodyLimit = 8 << 20
	// DefaultRequestTimeout is every request's deadline when none is
	// configured.
	DefaultRequestTimeout = 15 * time.Second
)

// Config is every dependency of the router.
type Config struct {
	OAuth    *oauth.Service
	Metadata oauth.Metadata
	JWKS     JWKSSource
	Ready    ReadinessCheck
	Admin    *Admin
	// Registration is dynamic client registration (nil: none).
	Registration *oauth.Registrar
	// Console is the operator console's handler (nil: no console).
	Console http.Handler
	// Versions serves the public registry read endpoint; Admin.Registry
	// when nil.
	Versions VersionReader
	Metrics  *metrics.Metrics
	Log      *slog.Logger
	// Body limits in bytes; the defaults above when zero.
	OAuthBodyLimit int64
	AdminBodyLimit int64
	// RequestTimeout is every request's deadline (DefaultRequestTimeout
	// when zero).
	RequestTimeout time.Duration
	// TrustedProxies are the peers whose X-Forwarded-For is believed
	// (see remoteAddress); none: the TCP peer is the remote address.
	TrustedProxies []netip.Prefix
}

// NewRouter mounts every route of typeward. This is the one place routes
// are declared; api/openapi.yaml describes the same set, which a test
// checks.
func NewRouter(cfg Config) http.Handler {
	if cfg.OAuthBodyLimit == 0 {
		cfg.OAuthBodyLimit = DefaultOAuthBodyLimit
	}
	if cfg.AdminBodyLimit == 0 {
		cfg.AdminBodyLimit = DefaultAdminBodyLimit
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	pub := &publicHandlers{metadata: cfg.Metadata, jwks: cfg.JWKS, ready: cfg.Ready, log: cfg.Log}
	oa := &oauthHandlers{svc: cfg.OAuth, log: cfg.Log}
	admin := *cfg.Admin // a copy: the router's logger goes on it, not on the caller's
	admin.log = cfg.Log
	ad := &admin
	if cfg.Versions == nil && admin.Registry != nil {
		cfg.Versions = admin.Registry
	}
	reg := &registryHandlers{versions: cfg.Versions, log: cfg.Log}

	r := chi.NewRouter()
	r.Use(requestID, remoteAddr(cfg.TrustedProxies), observe(cfg.Log, cfg.Metrics), deadline(cfg.RequestTimeout))
	// Never cached, like every OAuth answer: a GET of the token endpoint
	// lands here.
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeOAuthJSON(w, http.StatusNotFound, map[string]string{"error": "not_found"})
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		// RFC 9110 15.5.6: a 405 lists the methods the resource has.
		w.Header().Set("Allow", strings.Join(allowedMethods(r, req), ", "))
		writeOAuthJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method_not_allowed"})
	})

	r.Get("/healthz", pub.healthz)
	r.Get("/readyz", pub.readyz)
	r.Get(oauth.PathMetadata, pub.serveMetadata)
	r.Get(oauth.PathJWKS, pub.serveJWKS)
	r.Get(PathRegistryVersion, reg.toolVersion)
	r.Get(PathRegistryCompositions, (&compositionsHandler{list: admin.Registry, log: cfg.Log}).serve)

	r.Group(func(r chi.Router) {
		r.Use(limitBody(cfg.OAuthBodyLimit, refuseLargeOAuth))
		r.Post(oauth.PathToken, oa.token)
		r.Post(oauth.PathBackchannel, oa.backchannel)
		r.Post(oauth.PathIntrospect, oa.introspect)
		r.Post(oauth.PathRevoke, oa.revoke)
		r.Post(oauth.PathRegister, (&registerHandler{svc: cfg.Registration, log: cfg.Log}).register)
	})

	if c := cfg.Console; c != nil {
		// Each console page is named here so that api/openapi.yaml lists
		// it; the console routes them itself.
		r.Get("/console", c.ServeHTTP)
		r.Get("/console/", c.ServeHTTP)
		// The authorization endpoint is the console's page too: the
		// person signs in and consents there.
		r.Get(oauth.PathAuthorize, c.ServeHTTP)
		r.Post(oauth.PathAuthorize, c.ServeHTTP)
		r.Get("/console/signin", c.ServeHTTP)
		r.Post("/console/signin", c.ServeHTTP)
		r.Post("/console/signout", c.ServeHTTP)
		r.Get("/console/approvals", c.ServeHTTP)
		r.Post("/console/approvals/{id}", c.ServeHTTP)
		r.Get("/console/activity", c.ServeHTTP)
		r.Get("/console/static/{file}", c.ServeHTTP)
	}

	r.Route("/admin/v1", func(r chi.Router) {
		r.Use(limitBody(cfg.AdminBodyLimit, ad.refuseLarge), ad.authenticate)

		r.Get("/tools", ad.listTools)
		r.Put("/tools/{name}", ad.putTool)
		r.Get("/tools/{name}", ad.getTool)
		r.Get("/tools/{name}/versions", ad.listVersions)

		r.Post("/servers/{server}/snapshots", ad.importSnapshot)
		r.Get("/servers/{server}/snapshots/{id}", ad.getSnapshot)
		r.Post("/servers/{server}/snapshots/{id}/approve", ad.approveSnapshot)

		r.Get("/compositions", ad.listCompositions)
		r.Post("/compositions:validate", ad.validateComposition)
		r.Put("/compositions/{name}", ad.putComposition)
		r.Get("/compositions/{name}", ad.getComposition)
		r.Post("/compositions/{name}/revalidate", ad.revalidateComposition)

		r.Get("/clients", ad.listClients)
		r.Post("/clients", ad.createClient)
		r.Get("/clients/{id}", ad.getClient)
		r.Patch("/clients/{id}", ad.updateClient)
		r.Post("/clients/{id}/disable", ad.disableClient)

		r.Get("/resources", ad.listResources)
		r.Post("/resources", ad.addResource)
		r.Delete("/resources", ad.deleteResource)
		r.Post("/registration-tokens", ad.createRegistrationToken)
		r.Get("/refresh-families", ad.listFamilies)
		r.Get("/refresh-families/{id}", ad.getFamily)
		r.Post("/refresh-families/{id}/revoke", ad.revokeFamily)

		r.Get("/keys", ad.listKeys)
		r.Post("/keys:rotate", ad.rotateKeys)

		r.Get("/issuances", ad.queryIssuances)
	})
	return r
}

// allowedMethods lists the methods routes has for the request's path.
func allowedMethods(routes chi.Routes, r *http.Request) []string {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if routes.Find(chi.NewRouteContext(), m, routingPath(r)) != "" {
			allowed = append(allowed, m)
		}
	}
	return allowed
}
