package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestApprovalsConformance(t *testing.T) {
	storetest.RunApprovals(t, func(*testing.T) approval.Store { return memory.NewApprovals() })
}
