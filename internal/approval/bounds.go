package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds of a backchannel request and of a decision.
const (
	// MaxBindingMessage is in characters: the message is shown to a
	// person next to the request, and should be short (CIBA §7.1).
	MaxBindingMessage = 200
	MaxReason         = 500
	MaxDeciderName    = 128
	// DefaultExpiry applies when the client gives no requested_expiry.
	DefaultExpiry = 10 * time.Minute
	MinExpiry     = 30 * time.Second
	MaxExpiry     = time.Hour
	// DefaultInterval is the least time between two polls of one request.
	DefaultInterval = 5 * time.Second
	// DefaultMaxPending bounds a client's pending requests.
	DefaultMaxPending = 20
	// MaxListed bounds the pending requests one listing returns.
	MaxListed = 200
)

// CheckText refuses text a person reads that is too long, not UTF-8, or
// holds control characters (which could hide or reorder what is shown).
func CheckText(name, s string, maxRunes int) error {
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("%s is not valid UTF-8", name)
	case utf8.RuneCountInString(s) > maxRunes:
		return fmt.Errorf("%s is longer than %d characters", name, maxRunes)
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }):
		return fmt.Errorf("%s contains a control character", name)
	}
	return nil
}

// ErrNoLongerValid is wrapped, with the reason, by Decide for an approval
// refused at the click: the composition no longer validates as its
// redemption would check it (a tool changed or vanished, the client's
// allow-list or validation mode changed, the client is gone).
var ErrNoLongerValid = errors.New("the composition can no longer be approved")

// Revalidator checks a request's composition against the registry as it
// is now, as redemption will check it: nil when a token would be issued,
// an error wrapping ErrNoLongerValid when not, any other error when the
// check itself failed.
type Revalidator interface {
	Revalidate(ctx context.Context, r *Request) error
}

// Decide records a person's decision after checking its bounds. An
// approval first re-validates the composition (v), so a person is never
// recorded approving what can no longer be issued; redemption checks
// again, since the registry may change between the click and the token.
func Decide(ctx context.Context, s Store, v Revalidator, id string, d Decision) error {
	if d.By == "" {
		return fmt.Errorf("a decision needs the deciding person")
	}
	if err := CheckText("the reason", d.Reason, MaxReason); err != nil {
		return err
	}
	if err := CheckText("the decider", d.By, MaxDeciderName); err != nil {
		return err
	}
	if d.Approve {
		r, err := s.Get(ctx, id)
		if err != nil {
			return err
		}
		if r.Status != Pending || r.Expired(d.At) {
			return fmt.Errorf("request %s: %w", id, ErrNotPending)
		}
		if v == nil {
			return fmt.Errorf("approvals need a revalidator")
		}
		if err := v.Revalidate(ctx, r); err != nil {
			return err
		}
	}
	return s.Decide(ctx, id, d)
}
