package postgres_test

import (
	"testing"

	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
	"github.com/typeward/typeward/internal/users"
)

func TestUsersConformance(t *testing.T) {
	t.Parallel()
	storetest.RunUsers(t, func(t *testing.T) users.Store {
		db, _ := pgtest.New(t)
		return postgres.NewUsers(db)
	})
}
