package oauth

import (
	"slices"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
)

// issuance is one audited decision (a token request, a backchannel
// request) as its steps produced it: each field is one step's answer, set
// where the step returns, and nothing else writes it. record makes the
// audit record of it once, at the end, whatever step refused.
type issuance struct {
	at time.Time
	// clientID is the client the request named, then the one
	// authentication found (or claimed, when it failed); reason is the
	// precise cause a step gave of its refusal (the form's bounds, the
	// authenticator's verdict), "" to take the error's code.
	clientID, reason string
	// authorized is what the grant authorized, or, on a refusal, what it
	// had established: the pending approval request, the composition's
	// verdict.
	authorized authorized
	// audience is the audience of the grant a token was minted for, once
	// the grant step ran; jti the token's id once it was minted, and
	// discarded tells that its redemption failed, so it was never handed
	// out (nor the approval behind it used).
	audience  string
	jti       string
	discarded bool
	// jkt is the thumbprint of the DPoP key the token is bound to, once
	// the proof was checked, and dpopNonce the nonce to answer with it.
	jkt, dpopNonce string
}

// record is the audit record of the decision that ended in err.
func (in *issuance) record(err error) audit.Issuance {
	rec := audit.Issuance{Time: in.at, ClientID: in.clientID, Reason: in.reason, DPoPJKT: in.jkt}
	if len(rec.ClientID) > clients.MaxClientIDLen {
		rec.ClientID = Clip(rec.ClientID, auditedValueBytes)
	}
	a := &in.authorized
	if p := a.pending; p != nil {
		rec.AuthReqID, rec.CompositionDigest, rec.Tools, rec.Audience = p.ID, p.Digest, p.Tools, p.Audience
	}
	if c := a.consent; c != nil {
		// The person who consented and the code or family redeemed.
		rec.AuthReqID, rec.ApprovedBy, rec.ApprovedAt = a.consentID, c.Subject, c.ConsentedAt
		rec.CompositionDigest, rec.Tools, rec.Audience = c.Digest, c.Tools, c.Audience
	}
	v := a.check.v
	if v != nil {
		rec.CompositionDigest, rec.Tools, rec.IssueCodes = v.result.Digest, v.tools, v.issueCodes
		if len(a.check.denied) > 0 {
			rec.IssueCodes = slices.Clip(rec.IssueCodes)
			for _, is := range a.check.denied {
				rec.IssueCodes = append(rec.IssueCodes, is.Code)
			}
		}
	}
	if err != nil {
		// A refused composition: the log keeps what the client was shown,
		// witnesses included. Refused before it was validated (the
		// allow-list), its issues name the tools.
		refused := AsError(err).Issues
		if len(refused) > 0 {
			rec.Issues, rec.IssuesDropped = audit.Issues(refused)
		}
		if v == nil && len(refused) > 0 {
			rec.Tools = slices.Clip(rec.Tools)
			for _, is := range refused {
				rec.Tools, rec.IssueCodes = append(rec.Tools, is.SourceTool), append(rec.IssueCodes, is.Code)
			}
		}
	}
	if in.audience != "" {
		rec.Audience = in.audience
		if v != nil {
			rec.RegistryGeneration = v.generation
		}
	}
	if !in.discarded {
		rec.JTI = in.jti
		if a.approval != nil && a.pending != nil {
			rec.ApprovedBy, rec.ApprovedAt = a.pending.DecidedBy, a.pending.DecidedAt
		}
	}
	settle(&rec, err)
	return rec
}

// settle sets the outcome of a decision, and its reason unless a step
// gave a more precise one.
func settle(rec *audit.Issuance, err error) {
	if err == nil {
		rec.Outcome, rec.Reason = audit.Issued, ""
		return
	}
	e := AsError(err)
	rec.Outcome = audit.Denied
	server := e.Kind == KindServer || e.Kind == KindUnavailable // a client hanging up is no server error
	if server {
		rec.Outcome = audit.Error
	}
	if rec.Reason == "" || server || e.Kind == KindCanceled {
		rec.Reason = e.Code
	}
}

// count counts one decision; the reason label is the OAuth error code, a
// bounded set.
func (s *Service) count(rec *audit.Issuance, err error) {
	if s.Metrics == nil {
		return
	}
	reason := "ok"
	if err != nil {
		reason = AsError(err).Code
	}
	s.Metrics.TokenRequests.WithLabelValues(string(rec.Outcome), reason).Inc()
	if err == nil {
		s.Metrics.TokensIssued.WithLabelValues(s.Metrics.ClientLabel(rec.ClientID)).Inc()
	}
}
