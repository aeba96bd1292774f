package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/verify"
)

// MaxAuthorizationDetailsBytes bounds the parameter before it is decoded.
const MaxAuthorizationDetailsBytes = 1 << 20

// MaxCompositionIDBytes bounds a composition_id.
const MaxCompositionIDBytes = 256

// CompositionRequest is the one mcp_composition a client asked for: either
// an inline document or the name of a stored composition.
type CompositionRequest struct {
	Inline json.RawMessage // set for an inline composition
	ID     string          // set for composition_id
}

// enrich is the authorization detail of a validated composition: what the
// token and the success answer carry.
func enrich(res *composition.Result) verify.AuthorizationDetail {
	// Copies: res may be a cached result other requests share.
	return verify.AuthorizationDetail{Type: verify.DetailType, Digest: res.Digest,
		Tools: slices.Clone(res.Tools), Edges: slices.Clone(res.Edges)}
}

// ParseAuthorizationDetails reads the authorization_details parameter: a
// JSON array holding exactly one object {"type":"mcp_composition"} with
// exactly one of "composition" (an object) and "composition_id" (a string).
// Every other shape is an invalid_authorization_details *Error.
func ParseAuthorizationDetails(raw string) (CompositionRequest, error) {
	fail := func(format string, args ...any) (CompositionRequest, error) {
		return CompositionRequest{}, badRequest(CodeInvalidAuthorizationDetails, fmt.Sprintf(format, args...))
	}
	if len(raw) > MaxAuthorizationDetailsBytes {
		return fail("authorization_details is %d bytes, at most %d", len(raw), MaxAuthorizationDetailsBytes)
	}
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return fail("authorization_details must be a JSON array of objects")
	}
	if len(list) != 1 {
		return fail("authorization_details must hold exactly one mcp_composition, got %d entries", len(list))
	}
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(list[0], &entry); err != nil || entry == nil {
		return fail("authorization_details[0] must be an object")
	}
	var typ string
	if err := json.Unmarshal(entry["type"], &typ); err != nil {
		return fail(`authorization_details[0].type must be a string`)
	}
	if typ != verify.DetailType {
		return fail("authorization_details type %q is not supported; use %s", truncate(typ, 64), verify.DetailType)
	}
	for key := range entry {
		if key != "type" && key != "composition" && key != "composition_id" {
			return fail("unknown member %q in an mcp_composition", truncate(key, 64))
		}
	}
	inline, hasInline := entry["composition"]
	rawID, hasID := entry["composition_id"]
	switch {
	case hasInline && hasID:
		return fail("give composition or composition_id, not both")
	case hasInline:
		trimmed := bytes.TrimSpace(inline)
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return fail("composition must be a JSON object")
		}
		return CompositionRequest{Inline: trimmed}, nil
	case hasID:
		var id string
		if err := json.Unmarshal(rawID, &id); err != nil || id == "" {
			return fail("composition_id must be a non-empty string")
		}
		if len(id) > MaxCompositionIDBytes {
			return fail("composition_id is longer than %d bytes", MaxCompositionIDBytes)
		}
		return CompositionRequest{ID: id}, nil
	}
	return fail("an mcp_composition needs composition or composition_id")
}

// truncate keeps echoed input short in descriptions.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// RequestedComposition is the composition document an
// authorization_details parameter names, for a drawing of it (the
// console's of a pending request).
func (s *Service) RequestedComposition(ctx context.Context, details string) (json.RawMessage, error) {
	cr, err := ParseAuthorizationDetails(details)
	if err != nil {
		return nil, err
	}
	return s.document(ctx, cr)
}

// document is the composition document a request names: inline, or the
// definition of the stored composition it names.
func (s *Service) document(ctx context.Context, cr CompositionRequest) (json.RawMessage, error) {
	if cr.ID == "" {
		return cr.Inline, nil
	}
	stored, err := s.Compositions.Composition(ctx, cr.ID)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, badRequest(CodeInvalidAuthorizationDetails, "no stored composition named "+truncate(cr.ID, 128))
	} else if err != nil {
		return nil, serverError(err)
	}
	return stored.Definition, nil
}
