package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/registry"
)

// ImportSnapshot implements registry.Store.
func (r *Registry) ImportSnapshot(ctx context.Context, server, source string, tools []registry.Tool) (registry.Snapshot, error) {
	list, err := registry.EncodeImport(server, source, tools)
	if err != nil {
		return registry.Snapshot{}, err
	}
	snap := registry.Snapshot{Server: server, Source: source, Digest: registry.SnapshotDigest(tools)}
	err = r.db.Pool.QueryRow(ctx, `
		INSERT INTO server_snapshots (server, source, digest, tools) VALUES ($1, $2, $3, $4)
		RETURNING id, imported_at`, server, source, snap.Digest, string(list)).Scan(&snap.ID, &snap.ImportedAt)
	if err != nil {
		return registry.Snapshot{}, fmt.Errorf("snapshot of %q: %w", server, err)
	}
	snap.ImportedAt = snap.ImportedAt.UTC()
	snap.Tools = make([]registry.Tool, len(tools))
	for i, t := range tools {
		snap.Tools[i] = registry.CloneTool(t)
	}
	return snap, nil
}

const snapshotSelect = `SELECT id, server, source, digest, tools::text, imported_at, approved_at FROM server_snapshots`

func scanSnapshot(row pgx.Row) (registry.Snapshot, error) {
	var s registry.Snapshot
	var list string
	var approved *time.Time
	if err := row.Scan(&s.ID, &s.Server, &s.Source, &s.Digest, &list, &s.ImportedAt, &approved); err != nil {
		return s, err
	}
	if err := json.Unmarshal([]byte(list), &s.Tools); err != nil {
		return s, fmt.Errorf("snapshot %d: stored tools do not decode: %w", s.ID, err)
	}
	s.ImportedAt, s.ApprovedAt = s.ImportedAt.UTC(), timeOrZero(approved)
	return s, nil
}

// Snapshot implements registry.Store.
func (r *Registry) Snapshot(ctx context.Context, server string, id int64) (registry.Snapshot, error) {
	if !storable(server) {
		return registry.Snapshot{}, snapshotNotFound(server, id)
	}
	s, err := scanSnapshot(r.db.Pool.QueryRow(ctx, snapshotSelect+` WHERE server = $1 AND id = $2`, server, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return s, snapshotNotFound(server, id)
	}
	return s, err
}

// ApprovedSnapshot implements registry.Store.
func (r *Registry) ApprovedSnapshot(ctx context.Context, server string) (registry.Snapshot, error) {
	if !storable(server) {
		return registry.Snapshot{}, fmt.Errorf("server %q: no approved snapshot: %w", server, registry.ErrNotFound)
	}
	s, err := scanSnapshot(r.db.Pool.QueryRow(ctx, snapshotSelect+`
		WHERE server = $1 AND approved_at IS NOT NULL ORDER BY id DESC LIMIT 1`, server))
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("server %q: no approved snapshot: %w", server, registry.ErrNotFound)
	}
	return s, err
}

// ApproveSnapshot implements registry.Store: the declarations, removals,
// notifications and the approval mark commit together or not at all.
func (r *Registry) ApproveSnapshot(ctx context.Context, server string, id int64) (registry.Approval, error) {
	snap, err := r.Snapshot(ctx, server, id)
	if err != nil {
		return registry.Approval{}, err
	}
	decls, err := registry.DeclareAll(server, snap.Tools)
	if err != nil {
		return registry.Approval{}, err
	}
	var approval registry.Approval
	err = r.inTx(ctx, func(tx pgx.Tx) ([]registry.Change, error) {
		approval = registry.Approval{}
		// Two approvals for one server take turns.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('typeward snapshot ' || coalesce(current_schema(), '') || '/' || $1, 0))`, server); err != nil {
			return nil, err
		}
		var newest *int64
		if err := tx.QueryRow(ctx, `SELECT max(id) FROM server_snapshots WHERE server = $1 AND approved_at IS NOT NULL`, server).Scan(&newest); err != nil {
			return nil, err
		}
		if newest != nil && *newest > id {
			return nil, fmt.Errorf("server %q: snapshot %d is older than the approved snapshot %d: %w", server, id, *newest, registry.ErrConflict)
		}
		var changes []registry.Change
		names := make([]string, 0, len(decls))
		for _, d := range decls {
			declared, changed, err := declareToolTx(ctx, tx, d)
			if err != nil {
				return nil, fmt.Errorf("declare %s: %w", d.Tool.Name, err)
			}
			approval.Declared = append(approval.Declared, declared)
			if changed {
				changes = append(changes, registry.Change{Server: server, Name: d.Tool.Name, Version: declared.Version.Version})
			}
			names = append(names, d.Tool.Name)
		}
		rows, err := tx.Query(ctx, `
			UPDATE tools SET removed_at = now(), updated_at = now()
			WHERE server = $1 AND removed_at IS NULL AND NOT (name = ANY($2))
			RETURNING name`, server, names)
		if err != nil {
			return nil, err
		}
		removed, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		for _, name := range removed {
			approval.Removed = append(approval.Removed, registry.QualifiedName(server, name))
			changes = append(changes, registry.Change{Server: server, Name: name})
		}
		approval.Snapshot, err = scanSnapshot(tx.QueryRow(ctx, `
			UPDATE server_snapshots SET approved_at = coalesce(approved_at, now())
			WHERE id = $1 RETURNING id, server, source, digest, tools::text, imported_at, approved_at`, id))
		return changes, err
	})
	if err != nil {
		return registry.Approval{}, err
	}
	slices.Sort(approval.Removed)
	return approval, nil
}

func snapshotNotFound(server string, id int64) error {
	return fmt.Errorf("server %q: snapshot %d: %w", server, id, registry.ErrNotFound)
}
