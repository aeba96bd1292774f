package compat

import (
	"encoding/json"
	"testing"
)

// TestKinds pins the exported kind sets that field-path resolution in
// package composition builds on, merged and not.
func TestKinds(t *testing.T) {
	tests := []struct {
		name         string
		got          Kinds
		want, merged Kinds
	}{
		{"absent type is every kind", DeclaredKinds(map[string]any{}), AnyKind, AnyKind},
		{"integer type", DeclaredKinds(map[string]any{"type": "integer"}), KindInteger, KindNumber},
		{"type list", DeclaredKinds(map[string]any{"type": []any{"string", "null"}}), KindString | KindNull, KindString | KindNull},
		{"unknown type name", DeclaredKinds(map[string]any{"type": "strnig"}), 0, 0},
		{"fractional value", KindOf(json.Number("1.5")), KindFraction, KindNumber},
		{"integral value written with a point", KindOf(json.Number("3.0")), KindInteger, KindNumber},
		{"float64 value", KindOf(2.0), KindInteger, KindNumber},
		{"not JSON", KindOf(struct{}{}), 0, 0},
		{"enum values", KindsOf([]any{"a", nil, json.Number("2")}), KindString | KindNull | KindInteger, KindString | KindNull | KindNumber},
		{"no values", KindsOf(nil), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want || tt.got.NumbersMerged() != tt.merged {
				t.Errorf("kinds %s (merged %s), want %s (merged %s)",
					describe(tt.got), describe(tt.got.NumbersMerged()), describe(tt.want), describe(tt.merged))
			}
		})
	}
	// Merging before intersecting is what keeps an integer type beside a
	// fractional const "some number" for composition; intersecting first
	// would make it empty.
	typ, c := DeclaredKinds(map[string]any{"type": "integer"}), KindOf(json.Number("1.5"))
	if typ.NumbersMerged()&c.NumbersMerged() != KindNumber || (typ&c).NumbersMerged() != 0 {
		t.Errorf("merge order: %s, %s", describe(typ.NumbersMerged()&c.NumbersMerged()), describe((typ & c).NumbersMerged()))
	}
}
