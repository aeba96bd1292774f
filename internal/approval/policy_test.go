package approval

import (
	"encoding/json"
	"testing"

	"github.com/typeward/typeward/internal/clients"
)

func TestEffectOf(t *testing.T) {
	for _, tc := range []struct {
		annotations string
		want        Effect
	}{
		{``, Destructive},
		{`{}`, Destructive},
		{`{"readOnlyHint":true}`, ReadOnly},
		{`{"readOnlyHint":true,"destructiveHint":true}`, ReadOnly},
		{`{"readOnlyHint":false}`, Destructive},
		{`{"destructiveHint":false}`, Mutating},
		{`{"destructiveHint":false,"openWorldHint":true}`, Mutating},
		{`{"destructiveHint":true}`, Destructive},
		{`{"readOnlyHint":"true"}`, Destructive}, // a string is no promise
		{`{"destructiveHint":0}`, Destructive},
		{`[true]`, Destructive},
		{`not json`, Destructive},
	} {
		if got := EffectOf(json.RawMessage(tc.annotations)); got != tc.want {
			t.Errorf("EffectOf(%s) = %s, want %s", tc.annotations, got, tc.want)
		}
	}
}

func TestNeeded(t *testing.T) {
	none := []Effect{}
	readOnly := []Effect{ReadOnly, ReadOnly}
	mutating := []Effect{ReadOnly, Mutating}
	destructive := []Effect{ReadOnly, Destructive}
	for _, tc := range []struct {
		policy  clients.Approval
		effects []Effect
		want    bool
	}{
		{"", destructive, false},
		{clients.ApprovalNever, destructive, false},
		{clients.ApprovalAlways, none, true},
		{clients.ApprovalAlways, readOnly, true},
		{clients.ApprovalMutating, readOnly, false},
		{clients.ApprovalMutating, mutating, true},
		{clients.ApprovalMutating, destructive, true},
		{clients.ApprovalDestructive, readOnly, false},
		{clients.ApprovalDestructive, mutating, false},
		{clients.ApprovalDestructive, destructive, true},
	} {
		if got := Needed(tc.policy, tc.effects); got != tc.want {
			t.Errorf("Needed(%q, %v) = %t, want %t", tc.policy, tc.effects, got, tc.want)
		}
	}
}
