package postgres_test

import (
	"testing"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestApprovalsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunApprovals(t, func(t *testing.T) approval.Store {
		db, _ := pgtest.New(t)
		return postgres.NewApprovals(db)
	})
}
