package server

import (
	"context"

	"github.com/typeward/typeward/internal/cimd"
	"github.com/typeward/typeward/internal/hosts"
	"github.com/typeward/typeward/internal/oauth"
	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/resources"
)

// hostClients makes the server's protected-resource list, metadata
// document fetcher and dynamic registration, and the client lookup built
// on them.
func (s *Server) hostClients() (*hosts.Clients, error) {
	static, _ := resources.ParseStatic(s.cfg.Resources, s.cfg.Issuer) // validated by ParseConfig
	s.resources = &resources.List{Static: static, Store: s.stores.resources, Issuer: s.cfg.Issuer}
	if !s.cfg.Embedded() {
		// Read on every host lookup: trusted as long as client records are.
		s.resources.TTL = clientCacheTTL
	}
	s.documents = cimd.New(cimd.Config{RootCAs: s.cfg.CIMDRoots, AllowLoopback: s.cfg.CIMDAllowLoopback,
		TrustedDomains: s.cfg.CIMDTrustedDomains})
	limiter, err := oauth.NewRegistrationLimiter()
	if err != nil {
		return nil, err
	}
	s.registration = &oauth.Registrar{Mode: s.registrationMode(), Store: s.stores.registrations, Hasher: s.stores.hasher,
		Audit: s.stores.audit, Limiter: limiter, Issuer: s.cfg.Issuer}
	return &hosts.Clients{Store: s.stores.clients, Documents: s.documents, Resources: s.resources, Issuer: s.cfg.Issuer}, nil
}

// registrationMode is --registration, or the mode's default for a Config
// not made by ParseConfig.
func (s *Server) registrationMode() registration.Mode {
	switch m := s.cfg.Registration; {
	case m != "":
		return m
	case s.cfg.Embedded():
		return registration.Open
	}
	return registration.Off
}

// hostMetadata adds to the RFC 8414 metadata how hosts come to be clients.
func (s *Server) hostMetadata(md oauth.Metadata) oauth.Metadata {
	md.ClientIDMetadataDocumentSupported = true
	if s.registration.Mode != registration.Off {
		md.RegistrationEndpoint = s.cfg.Issuer + oauth.PathRegister
	}
	return md
}

// sweepRegistrations expires the registrations never used.
func (s *Server) sweepRegistrations(ctx context.Context) {
	used, expired, err := s.registration.Sweep(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.Warn("sweeping client registrations failed", "err", err)
	case expired > 0:
		s.log.Info("unused client registrations expired", "expired", expired, "used", used)
	}
}
