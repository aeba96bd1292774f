package memory_test

import (
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/nonce"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
	"github.com/typeward/typeward/verify/dpop"
)

func TestClientsConformance(t *testing.T) {
	storetest.RunClients(t, func(*testing.T) clients.Store { return memory.NewClients() })
}

func TestAssertionReplayConformance(t *testing.T) {
	storetest.RunAssertionReplay(t, func(*testing.T) clients.ReplayStore { return memory.NewAssertionReplay() })
}

func TestProofReplayConformance(t *testing.T) {
	storetest.RunProofReplay(t, func(_ *testing.T, now func() time.Time) (dpop.Replay, clients.ReplayStore) {
		assertions := memory.NewAssertionReplay()
		return memory.NewProofReplay(assertions, now), assertions
	})
}

func TestDPoPNoncesConformance(t *testing.T) {
	storetest.RunDPoPNonces(t, func(*testing.T) nonce.Store { return memory.NewDPoPNonces() })
}
