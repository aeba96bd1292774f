package clients_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/store/memory"
)

// TestApply: a patch changes the members it names and nothing else; one
// with any bad member changes nothing at all.
func TestApply(t *testing.T) {
	ptr := func(s string) *string { return &s }
	for _, tc := range []struct {
		name                 string
		approval, validation *string
		want                 []clients.Problem
		wantA                clients.Approval
		wantV                grading.Mode
	}{
		{"validation alone", nil, ptr("strict"), nil, clients.ApprovalNever, grading.Strict},
		{"approval alone", ptr("always"), nil, nil, clients.ApprovalAlways, grading.Lenient},
		{"both", ptr("mutating"), ptr("strict"), nil, clients.ApprovalMutating, grading.Strict},
		{"nothing", nil, nil, []clients.Problem{{"/", "names nothing to change (approval, validation, dpop_bound_access_tokens)"}}, clients.ApprovalNever, grading.Lenient},
		{"a bad mode with a good approval", ptr("always"), ptr("paranoid"),
			[]clients.Problem{{"/validation", "must be one of lenient, strict"}}, clients.ApprovalNever, grading.Lenient},
		{"an empty mode", nil, ptr(""), []clients.Problem{{"/validation", "must be one of lenient, strict"}}, clients.ApprovalNever, grading.Lenient},
		{"both bad", ptr("later"), ptr("STRICT"), []clients.Problem{
			{"/approval", "must be one of never, mutating, destructive, always"}, {"/validation", "must be one of lenient, strict"}},
			clients.ApprovalNever, grading.Lenient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store := memory.NewClients()
			c, _, err := clients.Register(ctx, store, testHasher(t), clients.Registration{ClientName: "etl",
				AllowedTools: []string{"*"}, AllowedAudiences: []string{"https://r.example/mcp"}}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var u clients.Update
			if tc.approval != nil {
				a := clients.Approval(*tc.approval)
				u.Approval = &a
			}
			if tc.validation != nil {
				m := grading.Mode(*tc.validation)
				u.Validation = &m
			}
			got, err := clients.Apply(ctx, store, c.ID, u)
			if ps := problems(err); !reflect.DeepEqual(ps, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("problems %q (err %v), want %q", ps, err, tc.want)
			}
			stored, _ := store.Get(ctx, c.ID)
			if stored.Approval != tc.wantA || stored.Validation != tc.wantV {
				t.Errorf("stored approval %q validation %q, want %q %q", stored.Approval, stored.Validation, tc.wantA, tc.wantV)
			}
			if err == nil && (got.Approval != tc.wantA || got.Validation != tc.wantV) {
				t.Errorf("answered approval %q validation %q", got.Approval, got.Validation)
			}
		})
	}
	if _, err := clients.Apply(context.Background(), memory.NewClients(), "nobody", clients.Update{Validation: new(grading.Mode)}); problems(err) == nil {
		t.Errorf("an empty mode for an unknown client: %v, want a ValidationError first", err)
	}
	strict := grading.Strict
	if _, err := clients.Apply(context.Background(), memory.NewClients(), "nobody", clients.Update{Validation: &strict}); !errors.Is(err, clients.ErrNotFound) {
		t.Errorf("unknown client: %v, want ErrNotFound", err)
	}
}

// TestApplyDPoPBound: dpop_bound_access_tokens changes alone, either way.
func TestApplyDPoPBound(t *testing.T) {
	ctx := context.Background()
	store := memory.NewClients()
	c, _, err := clients.Register(ctx, store, testHasher(t), clients.Registration{ClientName: "etl",
		AllowedTools: []string{"*"}, AllowedAudiences: []string{"https://r.example/mcp"}, Approval: clients.ApprovalAlways}, time.Now())
	if err != nil || c.DPoPBound {
		t.Fatalf("registered %+v, %v; want not DPoP-bound by default", c, err)
	}
	for _, bound := range []bool{true, false} {
		got, err := clients.Apply(ctx, store, c.ID, clients.Update{DPoPBoundAccessTokens: &bound})
		if err != nil || got.DPoPBound != bound || got.Approval != clients.ApprovalAlways {
			t.Errorf("Apply(dpop_bound_access_tokens=%v) = %+v, %v", bound, got, err)
		}
		if v := clients.ViewOf(got); v.DPoPBoundAccessTokens != bound {
			t.Errorf("the view says %v", v.DPoPBoundAccessTokens)
		}
	}
	bound := true
	if _, err := clients.Apply(ctx, store, "nobody", clients.Update{DPoPBoundAccessTokens: &bound}); !errors.Is(err, clients.ErrNotFound) {
		t.Errorf("unknown client: %v", err)
	}
}
