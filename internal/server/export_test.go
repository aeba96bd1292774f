package server

import "github.com/typeward/typeward/internal/store/postgres"

// DB is the server's database (nil in the embedded mode), for tests.
func (s *Server) DB() *postgres.DB { return s.stores.db }
