package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/typeward/typeward/internal/registry"
)

// ImportSnapshot implements registry.Store.
func (r *Registry) ImportSnapshot(_ context.Context, server, source string, tools []registry.Tool) (registry.Snapshot, error) {
	list, err := registry.EncodeImport(server, source, tools)
	if err != nil {
		return registry.Snapshot{}, err
	}
	// Kept as Postgres keeps it: the encoded list, decoded on the way out.
	var stored []registry.Tool
	if err := json.Unmarshal(list, &stored); err != nil {
		return registry.Snapshot{}, fmt.Errorf("snapshot of %q: %w", server, err)
	}
	snap := registry.Snapshot{Server: server, Source: source, Digest: registry.SnapshotDigest(tools), Tools: stored}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastSnapshot++
	snap.ID = r.lastSnapshot
	snap.ImportedAt = r.now()
	r.snapshots[server] = append(r.snapshots[server], snap)
	return cloneSnapshot(snap), nil
}

// Snapshot implements registry.Store.
func (r *Registry) Snapshot(_ context.Context, server string, id int64) (registry.Snapshot, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i := r.snapshotIndex(server, id)
	if i < 0 {
		return registry.Snapshot{}, snapshotNotFound(server, id)
	}
	return cloneSnapshot(r.snapshots[server][i]), nil
}

// ApprovedSnapshot implements registry.Store.
func (r *Registry) ApprovedSnapshot(_ context.Context, server string) (registry.Snapshot, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if s, ok := r.approvedLocked(server); ok {
		return cloneSnapshot(s), nil
	}
	return registry.Snapshot{}, fmt.Errorf("server %q: no approved snapshot: %w", server, registry.ErrNotFound)
}

func (r *Registry) approvedLocked(server string) (registry.Snapshot, bool) {
	var best registry.Snapshot
	for _, s := range r.snapshots[server] {
		if !s.ApprovedAt.IsZero() && s.ID > best.ID {
			best = s
		}
	}
	return best, best.ID != 0
}

// ApproveSnapshot implements registry.Store.
func (r *Registry) ApproveSnapshot(_ context.Context, server string, id int64) (registry.Approval, error) {
	r.mu.Lock()
	approval, changes, err := r.approveLocked(server, id)
	r.mu.Unlock()
	if err != nil {
		return registry.Approval{}, err
	}
	r.Notify(changes)
	return approval, nil
}

func (r *Registry) approveLocked(server string, id int64) (registry.Approval, []registry.Change, error) {
	i := r.snapshotIndex(server, id)
	if i < 0 {
		return registry.Approval{}, nil, snapshotNotFound(server, id)
	}
	snap := r.snapshots[server][i]
	if cur, ok := r.approvedLocked(server); ok && cur.ID > id {
		return registry.Approval{}, nil, fmt.Errorf("server %q: snapshot %d is older than the approved snapshot %d: %w", server, id, cur.ID, registry.ErrConflict)
	}
	decls, err := registry.DeclareAll(server, snap.Tools)
	if err != nil {
		return registry.Approval{}, nil, err
	}
	now := r.now()
	approval := registry.Approval{}
	var changes []registry.Change
	listed := map[string]bool{}
	for _, d := range decls {
		declared, changed := r.declareLocked(d, now)
		approval.Declared = append(approval.Declared, declared)
		if changed {
			changes = append(changes, registry.Change{Server: server, Name: d.Tool.Name, Version: declared.Version.Version})
		}
		listed[d.Tool.Name] = true
	}
	for k, t := range r.tools {
		if k.server == server && !listed[k.name] && t.removedAt.IsZero() {
			t.removedAt = now
			r.setCurrent(k, false)
			approval.Removed = append(approval.Removed, registry.QualifiedName(k.server, k.name))
			changes = append(changes, registry.Change{Server: server, Name: k.name})
		}
	}
	slices.Sort(approval.Removed)
	if snap.ApprovedAt.IsZero() {
		snap.ApprovedAt = now
		r.snapshots[server][i] = snap
	}
	approval.Snapshot = cloneSnapshot(snap)
	return approval, changes, nil
}

func (r *Registry) snapshotIndex(server string, id int64) int {
	return slices.IndexFunc(r.snapshots[server], func(s registry.Snapshot) bool { return s.ID == id })
}

func snapshotNotFound(server string, id int64) error {
	return fmt.Errorf("server %q: snapshot %d: %w", server, id, registry.ErrNotFound)
}

func cloneSnapshot(s registry.Snapshot) registry.Snapshot {
	s.Tools = cloneTools(s.Tools)
	return s
}

func cloneTools(tools []registry.Tool) []registry.Tool {
	out := make([]registry.Tool, len(tools))
	for i, t := range tools {
		out[i] = registry.CloneTool(t)
	}
	return out
}
