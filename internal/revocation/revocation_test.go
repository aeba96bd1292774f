package revocation_test

import (
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/revocation"
)

func TestValidJTI(t *testing.T) {
	for _, tc := range []struct {
		jti  string
		want bool
	}{
		{"", false},
		{"0f3a9c", true},
		{strings.Repeat("x", revocation.MaxJTILen), true},
		{strings.Repeat("x", revocation.MaxJTILen+1), false},
		{"a\x00b", false},
		{"a\nb", false},
		{"\xff", false},
		{"jti-é", true},
	} {
		if got := revocation.ValidJTI(tc.jti); got != tc.want {
			t.Errorf("ValidJTI(%d bytes) = %v, want %v", len(tc.jti), got, tc.want)
		}
	}
}
