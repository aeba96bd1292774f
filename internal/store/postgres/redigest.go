package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/verify"
)

// redigest replaces the digests of tool versions stored before migration
// 0005 with their RFC 8785 digests, in the versions, the tools' current
// digests and the compositions' pinned tools, in one transaction. SQL
// cannot compute them, so Migrate does, under its lock. A version whose
// schemas are not I-JSON (now refused by Declare) keeps its old digest and
// scheme: no digest can be recomputed for it, no token pins it validly,
// and it is returned by name, for the operator to replace the tool.
func redigest(ctx context.Context, conn *pgx.Conn) (undigestable []string, err error) {
	var has bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'tool_versions' AND column_name = 'digest_scheme')`).Scan(&has); err != nil || !has {
		return nil, err
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT v.tool_id, t.server, t.name, v.version, v.digest, v.input_schema::text, v.output_schema::text
			FROM tool_versions v JOIN tools t ON t.id = v.tool_id
			WHERE v.digest_scheme = 'v1' ORDER BY v.tool_id, v.version FOR UPDATE OF v`)
		if err != nil {
			return err
		}
		type old struct {
			toolID       int64
			server, name string
			version      int
			digest, in   string
			out          *string
		}
		olds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (old, error) {
			var o old
			err := r.Scan(&o.toolID, &o.server, &o.name, &o.version, &o.digest, &o.in, &o.out)
			return o, err
		})
		if err != nil {
			return err
		}
		for _, o := range olds {
			var out []byte
			if o.out != nil {
				out = []byte(*o.out)
			}
			digest, err := verify.DeclarationDigest([]byte(o.in), out)
			if err != nil {
				undigestable = append(undigestable, fmt.Sprintf("%s/%s v%d: %v", o.server, o.name, o.version, err))
				continue
			}
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`UPDATE tool_versions SET digest = $3, digest_scheme = 'jcs' WHERE tool_id = $1 AND version = $2`, []any{o.toolID, o.version, digest}},
				{`UPDATE tools SET digest = $3 WHERE id = $1 AND current_version = $2`, []any{o.toolID, o.version, digest}},
				{`UPDATE composition_tools SET digest = $5 WHERE server = $1 AND name = $2 AND version = $3 AND digest = $4`, []any{o.server, o.name, o.version, o.digest, digest}},
			} {
				if _, err := tx.Exec(ctx, q.sql, q.args...); err != nil {
					return fmt.Errorf("redigest %s/%s v%d: %w", o.server, o.name, o.version, err)
				}
			}
		}
		return nil
	})
	return undigestable, err
}
