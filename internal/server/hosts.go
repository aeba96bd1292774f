package server

import (
	"github.com/typeward/typeward/internal/resources"
)

// protectedResources is the server's protected-resource list: the
// --resources entries (validated by ParseConfig) and the store's.
func (s *Server) protectedResources() *resources.List {
	static, _ := resources.ParseStatic(s.cfg.Resources, s.cfg.Issuer)
	return &resources.List{Static: static, Store: s.stores.resources, Issuer: s.cfg.Issuer}
}
