package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/registry"
)

// PutComposition implements registry.Store. The latest validation stays
// recorded; it no longer matches a changed definition, which is stale.
func (r *Registry) PutComposition(ctx context.Context, name string, definition json.RawMessage) (registry.Composition, error) {
	digest, err := registry.CompositionDigest(name, definition)
	if err != nil {
		return registry.Composition{}, err
	}
	// One transaction, so that the answer is this write and not a
	// concurrent writer's.
	var stored []registry.Composition
	err = pgx.BeginFunc(ctx, r.db.Pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO compositions (name, definition, digest) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET definition = EXCLUDED.definition, digest = EXCLUDED.digest, updated_at = now()
			WHERE compositions.digest <> EXCLUDED.digest`, name, string(definition), digest)
		if err != nil {
			return err
		}
		stored, err = queryCompositions(ctx, tx, `WHERE c.name = $1`, name)
		return err
	})
	if err != nil {
		return registry.Composition{}, fmt.Errorf("composition %s: %w", name, err)
	}
	return stored[0], nil
}

// Composition implements registry.Store.
func (r *Registry) Composition(ctx context.Context, name string) (registry.Composition, error) {
	if !storable(name) {
		return registry.Composition{}, compositionNotFound(name)
	}
	list, err := queryCompositions(ctx, r.db.Pool, `WHERE c.name = $1`, name)
	if err != nil {
		return registry.Composition{}, err
	}
	if len(list) == 0 {
		return registry.Composition{}, compositionNotFound(name)
	}
	return list[0], nil
}

// ListCompositions implements registry.Store.
func (r *Registry) ListCompositions(ctx context.Context) ([]registry.Composition, error) {
	return queryCompositions(ctx, r.db.Pool, "")
}

// queryCompositions loads compositions and their validated tools in one
// query.
func queryCompositions(ctx context.Context, q toolQuerier, where string, args ...any) ([]registry.Composition, error) {
	rows, err := q.Query(ctx, `
		SELECT c.name, c.definition::text, c.digest, c.updated_at,
			c.validated_digest, c.validated_at, c.valid, c.issues::text, c.validated_compositions::text,
			coalesce((SELECT json_agg(json_build_object('server', ct.server, 'name', ct.name,
					'version', ct.version, 'digest', ct.digest, 'pinned', ct.pinned)
				ORDER BY ct.server, ct.name, ct.version)
				FROM composition_tools ct WHERE ct.composition = c.name), '[]')::text
		FROM compositions c `+where+` ORDER BY c.name`, args...)
	if err != nil {
		return nil, err
	}
	out := []registry.Composition{}
	for rows.Next() {
		var c registry.Composition
		var def, tools, subs string
		var vdigest, issues *string
		var vat *time.Time
		var valid *bool
		if err := rows.Scan(&c.Name, &def, &c.Digest, &c.UpdatedAt, &vdigest, &vat, &valid, &issues, &subs, &tools); err != nil {
			return nil, err
		}
		c.Definition = []byte(def)
		c.UpdatedAt = c.UpdatedAt.UTC()
		if vdigest != nil {
			v := &registry.Validation{DefinitionDigest: *vdigest, ValidatedAt: vat.UTC(), Valid: *valid, Issues: jsonBytes(issues)}
			if err := json.Unmarshal([]byte(tools), &v.Tools); err != nil {
				return nil, fmt.Errorf("composition %s: validated tools: %w", c.Name, err)
			}
			if err := json.Unmarshal([]byte(subs), &v.Compositions); err != nil {
				return nil, fmt.Errorf("composition %s: validated compositions: %w", c.Name, err)
			}
			c.Validation = v
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RecordValidation implements registry.Store.
func (r *Registry) RecordValidation(ctx context.Context, name string, v registry.Validation) error {
	if !storable(name) {
		return compositionNotFound(name)
	}
	return pgx.BeginFunc(ctx, r.db.Pool, func(tx pgx.Tx) error {
		var digest string
		err := tx.QueryRow(ctx, `SELECT digest FROM compositions WHERE name = $1 FOR UPDATE`, name).Scan(&digest)
		if errors.Is(err, pgx.ErrNoRows) {
			return compositionNotFound(name)
		}
		if err != nil {
			return err
		}
		subs, err := json.Marshal(registry.NormalizeCompositionRefs(v.Compositions))
		if err != nil {
			return err
		}
		if digest != v.DefinitionDigest {
			return fmt.Errorf("composition %s: validated definition %s is not the stored one %s: %w", name, v.DefinitionDigest, digest, registry.ErrConflict)
		}
		if _, err := tx.Exec(ctx, `
			UPDATE compositions SET validated_digest = $2, validated_at = now(), valid = $3, issues = $4,
				validated_compositions = $5
			WHERE name = $1`, name, v.DefinitionDigest, v.Valid, jsonText(v.Issues), string(subs)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM composition_tools WHERE composition = $1`, name); err != nil {
			return err
		}
		refs := registry.NormalizeRefs(v.Tools)
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"composition_tools"},
			[]string{"composition", "server", "name", "version", "digest", "pinned"},
			pgx.CopyFromSlice(len(refs), func(i int) ([]any, error) {
				t := refs[i]
				return []any{name, t.Server, t.Name, t.Version, t.Digest, t.Pinned}, nil
			}))
		return err
	})
}

// StaleCompositions implements registry.Store.
func (r *Registry) StaleCompositions(ctx context.Context) ([]registry.Composition, error) {
	list, state, err := r.compositionsWithState(ctx, "")
	if err != nil {
		return nil, err
	}
	out, subs := []registry.Composition{}, compositionState(list)
	for _, c := range list {
		if registry.IsStale(c, state, subs) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Freshness implements registry.Store.
func (r *Registry) Freshness(ctx context.Context) ([]registry.Freshness, error) {
	list, state, err := r.compositionsWithState(ctx, "")
	if err != nil {
		return nil, err
	}
	out, subs := make([]registry.Freshness, len(list)), compositionState(list)
	for i, c := range list {
		out[i] = registry.FreshnessOf(c, state, subs)
	}
	return out, nil
}

// CompositionFreshness implements registry.Store.
func (r *Registry) CompositionFreshness(ctx context.Context, name string) (registry.Freshness, error) {
	if !storable(name) {
		return registry.Freshness{}, compositionNotFound(name)
	}
	list, state, err := r.compositionsWithState(ctx, name)
	if err != nil {
		return registry.Freshness{}, err
	}
	for _, c := range list {
		if c.Name == name {
			return registry.FreshnessOf(c, state, compositionState(list)), nil
		}
	}
	return registry.Freshness{}, compositionNotFound(name)
}

// compositionsWithState loads the compositions and the current state of
// every tool a validation used (the compositions' own states are in the
// list), in one repeatable-read transaction so that both halves agree:
// every composition, or, when one is named, that one, the tools its
// validation used and the compositions it referenced.
func (r *Registry) compositionsWithState(ctx context.Context, one string) ([]registry.Composition, func(registry.ToolRef) registry.ToolState, error) {
	type key struct{ server, name string }
	states := map[key]registry.ToolState{}
	var list []registry.Composition
	used, where := `SELECT server, name FROM composition_tools`, ""
	var args []any
	if one != "" {
		used, args = used+` WHERE composition = $1`, []any{one}
		where = `WHERE c.name = $1 OR c.name IN (SELECT ref->>'name' FROM compositions o,
			jsonb_array_elements(o.validated_compositions) ref WHERE o.name = $1)`
	}
	err := pgx.BeginTxFunc(ctx, r.db.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			SELECT t.server, t.name, CASE WHEN t.removed_at IS NULL THEN t.current_version ELSE 0 END,
				coalesce(t.removed_at, v.created_at)
			FROM tools t JOIN tool_versions v ON v.tool_id = t.id AND v.version = t.current_version
			WHERE (t.server, t.name) IN (`+used+`)`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k key
			var st registry.ToolState
			if err := rows.Scan(&k.server, &k.name, &st.Version, &st.ChangedAt); err != nil {
				return err
			}
			st.ChangedAt = st.ChangedAt.UTC()
			states[k] = st
		}
		if err := rows.Err(); err != nil {
			return err
		}
		list, err = queryCompositions(ctx, tx, where, args...)
		return err
	})
	state := func(ref registry.ToolRef) registry.ToolState { return states[key{ref.Server, ref.Name}] }
	return list, state, err
}

// compositionState reads the current definitions' digests from list, every
// stored composition as read in the transaction that read the tools'
// states.
func compositionState(list []registry.Composition) func(string) registry.CompositionState {
	byName := make(map[string]registry.CompositionState, len(list))
	for _, c := range list {
		byName[c.Name] = registry.CompositionState{Digest: c.Digest, UpdatedAt: c.UpdatedAt}
	}
	return func(name string) registry.CompositionState { return byName[name] }
}

func compositionNotFound(name string) error {
	return fmt.Errorf("composition %s: %w", name, registry.ErrNotFound)
}

// Definition implements registry.Store.
func (r *Registry) Definition(ctx context.Context, name string) (json.RawMessage, error) {
	if !storable(name) {
		return nil, compositionNotFound(name)
	}
	var def string
	err := r.db.Pool.QueryRow(ctx, `SELECT definition::text FROM compositions WHERE name = $1`, name).Scan(&def)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, compositionNotFound(name)
	}
	return json.RawMessage(def), err
}
