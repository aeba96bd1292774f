package schema

import "testing"

func TestPositionOf(t *testing.T) {
	tests := []struct {
		kw   string
		v    any
		want Position
	}{
		{"items", map[string]any{}, Subschema},
		{"items", []any{map[string]any{}}, SchemaList},
		{"prefixItems", []any{}, SchemaList},
		{"properties", map[string]any{}, SchemaMap},
		{"not", true, Subschema},
		{"const", map[string]any{"$ref": "#"}, NotSchema},
		{"enum", []any{map[string]any{"$ref": "#"}}, NotSchema},
		{"default", map[string]any{}, NotSchema},
		{"examples", []any{}, NotSchema},
		{"x-schema", map[string]any{}, NotSchema},
	}
	for _, tt := range tests {
		if got := PositionOf(tt.kw, tt.v); got != tt.want {
			t.Errorf("PositionOf(%q, %v) = %d, want %d", tt.kw, tt.v, got, tt.want)
		}
	}
}
