// Package cimd resolves client ID metadata documents
// (draft-ietf-oauth-client-id-metadata-document): a client_id that is an
// https URL names the JSON document, published by the client, that holds
// its metadata. The fetch runs from inside the server's network on a URL
// anyone may choose, so it is bounded in every way: https only, no
// redirects, a time limit, a size limit, and never an address outside the
// public internet, checked after DNS resolution and again on the socket
// being connected (a name that resolves twice differently gains nothing).
package cimd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/typeward/typeward/internal/cache"
)

// Bounds of a fetch and of the cache.
const (
	DefaultTimeout  = 5 * time.Second
	DefaultMaxBytes = 64 << 10
	// MinTTL and MaxTTL clamp a document's Cache-Control max-age: a client
	// cannot make typeward fetch on every request, nor keep a changed
	// document out for more than a day.
	MinTTL = 5 * time.Minute
	MaxTTL = 24 * time.Hour
	// DefaultMaxFetches bounds the fetches in flight at once: each may
	// hold a connection for the whole timeout, and anyone can name a URL.
	DefaultMaxFetches = 32
	// Cache bounds: a resolved client is well under 8 KiB.
	cacheBytes   = 16 << 20
	cacheEntries = 10_000
)

// Config configures a Fetcher. The zero value is the production one:
// system roots, no loopback, every domain.
type Config struct {
	// RootCAs, when set, are the only roots trusted (--cimd-ca-file, for
	// tests); nil: the system's.
	RootCAs *x509.CertPool
	// AllowLoopback lets documents come from loopback addresses
	// (--cimd-allow-loopback, for tests); every other forbidden range
	// stays forbidden.
	AllowLoopback bool
	// TrustedDomains, when not empty, are the only hosts (and their
	// subdomains) documents may come from.
	TrustedDomains []string
	// Timeout bounds one fetch, connection to last byte (DefaultTimeout
	// when zero); MaxBytes bounds its body (DefaultMaxBytes when zero).
	Timeout  time.Duration
	MaxBytes int64
	// MaxFetches bounds the fetches in flight (DefaultMaxFetches when
	// zero); one more is refused at once, ReasonBusy.
	MaxFetches int
	Now        func() time.Time
}

// Fetcher fetches, checks and caches documents. It is safe for concurrent
// use.
type Fetcher struct {
	cfg      Config
	client   *http.Client
	resolver *net.Resolver
	cache    *cache.Cache[string, cached]
	inflight singleflight.Group
	slots    chan struct{} // one per fetch in flight
}

type cached struct {
	doc     *Resolved
	expires time.Time
}

// Resolved is a checked document with what it refers to fetched.
type Resolved struct {
	Document
	// JWKS is the key set fetched from JWKSURI (private_key_jwt only).
	JWKS []byte
}

// New returns a Fetcher for cfg.
func New(cfg Config) *Fetcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxFetches <= 0 {
		cfg.MaxFetches = DefaultMaxFetches
	}
	for i, d := range cfg.TrustedDomains {
		cfg.TrustedDomains[i] = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), "."))
	}
	f := &Fetcher{cfg: cfg, resolver: net.DefaultResolver, slots: make(chan struct{}, cfg.MaxFetches),
		cache: cache.New(cache.Config[string, cached]{MaxBytes: cacheBytes, MaxEntries: cacheEntries})}
	dialer := &net.Dialer{Timeout: cfg.Timeout, Control: f.control}
	transport := &http.Transport{
		// No proxy: a proxy would make the connection the address check
		// sees the proxy's, not the document's.
		Proxy:                  nil,
		DialContext:            f.dial(dialer),
		TLSClientConfig:        &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 16 << 10,
		DisableCompression:     true, // the size bound is on what is sent
	}
	f.client = &http.Client{Transport: transport, Timeout: cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect }}
	return f
}

var errRedirect = errors.New("redirect")

// errForbidden marks a dial refused by the address check.
type errForbidden struct{ err error }

func (e *errForbidden) Error() string { return e.err.Error() }

// dial resolves the host, refuses it when any of its addresses is
// forbidden, and connects to the first that answers. The socket's
// address is checked again in control, so whatever the resolver says the
// second time, a forbidden peer is never connected to.
func (f *Fetcher) dial(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var addrs []netip.Addr
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{a}
		} else if addrs, err = f.resolver.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
		for _, a := range addrs {
			if err := checkAddress(a, f.cfg.AllowLoopback); err != nil {
				return nil, &errForbidden{fmt.Errorf("%s resolves to %w", host, err)}
			}
		}
		var last error
		for _, a := range addrs {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return c, nil
			}
			last = err
		}
		if last == nil {
			last = fmt.Errorf("%s has no address", host)
		}
		return nil, last
	}
}

// control is the dialer's last word, on the address being connected.
func (f *Fetcher) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &errForbidden{fmt.Errorf("cannot check address %q", address)}
	}
	if err := checkAddress(ap.Addr(), f.cfg.AllowLoopback); err != nil {
		return &errForbidden{err}
	}
	return nil
}

// Fetch returns the checked document of client id id, from the cache
// when it is fresh. A refusal is an *Error.
func (f *Fetcher) Fetch(ctx context.Context, id string) (*Resolved, error) {
	if e, ok := f.cache.Get(id); ok && f.cfg.Now().Before(e.expires) {
		return e.doc, nil
	}
	// Concurrent requests for one document share one fetch, on no single
	// caller's context: one leaving must not fail the others.
	ch := f.inflight.DoChan(id, func() (any, error) {
		select {
		case f.slots <- struct{}{}:
			defer func() { <-f.slots }()
		default:
			return nil, refuse(id, ReasonBusy, "was not fetched: %d documents are being fetched already; retry shortly", f.cfg.MaxFetches)
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*f.cfg.Timeout)
		defer cancel()
		gen := f.cache.Generation()
		doc, ttl, err := f.resolve(ctx, id)
		if err != nil {
			return nil, err
		}
		f.cache.PutAt(gen, id, cached{doc: doc, expires: f.cfg.Now().Add(ttl)})
		return doc, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*Resolved), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// resolve fetches and checks the document, and its jwks_uri.
func (f *Fetcher) resolve(ctx context.Context, id string) (*Resolved, time.Duration, error) {
	u, err := parseClientID(id)
	if err != nil {
		return nil, 0, refuse(id, ReasonClientIDURL, "the client_id %s", err)
	}
	if !trusted(u.Hostname(), f.cfg.TrustedDomains) {
		return nil, 0, refuse(id, ReasonUntrustedDomain, "%s is not on this server's list of trusted client domains", u.Hostname())
	}
	body, header, err := f.get(ctx, id, id)
	if err != nil {
		return nil, 0, err
	}
	doc, err := Parse(id, body)
	if err != nil {
		return nil, 0, err
	}
	r := &Resolved{Document: *doc}
	if doc.JWKSURI != "" {
		if !trusted(hostOf(doc.JWKSURI), f.cfg.TrustedDomains) {
			return nil, 0, refuse(id, ReasonJWKS, "jwks_uri %s is not on this server's list of trusted client domains", doc.JWKSURI)
		}
		if r.JWKS, _, err = f.get(ctx, id, doc.JWKSURI); err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Reason, e.Message = ReasonJWKS, "jwks_uri "+doc.JWKSURI+": "+e.Message
			}
			return nil, 0, err
		}
	}
	return r, ttlOf(header), nil
}

// get fetches target (the document, or its jwks_uri) for the document
// id, mapping every failure to an *Error.
func (f *Fetcher) get(ctx context.Context, id, target string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, nil, refuse(id, ReasonClientIDURL, "cannot be requested: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, nil, f.transportError(id, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return nil, nil, refuse(id, ReasonRedirect, "answered %s: redirects are not followed", resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, nil, refuse(id, ReasonStatus, "answered %s, not 200 OK", resp.Status)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil, nil, refuse(id, ReasonContentType, "is served as %q, not application/json", clip(resp.Header.Get("Content-Type")))
	}
	if resp.ContentLength > f.cfg.MaxBytes {
		return nil, nil, refuse(id, ReasonTooLarge, "is %d bytes, more than %d", resp.ContentLength, f.cfg.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return nil, nil, f.transportError(id, err)
	}
	if int64(len(body)) > f.cfg.MaxBytes {
		return nil, nil, refuse(id, ReasonTooLarge, "is more than %d bytes", f.cfg.MaxBytes)
	}
	return body, resp.Header, nil
}

func (f *Fetcher) transportError(id string, err error) *Error {
	var forbidden *errForbidden
	var netErr net.Error
	switch {
	case errors.As(err, &forbidden):
		return refuse(id, ReasonAddress, "%v: documents are fetched from public addresses only", forbidden)
	case errors.Is(err, errRedirect):
		return refuse(id, ReasonRedirect, "answered with a redirect, which is not followed")
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return refuse(id, ReasonTimeout, "was not fetched within %s", f.cfg.Timeout)
	}
	return refuse(id, ReasonUnreachable, "could not be fetched: %s", describe(err))
}

// describe is a transport failure without the URL (the caller names it).
func describe(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			err = inner
		}
	}
	return clip(err.Error())
}

func hostOf(raw string) string {
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		host, _, _ := strings.Cut(rest, "/")
		if h, _, err := net.SplitHostPort(host); err == nil {
			return h
		}
		return host
	}
	return ""
}
