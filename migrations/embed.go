// Package migrations holds typeward's Postgres schema as plain ordered SQL
// files. Each file is applied once, in one transaction, in name order.
package migrations

import "embed"

// FS holds every *.sql file of this directory.
//
//go:embed *.sql
var FS embed.FS
