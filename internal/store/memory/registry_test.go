package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestRegistryConformance(t *testing.T) {
	storetest.RunRegistry(t, func(*testing.T) registry.Store { return memory.NewRegistry() })
}
