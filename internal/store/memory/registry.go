// Package memory holds typeward's in-memory stores: the embedded default
// and the reference the Postgres stores are tested against.
package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/registry"
)

// Registry is an in-memory registry.Store. It keeps every version's
// compiled schemas, so resolving costs a map lookup.
type Registry struct {
	mu           sync.RWMutex
	now          func() time.Time
	tools        map[toolKey]*memTool
	servers      map[string][]string            // bare name -> servers of its current tools, sorted
	snapshots    map[string][]registry.Snapshot // by server, oldest first
	lastSnapshot int64
	compositions map[string]registry.Composition
	// Watchers are called after every change to a tool's resolution,
	// outside mu: how a registry.Cache in front of it stays current.
	registry.Watchers
}

type toolKey struct{ server, name string }

type memTool struct {
	rec       registry.ToolRecord
	versions  []registry.ToolVersion
	resolved  []*registry.ResolvedTool // by version-1
	removedAt time.Time                // zero while the tool is current
}

var _ registry.Store = (*Registry)(nil)

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		now:          func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
		tools:        map[toolKey]*memTool{},
		servers:      map[string][]string{},
		snapshots:    map[string][]registry.Snapshot{},
		compositions: map[string]registry.Composition{},
	}
}

// lookup finds a current tool by qualified or bare name; r.mu is held.
func (r *Registry) lookup(name string) (*memTool, error) {
	if server, tool, ok := registry.SplitName(name); ok {
		if t := r.tools[toolKey{server, tool}]; t != nil && t.removedAt.IsZero() {
			return t, nil
		}
		return nil, registry.NotFound(name)
	}
	server, err := registry.PickServer(name, r.servers[name])
	if err != nil {
		return nil, err
	}
	return r.tools[toolKey{server, name}], nil
}

// ResolveTool implements registry.Resolver.
func (r *Registry) ResolveTool(_ context.Context, name string, version int) (*registry.ResolvedTool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, err := r.lookup(name)
	if err != nil {
		return nil, err
	}
	v, err := pickVersion(t, name, version)
	if err != nil {
		return nil, err
	}
	clone := *t.resolved[v-1]
	return &clone, nil
}

func pickVersion(t *memTool, name string, version int) (int, error) {
	switch {
	case version == 0:
		return t.rec.Version, nil
	case version < 0 || version > len(t.versions):
		return 0, fmt.Errorf("tool %s version %d: %w", name, version, registry.ErrNotFound)
	}
	return version, nil
}

// DeclareTool implements registry.Store.
func (r *Registry) DeclareTool(ctx context.Context, server string, tool registry.Tool) (registry.Declared, error) {
	d, err := registry.Declare(server, tool)
	if err != nil {
		return registry.Declared{}, err
	}
	r.mu.Lock()
	declared, changed := r.declareLocked(d, r.now())
	r.mu.Unlock()
	if changed {
		r.Notify([]registry.Change{{Server: server, Name: tool.Name, Version: declared.Version.Version}})
	}
	return declared, nil
}

// declareLocked records a checked declaration; changed reports whether
// anything a reader sees changed.
func (r *Registry) declareLocked(d *registry.Declaration, now time.Time) (registry.Declared, bool) {
	key := toolKey{d.Server, d.Tool.Name}
	t := r.tools[key]
	if t == nil {
		t = &memTool{rec: registry.ToolRecord{Server: d.Server, CreatedAt: now}}
		r.tools[key] = t
	}
	revived := !t.removedAt.IsZero()
	if revived || len(t.versions) == 0 {
		r.setCurrent(key, true)
	}
	t.removedAt = time.Time{}
	created := len(t.versions) == 0 || t.versions[len(t.versions)-1].Digest != d.Digest
	if created {
		n := len(t.versions) + 1
		t.versions = append(t.versions, registry.ToolVersion{
			Server: d.Server, Name: d.Tool.Name, Version: n, Digest: d.Digest,
			InputDigest: d.Input.Digest, OutputDigest: d.OutputDigest(),
			InputSchema: d.Tool.InputSchema, OutputSchema: d.Tool.OutputSchema,
			CreatedAt: now,
		})
		t.resolved = append(t.resolved, registry.ResolvedFrom(d, n))
	}
	changed := created || revived || !registry.SameMetadata(t.rec.Declaration, d.Tool)
	if changed {
		t.rec.Declaration = registry.CloneTool(d.Tool)
		// The record shows the current version's schemas as first declared.
		cur := t.versions[len(t.versions)-1]
		t.rec.Declaration.InputSchema, t.rec.Declaration.OutputSchema = cur.InputSchema, cur.OutputSchema
		t.rec.Version = len(t.versions)
		t.rec.Digest = d.Digest
		t.rec.UpdatedAt = now
	}
	return registry.Declared{Version: cloneVersion(t.versions[len(t.versions)-1]), Created: created}, changed
}

// setCurrent adds a tool to, or removes it from, the bare-name index.
func (r *Registry) setCurrent(key toolKey, current bool) {
	servers := slices.DeleteFunc(r.servers[key.name], func(s string) bool { return s == key.server })
	if current {
		i, _ := slices.BinarySearch(servers, key.server)
		servers = slices.Insert(servers, i, key.server)
	}
	if len(servers) == 0 {
		delete(r.servers, key.name)
		return
	}
	r.servers[key.name] = servers
}

// Tool implements registry.Store.
func (r *Registry) Tool(_ context.Context, name string) (registry.ToolRecord, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, err := r.lookup(name)
	if err != nil {
		return registry.ToolRecord{}, err
	}
	return cloneRecord(t.rec), nil
}

// ListTools implements registry.Store.
func (r *Registry) ListTools(context.Context) ([]registry.ToolRecord, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []registry.ToolRecord{}
	for _, t := range r.tools {
		if t.removedAt.IsZero() {
			out = append(out, cloneRecord(t.rec))
		}
	}
	slices.SortFunc(out, func(a, b registry.ToolRecord) int {
		return cmpPair(a.Server, a.Declaration.Name, b.Server, b.Declaration.Name)
	})
	return out, nil
}

// ToolVersion implements registry.Store.
func (r *Registry) ToolVersion(_ context.Context, name string, version int) (registry.ToolVersion, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, err := r.lookup(name)
	if err != nil {
		return registry.ToolVersion{}, err
	}
	v, err := pickVersion(t, name, version)
	if err != nil {
		return registry.ToolVersion{}, err
	}
	return cloneVersion(t.versions[v-1]), nil
}

// ListVersions implements registry.Store.
func (r *Registry) ListVersions(_ context.Context, name string) ([]registry.ToolVersion, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, err := r.lookup(name)
	if err != nil {
		return nil, err
	}
	out := make([]registry.ToolVersion, len(t.versions))
	for i, v := range t.versions {
		out[i] = cloneVersion(v)
	}
	return out, nil
}

func cloneRecord(rec registry.ToolRecord) registry.ToolRecord {
	rec.Declaration = registry.CloneTool(rec.Declaration)
	return rec
}

func cloneVersion(v registry.ToolVersion) registry.ToolVersion {
	v.InputSchema = slices.Clone(v.InputSchema)
	v.OutputSchema = slices.Clone(v.OutputSchema)
	return v
}

func cmpPair(a1, a2, b1, b2 string) int {
	if c := strings.Compare(a1, b1); c != 0 {
		return c
	}
	return strings.Compare(a2, b2)
}
