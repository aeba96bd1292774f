package registry_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/registry"
)

// The controlled drift study: 240 synthetic three-tool surfaces, each
// mutated five ways. Declaration checks see a broken declaration but not a
// reordered list; comparing with the approved ordered snapshot sees both.
func TestDriftStudy(t *testing.T) {
	t.Parallel()
	const surfaces = 240
	rng := rand.New(rand.NewPCG(2026, 11))
	mutations := []struct {
		name   string
		mutate func(s []registry.Tool, victim int, rng *rand.Rand) []registry.Tool
	}{
		{"name with a space", func(s []registry.Tool, v int, _ *rand.Rand) []registry.Tool {
			s[v].Name = strings.Replace(s[v].Name, "_", " ", 1)
			return s
		}},
		{"missing schema", func(s []registry.Tool, v int, _ *rand.Rand) []registry.Tool {
			s[v].InputSchema = nil
			return s
		}},
		{"null schema", func(s []registry.Tool, v int, _ *rand.Rand) []registry.Tool {
			s[v].InputSchema = json.RawMessage(`null`)
			return s
		}},
		{"array-root schema", func(s []registry.Tool, v int, _ *rand.Rand) []registry.Tool {
			s[v].InputSchema = json.RawMessage(`{"type":"array","items":{"type":"string"}}`)
			return s
		}},
		{"changed order", func(s []registry.Tool, _ int, rng *rand.Rand) []registry.Tool {
			for {
				p := rng.Perm(len(s))
				if p[0] != 0 || p[1] != 1 { // any permutation but the identity
					out := make([]registry.Tool, len(s))
					for i, j := range p {
						out[i] = s[j]
					}
					return out
				}
			}
		}},
	}

	total, byChecks, bySnapshot := 0, 0, 0
	perKind := map[string][2]int{}
	for i := range surfaces {
		approved := syntheticSurface(i, rng)
		if fs := registry.Drift(approved, approved); len(fs) != 0 {
			t.Fatalf("surface %d drifts from itself: %v", i, fs)
		}
		for _, m := range mutations {
			current := m.mutate(cloneSurface(approved), rng.IntN(len(approved)), rng)
			total++
			counts := perKind[m.name]
			if declarationProblems(current) > 0 {
				byChecks++
				counts[0]++
			}
			if len(registry.Drift(approved, current)) > 0 {
				bySnapshot++
				counts[1]++
			}
			perKind[m.name] = counts
		}
	}
	t.Logf("drift study: %d mutations; declaration checks alone catch %d/%d, with the ordered snapshot %d/%d",
		total, byChecks, total, bySnapshot, total)
	for _, m := range mutations {
		t.Logf("  %-18s checks %3d, snapshot %3d", m.name, perKind[m.name][0], perKind[m.name][1])
	}
	if total != 1200 || byChecks != 960 || bySnapshot != 1200 {
		t.Errorf("caught %d and %d of %d, want 960 and 1200 of 1200", byChecks, bySnapshot, total)
	}
	if got := perKind["changed order"]; got != [2]int{0, 240} {
		t.Errorf("order changes caught %v, want none by checks and all by the snapshot", got)
	}
}

func declarationProblems(tools []registry.Tool) int {
	n := 0
	for _, tool := range tools {
		n += len(registry.CheckDeclaration(tool))
	}
	return n
}

var (
	verbs = []string{"get", "list", "create", "update", "delete", "search", "run", "send"}
	nouns = []string{"issue", "user", "file", "query", "report", "message", "page", "record"}
	types = []string{`{"type":"string"}`, `{"type":"integer","minimum":0}`, `{"type":"boolean"}`,
		`{"type":"array","items":{"type":"string"}}`, `{"type":"string","enum":["a","b"]}`}
)

// syntheticSurface is a valid three-tool tools/list with distinct names.
func syntheticSurface(i int, rng *rand.Rand) []registry.Tool {
	surface := make([]registry.Tool, 3)
	for k := range surface {
		name := fmt.Sprintf("%s_%s_%d_%d", verbs[rng.IntN(len(verbs))], nouns[rng.IntN(len(nouns))], i, k)
		var props []string
		for p := range 1 + rng.IntN(4) {
			props = append(props, fmt.Sprintf(`"p%d":%s`, p, types[rng.IntN(len(types))]))
		}
		input := fmt.Sprintf(`{"type":"object","properties":{%s},"required":["p0"]}`, strings.Join(props, ","))
		surface[k] = registry.Tool{Name: name, Description: "synthetic " + name, InputSchema: json.RawMessage(input)}
	}
	return surface
}

func cloneSurface(s []registry.Tool) []registry.Tool {
	return append([]registry.Tool(nil), s...)
}
