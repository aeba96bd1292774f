// Package hosts is how a client_id becomes a client for an interactive
// MCP host: an https URL with a path is a client ID metadata document,
// fetched (package cimd) and checked as every client's metadata is
// (clients.Registration); any other id is looked up in the store. A host
// of the authorization code grant that has no admin-set audiences, one
// that came by a metadata document or by dynamic registration, may ask
// for the server's protected resources (package resources): they are its
// audiences wherever it is looked up.
package hosts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/cimd"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/resources"
)

// Policy of every self-registered host: any tool, since a person consents
// to each composition on typeward's page; a composition with a mutating
// tool needs an approver's consent.
var (
	hostTools    = []string{"*"}
	hostApproval = clients.ApprovalMutating
)

// Clients is a clients.Store whose Get resolves metadata documents and
// fills in a host's audiences. Everything else is the store's.
type Clients struct {
	clients.Store
	// Documents fetches metadata documents; nil: a URL client_id is
	// unknown.
	Documents *cimd.Fetcher
	Resources *resources.List
	Issuer    string
	Now       func() time.Time
}

// Get implements clients.Getter. A metadata document that cannot be used
// is clients.ErrNotFound wrapping the *cimd.Error that says why.
func (h *Clients) Get(ctx context.Context, id string) (*clients.Client, error) {
	var c *clients.Client
	var err error
	if cimd.IsClientID(id) {
		c, err = h.document(ctx, id)
	} else {
		c, err = h.Store.Get(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	if len(c.AllowedAudiences) == 0 && slices.Contains(c.GrantTypes, clients.GrantAuthorizationCode) && h.Resources != nil {
		all, err := h.Resources.All(ctx)
		if err != nil {
			return nil, fmt.Errorf("protected resources: %w", err)
		}
		for _, r := range all {
			c.AllowedAudiences = append(c.AllowedAudiences, r.URI)
		}
	}
	return c, nil
}

func (h *Clients) document(ctx context.Context, id string) (*clients.Client, error) {
	if h.Documents == nil {
		return nil, fmt.Errorf("client %q: %w", id, clients.ErrNotFound)
	}
	doc, err := h.Documents.Fetch(ctx, id)
	var refused *cimd.Error
	if errors.As(err, &refused) {
		return nil, fmt.Errorf("%w: %w", clients.ErrNotFound, refused)
	}
	if err != nil {
		return nil, err
	}
	return FromDocument(doc, h.Issuer, h.now())
}

func (h *Clients) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Metadata is what a host says of itself, in a metadata document or an
// RFC 7591 registration.
type Metadata struct {
	Name         string
	Method       clients.AuthMethod
	JWKS         []byte
	RedirectURIs []string
	GrantTypes   []string
	// Scope is the RFC 7591 scope: what the authorization endpoint asks
	// for when a request names nothing.
	Scope string
}

// grants are the only grants a self-registered host may have: each token
// stands on a person's consent. client_credentials would let anyone who
// registers take tokens for any tool.
var grants = []string{clients.GrantAuthorizationCode, clients.GrantRefreshToken}

// New checks m as every client's metadata is checked (clients.Registration)
// and makes the host it describes, with the fixed policy of self-registered
// hosts (the allow-lists are the operator's to set) and a fresh id and, for
// a secret method, a secret. A refusal is a *clients.ValidationError.
func New(m Metadata, h *clients.Hasher, issuer string, now time.Time) (*clients.Client, string, error) {
	r := clients.Registration{
		ClientName: m.Name, TokenEndpointAuthMethod: m.Method, JWKS: m.JWKS,
		RedirectURIs: slices.Clone(m.RedirectURIs), GrantTypes: slices.Clone(m.GrantTypes),
		AllowedTools: slices.Clone(hostTools), Approval: hostApproval, Issuer: issuer,
	}
	if len(r.GrantTypes) == 0 {
		r.GrantTypes = []string{clients.GrantAuthorizationCode}
	}
	r.Scope = r.GrantableScope(m.Scope)
	var ps []clients.Problem
	for i, g := range r.GrantTypes {
		if !slices.Contains(grants, g) {
			ps = append(ps, clients.Problem{Field: fmt.Sprintf("/grant_types/%d", i),
				Message: fmt.Sprintf("%q is not for a self-registered host: only authorization_code and refresh_token, which a person's consent stands behind", g)})
		}
	}
	c, secret, err := clients.NewClient(r, h, now)
	var ve *clients.ValidationError
	if errors.As(err, &ve) || len(ps) > 0 {
		if ve != nil {
			ps = append(ps, ve.Problems...)
		}
		return nil, "", &clients.ValidationError{Problems: ps}
	}
	return c, secret, err
}

// FromDocument is the client a checked metadata document describes, its
// id the document's URL. Metadata every client's rules refuse (a
// redirect URI typeward never redirects to, a grant a public client
// cannot have) is a *cimd.Error naming each problem.
func FromDocument(d *cimd.Resolved, issuer string, now time.Time) (*clients.Client, error) {
	c, _, err := New(Metadata{Name: d.ClientName, Method: clients.AuthMethod(d.TokenEndpointAuthMethod), JWKS: d.JWKS,
		RedirectURIs: d.RedirectURIs, GrantTypes: d.GrantTypes, Scope: d.Scope}, nil, issuer, now) // no secret: a document has none
	var ve *clients.ValidationError
	if errors.As(err, &ve) {
		var msgs []string
		for _, p := range ve.Problems {
			msgs = append(msgs, strings.TrimPrefix(p.Field, "/")+" "+p.Message)
		}
		return nil, fmt.Errorf("%w: %w", clients.ErrNotFound, &cimd.Error{URL: d.ClientID, Reason: cimd.ReasonInvalid,
			Message: "holds metadata typeward refuses: " + strings.Join(msgs, "; ")})
	}
	if err != nil {
		return nil, err
	}
	c.ID = d.ClientID
	return c, nil
}
