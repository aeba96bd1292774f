package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/registry"
)

// NotifyChannel carries registry changes between replicas. The channel is
// this name, ":" and the schema the tables live in, so that deployments
// sharing a database do not hear each other. A payload is
// "server/tool@version" (version 0: removed), never a schema.
const NotifyChannel = "typeward_registry"

// Registry is the Postgres registry.Store. ResolveTool loads and compiles
// schemas on every call; put a registry.Cache in front of it and keep the
// cache current with a Listener.
type Registry struct {
	db *DB

	mu       sync.Mutex
	watchers []func(registry.Change)
}

var _ registry.Store = (*Registry)(nil)

// NewRegistry returns the registry stored in db (migrated).
func NewRegistry(db *DB) *Registry { return &Registry{db: db} }

// Watch calls fn after every change this replica commits, without waiting
// for the notification to come back through the listener.
func (r *Registry) Watch(fn func(registry.Change)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watchers = append(r.watchers, fn)
}

func (r *Registry) committed(changes []registry.Change) {
	r.mu.Lock()
	watchers := slices.Clone(r.watchers)
	r.mu.Unlock()
	for _, c := range changes {
		for _, fn := range watchers {
			fn(c)
		}
	}
}

// notifyChangeTx queues a change notification; Postgres delivers it at commit.
func notifyChangeTx(ctx context.Context, tx pgx.Tx, c registry.Change) error {
	_, err := tx.Exec(ctx, "SELECT pg_notify($1 || ':' || current_schema(), $2)", NotifyChannel, ChangePayload(c))
	return err
}

// ChangePayload encodes a change as a notification payload.
func ChangePayload(c registry.Change) string {
	return registry.QualifiedName(c.Server, c.Name) + "@" + strconv.Itoa(c.Version)
}

// ParseChangePayload decodes ChangePayload. Tool names hold neither "/"
// nor "@", so the last of each separates them.
func ParseChangePayload(payload string) (registry.Change, error) {
	at := -1
	for i := len(payload) - 1; i >= 0; i-- {
		if payload[i] == '@' {
			at = i
			break
		}
	}
	if at < 0 {
		return registry.Change{}, fmt.Errorf("registry notification %q: no @version", payload)
	}
	version, err := strconv.Atoi(payload[at+1:])
	if err != nil || version < 0 {
		return registry.Change{}, fmt.Errorf("registry notification %q: bad version", payload)
	}
	server, name, _ := registry.SplitName(payload[:at])
	if !registry.ValidToolName(name) {
		return registry.Change{}, fmt.Errorf("registry notification %q: bad tool name", payload)
	}
	return registry.Change{Server: server, Name: name, Version: version}, nil
}

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
		for _, c := range changes {
			if err := notifyChangeTx(ctx, tx, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.committed(changes)
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
	if version < 0 {
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
