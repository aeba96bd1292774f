package oauth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// checked is the validated composition step's answer: the audience, the
// validation, the tools it reached outside the client's allow-list
// (denied) and the issues the client is shown (graded under its mode,
// denied included). On a refusal it holds what was known: the validation
// when the composition got that far.
type checked struct {
	audience string
	v        *validation
	denied   []verdict.Issue
	issues   []verdict.Issue
}

// checkComposition checks the audience, validates the composition and
// checks the allow-list: every refusal is a 400 or a 403 with issues.
func (s *Service) checkComposition(ctx context.Context, client *clients.Client, resource, details string) (checked, error) {
	audience, err := s.audience(client, resource)
	if err != nil {
		return checked{}, err
	}
	v, issues, err := s.validated(ctx, client, details)
	if err != nil {
		return checked{}, err
	}
	c := checked{audience: audience, v: v, issues: issues}
	if c.denied = s.allowListIssues(client, v.result.Tools); c.denied != nil {
		c.issues = append(slices.Clone(issues), c.denied...)
	}
	if grading.Refuses(c.issues) {
		return c, &Error{Kind: KindForbidden, Code: CodeInvalidAuthorizationDetails,
			Description: refusalDescription(c.issues, client.Validation.OrLenient()), Issues: c.issues}
	}
	return c, nil
}

// audience checks the resource against the client's allowed audiences. A
// client with exactly one allowed audience may omit resource.
func (s *Service) audience(client *clients.Client, resource string) (string, error) {
	if resource == "" {
		if len(client.AllowedAudiences) != 1 {
			return "", badRequest(CodeInvalidTarget, "resource is required: this client has several allowed audiences")
		}
		resource = client.AllowedAudiences[0]
	}
	if strings.TrimSuffix(resource, "/") == strings.TrimSuffix(s.Issuer, "/") {
		// Registration refuses it too; this covers clients made before,
		// or by a CLI that did not know the issuer, whether the resource
		// is named or is their one allowed audience.
		return "", badRequest(CodeInvalidTarget, "resource may not be this server's issuer")
	}
	if !client.AllowsAudience(resource) {
		return "", badRequest(CodeInvalidTarget, "resource is not an allowed audience of this client: "+truncate(resource, 128))
	}
	return resource, nil
}

// admitTools refuses a composition whose nodes name a tool outside the
// client's allow-list, before any validation. Names that do not resolve
// are left to the validator, which reports them; tools reached through
// stored compositions are checked after validation (allowListIssues).
func (s *Service) admitTools(ctx context.Context, client *clients.Client, c *composition.Composition) error {
	if s.Tools == nil {
		return nil
	}
	var denied []composition.ToolRef
	seen := map[string]bool{}
	for _, n := range c.Nodes {
		if n.Tool == "" {
			continue
		}
		rt, err := s.Tools.ResolveTool(ctx, n.Tool, n.Version)
		if err != nil {
			if errors.Is(err, registry.ErrNotFound) || errors.Is(err, registry.ErrAmbiguous) {
				continue
			}
			return serverError(err)
		}
		if name := rt.QualifiedName(); !seen[name] && !client.AllowsTool(name) {
			seen[name] = true
			denied = append(denied, composition.ToolRef{Name: name, Version: rt.Version, Digest: rt.Digest})
		}
	}
	if len(denied) == 0 {
		return nil
	}
	issues := s.allowListIssues(client, denied)
	return &Error{Kind: KindForbidden, Code: CodeInvalidAuthorizationDetails,
		Description: refusalDescription(issues, grading.Lenient), Issues: issues} // no mode weighs an allow-list
}

func (s *Service) allowListIssues(client *clients.Client, tools []composition.ToolRef) []verdict.Issue {
	var issues []verdict.Issue
	for _, t := range tools {
		if !client.AllowsTool(t.Name) {
			issues = append(issues, verdict.Issue{Severity: verdict.SeverityError, Code: verdict.CodeToolNotAllowed,
				SourceTool: t.Name, Message: fmt.Sprintf("tool %s is not in the allow-list of client %s", t.Name, client.ID)})
		}
	}
	return issues
}

// refusalDescription summarises a refusal in ASCII; the issues say the
// rest. A strict refusal says so: the same composition may be issued to a
// lenient client.
func refusalDescription(issues []verdict.Issue, m grading.Mode) string {
	n := 0
	for _, i := range issues {
		if i.Severity == verdict.SeverityError {
			n++
		}
	}
	what := "the composition was refused"
	if m == grading.Strict {
		what += " under strict validation"
	}
	if n == 1 {
		return what + ": 1 error; see issues"
	}
	return fmt.Sprintf("%s: %d errors; see issues", what, n)
}
