package compat

import "testing"

// TestSameSchemaInPlace: the bisimulation assumes a pair met again below a
// property or an item, but in place a schema met again fails in the
// validator, so it is equal to the other side only if that one is met
// again too.
func TestSameSchemaInPlace(t *testing.T) {
	cases := []struct {
		name   string
		a, b   string
		pa, pb string
		want   bool
	}{
		{"a = not a against not a, which unfold alike", `{"$defs":{"a":{"not":{"$ref":"#/$defs/a"}}}}`, `{"$defs":{"a":{"not":{"$ref":"#/$defs/a"}}},"not":{"$ref":"#/$defs/a"}}`, "/$defs/a", "", false},
		{"a = not a in two documents", `{"$defs":{"a":{"not":{"$ref":"#/$defs/a"}}}}`, `{"$defs":{"b":{"not":{"$ref":"#/$defs/b"}}}}`, "/$defs/a", "/$defs/b", true},
		{"a recursive tree in two documents", `{"$defs":{"n":{"type":"object","properties":{"c":{"$ref":"#/$defs/n"}}}}}`, `{"$defs":{"m":{"type":"object","properties":{"c":{"$ref":"#/$defs/m"}}}}}`, "/$defs/n", "/$defs/m", true},
		{"a tree against its root wrapped once", `{"$defs":{"n":{"type":"object","properties":{"c":{"$ref":"#/$defs/n"}}}}}`, `{"$defs":{"m":{"type":"object","properties":{"c":{"$ref":"#/$defs/m"}}}},"type":"object","properties":{"c":{"$ref":"#/$defs/m"}}}`, "/$defs/n", "", true},
		{"conservative: both accept nothing, but only one side meets itself again", `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}}}`, `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"allOf":[{"$ref":"#/$defs/a"}]}`, "/$defs/a", "", false},
	}
	for _, tc := range cases {
		a, b := mustParse(t, tc.a), mustParse(t, tc.b)
		av, _ := a.At(tc.pa)
		bv, _ := b.At(tc.pb)
		if got := sameSchema(side{a, newNode(av, tc.pa)}, side{b, newNode(bv, tc.pb)}); got != tc.want {
			t.Errorf("%s: sameSchema = %v, want %v", tc.name, got, tc.want)
		}
	}
}
