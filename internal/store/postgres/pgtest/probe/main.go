// Command probe tells `make test` whether the database tests will run: go
// test shows nothing of a passing package without -v, so the skips that
// pgtest reports would otherwise go unseen. It prints one warning when
// PostgreSQL is unreachable (exit 0), or fails when TYPEWARD_REQUIRE_DB=1.
package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgtest.URL())
	if err == nil {
		conn.Close(ctx)
		return
	}
	where := "DATABASE_URL"
	if u, perr := url.Parse(pgtest.URL()); perr == nil {
		where = u.Host // never the password
	}
	if os.Getenv("TYPEWARD_REQUIRE_DB") == "1" {
		fmt.Fprintf(os.Stderr, "TYPEWARD_REQUIRE_DB=1 but PostgreSQL at %s is unreachable: %v\n", where, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "WARNING: PostgreSQL at %s is unreachable; every database test will SKIP.\n"+
		"  Start it (or set DATABASE_URL), or set TYPEWARD_REQUIRE_DB=1 to make the skips fail.\n", where)
}
