package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/verify/dpop"
)

// ProofReplay is the memory dpop.Replay of the token endpoint: a proof's
// (jkt, jti) claimed in an AssertionReplay under the client id "dpop:" +
// jkt, so its purge forgets them too.
type ProofReplay struct {
	assertions *AssertionReplay
	now        func() time.Time
}

var _ dpop.Replay = (*ProofReplay)(nil)

// NewProofReplay claims proofs in assertions; now is the clock, time.Now
// when nil.
func NewProofReplay(assertions *AssertionReplay, now func() time.Time) *ProofReplay {
	if now == nil {
		now = time.Now
	}
	return &ProofReplay{assertions: assertions, now: now}
}

// Claim implements dpop.Replay.
func (s *ProofReplay) Claim(ctx context.Context, jkt, jti string, until time.Time) error {
	err := s.assertions.Claim(ctx, "dpop:"+jkt, jti, until, s.now())
	if errors.Is(err, clients.ErrReplayed) || errors.Is(err, clients.ErrInvalidJTI) {
		return fmt.Errorf("proof jti %q: %w", jti, dpop.ErrReplayed)
	}
	return err
}
