package oauth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/registry"
)

// CodeApprovalRequired refuses a client_credentials request whose
// composition the client's approval policy sends to a person: the client
// asks at the backchannel authentication endpoint instead.
const CodeApprovalRequired = "approval_required"

// effects reads what each tool may do from its current annotations. A
// tool that vanished since it resolved counts as destructive: its next
// resolution fails anyway.
func (s *Service) effects(ctx context.Context, tools []string) ([]approval.Effect, error) {
	out := make([]approval.Effect, len(tools))
	for i, name := range tools {
		rec, err := s.Declarations.Tool(ctx, name)
		switch {
		case errors.Is(err, registry.ErrNotFound):
			out[i] = approval.Destructive
		case err != nil:
			return nil, serverError(err)
		default:
			out[i] = approval.EffectOf(rec.Declaration.Annotations)
		}
	}
	return out, nil
}

// approvalRequired names the tools that need approval and where to ask.
func approvalRequired(issuer string, client *clients.Client, v *validation) *Error {
	var why []string
	for i, e := range v.effects {
		if e != approval.ReadOnly {
			why = append(why, v.tools[i]+" is "+string(e))
		}
	}
	reason := "its policy asks for approval of every composition"
	if client.Approval != clients.ApprovalAlways {
		reason = truncate(strings.Join(why, ", "), 256)
	}
	return &Error{Kind: KindForbidden, Code: CodeApprovalRequired, Description: ASCII(fmt.Sprintf(
		"client approval policy %s: %s; ask a person at the backchannel authentication endpoint %s%s (grant %s)",
		client.Approval.OrNever(), reason, issuer, PathBackchannel, GrantTypeCIBA))}
}
