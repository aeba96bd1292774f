// Package resources is the server's list of protected resources (RFC
// 8707 resource URIs, typically MCP servers behind typeward route): the
// audiences a client without admin-set ones, one that came by a metadata
// document or by registration, may ask a token for. The list is the
// --resources flag's static entries and those kept in the store (admin
// API, `typeward resources`).
package resources

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Sentinels every Store returns (wrapped).
var (
	ErrNotFound = errors.New("protected resource not found")
	ErrConflict = errors.New("protected resource already listed")
	// ErrInvalid is a resource refused before it reaches a store.
	ErrInvalid = errors.New("invalid protected resource")
)

// Bounds.
const (
	MaxURILen  = 2048
	MaxNameLen = 200
	// MaxStored bounds the list kept in the store: every consent page and
	// metadata answer reads it whole.
	MaxStored = 500
)

// Resource is one protected resource.
type Resource struct {
	URI       string    `json:"resource"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	// Static marks an entry of --resources, which the store does not hold.
	Static bool `json:"static,omitempty"`
}

// Store keeps the listed resources. Implementations: memory.Resources,
// postgres.Resources; both pass storetest.RunResources.
type Store interface {
	// Add lists r, or returns ErrConflict when its URI is listed.
	Add(ctx context.Context, r Resource) error
	// List returns every resource, oldest first (ties by URI).
	List(ctx context.Context) ([]Resource, error)
	// Delete removes the resource with this URI, or returns ErrNotFound.
	Delete(ctx context.Context, uri string) error
}

// CheckURI accepts an absolute http(s) URI without fragment, the form RFC
// 8707 requires of a resource. It is the one rule for every audience a
// client names or is granted.
func CheckURI(uri string) error {
	if len(uri) > MaxURILen {
		return fmt.Errorf("is longer than %d characters", MaxURILen)
	}
	u, err := url.Parse(uri)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("is not an absolute http(s) URI")
	}
	if strings.Contains(uri, "#") {
		return errors.New("has a fragment, which RFC 8707 forbids")
	}
	return nil
}

// IsIssuer reports whether uri names the issuer itself: tokens for
// typeward are not a client's to ask for, or its tool tokens would be
// accepted where typeward's own are.
func IsIssuer(uri, issuer string) bool {
	return issuer != "" && strings.TrimSuffix(uri, "/") == strings.TrimSuffix(issuer, "/")
}

// Check validates r for a server whose issuer is issuer; a missing name
// is the URI.
func Check(r *Resource, issuer string) error {
	if err := CheckURI(r.URI); err != nil {
		return fmt.Errorf("%w: resource %q %v", ErrInvalid, r.URI, err)
	}
	if IsIssuer(r.URI, issuer) {
		return fmt.Errorf("%w: resource %q is this server's issuer", ErrInvalid, r.URI)
	}
	if r.Name == "" {
		r.Name = r.URI
	}
	switch {
	case !utf8.ValidString(r.Name):
		return fmt.Errorf("%w: name is not valid UTF-8", ErrInvalid)
	case utf8.RuneCountInString(r.Name) > MaxNameLen:
		return fmt.Errorf("%w: name is longer than %d characters", ErrInvalid, MaxNameLen)
	case strings.ContainsFunc(r.Name, unicode.IsControl):
		return fmt.Errorf("%w: name contains a control character", ErrInvalid)
	}
	return nil
}

// List is the server's protected resources: the static ones and the
// store's.
type List struct {
	Static []Resource
	Store  Store
	Issuer string
	// TTL, when positive, is how long the store's list is trusted: every
	// lookup of a host reads it, and a store round trip per token request
	// would cost more than the rest. Changes made through this List apply
	// at once; another replica's within TTL.
	TTL time.Duration
	Now func() time.Time

	mu     sync.Mutex
	stored []Resource
	readAt time.Time
}

// ParseStatic reads --resources: comma-separated URIs.
func ParseStatic(uris []string, issuer string) ([]Resource, error) {
	var out []Resource
	for _, u := range uris {
		r := Resource{URI: u, Static: true}
		if err := Check(&r, issuer); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o Resource) bool { return o.URI == u }) {
			return nil, fmt.Errorf("%w: resource %q is listed twice", ErrInvalid, u)
		}
		out = append(out, r)
	}
	return out, nil
}

// All returns the static resources, then the stored ones.
func (l *List) All(ctx context.Context) ([]Resource, error) {
	out := slices.Clone(l.Static)
	if l.Store == nil {
		return out, nil
	}
	stored, err := l.read(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range stored {
		if !slices.ContainsFunc(l.Static, func(s Resource) bool { return s.URI == r.URI }) {
			out = append(out, r)
		}
	}
	return out, nil
}

// read is the store's list, from memory while younger than TTL.
func (l *List) read(ctx context.Context) ([]Resource, error) {
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	l.mu.Lock()
	if l.TTL > 0 && !l.readAt.IsZero() && now().Sub(l.readAt) < l.TTL {
		defer l.mu.Unlock()
		return l.stored, nil
	}
	l.mu.Unlock()
	at := now()
	stored, err := l.Store.List(ctx)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.stored, l.readAt = stored, at
	l.mu.Unlock()
	return stored, nil
}

// forget drops the cached list after a change made here.
func (l *List) forget() {
	l.mu.Lock()
	l.readAt = time.Time{}
	l.mu.Unlock()
}

// Has reports whether uri is one of the protected resources (compared as
// exact strings, as every audience is).
func (l *List) Has(ctx context.Context, uri string) (bool, error) {
	all, err := l.All(ctx)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(all, func(r Resource) bool { return r.URI == uri }), nil
}

// Add validates r and lists it in the store; a static resource is
// already listed.
func (l *List) Add(ctx context.Context, r Resource, now time.Time) (Resource, error) {
	r.Static = false
	if err := Check(&r, l.Issuer); err != nil {
		return Resource{}, err
	}
	if slices.ContainsFunc(l.Static, func(s Resource) bool { return s.URI == r.URI }) {
		return Resource{}, fmt.Errorf("%w: %q is listed by --resources", ErrConflict, r.URI)
	}
	stored, err := l.Store.List(ctx)
	if err != nil {
		return Resource{}, err
	}
	if len(stored) >= MaxStored {
		return Resource{}, fmt.Errorf("%w: the list holds %d resources already, the most it may", ErrInvalid, MaxStored)
	}
	r.CreatedAt = now.UTC().Truncate(time.Microsecond)
	if err := l.Store.Add(ctx, r); err != nil {
		return Resource{}, err
	}
	l.forget()
	return r, nil
}

// Delete removes a stored resource; a static one is refused.
func (l *List) Delete(ctx context.Context, uri string) error {
	if slices.ContainsFunc(l.Static, func(s Resource) bool { return s.URI == uri }) {
		return fmt.Errorf("%w: %q is listed by --resources; remove it there", ErrInvalid, uri)
	}
	defer l.forget()
	return l.Store.Delete(ctx, uri)
}
