package oauth

import (
	"context"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/audit"
)

// TestApprovalPolicy: a client whose policy sends a composition to a
// person gets approval_required naming the backchannel endpoint, after
// validation; compositions the policy lets through are issued as before.
// In examples/registry.json db_query and aggregate_stats are read-only,
// email_send is mutating (destructiveHint false) and transform_csv says
// nothing, so it is destructive.
func TestApprovalPolicy(t *testing.T) {
	readOnly := exampleDoc(t, "pipeline-readonly.json")
	mutating := exampleDoc(t, "pipeline-valid.json") // ... -> email_send
	destructive := `{"nodes":[{"id":"c","tool":"transform_csv"}]}`
	invalid := exampleDoc(t, "pipeline-invalid.json")
	for _, tc := range []struct {
		client, doc string
		code        string // "" when issued
	}{
		{"app", destructive, ""},
		{"careful", readOnly, ""},
		{"careful", mutating, CodeApprovalRequired},
		{"careful", destructive, CodeApprovalRequired},
		{"careful", invalid, CodeInvalidAuthorizationDetails}, // validation first
		{"strict", readOnly, ""},
		{"strict", mutating, ""},
		{"strict", destructive, CodeApprovalRequired},
		{"always", readOnly, CodeApprovalRequired},
	} {
		f := newFixture(t)
		_, err := f.svc.Token(context.Background(), form("grant_type", "client_credentials", "authorization_details", details(tc.doc)), creds(tc.client))
		d := f.decisions(t)
		if tc.code == "" {
			if err != nil || len(d) != 1 || d[0].Outcome != audit.Issued {
				t.Errorf("%s, %.40s: %v, audit %+v; want a token", tc.client, tc.doc, err, d)
			}
			continue
		}
		e := AsError(err)
		if e.Code != tc.code || e.Kind != KindForbidden || len(d) != 1 || d[0].Reason != tc.code {
			t.Errorf("%s, %.40s: %+v, audit %+v; want 403 %s", tc.client, tc.doc, e, d, tc.code)
			continue
		}
		if tc.code == CodeApprovalRequired {
			if !strings.Contains(e.Description, issuer+PathBackchannel) || len(e.Issues) != 0 {
				t.Errorf("%s: description %q does not name the backchannel endpoint", tc.client, e.Description)
			}
			if tc.client == "careful" && tc.doc == mutating && !strings.Contains(e.Description, "email_send is mutating") {
				t.Errorf("description %q does not say which tool needs approval", e.Description)
			}
		} else if len(e.Issues) == 0 {
			t.Errorf("%s: an invalid pipeline must get its issues, got %+v", tc.client, e)
		}
	}
}
