package storetest

import (
	"testing"

	"github.com/typeward/typeward/internal/corpus"
	"github.com/typeward/typeward/internal/registry"
)

// Corpus loads the real tool declarations, one entry per server.
func Corpus(tb testing.TB) []registry.ServerTools {
	tb.Helper()
	servers, err := registry.ParseSnapshotFile(corpus.RealTools())
	if err != nil {
		tb.Fatalf("corpus: %v", err)
	}
	return servers
}
