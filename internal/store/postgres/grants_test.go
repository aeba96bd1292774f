package postgres_test

import (
	"testing"

	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestGrantsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunGrants(t, func(t *testing.T) grant.Store {
		db, _ := pgtest.New(t)
		return postgres.NewGrants(db)
	})
}
