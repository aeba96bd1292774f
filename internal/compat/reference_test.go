package compat

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/typeward/typeward/internal/schema"
)

// referenceTools loads the example pipeline's registry, keyed by tool
// name, as [input, output] schemas.
func referenceTools(t testing.TB) map[string][2]*schema.Schema {
	t.Helper()
	raw, err := os.ReadFile("../../examples/registry.json")
	if err != nil {
		t.Fatalf("read registry: %v", err)
	}
	var doc struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("decode registry: %v", err)
	}
	out := map[string][2]*schema.Schema{}
	for _, tl := range doc.Tools {
		out[tl.Name] = [2]*schema.Schema{mustParse(t, string(tl.InputSchema)), mustParse(t, string(tl.OutputSchema))}
	}
	return out
}

// TestReferencePipeline pins the reference pipeline's edges. The mismatch
// points at the innermost disagreeing keyword on each side: the items'
// "type" (the nearest pointer that explains the refusal).
func TestReferencePipeline(t *testing.T) {
	tools := referenceTools(t)
	out := func(tool, ptr string) Node { return Node{tools[tool][1], ptr} }
	in := func(tool, ptr string) Node { return Node{tools[tool][0], ptr} }
	cases := []nodeCase{
		{name: "db_query.rows -> transform_csv.data is refused",
			src: out("db_query", "/properties/rows"), tgt: in("transform_csv", "/properties/data"),
			opts: Options{SourceLabel: "rows", TargetLabel: "data"},
			want: []string{"incompatible type_mismatch /properties/rows/items/type /properties/data/items/type: rows[] is object but data[] expects string [witness [{}] rejected at /properties/data/items/type]"}},
		{name: "db_query.rows -> aggregate_stats.records fits",
			src: out("db_query", "/properties/rows"), tgt: in("aggregate_stats", "/properties/records"),
			opts: Options{SourceLabel: "rows", TargetLabel: "records"}},
		{name: "transform_csv.csv_string -> email_send.body fits",
			src: out("transform_csv", "/properties/csv_string"), tgt: in("email_send", "/properties/body"),
			opts: Options{SourceLabel: "csv_string", TargetLabel: "body"}},
		{name: "aggregate_stats.summary -> email_send.body fits",
			src: out("aggregate_stats", "/properties/summary"), tgt: in("email_send", "/properties/body")},
		{name: "row_count -> limit cannot meet the bounds",
			src: out("db_query", "/properties/row_count"), tgt: in("db_query", "/properties/limit"),
			opts: Options{SourceLabel: "row_count", TargetLabel: "limit"},
			want: []string{
				"incompatible range_mismatch /properties/row_count/minimum /properties/limit/minimum: row_count allows values < 1 but limit requires ≥ 1 [witness 0 rejected at /properties/limit/minimum]",
				"incompatible range_mismatch /properties/row_count /properties/limit/maximum: row_count allows values > 10000 but limit requires ≤ 10000 [witness 10001 rejected at /properties/limit/maximum]",
			}},
		{name: "summary -> to: format email is not promised by the source",
			src: out("aggregate_stats", "/properties/summary"), tgt: in("email_send", "/properties/to"),
			opts: Options{SourceLabel: "summary", TargetLabel: "to"},
			want: []string{`unknown cannot_prove /properties/summary /properties/to/format: cannot prove summary fits to: the source does not declare format "email" (format)`}},
	}
	runNodeCases(t, cases)
}
