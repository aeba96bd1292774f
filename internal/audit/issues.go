package audit

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/typeward/typeward/internal/verdict"
)

// Bounds of the issues a record keeps. A refusal's record is written on
// the token path and held in memory during an outage, so it stays small
// whatever the composition: at most MaxIssues issues (the first ones, in
// the validator's order; IssuesDropped counts the rest), each text cut to
// MaxIssueText bytes (a message to MaxIssueMessage) and its witness kept
// whole only up to MaxWitnessBytes of JSON. The checker already bounds a
// witness to that size; the cut is the log's own guarantee.
const (
	MaxIssues       = 16
	MaxIssueText    = 256
	MaxIssueMessage = 512
	MaxWitnessBytes = 1024
)

// Issue is one issue of a refusal as the audit log keeps it: the
// verdict.Issue the client was answered with, bounded. Its Witness is the
// whole witness (null included) when its JSON text fits MaxWitnessBytes,
// nil when there is none or it did not fit.
type Issue struct {
	verdict.Issue
	// WitnessClipped is, for a witness that did not fit, the first
	// MaxWitnessBytes of its JSON text with "…" marking the cut: text to
	// read, no longer a value.
	WitnessClipped string `json:"witness_clipped,omitempty"`
}

// Issues is what the log keeps of issues: at most MaxIssues of them,
// bounded, and how many were left out.
func Issues(issues []verdict.Issue) (kept []Issue, dropped int) {
	if len(issues) > MaxIssues {
		dropped = len(issues) - MaxIssues
		issues = issues[:MaxIssues]
	}
	for _, is := range issues {
		kept = append(kept, fromVerdict(is))
	}
	return kept, dropped
}

func fromVerdict(is verdict.Issue) Issue {
	out := Issue{Issue: is}
	out.Witness, out.WitnessError = nil, nil
	switch {
	case is.Witness == nil:
	case len(is.Witness) <= MaxWitnessBytes && json.Valid(is.Witness):
		out.Witness = slices.Clone(is.Witness)
	default:
		out.WitnessClipped = verdict.Clip(is.Witness, MaxWitnessBytes)
	}
	if we := is.WitnessError; we != nil {
		out.WitnessError = &verdict.WitnessError{KeywordLocation: we.KeywordLocation, Message: we.Message}
	}
	return out
}

// normalizeIssues bounds issues in place (a record built by hand, or read
// from an older writer, gets the same bounds as one made by Issues) and
// makes their text storable.
func normalizeIssues(issues []Issue, dropped *int) []Issue {
	if len(issues) > MaxIssues {
		*dropped += len(issues) - MaxIssues
		issues = issues[:MaxIssues]
	}
	if len(issues) == 0 {
		return nil
	}
	out := make([]Issue, len(issues)) // the caller's slice stays as it was
	for i, is := range issues {
		for _, s := range []*string{&is.Code, &is.SourceTool, &is.TargetTool, &is.Edge, &is.FieldPath, &is.SourcePointer, &is.TargetPointer} {
			*s = clip(storable(*s), MaxIssueText)
		}
		is.Severity = verdict.Severity(clip(storable(string(is.Severity)), MaxIssueText))
		is.Verdict = verdict.Verdict(clip(storable(string(is.Verdict)), MaxIssueText))
		is.Message = clip(storable(is.Message), MaxIssueMessage)
		if is.Witness != nil && (len(is.Witness) > MaxWitnessBytes || !json.Valid(is.Witness)) {
			is.WitnessClipped, is.Witness = verdict.Clip(is.Witness, MaxWitnessBytes), nil
		}
		if len(is.Witness) == 0 {
			is.Witness = nil
		}
		is.Witness = slices.Clone(is.Witness)
		is.WitnessClipped = clip(storable(is.WitnessClipped), MaxWitnessBytes+len("…"))
		if we := is.WitnessError; we != nil {
			is.WitnessError = &verdict.WitnessError{KeywordLocation: clip(storable(we.KeywordLocation), MaxIssueText),
				Message: clip(storable(we.Message), MaxIssueMessage)}
		}
		out[i] = is
	}
	return out
}

// clip cuts s to at most n bytes on a rune boundary, marking a cut with
// "…" (within the n bytes).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Clone is a deep copy of r (its slices and issues), for stores that keep
// records in memory and hand them out.
func Clone(r Issuance) Issuance {
	r.Tools, r.IssueCodes = slices.Clone(r.Tools), slices.Clone(r.IssueCodes)
	if r.Issues != nil {
		r.Issues = slices.Clone(r.Issues)
		for i := range r.Issues {
			is := &r.Issues[i]
			is.Witness = slices.Clone(is.Witness)
			if we := is.WitnessError; we != nil {
				c := *we
				is.WitnessError = &c
			}
		}
	}
	return r
}

// recordOverhead is what a record costs besides its text: the struct, its
// slices' headers, its times.
const recordOverhead = 256

// Size estimates the bytes rec holds in memory, for stores that bound
// what they keep by size (the memory log, the Postgres outage buffer).
func Size(rec *Issuance) int {
	n := recordOverhead + len(rec.ID) + len(rec.ClientID) + len(rec.Reason) + len(rec.CompositionDigest) +
		len(rec.JTI) + len(rec.Audience) + len(rec.AuthReqID) + len(rec.ApprovedBy)
	for _, s := range rec.Tools {
		n += 16 + len(s)
	}
	for _, s := range rec.IssueCodes {
		n += 16 + len(s)
	}
	for i := range rec.Issues {
		is := &rec.Issues[i]
		n += 200 + len(is.Severity) + len(is.Code) + len(is.Verdict) + len(is.SourceTool) + len(is.TargetTool) + len(is.Edge) +
			len(is.FieldPath) + len(is.SourcePointer) + len(is.TargetPointer) + len(is.Message) + len(is.Witness) + len(is.WitnessClipped)
		if we := is.WitnessError; we != nil {
			n += 32 + len(we.KeywordLocation) + len(we.Message)
		}
	}
	return n
}
