package server

import (
	"context"

	"github.com/typeward/typeward/internal/store/postgres"
)

// DB is the server's database (nil in the embedded mode), for tests.
func (s *Server) DB() *postgres.DB { return s.stores.db }

// Housekeep runs one round of the housekeeping job now, for tests.
func (s *Server) Housekeep(ctx context.Context) { s.housekeeping(ctx) }
