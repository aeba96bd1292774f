package postgres_test

import (
	"testing"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestRegistrationsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRegistrations(t, func(t *testing.T) (registration.Store, clients.Store) {
		db, _ := pgtest.New(t)
		return postgres.NewRegistrations(db), postgres.NewClients(db)
	})
}
