package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/typeward/typeward/internal/registry"
)

// CorpusRefusals is how many corpus tools Declare refuses: two sentry
// catalog tools whose draft-04 tuple "items" is invalid in 2020-12, and
// sentry's whoami, whose inputSchema {} declares no object type.
const CorpusRefusals = 3

// BenchmarkRegisterCorpus declares all 297 real tools once per iteration,
// each iteration under fresh server names so every declaration creates a
// tool and its first version.
func BenchmarkRegisterCorpus(b *testing.B, s registry.Store) {
	corpus := Corpus(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	// A b.N loop, not b.Loop: go1.26.8's compiler crashes (escape
	// analysis) on this body under b.Loop.
	for i := range b.N {
		refused := 0
		for _, server := range corpus {
			for _, tool := range server.Tools {
				_, err := s.DeclareTool(ctx, fmt.Sprintf("%s#%d", server.Server, i), tool)
				switch {
				case errors.Is(err, registry.ErrInvalidDeclaration):
					refused++
				case err != nil:
					b.Fatal(err)
				}
			}
		}
		if refused != CorpusRefusals {
			b.Fatalf("%d corpus tools refused, want %d", refused, CorpusRefusals)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/297, "ns/tool")
}

// DeclareCorpus declares every corpus tool that passes the checks and
// returns their qualified names, in corpus order.
func DeclareCorpus(tb testing.TB, s registry.Store) []string {
	tb.Helper()
	var names []string
	for _, server := range Corpus(tb) {
		for _, tool := range server.Tools {
			d, err := s.DeclareTool(context.Background(), server.Server, tool)
			if errors.Is(err, registry.ErrInvalidDeclaration) {
				continue
			}
			if err != nil {
				tb.Fatal(err)
			}
			names = append(names, d.Version.QualifiedName())
		}
	}
	return names
}

// BenchmarkApproveCorpus registers the corpus the bulk way: one snapshot
// per server, imported and approved (one transaction per server). The two
// tools Declare refuses are left out, or their servers' approvals would be
// refused whole.
func BenchmarkApproveCorpus(b *testing.B, s registry.Store) {
	corpus := Corpus(b)
	for i, server := range corpus {
		var ok []registry.Tool
		for _, tool := range server.Tools {
			if len(registry.CheckDeclaration(tool)) == 0 {
				ok = append(ok, tool)
			}
		}
		corpus[i].Tools = ok
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N { // not b.Loop: see BenchmarkRegisterCorpus
		for _, server := range corpus {
			name := fmt.Sprintf("%s#%d", server.Server, i)
			snap, err := s.ImportSnapshot(ctx, name, "corpus", server.Tools)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.ApproveSnapshot(ctx, name, snap.ID); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(297-CorpusRefusals), "ns/tool")
}
