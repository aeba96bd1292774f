package oauth

import (
	"context"

	"github.com/typeward/typeward/internal/nonce"
)

// checkNonce, with nonces on (Service.DPoPNonces), refuses a proof whose
// nonce claim is not a live nonce, answering one; the current nonce goes
// with every answer of a request with a proof.
func (s *Service) checkNonce(ctx context.Context, n string, in *issuance) error {
	if s.DPoPNonces == nil {
		return nil
	}
	now := s.now()
	current, err := s.DPoPNonces.Current(ctx, now)
	if err != nil {
		return serverError(err)
	}
	in.dpopNonce = current
	ok := false
	if n != "" && len(n) <= nonce.MaxBytes {
		if ok, err = s.DPoPNonces.Valid(ctx, n, now); err != nil {
			return serverError(err)
		}
	}
	if !ok {
		e := badRequest(CodeUseDPoPNonce, "this server requires a DPoP nonce: sign the proof again with the DPoP-Nonce header's value")
		e.DPoPNonce = current
		return e
	}
	return nil
}
