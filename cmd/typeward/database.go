package main

import (
	"flag"

	"github.com/typeward/typeward/internal/server"
)

// databaseURLFlag adds --database-url to a command that works on the
// database. Its default is resolved after parsing, not shown by --help:
// DATABASE_URL usually holds a password.
func databaseURLFlag(fs *flag.FlagSet, url *string) {
	fs.StringVar(url, "database-url", "", "Postgres `URL` (default: $"+server.EnvDatabaseURL+")")
}

// resolveDatabaseURL is the --database-url given, else DATABASE_URL. With
// neither it is a usage error saying what the command needs the database
// for.
func resolveDatabaseURL(m *Main, url *string, why string) error {
	if *url == "" {
		*url = m.Getenv(server.EnvDatabaseURL)
	}
	if *url == "" {
		return usageError("no database: set %s or pass --database-url (%s)", server.EnvDatabaseURL, why)
	}
	return nil
}
