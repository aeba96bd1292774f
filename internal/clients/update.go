package clients

import (
	"context"
)

// approvalProblem is the one message of an unknown approval policy.
const approvalProblem = "must be one of never, mutating, destructive, always"

// Update is an admin's change to an existing client (a JSON merge patch):
// only the members given change.
type Update struct {
	Approval *Approval `json:"approval,omitempty"`
}

// Validate returns a *ValidationError listing every problem, or nil.
func (u Update) Validate() error {
	var ps []Problem
	if u.Approval == nil {
		ps = append(ps, Problem{Field: "/", Message: "names nothing to change (approval)"})
	} else if !u.Approval.Valid() {
		ps = append(ps, Problem{Field: "/approval", Message: approvalProblem})
	}
	if len(ps) > 0 {
		return &ValidationError{Problems: ps}
	}
	return nil
}

// Apply validates u and stores the client it changes; ErrNotFound when
// there is no such client.
func Apply(ctx context.Context, s Store, id string, u Update) (*Client, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	// One column at a time: a read-modify-write of the whole client could
	// undo a concurrent disable.
	if u.Approval != nil {
		if err := s.SetApproval(ctx, id, *u.Approval); err != nil {
			return nil, err
		}
	}
	return s.Get(ctx, id)
}
