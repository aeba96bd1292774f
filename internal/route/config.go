// Package route is typeward route: a reverse proxy for one MCP server
// speaking Streamable HTTP that enforces typeward's composition tokens at
// run time. On top of what package verify checks (the token, the tool the
// request names), it validates each tools/call's arguments against the
// inputSchema of the exact tool version the token pins, validates results
// against the pinned outputSchema, refuses a tool whose live declaration
// no longer has the pinned digest, filters tools/list to the token's
// tools, never passes the client's token upstream and, with EnforceOrder,
// lets a node run only after every node feeding it ran under the same
// token.
package route

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/typeward/typeward/verify"
)

// Defaults and bounds of Config.
const (
	DefaultMaxBodyBytes     = 1 << 20
	DefaultMaxResponseBytes = 16 << 20
	DefaultMaxHeaderBytes   = 64 << 10
	DefaultUpstreamTimeout  = 60 * time.Second
	DefaultSchemaCacheBytes = 64 << 20
	DefaultListTTL          = 30 * time.Second
	DefaultListTimeout      = 10 * time.Second
	DefaultOrderStateBytes  = 16 << 20
	DefaultMaxInFlight      = 64
	DefaultMaxBufferedBytes = 1 << 30
	DefaultMaxStreams       = 256
	DefaultStreamIdle       = 5 * time.Minute
	MaxUpstreamTimeout      = 10 * time.Minute
)

// Config configures a Router. Upstream, Issuer and Resource are required.
type Config struct {
	// Upstream is the MCP server's Streamable HTTP endpoint.
	Upstream string
	// Issuer is typeward's issuer identifier.
	Issuer string
	// Resource is this router's resource URI, the audience its tokens must
	// name; its path is where the router serves MCP.
	Resource string
	// JWKSURL is typeward's JWKS; from the issuer's RFC 8414 metadata when
	// empty (New fetches it).
	JWKSURL string
	// RegistryURL is where the public registry endpoint lives; the issuer
	// when empty.
	RegistryURL string
	// Keys replaces the JWKS (tests, pinned keys).
	Keys verify.KeySource

	MaxBodyBytes     int64         // a request body; DefaultMaxBodyBytes when zero
	MaxResponseBytes int64         // an upstream answer the router inspects
	MaxHeaderBytes   int           // for the http.Server the command runs
	UpstreamTimeout  time.Duration // each upstream exchange
	SchemaCacheBytes int64         // the pinned schemas kept
	// ListTTL is how long the upstream's tools/list is trusted before the
	// pinned digests are compared again; 0 compares on every call.
	ListTTL time.Duration
	// ListTimeout bounds a refresh of that listing, which the calls
	// needing it share: they wait at most this long for it.
	ListTimeout time.Duration
	// MaxInFlight bounds the upstream exchanges at once; a request beyond
	// it is answered 503 with Retry-After, not queued.
	MaxInFlight int
	// MaxBufferedBytes bounds the memory of the messages being checked:
	// each byte of a request body or an upstream answer the router holds
	// is charged memoryFactor (16) bytes, the peak its checks take. A
	// request or answer that would pass it is answered 503.
	MaxBufferedBytes int64
	// MaxStreams bounds the GET streams open at once (they hold no
	// MaxInFlight slot: they may last).
	MaxStreams int
	// StreamIdleTimeout ends a GET stream after this long without a byte
	// from the upstream; the write timeout of a POST's answer does not
	// apply to it.
	StreamIdleTimeout time.Duration
	// ServerRequests is what becomes of a request of the server's
	// (sampling, elicitation, roots) inside an authorized tool call:
	// ServerRequestsPass (the default) or ServerRequestsRefuse.
	ServerRequests string
	// EnforceOrder makes a node run only after the nodes feeding it.
	EnforceOrder    bool
	OrderStateBytes int64 // bound of the per-token order state

	// HTTPClient reaches the upstream, the registry and the JWKS.
	HTTPClient *http.Client
	Log        *slog.Logger
	Now        func() time.Time
}

// What --server-requests may say.
const (
	ServerRequestsPass   = "pass"
	ServerRequestsRefuse = "refuse"
)

// validate applies defaults and checks bounds, naming every problem.
func (c *Config) validate() error {
	var problems []string
	for _, u := range []struct{ name, value string }{{"upstream", c.Upstream}, {"issuer", c.Issuer}, {"resource", c.Resource}} {
		if u.value == "" {
			problems = append(problems, u.name+" is required")
			continue
		}
		if p, err := url.Parse(u.value); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			problems = append(problems, fmt.Sprintf("%s %q is not an http(s) URL", u.name, u.value))
		}
	}
	if c.RegistryURL == "" {
		c.RegistryURL = c.Issuer
	}
	c.RegistryURL = strings.TrimSuffix(c.RegistryURL, "/")
	setDefault(&c.MaxBodyBytes, DefaultMaxBodyBytes)
	setDefault(&c.MaxResponseBytes, DefaultMaxResponseBytes)
	setDefault(&c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	setDefault(&c.UpstreamTimeout, DefaultUpstreamTimeout)
	setDefault(&c.SchemaCacheBytes, DefaultSchemaCacheBytes)
	setDefault(&c.ListTimeout, DefaultListTimeout)
	setDefault(&c.OrderStateBytes, DefaultOrderStateBytes)
	setDefault(&c.MaxInFlight, DefaultMaxInFlight)
	setDefault(&c.MaxBufferedBytes, DefaultMaxBufferedBytes)
	setDefault(&c.MaxStreams, DefaultMaxStreams)
	setDefault(&c.StreamIdleTimeout, DefaultStreamIdle)
	switch c.ServerRequests {
	case "":
		c.ServerRequests = ServerRequestsPass
	case ServerRequestsPass, ServerRequestsRefuse:
	default:
		problems = append(problems, fmt.Sprintf("server requests %q: want %s or %s", c.ServerRequests, ServerRequestsPass, ServerRequestsRefuse))
	}
	if c.MaxBodyBytes < 0 || c.MaxResponseBytes < 0 || c.MaxHeaderBytes < 0 || c.SchemaCacheBytes < 0 || c.OrderStateBytes < 0 || c.ListTTL < 0 || c.MaxInFlight < 0 || c.MaxStreams < 0 || c.StreamIdleTimeout < 0 {
		problems = append(problems, "limits must not be negative")
	}
	if c.UpstreamTimeout < 0 || c.UpstreamTimeout > MaxUpstreamTimeout {
		problems = append(problems, fmt.Sprintf("upstream timeout must be between 0 and %v", MaxUpstreamTimeout))
	}
	if need := memoryFactor * (c.MaxBodyBytes + c.MaxResponseBytes); c.MaxBufferedBytes < need {
		problems = append(problems, fmt.Sprintf("max buffered bytes must be at least %d (%d times the largest request body and answer), or no answer of the largest size could be checked", need, memoryFactor))
	}
	if c.ListTimeout < 0 || c.ListTimeout > MaxUpstreamTimeout {
		problems = append(problems, fmt.Sprintf("list timeout must be between 0 and %v", MaxUpstreamTimeout))
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if len(problems) > 0 {
		return errors.New("route: " + strings.Join(problems, "; "))
	}
	return nil
}

func setDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}
