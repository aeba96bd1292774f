package route

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// Command is the configuration of `typeward route`: the router's and its
// listeners'.
type Command struct {
	Config
	Addr            string
	MetricsAddr     string // "" serves no metrics
	ShutdownTimeout time.Duration
	LogLevel        string
}

// ParseFlags reads `typeward route` flags and checks them, reporting every
// problem at once. With -h it writes the help to usage and returns
// flag.ErrHelp.
func ParseFlags(args []string, usage io.Writer) (*Command, error) {
	c := &Command{}
	fs := flag.NewFlagSet("typeward route", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8090", "listen `host:port`")
	fs.StringVar(&c.Upstream, "upstream", "", "the MCP server's Streamable HTTP `URL` (required)")
	fs.StringVar(&c.Issuer, "issuer", "", "typeward's issuer `URL` (required)")
	fs.StringVar(&c.Resource, "resource", "", "this router's resource `URI`, the audience of its tokens; its path is the MCP endpoint (required)")
	fs.StringVar(&c.JWKSURL, "jwks-url", "", "typeward's JWKS `URL` (default: jwks_uri of the issuer's RFC 8414 metadata)")
	fs.StringVar(&c.RegistryURL, "registry-url", "", "base `URL` of typeward's public registry endpoint (default: the issuer)")
	fs.BoolVar(&c.EnforceOrder, "enforce-order", false, "run a node only after every node feeding it ran under the same token (state per router, in memory)")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", DefaultMaxBodyBytes, "largest request body")
	fs.Int64Var(&c.MaxResponseBytes, "max-response-bytes", DefaultMaxResponseBytes, "largest upstream answer (each is read whole and checked before it is passed on)")
	fs.IntVar(&c.MaxHeaderBytes, "max-header-bytes", DefaultMaxHeaderBytes, "largest request header block")
	fs.DurationVar(&c.UpstreamTimeout, "upstream-timeout", DefaultUpstreamTimeout, "time limit of each upstream exchange")
	fs.DurationVar(&c.ListTTL, "list-ttl", DefaultListTTL, "how long the upstream's tools/list is trusted before digests are compared again (0: every call)")
	fs.IntVar(&c.MaxInFlight, "max-in-flight", DefaultMaxInFlight, "most upstream exchanges at once; a request beyond them gets 503 with Retry-After")
	fs.Int64Var(&c.MaxBufferedBytes, "max-buffered-bytes", DefaultMaxBufferedBytes, fmt.Sprintf("memory bound of the messages being checked at once, each byte of them counted %d times (the peak of their checks); beyond it, 503 with Retry-After", memoryFactor))
	fs.IntVar(&c.MaxStreams, "max-streams", DefaultMaxStreams, "most GET streams open at once (apart from --max-in-flight); beyond them 503 with Retry-After")
	fs.DurationVar(&c.StreamIdleTimeout, "stream-idle-timeout", DefaultStreamIdle, "end a GET stream after this long without a byte from the upstream")
	fs.StringVar(&c.ServerRequests, "server-requests", ServerRequestsPass, "the server's requests inside an authorized tools/call (sampling/createMessage, elicitation/create, roots/list): pass, or refuse (the call gets a JSON-RPC error)")
	fs.DurationVar(&c.ListTimeout, "list-timeout", DefaultListTimeout, "time limit of a refresh of the upstream's tools/list (see --list-ttl), which the calls needing it share and wait for at most this long")
	fs.Int64Var(&c.SchemaCacheBytes, "schema-cache-bytes", DefaultSchemaCacheBytes, "memory bound of the pinned schemas kept")
	fs.Int64Var(&c.OrderStateBytes, "order-state-bytes", DefaultOrderStateBytes, "memory bound of the --enforce-order state")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics on this `host:port` (a separate, private listener)")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", 20*time.Second, "how long to let requests finish on SIGTERM")
	fs.StringVar(&c.LogLevel, "log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg := c.Config
	var problems []error
	if err := cfg.validate(); err != nil {
		problems = append(problems, err)
	}
	if c.ShutdownTimeout <= 0 {
		problems = append(problems, errors.New("--shutdown-timeout must be positive"))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		problems = append(problems, fmt.Errorf("--log-level %q: want debug, info, warn or error", c.LogLevel))
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return c, nil
}
