package compat

import (
	"github.com/typeward/typeward/internal/verdict"
)

// checkTypes compares the kinds; it returns the findings and the kinds that
// remain to be checked keyword by keyword.
func (r *run) checkTypes(s view, t node, p path) ([]finding, Kinds) {
	tm := DeclaredKinds(t.m)
	bad := s.types &^ tm
	live := s.types & tm
	if bad == 0 {
		return nil, live
	}
	sp := r.srcKeywordPtr(s, "type")
	tp := t.ptr + "/type"
	var out []finding
	if bad&KindNull != 0 && bad != s.types {
		// A nullable value whose other kinds fit: the null is the problem.
		out = append(out, with(r.errorf(verdict.CodeMayBeNull, sp, tp, p, "%s may be null but %s does not accept null", srcMark, tgtMark), nil)...)
		bad &^= KindNull
		if bad == 0 {
			return out, live
		}
	}
	if bad == KindFraction && tm&KindInteger != 0 {
		return append(out, with(r.errorf(verdict.CodeTypeMismatch, sp, tp, p,
			"%s is number but %s expects integer", srcMark, tgtMark), sampleOf(bad))...), live
	}
	if bad == s.types {
		return append(out, with(r.errorf(verdict.CodeTypeMismatch, sp, tp, p,
			"%s is %s but %s expects %s", srcMark, describe(s.types), tgtMark, describe(tm)), sampleOf(bad))...), live
	}
	return append(out, with(r.errorf(verdict.CodeTypeMismatch, sp, tp, p,
		"%s may be %s but %s expects %s", srcMark, describe(bad), tgtMark, describe(tm)), sampleOf(bad))...), live
}
