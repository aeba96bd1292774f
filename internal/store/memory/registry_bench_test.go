package memory_test

import (
	"testing"

	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/storetest"
)

func BenchmarkRegisterCorpus(b *testing.B) {
	storetest.BenchmarkRegisterCorpus(b, memory.NewRegistry())
}

func BenchmarkApproveCorpus(b *testing.B) {
	storetest.BenchmarkApproveCorpus(b, memory.NewRegistry())
}
