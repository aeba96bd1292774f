package audit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, p := range []audit.Position{
		{Time: time.Date(2026, 11, 30, 9, 0, 0, 123456000, time.UTC), ID: "0f3a"},
		{Time: time.Unix(0, 0).UTC(), ID: "id.with.dots"},
		{Time: time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC), ID: "before-epoch"},
	} {
		got, err := audit.DecodeCursor(audit.EncodeCursor(p))
		if err != nil || !got.Time.Equal(p.Time) || got.ID != p.ID {
			t.Errorf("round trip of %+v = %+v, %v", p, got, err)
		}
	}
}

func TestQueryNormalize(t *testing.T) {
	q := audit.Query{}
	if after, err := q.Normalize(); err != nil || after != nil || q.Limit != audit.DefaultLimit {
		t.Errorf("zero query: %v, %v, limit %d", after, err, q.Limit)
	}
	for _, bad := range []audit.Query{{Limit: -1}, {Limit: audit.MaxLimit + 1}, {Outcome: "granted"}, {Cursor: "x"}} {
		if _, err := bad.Normalize(); !errors.Is(err, audit.ErrInvalidQuery) {
			t.Errorf("Normalize(%+v) = %v, want ErrInvalidQuery", bad, err)
		}
	}
}

func TestParseOutcome(t *testing.T) {
	for _, s := range []string{"issued", "denied", "error"} {
		if o, err := audit.ParseOutcome(s); err != nil || string(o) != s {
			t.Errorf("ParseOutcome(%q) = %q, %v", s, o, err)
		}
	}
	if _, err := audit.ParseOutcome("Issued"); err == nil || err.Error() != `outcome "Issued" is not one of issued, denied, error` {
		t.Errorf("err = %v", err)
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(audit.EncodeCursor(audit.Position{Time: time.Unix(1700000000, 0), ID: "abc"}))
	f.Add("")
	f.Add("LTEuYQ")
	f.Fuzz(func(t *testing.T, c string) {
		p, err := audit.DecodeCursor(c)
		if err != nil {
			if !errors.Is(err, audit.ErrInvalidQuery) {
				t.Fatalf("error %v does not wrap ErrInvalidQuery", err)
			}
			return
		}
		if p.ID == "" {
			t.Fatal("decoded a cursor without id")
		}
		again, err := audit.DecodeCursor(audit.EncodeCursor(p))
		if err != nil || !again.Time.Equal(p.Time) || again.ID != p.ID {
			t.Fatalf("re-encoding %+v gives %+v, %v", p, again, err)
		}
	})
}
