package oauth

import (
	"context"
	"errors"
	"fmt"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/verify/dpop"
)

// ReasonDPoPRequired is the audit reason of a token request without a
// proof from a client registered with dpop_bound_access_tokens.
const ReasonDPoPRequired = "dpop_required"

type dpopProofsKey struct{}

// WithDPoPProofs gives the token endpoint the request's DPoP headers; the
// HTTP layer sets them, as it does the remote address.
func WithDPoPProofs(ctx context.Context, proofs []string) context.Context {
	return context.WithValue(ctx, dpopProofsKey{}, proofs)
}

// proofKey is the DPoP step of every grant (RFC 9449 §5): the thumbprint
// of the key a valid proof of this request was signed with, to bind the
// token to, or "" for a bearer token when the request carries no proof and
// the client may have one.
func (s *Service) proofKey(ctx context.Context, client *clients.Client, in *issuance) (string, error) {
	proofs, _ := ctx.Value(dpopProofsKey{}).([]string)
	switch {
	case len(proofs) > 1:
		return "", badRequest(CodeInvalidDPoPProof, fmt.Sprintf("%d DPoP headers: a request carries one proof", len(proofs)))
	case len(proofs) == 0 && client.DPoPBound:
		in.reason = ReasonDPoPRequired
		return "", badRequest(CodeInvalidDPoPProof, "this client's tokens are DPoP-bound (dpop_bound_access_tokens): send a DPoP proof")
	case len(proofs) == 0:
		return "", nil
	case s.DPoP == nil:
		return "", badRequest(CodeInvalidDPoPProof, "this server does not accept DPoP proofs")
	}
	p, err := s.DPoP.Check(ctx, proofs[0], dpop.Request{Method: "POST", URL: s.Issuer + PathToken})
	switch {
	case errors.Is(err, dpop.ErrInvalidProof):
		return "", badRequest(CodeInvalidDPoPProof, err.Error())
	case err != nil:
		return "", serverError(err)
	}
	if err := s.checkNonce(ctx, p.Nonce, in); err != nil {
		return "", err
	}
	in.jkt = p.JKT
	return p.JKT, nil
}

// bindKey binds what a grant authorized to the DPoP key jkt of the
// request's proof ("" without one): the refresh family a code opens takes
// the key, and a refresh of a family bound to a key needs a proof of that
// key (RFC 9449 §5), so a stolen refresh token is as useless as a stolen
// access token.
func (a *authorized) bindKey(jkt string) error {
	f := a.family
	switch {
	case f == nil:
	case a.bindsFamily:
		f.JKT = jkt
	case f.JKT != "" && jkt == "":
		return badRequest(CodeInvalidDPoPProof, "this refresh token is bound to a DPoP key: send a DPoP proof of it")
	case f.JKT != "" && jkt != f.JKT:
		return badRequest(CodeInvalidGrant, "this refresh token is bound to another DPoP key than the proof's")
	}
	return nil
}
