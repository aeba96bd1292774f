package storetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/typeward/typeward/internal/registry"
)

// corpusFile is the shared corpus of 297 real MCP tool declarations, kept
// beside the repository (../shared from its root).
const corpusFile = "shared/corpus/real-tools.json"

// Corpus loads the real tool declarations, one entry per server. It looks
// upwards from the test's directory, so every package finds it.
func Corpus(tb testing.TB) []registry.ServerTools {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, corpusFile))
		if err == nil {
			servers, err := registry.ParseSnapshotFile(data)
			if err != nil {
				tb.Fatalf("corpus: %v", err)
			}
			return servers
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("the shared corpus (%s above the repository) is part of the test fixture and was not found", corpusFile)
		}
		dir = parent
	}
}
