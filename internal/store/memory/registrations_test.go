package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestRegistrationsConformance(t *testing.T) {
	storetest.RunRegistrations(t, func(*testing.T) (registration.Store, clients.Store) {
		cs := memory.NewClients()
		return memory.NewRegistrations(cs), cs
	})
}
