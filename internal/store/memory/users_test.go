package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
	"github.com/typeward/typeward/internal/users"
)

func TestUsersConformance(t *testing.T) {
	storetest.RunUsers(t, func(*testing.T) users.Store { return memory.NewUsers() })
}
