package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/revocation"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestRevocationConformance(t *testing.T) {
	storetest.RunRevocation(t, func(*testing.T) revocation.Store { return memory.NewRevocations() })
}
