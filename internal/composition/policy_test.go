package composition

import (
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/grading"
)

// TestUnderMode: the issues policy grades change severity with the mode;
// the others (unbound inputs, structural errors) never do, and the
// lenient result is not touched by grading it strict.
func TestUnderMode(t *testing.T) {
	v := NewValidator(loadCatalog(t, "testdata/tools.json"), nil, compat.NewChecker())
	tests := []struct {
		name            string
		doc             string
		lenient, strict []string
		validLenient    bool
	}{
		{"a field the source may omit", `{"nodes":[{"id":"s","tool":"src"},{"id":"t","tool":"strict"}],
			"edges":[{"from":"s","to":"t","map":{"maybe":"text","count":"id"}}]}`,
			[]string{"warning may_be_missing lab/src lab/strict s->t maybe->text"},
			[]string{"error may_be_missing lab/src lab/strict s->t maybe->text"}, true},
		{"null on an optional edge", `{"nodes":[{"id":"s","tool":"src"},{"id":"o","tool":"src"},{"id":"t","tool":"strict"}],
			"edges":[{"from":"s","to":"t","map":{"count":"id"}},{"from":"o","to":"t","optional":true,"map":{"nullable_obj.x":"text"}}]}`,
			[]string{"warning may_be_null lab/src lab/strict o->t nullable_obj.x->text", "warning may_be_missing - lab/strict - ->text"},
			[]string{"error may_be_null lab/src lab/strict o->t nullable_obj.x->text", "error may_be_missing - lab/strict - ->text"}, true},
		{"a type mismatch is an error in both", `{"nodes":[{"id":"s","tool":"src"},{"id":"t","tool":"loose"}],
			"edges":[{"from":"s","to":"t","map":{"maybe":"id"}}]}`,
			[]string{"error type_mismatch lab/src lab/loose s->t maybe->id"},
			[]string{"error type_mismatch lab/src lab/loose s->t maybe->id"}, false},
		{"an unbound input stays a warning", `{"nodes":[{"id":"s","tool":"src"},{"id":"t","tool":"strict"}],
			"edges":[{"from":"s","to":"t","map":{"count":"id"}}]}`,
			[]string{"warning unbound_required_input - lab/strict - ->text"},
			[]string{"warning unbound_required_input - lab/strict - ->text"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := validate(t, v, tc.doc)
			strict := r.Under(grading.Strict)
			var gotL, gotS []string
			for _, is := range r.Issues {
				gotL = append(gotL, brief(is))
			}
			for _, is := range strict.Issues {
				gotS = append(gotS, brief(is))
			}
			if !slices.Equal(gotL, tc.lenient) || !slices.Equal(gotS, tc.strict) {
				t.Errorf("lenient %q\nstrict  %q", gotL, gotS)
			}
			if r.Valid() != tc.validLenient || (strict.Valid() && len(tc.strict) > 0 && tc.strict[0][:5] == "error") {
				t.Errorf("valid lenient %v strict %v", r.Valid(), strict.Valid())
			}
			if r.Under(grading.Lenient) != r {
				t.Error("grading lenient again made a copy")
			}
		})
	}
}
