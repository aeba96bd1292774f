package keys

import (
	"errors"
	"fmt"
	"time"
)

// Record is one signing key as stored: its public half in the clear, its
// private half sealed under the key encryption key, and its schedule.
//
// A key is published in the JWKS from PublishAt until ExpiresAt, and may
// sign from ActivateAt until RetireAt. Zero RetireAt and ExpiresAt mean "not
// scheduled yet": only a later rotation sets them.
type Record struct {
	KID        string // RFC 7638 thumbprint of the public key
	Alg        Alg
	PublicJWK  []byte // the public key as a JWK (JSON), exactly as published
	Sealed     []byte // AES-256-GCM nonce and ciphertext of the PKCS #8 private key
	KEKID      string // which key encryption key sealed it
	CreatedAt  time.Time
	PublishAt  time.Time
	ActivateAt time.Time
	RetireAt   time.Time
	ExpiresAt  time.Time
}

// Retirement is when a rotation ends the other keys' lives: they stop
// signing at At and leave the JWKS at ExpiresAt. A rotation only ever
// brings these times forward, never back.
type Retirement struct {
	At        time.Time
	ExpiresAt time.Time
	// IfNewestCreated, when set, makes the rotation conditional: it happens
	// only while the newest stored key is still the one created at that
	// time. Replicas that find a scheduled rotation due at the same moment
	// thus make one rotation between them, not one each.
	IfNewestCreated time.Time
}

// ErrInvalidRecord is wrapped by Validate and by stores refusing a record.
var ErrInvalidRecord = errors.New("keys: invalid key record")

// Validate reports the first thing that makes r unfit to store.
func (r *Record) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidRecord, r.KID, fmt.Sprintf(format, args...))
	}
	switch {
	case r.KID == "":
		return bad("empty kid")
	case r.Alg != ES256 && r.Alg != EdDSA:
		return bad("unsupported alg %q", r.Alg)
	case len(r.PublicJWK) == 0:
		return bad("no public key")
	case len(r.Sealed) == 0:
		return bad("no sealed private key")
	case r.KEKID == "":
		return bad("no key encryption key id")
	case r.CreatedAt.IsZero() || r.PublishAt.IsZero() || r.ActivateAt.IsZero():
		return bad("created, publish and activate times are required")
	case r.ActivateAt.Before(r.PublishAt):
		return bad("activates before it is published")
	case !r.RetireAt.IsZero() && !r.ExpiresAt.IsZero() && r.ExpiresAt.Before(r.RetireAt):
		return bad("leaves the JWKS before it stops signing")
	}
	return nil
}

// State is where a key stands in its life at a given time.
type State string

// Key states, in the order a key goes through them.
const (
	StateScheduled State = "scheduled" // not published yet
	StatePending   State = "pending"   // published, not signing yet
	StateActive    State = "active"    // published and signing
	StateRetired   State = "retired"   // published for the tokens it signed, no longer signing
	StateExpired   State = "expired"   // withdrawn from the JWKS
)

// StateAt is r's state at now.
func (r *Record) StateAt(now time.Time) State {
	switch {
	case r.published(now) && r.signs(now):
		return StateActive
	case !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt):
		return StateExpired
	case now.Before(r.PublishAt):
		return StateScheduled
	case now.Before(r.ActivateAt):
		return StatePending
	}
	return StateRetired
}

// published: in the JWKS at now.
func (r *Record) published(now time.Time) bool {
	return !now.Before(r.PublishAt) && (r.ExpiresAt.IsZero() || now.Before(r.ExpiresAt))
}

// signs: inside its signing window at now.
func (r *Record) signs(now time.Time) bool {
	return !now.Before(r.ActivateAt) && (r.RetireAt.IsZero() || now.Before(r.RetireAt))
}

// retired reports whether r's signing window has been closed, now or later.
func (r *Record) retired() bool { return !r.RetireAt.IsZero() }
