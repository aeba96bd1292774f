package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/registry"
)

// Registry is the Postgres registry.Store. ResolveTool loads and compiles
// schemas on every call; put a registry.Cache in front of it and keep the
// cache current with a Listener.
type Registry struct {
	db                *DB
	registry.Watchers // told of every change this replica commits, before the NOTIFY comes back
	// Committed, when set before the first change, is told after the
	// watchers of the registry generation each committing transaction
	// made (Listener.Committed).
	Committed func(gen int64)
}

var _ registry.Store = (*Registry)(nil)

// NewRegistry returns the registry stored in db (migrated).
func NewRegistry(db *DB) *Registry { return &Registry{db: db} }

// inTx runs fn in a transaction and tells the watchers what it changed
// once committed.
func (r *Registry) inTx(ctx context.Context, fn func(tx pgx.Tx) ([]registry.Change, error)) error {
	var changes []registry.Change
	err := pgx.BeginFunc(ctx, r.db.Pool, func(tx pgx.Tx) error {
		var err error
		changes, err = fn(tx)
		if err != nil {
			return err
		}
		return notifyChangesTx(ctx, tx, changes)
	})
	if err != nil {
		return err
	}
	r.Notify(changes)
	if r.Committed != nil && len(changes) > 0 {
		r.Committed(changes[0].Generation)
	}
	return nil
}

// DeclareTool implements registry.Store.
func (r *Registry) DeclareTool(ctx context.Context, server string, tool registry.Tool) (registry.Declared, error) {
	d, err := registry.Declare(server, tool)
	if err != nil {
		return registry.Declared{}, err
	}
	var declared registry.Declared
	err = r.inTx(ctx, func(tx pgx.Tx) ([]registry.Change, error) {
		var changed bool
		var err error
		declared, changed, err = declareToolTx(ctx, tx, d)
		if err != nil || !changed {
			return nil, err
		}
		return []registry.Change{{Server: server, Name: tool.Name, Version: declared.Version.Version}}, nil
	})
	if err != nil {
		return registry.Declared{}, fmt.Errorf("declare %s: %w", registry.QualifiedName(server, tool.Name), err)
	}
	return declared, nil
}

// declareToolTx records a checked declaration; changed reports whether
// anything a reader sees changed.
func declareToolTx(ctx context.Context, tx pgx.Tx, d *registry.Declaration) (registry.Declared, bool, error) {
	// The upsert locks the tool's row, serialising concurrent declarations
	// of one tool so that version numbers never collide.
	var (
		id       int64
		current  int
		digest   string
		prev     registry.Tool
		annot    *string
		meta     *string
		removed  bool
		declared registry.Declared
	)
	err := tx.QueryRow(ctx, `
		INSERT INTO tools (server, name) VALUES ($1, $2)
		ON CONFLICT (server, name) DO UPDATE SET server = EXCLUDED.server
		RETURNING id, current_version, digest, title, description, annotations::text, meta::text, removed_at IS NOT NULL`,
		d.Server, d.Tool.Name).Scan(&id, &current, &digest, &prev.Title, &prev.Description, &annot, &meta, &removed)
	if err != nil {
		return declared, false, err
	}
	prev.Annotations, prev.Meta = jsonBytes(annot), jsonBytes(meta)
	created := current == 0 || digest != d.Digest
	if created {
		current++
		var at time.Time
		err := tx.QueryRow(ctx, `
			INSERT INTO tool_versions (tool_id, version, digest, input_digest, output_digest, input_schema, output_schema)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING created_at`,
			id, current, d.Digest, d.Input.Digest, d.OutputDigest(), string(d.Tool.InputSchema), jsonText(d.Tool.OutputSchema)).Scan(&at)
		if err != nil {
			return declared, false, err
		}
		declared = registry.Declared{Created: true, Version: registry.ToolVersion{
			Server: d.Server, Name: d.Tool.Name, Version: current, Digest: d.Digest,
			InputDigest: d.Input.Digest, OutputDigest: d.OutputDigest(),
			InputSchema: d.Tool.InputSchema, OutputSchema: d.Tool.OutputSchema, CreatedAt: at.UTC(),
		}}
	} else {
		v, err := scanToolVersion(tx.QueryRow(ctx, toolVersionSelect+` WHERE v.tool_id = $1 AND v.version = $2`, id, current))
		if err != nil {
			return declared, false, err
		}
		declared = registry.Declared{Version: v}
	}
	changed := created || removed || !registry.SameMetadata(prev, d.Tool)
	if changed {
		_, err = tx.Exec(ctx, `
			UPDATE tools SET current_version = $2, digest = $3, title = $4, description = $5,
				annotations = $6, meta = $7, updated_at = now(), removed_at = NULL
			WHERE id = $1`,
			id, current, d.Digest, d.Tool.Title, d.Tool.Description, jsonText(d.Tool.Annotations), jsonText(d.Tool.Meta))
	}
	return declared, changed, err
}
