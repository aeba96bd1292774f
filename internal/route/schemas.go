package route

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/verify"
)

// maxVersionBytes bounds a registry answer: two schemas of at most
// schema.MaxDocumentBytes each, and a little more.
const maxVersionBytes = 2*schema.MaxDocumentBytes + 4096

// pinned is one tool version a token pins, with its schemas compiled.
type pinned struct {
	ref    verify.ToolRef
	input  *schema.Schema
	output *schema.Schema // nil: no outputSchema
	size   int64          // the bytes of the schemas as served
}

type pinKey struct {
	name    string
	version int
}

// schemaCache fetches pinned versions from the registry endpoint once each
// and keeps them, bounded by size. Versions are immutable, so an entry
// never goes stale; the digest is checked on every use.
type schemaCache struct {
	client  *http.Client
	base    string
	entries *cache.Cache[pinKey, *pinned]

	mu       sync.Mutex
	inflight map[pinKey]*fetchCall
}

type fetchCall struct {
	done chan struct{}
	p    *pinned
	err  error
}

func newSchemaCache(client *http.Client, base string, maxBytes int64) *schemaCache {
	return &schemaCache{client: client, base: base, inflight: map[pinKey]*fetchCall{},
		entries: cache.New(cache.Config[pinKey, *pinned]{
			MaxBytes: maxBytes,
			// Compiled schemas take several times the bytes they were read
			// from; 8x keeps the bound on the safe side.
			Size: func(k pinKey, p *pinned) int64 { return int64(len(k.name)) + 8*p.size },
		})}
}

// get returns the pinned version ref, fetched at most once however many
// callers ask at the same time.
func (c *schemaCache) get(ctx context.Context, ref verify.ToolRef) (*pinned, error) {
	k := pinKey{ref.Name, ref.Version}
	if p, ok := c.entries.Get(k); ok {
		return p, c.matches(p, ref)
	}
	c.mu.Lock()
	call, ok := c.inflight[k]
	if !ok {
		call = &fetchCall{done: make(chan struct{})}
		c.inflight[k] = call
		go func() {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30e9)
			defer cancel()
			call.p, call.err = c.fetch(fctx, k)
			if call.err == nil {
				c.entries.Put(k, call.p)
			}
			c.mu.Lock()
			delete(c.inflight, k)
			c.mu.Unlock()
			close(call.done)
		}()
	}
	c.mu.Unlock()
	select {
	case <-call.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if call.err != nil {
		return nil, call.err
	}
	return call.p, c.matches(call.p, ref)
}

// matches refuses a registry version whose digest is not the token's.
func (c *schemaCache) matches(p *pinned, ref verify.ToolRef) error {
	if p.ref.Digest != ref.Digest {
		return fmt.Errorf("the registry's %s version %d has digest %s, the token pins %s", ref.Name, ref.Version, p.ref.Digest, ref.Digest)
	}
	return nil
}

func (c *schemaCache) fetch(ctx context.Context, k pinKey) (*pinned, error) {
	u := c.base + "/registry/v1/tools/" + url.PathEscape(k.name) + "/versions/" + strconv.Itoa(k.version)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the pinned schemas: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the pinned schemas: GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxVersionBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetching the pinned schemas: %w", err)
	}
	if len(body) > maxVersionBytes {
		return nil, fmt.Errorf("fetching the pinned schemas: GET %s: more than %d bytes", u, maxVersionBytes)
	}
	var v struct {
		Name         string          `json:"name"`
		Version      int             `json:"version"`
		Digest       string          `json:"digest"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("the registry's answer for %s version %d: %w", k.name, k.version, err)
	}
	// The registry is trusted for the schemas only as far as they digest
	// to what it says (and the token pins, checked by matches).
	digest, err := verify.DeclarationDigest(v.InputSchema, v.OutputSchema)
	if err != nil || digest != v.Digest || v.Version != k.version {
		return nil, fmt.Errorf("the registry's answer for %s version %d does not digest to the digest it names (%s, %v)", k.name, k.version, v.Digest, err)
	}
	p := &pinned{ref: verify.ToolRef{Name: k.name, Version: k.version, Digest: digest}, size: int64(len(v.InputSchema) + len(v.OutputSchema))}
	if p.input, err = schema.Parse(v.InputSchema); err != nil {
		return nil, fmt.Errorf("the pinned inputSchema of %s: %w", k.name, err)
	}
	if len(v.OutputSchema) > 0 && string(v.OutputSchema) != "null" {
		if p.output, err = schema.Parse(v.OutputSchema); err != nil {
			return nil, fmt.Errorf("the pinned outputSchema of %s: %w", k.name, err)
		}
	}
	return p, nil
}

// pinOf is the version the token pins for tool name.
func pinOf(c *verify.Claims, name string) (verify.ToolRef, bool) {
	for _, d := range c.AuthorizationDetails {
		if d.Type != verify.DetailType {
			continue
		}
		for _, t := range d.Tools {
			if t.Name == name {
				return t, true
			}
		}
	}
	return verify.ToolRef{}, false
}
