package postgres_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestRegistryConformance(t *testing.T) {
	storetest.RunRegistry(t, func(t *testing.T) registry.Store {
		db, _ := pgtest.New(t)
		return postgres.NewRegistry(db)
	})
}

// Versions are immutable in the database itself, whatever the code does.
func TestToolVersionsAreImmutable(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.New(t)
	ctx := context.Background()
	if _, err := postgres.NewRegistry(db).DeclareTool(ctx, "srv", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`UPDATE tool_versions SET input_schema = '{}'`,
		`DELETE FROM tool_versions`,
	} {
		_, err := db.Pool.Exec(ctx, stmt)
		if err == nil || !strings.Contains(err.Error(), "tool versions are immutable") {
			t.Errorf("%s: %v, want the immutability trigger's refusal", stmt, err)
		}
	}
}
