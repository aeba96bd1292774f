package postgres_test

import (
	"testing"

	"github.com/typeward/typeward/internal/revocation"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestRevocationConformance(t *testing.T) {
	t.Parallel()
	storetest.RunRevocation(t, func(t *testing.T) revocation.Store {
		db, _ := pgtest.New(t)
		return postgres.NewRevocations(db)
	})
}
