package composition

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/registry"
)

// TestValidatorCachesAreBoundedBySize feeds one Validator compositions
// naming ever new fields: every cache stays within its byte budget and
// evicts, and a composition validated again (its entries evicted) gets the
// same issues.
func TestValidatorCachesAreBoundedBySize(t *testing.T) {
	const fields = 60
	props := map[string]any{}
	for i := range fields {
		props[fmt.Sprintf("f%d", i)] = map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "properties": map[string]any{"id": map[string]any{"type": []string{"string", "integer"}[i%2]}}}}
	}
	tools, err := json.Marshal(map[string]any{"tools": []any{
		map[string]any{"name": "src", "inputSchema": map[string]any{"type": "object"},
			"outputSchema": map[string]any{"type": "object", "properties": props}},
		map[string]any{"name": "dst", "inputSchema": map[string]any{"type": "object", "properties": props}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	servers, err := registry.ParseToolsFile(tools)
	if err != nil {
		t.Fatal(err)
	}
	v := NewValidator(registry.NewCatalog(servers), nil, compat.NewChecker())
	// Small budgets so that 60 fields overflow them.
	v.sources, v.targets = newPathCache[sourceKey, resolvedSource](16<<10), newPathCache[targetKey, resolvedTarget](16<<10)
	v.synth.cache = newSynthCache(1 << 20)
	doc := func(i int) string {
		// f_i[].id (a synthesized projection) into f_(i+1).
		return fmt.Sprintf(`{"nodes":[{"id":"a","tool":"src"},{"id":"b","tool":"dst"}],"edges":[{"from":"a","to":"b","map":{"f%d[].id":"f%d"}}]}`, i, (i+1)%fields)
	}
	first := validate(t, v, doc(0))
	for i := 1; i < fields; i++ {
		validate(t, v, doc(i))
		for name, b := range map[string][2]int64{"sources": {v.sources.Bytes(), 16 << 10}, "targets": {v.targets.Bytes(), 16 << 10},
			"synthesized": {v.synth.cache.Bytes(), 1 << 20}} {
			if b[0] > b[1] {
				t.Fatalf("%s cache holds %d bytes, budget %d", name, b[0], b[1])
			}
		}
	}
	for name, ev := range map[string]uint64{"sources": v.sources.Stats().Evictions, "targets": v.targets.Stats().Evictions,
		"synthesized": v.synth.cache.Stats().Evictions} {
		if ev == 0 {
			t.Errorf("%s cache evicted nothing after %d distinct fields", name, fields)
		}
	}
	again := validate(t, v, doc(0))
	if len(first.Issues) == 0 || len(again.Issues) != len(first.Issues) {
		t.Fatalf("issues before eviction %v, after %v", first.Issues, again.Issues)
	}
	for i := range first.Issues {
		if brief(first.Issues[i]) != brief(again.Issues[i]) || first.Issues[i].Message != again.Issues[i].Message {
			t.Errorf("issue %d: %+v before eviction, %+v after", i, first.Issues[i], again.Issues[i])
		}
	}
}
