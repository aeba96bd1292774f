package server

import (
	"context"
	"fmt"
	"github.com/typeward/typeward/internal/nonce"
	"github.com/typeward/typeward/verify/dpop"
	"log/slog"
	"os"
	"strings"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/internal/revocation"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/users"
)

// MemoryAuditCapacity bounds the embedded mode's in-memory issuance log.
const MemoryAuditCapacity = 100_000

// stores is every store of one server, with what the mode needs besides.
type stores struct {
	registry registry.Store
	clients  clients.Store
	replay   clients.ReplayStore
	// proofs remembers the token endpoint's DPoP proofs, in replay's table;
	// nonces are its DPoP nonces (serve --dpop-nonce).
	proofs      dpop.Replay
	nonces      nonce.Store
	revocations revocation.Store
	audit       audit.Store
	keys        keys.Store
	approvals   approval.Store
	grants      grant.Store
	users       users.Store
	resources   resources.Store
	// registrations registers into clients (dynamic registration).
	registrations registration.Store
	kek           *keys.KEK
	hasher        *clients.Hasher

	db *postgres.DB // nil in the embedded mode
	// watch subscribes a registry cache to local changes.
	watch func(func(registry.Change))
}

// openMemory makes the embedded default's stores: nothing persists, so the
// signing key and the secret pepper are ephemeral.
func openMemory() (*stores, error) {
	kek, err := keys.GenerateKEK()
	if err != nil {
		return nil, err
	}
	reg := memory.NewRegistry()
	cs := memory.NewClients()
	replay := memory.NewAssertionReplay()
	return &stores{
		registry: reg, clients: cs, registrations: memory.NewRegistrations(cs), replay: replay, proofs: memory.NewProofReplay(replay, nil), nonces: memory.NewDPoPNonces(),
		revocations: memory.NewRevocations(), audit: memory.NewAudit(MemoryAuditCapacity),
		keys: memory.NewKeys(), approvals: memory.NewApprovals(), grants: memory.NewGrants(), users: memory.NewUsers(), resources: memory.NewResources(), kek: kek, hasher: clients.NewRandomHasher(), watch: reg.Watch,
	}, nil
}

// openPostgres connects, migrates when asked, and makes the Postgres
// stores.
func openPostgres(ctx context.Context, cfg *Config, log *slog.Logger) (*stores, error) {
	db, err := postgres.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Migrate {
		applied, err := db.Migrate(ctx)
		if err != nil {
			db.Close()
			return nil, err
		}
		log.Info("database migrated", "applied", applied)
		if len(db.Undigestable) > 0 {
			log.Warn("tool versions kept their old digest: their schemas are not I-JSON, declare them anew", "versions", db.Undigestable)
		}
	} else {
		pending, err := db.Pending(ctx)
		if err == nil && len(pending) > 0 {
			err = fmt.Errorf("the database is behind this typeward: %d migration(s) not applied (%s); run 'typeward migrate' or start with --migrate",
				len(pending), strings.Join(pending, ", "))
		}
		if err != nil {
			db.Close()
			return nil, err
		}
	}
	hasher, err := clients.NewHasher(cfg.Pepper)
	if err != nil {
		db.Close()
		return nil, err
	}
	st := newPostgresStores(db, cfg.KEK, hasher)
	st.audit.(*postgres.Audit).Log = log
	return st, nil
}

func newPostgresStores(db *postgres.DB, kek *keys.KEK, hasher *clients.Hasher) *stores {
	reg := postgres.NewRegistry(db)
	return &stores{
		registry: reg, clients: postgres.NewClients(db), registrations: postgres.NewRegistrations(db), replay: postgres.NewAssertionReplay(db),
		proofs: postgres.NewProofReplay(db, nil), nonces: postgres.NewDPoPNonces(db), revocations: postgres.NewRevocations(db), audit: postgres.NewAudit(db),
		keys: postgres.NewKeys(db), approvals: postgres.NewApprovals(db), grants: postgres.NewGrants(db), users: postgres.NewUsers(db), resources: postgres.NewResources(db), kek: kek, hasher: hasher, db: db, watch: reg.Watch,
	}
}

// loadRegistryFile declares every tool of a tools file, for the embedded
// default.
func loadRegistryFile(ctx context.Context, reg registry.Store, path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("registry file: %w", err)
	}
	lists, err := registry.ParseToolsFile(data)
	if err != nil {
		return 0, fmt.Errorf("registry file %s: %w", path, err)
	}
	n := 0
	for _, list := range lists {
		for _, t := range list.Tools {
			if _, err := reg.DeclareTool(ctx, list.Server, t); err != nil {
				return n, fmt.Errorf("registry file %s: %w", path, err)
			}
			n++
		}
	}
	return n, nil
}
