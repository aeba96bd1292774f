package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/registry"
)

const toolVersionSelect = `
	SELECT t.server, t.name, v.version, v.digest, v.input_digest, v.output_digest,
		v.input_schema::text, v.output_schema::text, v.created_at
	FROM tool_versions v JOIN tools t ON t.id = v.tool_id`

func scanToolVersion(row pgx.Row) (registry.ToolVersion, error) {
	var v registry.ToolVersion
	var in string
	var out *string
	err := row.Scan(&v.Server, &v.Name, &v.Version, &v.Digest, &v.InputDigest, &v.OutputDigest, &in, &out, &v.CreatedAt)
	v.InputSchema, v.OutputSchema = []byte(in), jsonBytes(out)
	v.CreatedAt = v.CreatedAt.UTC()
	return v, err
}

// findToolID resolves a name to the id of a current tool.
func findToolID(ctx context.Context, q toolQuerier, name string) (int64, error) {
	if !storable(name) {
		return 0, registry.NotFound(name)
	}
	if server, tool, ok := registry.SplitName(name); ok {
		var id int64
		err := q.QueryRow(ctx, `SELECT id FROM tools WHERE server = $1 AND name = $2 AND removed_at IS NULL`, server, tool).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, registry.NotFound(name)
		}
		return id, err
	}
	rows, err := q.Query(ctx, `SELECT server, id FROM tools WHERE name = $1 AND removed_at IS NULL ORDER BY server`, name)
	if err != nil {
		return 0, err
	}
	ids := map[string]int64{}
	var servers []string
	for rows.Next() {
		var server string
		var id int64
		if err := rows.Scan(&server, &id); err != nil {
			return 0, err
		}
		servers = append(servers, server)
		ids[server] = id
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	server, err := registry.PickServer(name, servers)
	if err != nil {
		return 0, err
	}
	return ids[server], nil
}

// toolQuerier is what both a pool and a transaction offer.
type toolQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// ResolveTool implements registry.Resolver: one round trip, then the
// schemas are loaded and compiled.
func (r *Registry) ResolveTool(ctx context.Context, name string, version int) (*registry.ResolvedTool, error) {
	v, err := r.ToolVersion(ctx, name, version)
	if err != nil {
		return nil, err
	}
	rt, err := registry.Resolve(v)
	if err != nil {
		return nil, fmt.Errorf("tool %s version %d: stored schema no longer loads: %w", name, v.Version, err)
	}
	return rt, nil
}

// ToolVersion implements registry.Store, in one round trip: every current
// tool of that name comes back, and PickServer chooses.
func (r *Registry) ToolVersion(ctx context.Context, name string, version int) (registry.ToolVersion, error) {
	if version < 0 || !storable(name) {
		return registry.ToolVersion{}, fmt.Errorf("tool %s version %d: %w", name, version, registry.ErrNotFound)
	}
	server, tool, qualified := registry.SplitName(name)
	rows, err := r.db.Pool.Query(ctx, `
		SELECT t.server, t.name, v.version, v.digest, v.input_digest, v.output_digest,
			v.input_schema::text, v.output_schema::text, v.created_at
		FROM tools t LEFT JOIN tool_versions v
			ON v.tool_id = t.id AND v.version = CASE WHEN $3 = 0 THEN t.current_version ELSE $3 END
		WHERE t.name = $2 AND t.removed_at IS NULL AND (NOT $4 OR t.server = $1)
		ORDER BY t.server`, server, tool, version, qualified)
	if err != nil {
		return registry.ToolVersion{}, err
	}
	type candidate struct {
		v     registry.ToolVersion
		found bool
	}
	byServer := map[string]candidate{}
	var servers []string
	for rows.Next() {
		var c candidate
		var num *int
		var digest, inD, outD, in, out *string
		var at *time.Time
		if err := rows.Scan(&c.v.Server, &c.v.Name, &num, &digest, &inD, &outD, &in, &out, &at); err != nil {
			return registry.ToolVersion{}, err
		}
		if num != nil {
			c.found = true
			c.v.Version, c.v.Digest, c.v.InputDigest, c.v.OutputDigest = *num, *digest, *inD, *outD
			c.v.InputSchema, c.v.OutputSchema, c.v.CreatedAt = []byte(*in), jsonBytes(out), at.UTC()
		}
		servers = append(servers, c.v.Server)
		byServer[c.v.Server] = c
	}
	if err := rows.Err(); err != nil {
		return registry.ToolVersion{}, err
	}
	picked, err := registry.PickServer(tool, servers)
	if err != nil {
		if qualified {
			return registry.ToolVersion{}, registry.NotFound(name)
		}
		return registry.ToolVersion{}, err
	}
	c := byServer[picked]
	if !c.found {
		return registry.ToolVersion{}, fmt.Errorf("tool %s version %d: %w", name, version, registry.ErrNotFound)
	}
	return c.v, nil
}

// Tool implements registry.Store.
func (r *Registry) Tool(ctx context.Context, name string) (registry.ToolRecord, error) {
	id, err := findToolID(ctx, r.db.Pool, name)
	if err != nil {
		return registry.ToolRecord{}, err
	}
	return scanToolRecord(r.db.Pool.QueryRow(ctx, toolRecordSelect+` WHERE t.id = $1`, id))
}

// ListTools implements registry.Store.
func (r *Registry) ListTools(ctx context.Context) ([]registry.ToolRecord, error) {
	rows, err := r.db.Pool.Query(ctx, toolRecordSelect+` WHERE t.removed_at IS NULL ORDER BY t.server, t.name`)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (registry.ToolRecord, error) { return scanToolRecord(row) })
	if out == nil {
		out = []registry.ToolRecord{}
	}
	return out, err
}

const toolRecordSelect = `
	SELECT t.server, t.name, t.title, t.description, t.annotations::text, t.meta::text,
		t.current_version, t.digest, t.created_at, t.updated_at, v.input_schema::text, v.output_schema::text
	FROM tools t JOIN tool_versions v ON v.tool_id = t.id AND v.version = t.current_version`

func scanToolRecord(row pgx.Row) (registry.ToolRecord, error) {
	var rec registry.ToolRecord
	var annot, meta, out *string
	var in string
	d := &rec.Declaration
	err := row.Scan(&rec.Server, &d.Name, &d.Title, &d.Description, &annot, &meta,
		&rec.Version, &rec.Digest, &rec.CreatedAt, &rec.UpdatedAt, &in, &out)
	if errors.Is(err, pgx.ErrNoRows) {
		return rec, fmt.Errorf("tool: %w", registry.ErrNotFound)
	}
	d.Annotations, d.Meta, d.InputSchema, d.OutputSchema = jsonBytes(annot), jsonBytes(meta), []byte(in), jsonBytes(out)
	rec.CreatedAt, rec.UpdatedAt = rec.CreatedAt.UTC(), rec.UpdatedAt.UTC()
	return rec, err
}

// ListVersions implements registry.Store.
func (r *Registry) ListVersions(ctx context.Context, name string) ([]registry.ToolVersion, error) {
	id, err := findToolID(ctx, r.db.Pool, name)
	if err != nil {
		return nil, err
	}
	rows, err := r.db.Pool.Query(ctx, toolVersionSelect+` WHERE v.tool_id = $1 ORDER BY v.version`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (registry.ToolVersion, error) { return scanToolVersion(row) })
}

func jsonBytes(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

// jsonText passes raw JSON as text (NULL when absent) so that Postgres
// stores it verbatim in a json column.
func jsonText(raw []byte) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	s := string(raw)
	return &s
}
