package postgres_test

import (
	"testing"

	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestResourcesConformance(t *testing.T) {
	t.Parallel()
	storetest.RunResources(t, func(t *testing.T) resources.Store {
		db, _ := pgtest.New(t)
		return postgres.NewResources(db)
	})
}
