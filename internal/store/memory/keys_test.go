package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestKeysConformance(t *testing.T) {
	t.Parallel()
	storetest.RunKeys(t, func(*testing.T) keys.Store { return memory.NewKeys() })
}
