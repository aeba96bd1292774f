// Package audit is typeward's issuance log: every token decision (issued,
// denied, or failed) with who asked, for which composition and tools, and
// why, queryable by client, outcome and time.
package audit

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Outcome is how a token request ended.
type Outcome string

const (
	Issued Outcome = "issued"
	Denied Outcome = "denied"
	// Error: the server failed (store down, signing failed), not the client.
	Error Outcome = "error"
)

// ParseOutcome checks an outcome given as text (a query parameter).
func ParseOutcome(s string) (Outcome, error) {
	switch o := Outcome(s); o {
	case Issued, Denied, Error:
		return o, nil
	}
	return "", fmt.Errorf("outcome %q is not one of issued, denied, error", s)
}

// Issuance is one token decision.
type Issuance struct {
	// ID identifies the record; Append assigns one when empty.
	ID string `json:"id"`
	// Time is stored to the microsecond, the precision both backends keep.
	Time     time.Time `json:"time"`
	ClientID string    `json:"client_id"`
	Outcome  Outcome   `json:"outcome"`
	// Reason is a short machine-readable cause for denied and error
	// outcomes (e.g. "type_mismatch", "bad_secret"); "" when issued.
	Reason            string   `json:"reason,omitempty"`
	CompositionDigest string   `json:"composition_digest,omitempty"`
	Tools             []string `json:"tools,omitempty"`
	IssueCodes        []string `json:"issue_codes,omitempty"`
	// Issues are the refusal's issues, bounded (see MaxIssues), and
	// IssuesDropped counts those beyond the bound.
	Issues        []Issue `json:"issues,omitempty"`
	IssuesDropped int     `json:"issues_dropped,omitempty"`
	JTI           string  `json:"jti,omitempty"`
	Audience      string  `json:"audience,omitempty"`
	// AuthReqID, ApprovedBy and ApprovedAt record the person's approval
	// behind a token of the backchannel (CIBA) grant.
	AuthReqID  string    `json:"auth_req_id,omitempty"`
	ApprovedBy string    `json:"approved_by,omitempty"`
	ApprovedAt time.Time `json:"approved_at,omitzero"`
	// DPoPJKT is the thumbprint of the DPoP key the request's proof was
	// signed with (the token's cnf.jkt): a DPoP-bound token's holder.
	DPoPJKT string `json:"dpop_jkt,omitempty"`
	// RegistryGeneration is, for an issuance, the registry generation its
	// validation read (0: none, negative: the replica did not know). A
	// store that knows generations (Postgres) records it and has the
	// registry's guard confirm it in the same transaction, refusing the
	// append with registry.ErrChanged when the registry is at another (a
	// negative one always); the log itself checks nothing, and nothing
	// reads it back.
	RegistryGeneration int64 `json:"-"`
}

// NewID returns a random 128-bit record id in hex.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Normalize prepares rec for storage: an id if it has none, the time in
// UTC truncated to microseconds, and a check of the outcome. Both
// backends call it so they store the same thing.
func Normalize(rec *Issuance) error {
	if _, err := ParseOutcome(string(rec.Outcome)); err != nil {
		return err
	}
	if rec.ClientID == "" && rec.Outcome == Issued {
		return fmt.Errorf("an issued record needs a client_id")
	}
	if rec.Time.IsZero() {
		return fmt.Errorf("issuance time is zero")
	}
	if rec.ID == "" {
		rec.ID = NewID()
	}
	rec.Time = rec.Time.UTC().Truncate(time.Microsecond)
	if !rec.ApprovedAt.IsZero() {
		rec.ApprovedAt = rec.ApprovedAt.UTC().Truncate(time.Microsecond)
	}
	for _, s := range []*string{&rec.ID, &rec.ClientID, &rec.Reason, &rec.CompositionDigest, &rec.JTI, &rec.Audience, &rec.AuthReqID, &rec.ApprovedBy, &rec.DPoPJKT} {
		*s = storable(*s)
	}
	rec.Tools, rec.IssueCodes = storableAll(rec.Tools), storableAll(rec.IssueCodes)
	if rec.IssuesDropped < 0 {
		return fmt.Errorf("issues_dropped is negative")
	}
	rec.Issues = normalizeIssues(rec.Issues, &rec.IssuesDropped)
	return nil
}

// storable is s as valid UTF-8 without NUL, each bad byte or NUL replaced
// by U+FFFD. Denials record what a client sent (a client_id from a form
// may hold anything) and Postgres text holds neither NUL nor invalid
// UTF-8: the record of a malformed request must still be written, and
// must not fail the batch it is written with.
func storable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// storableAll applies storable to each string, copying the slice only
// when something changes: it is the caller's.
func storableAll(ss []string) []string {
	for i, s := range ss {
		if t := storable(s); t != s {
			out := slices.Clone(ss)
			out[i] = t
			for j := i + 1; j < len(out); j++ {
				out[j] = storable(out[j])
			}
			return out
		}
	}
	return ss
}
