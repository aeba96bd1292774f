package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestGrantsConformance(t *testing.T) {
	storetest.RunGrants(t, func(*testing.T) grant.Store { return memory.NewGrants() })
}
