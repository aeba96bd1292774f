package grading_test

import (
	"testing"

	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/verdict"
)

func TestSeverity(t *testing.T) {
	const (
		E = verdict.SeverityError
		W = verdict.SeverityWarning
	)
	in, unk, none := verdict.Incompatible, verdict.Unknown, verdict.Verdict("")
	req, opt := grading.Place{}, grading.Place{Optional: true}
	tests := []struct {
		code            string
		v               verdict.Verdict
		at              grading.Place
		lenient, strict verdict.Severity
	}{
		{verdict.CodeTypeMismatch, in, req, E, E},
		{verdict.CodeTypeMismatch, in, opt, E, E},
		{verdict.CodeCannotProve, unk, req, W, W},
		{verdict.CodeTypeMismatch, unk, req, W, W}, // an unconfirmed claim never refuses
		{verdict.CodeMayBeNull, in, req, E, E},
		{verdict.CodeMayBeNull, in, opt, W, E},
		{verdict.CodeMayBeMissing, in, req, W, E},
		{verdict.CodeMayBeMissing, none, opt, W, E},
		{verdict.CodeUndeclaredProperty, in, req, W, E},
		{verdict.CodeUndeclaredProperty, none, req, W, E},
		{verdict.CodeMissingRequired, in, req, E, E},
	}
	for _, tc := range tests {
		for _, m := range []struct {
			mode grading.Mode
			want verdict.Severity
		}{{grading.Lenient, tc.lenient}, {grading.Strict, tc.strict}} {
			if got := grading.Severity(m.mode, tc.code, tc.v, tc.at); got != m.want {
				t.Errorf("%s %s %s optional=%v: %s, want %s", m.mode, tc.code, tc.v, tc.at.Optional, got, m.want)
			}
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]grading.Mode{"": grading.Lenient, "lenient": grading.Lenient, "strict": grading.Strict} {
		if got, err := grading.ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"Strict", "off", " strict"} {
		if _, err := grading.ParseMode(bad); err == nil || err.Error() != `validation "`+bad+`" is not one of lenient, strict` {
			t.Errorf("ParseMode(%q): %v", bad, err)
		}
	}
}

func TestRefuses(t *testing.T) {
	w := verdict.Issue{Severity: verdict.SeverityWarning}
	e := verdict.Issue{Severity: verdict.SeverityError}
	if grading.Refuses(nil) || grading.Refuses([]verdict.Issue{w}) || !grading.Refuses([]verdict.Issue{w, e}) {
		t.Error("Refuses is not 'any error'")
	}
}

// TestModeValidAndDefault: only the two modes are valid; unset reads as
// lenient, and nothing else is rewritten.
func TestModeValidAndDefault(t *testing.T) {
	for _, tc := range []struct {
		m     grading.Mode
		valid bool
		or    grading.Mode
	}{{grading.Lenient, true, grading.Lenient}, {grading.Strict, true, grading.Strict}, {"", false, grading.Lenient}, {"STRICT", false, "STRICT"}, {"paranoid", false, "paranoid"}} {
		if tc.m.Valid() != tc.valid || tc.m.OrLenient() != tc.or {
			t.Errorf("%q: valid %v or-lenient %q, want %v %q", tc.m, tc.m.Valid(), tc.m.OrLenient(), tc.valid, tc.or)
		}
	}
}
