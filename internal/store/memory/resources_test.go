package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestResourcesConformance(t *testing.T) {
	storetest.RunResources(t, func(*testing.T) resources.Store { return memory.NewResources() })
}
