package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestClientsConformance(t *testing.T) {
	storetest.RunClients(t, func(*testing.T) clients.Store { return memory.NewClients() })
}

func TestAssertionReplayConformance(t *testing.T) {
	storetest.RunAssertionReplay(t, func(*testing.T) clients.ReplayStore { return memory.NewAssertionReplay() })
}
