package clients

import (
	"context"

	"github.com/typeward/typeward/internal/grading"
)

// The one message of each unknown policy value.
const (
	approvalProblem   = "must be one of never, mutating, destructive, always"
	validationProblem = "must be one of lenient, strict"
)

// Update is an admin's change to an existing client (a JSON merge patch):
// only the members given change.
type Update struct {
	Approval   *Approval     `json:"approval,omitempty"`
	Validation *grading.Mode `json:"validation,omitempty"`
	// DPoPBoundAccessTokens, when given, says whether the client's tokens
	// must be DPoP-bound.
	DPoPBoundAccessTokens *bool `json:"dpop_bound_access_tokens,omitempty"`
}

// Validate returns a *ValidationError listing every problem, or nil.
func (u Update) Validate() error {
	var ps []Problem
	if u.Approval == nil && u.Validation == nil && u.DPoPBoundAccessTokens == nil {
		ps = append(ps, Problem{Field: "/", Message: "names nothing to change (approval, validation, dpop_bound_access_tokens)"})
	}
	if u.Approval != nil && !u.Approval.Valid() {
		ps = append(ps, Problem{Field: "/approval", Message: approvalProblem})
	}
	if u.Validation != nil && !u.Validation.Valid() {
		ps = append(ps, Problem{Field: "/validation", Message: validationProblem})
	}
	if len(ps) > 0 {
		return &ValidationError{Problems: ps}
	}
	return nil
}

// Apply validates u and stores the client it changes; ErrNotFound when
// there is no such client. Nothing changes unless all of u is valid.
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
	if u.Validation != nil {
		if err := s.SetValidation(ctx, id, *u.Validation); err != nil {
			return nil, err
		}
	}
	if u.DPoPBoundAccessTokens != nil {
		if err := s.SetDPoPBound(ctx, id, *u.DPoPBoundAccessTokens); err != nil {
			return nil, err
		}
	}
	return s.Get(ctx, id)
}
