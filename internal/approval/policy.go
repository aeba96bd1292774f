// Package approval is typeward's human approval of compositions: which
// compositions a client's policy sends to a person (from the tools' MCP
// annotations), and the backchannel authentication requests (OpenID CIBA,
// poll mode) that wait for that person's decision, with the Store that
// keeps them for every replica.
package approval

import (
	"encoding/json"
	"slices"

	"github.com/typeward/typeward/internal/clients"
)

// Effect is what a tool may do to the world, from its MCP annotations.
type Effect string

const (
	ReadOnly    Effect = "read-only"   // readOnlyHint: true
	Mutating    Effect = "mutating"    // not read-only, destructiveHint: false
	Destructive Effect = "destructive" // neither: MCP's default for a tool that says nothing
)

// EffectOf reads a tool's annotations with MCP's defaults: readOnlyHint
// false, destructiveHint true (meaningful only when not read-only). A
// hint that is not a JSON boolean is as good as absent, and so are
// annotations that are not an object: an unreadable hint never makes a
// tool look harmless.
func EffectOf(annotations json.RawMessage) Effect {
	var hints struct {
		ReadOnly    any `json:"readOnlyHint"`
		Destructive any `json:"destructiveHint"`
	}
	if len(annotations) > 0 {
		_ = json.Unmarshal(annotations, &hints)
	}
	switch {
	case hints.ReadOnly == true:
		return ReadOnly
	case hints.Destructive == false:
		return Mutating
	}
	return Destructive
}

// Needed reports whether policy sends a composition of tools with these
// effects to a person.
func Needed(policy clients.Approval, effects []Effect) bool {
	switch policy.OrNever() {
	case clients.ApprovalAlways:
		return true
	case clients.ApprovalMutating:
		return slices.ContainsFunc(effects, func(e Effect) bool { return e != ReadOnly })
	case clients.ApprovalDestructive:
		return slices.Contains(effects, Destructive)
	}
	return false
}
