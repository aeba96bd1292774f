package postgres

import (
	"errors"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// registryGuardSQL is the registry's cross-replica guard (migration 0016):
// it raises 22TW1 unless the registry is at every generation of $1, the
// ones the validations of a batch of issuances read. The audit log itself
// checks nothing.
const registryGuardSQL = `SELECT registry_generation_is($1::bigint[])`

// registryChanged reports whether registryGuardSQL refused.
func registryChanged(err error) bool {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	return ok && pgErr.Code == "22TW1"
}

// insertSQL is the INSERT of n rows (with upsertIssuance when upsert),
// built once per batch size: every batch would otherwise format
// insertColumns placeholders a row.
func insertSQL(n int, upsert bool) string {
	key := 2*n + boolIndex(upsert)
	if key < len(insertSQLs) {
		if s, ok := insertSQLs[key].Load().(string); ok {
			return s
		}
	}
	var sql strings.Builder
	sql.WriteString(`INSERT INTO oauth_issuances (` + issuanceColumns + `, registry_generation) VALUES `)
	for i := range n {
		if i > 0 {
			sql.WriteString(", ")
		}
		sql.WriteString("(")
		for j := range insertColumns {
			if j > 0 {
				sql.WriteString(", ")
			}
			sql.WriteString("$" + strconv.Itoa(insertColumns*i+j+1))
		}
		sql.WriteString(")")
	}
	if upsert {
		sql.WriteString(upsertIssuance)
	}
	s := sql.String()
	if key < len(insertSQLs) {
		insertSQLs[key].Store(s)
	}
	return s
}

// insertSQLs holds insertSQL's texts, two per batch size up to 64 rows
// (about 400 KB once every size has been used); larger batches, rare and
// amortised over many rows, build theirs.
var insertSQLs [2*64 + 2]atomic.Value

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
