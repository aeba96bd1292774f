package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
)

var auditEpoch = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func testIssuance(id, client string, outcome audit.Outcome, at time.Duration) *audit.Issuance {
	return &audit.Issuance{ID: id, Time: auditEpoch.Add(at), ClientID: client, Outcome: outcome}
}

// RunAudit is the conformance suite of audit.Store.
func RunAudit(t *testing.T, newStore func(t *testing.T) audit.Store) {
	ctx := context.Background()
	runAuditIssues(t, newStore)
	runAuditAggregate(t, newStore)

	t.Run("RoundTripEveryField", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		in := &audit.Issuance{
			ID:                "r1",
			Time:              time.Date(2026, 11, 30, 9, 0, 0, 123456789, time.FixedZone("X", 3600)),
			ClientID:          "c1",
			Outcome:           audit.Denied,
			Reason:            "type_mismatch",
			CompositionDigest: "sha256:abc",
			Tools:             []string{"db_query", "github/search"},
			IssueCodes:        []string{"type_mismatch", "may_be_null"},
			JTI:               "",
			Audience:          "https://router.example.com/mcp",
		}
		if err := s.Append(ctx, in); err != nil {
			t.Fatal(err)
		}
		page, err := s.Query(ctx, audit.Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 || page.Next != "" {
			t.Fatalf("page = %+v", page)
		}
		got := page.Items[0]
		wantTime := time.Date(2026, 11, 30, 8, 0, 0, 123456000, time.UTC)
		if got.ID != "r1" || !got.Time.Equal(wantTime) || got.Time.Location() != time.UTC ||
			got.ClientID != "c1" || got.Outcome != audit.Denied || got.Reason != "type_mismatch" ||
			got.CompositionDigest != "sha256:abc" || got.JTI != "" || got.Audience != in.Audience ||
			!slices.Equal(got.Tools, in.Tools) || !slices.Equal(got.IssueCodes, in.IssueCodes) ||
			got.AuthReqID != "" || got.ApprovedBy != "" || !got.ApprovedAt.IsZero() {
			t.Errorf("stored %+v\nwant     %+v at %v", got, in, wantTime)
		}
	})

	t.Run("RoundTripOfAnApproval", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		approvedAt := time.Date(2026, 12, 1, 9, 30, 0, 987654321, time.FixedZone("Y", -7200))
		in := &audit.Issuance{ID: "a1", Time: approvedAt.Add(time.Second), ClientID: "c1", Outcome: audit.Issued,
			JTI: "jti-1", Audience: "https://router.example.com/mcp", AuthReqID: "req-1", ApprovedBy: "alice", ApprovedAt: approvedAt}
		if err := s.Append(ctx, in); err != nil {
			t.Fatal(err)
		}
		page, err := s.Query(ctx, audit.Query{})
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("page = %+v, %v", page, err)
		}
		got := page.Items[0]
		if got.AuthReqID != "req-1" || got.ApprovedBy != "alice" || got.ApprovedAt.Location() != time.UTC ||
			!got.ApprovedAt.Equal(approvedAt.Truncate(time.Microsecond)) {
			t.Errorf("approval stored as %q %q %v", got.AuthReqID, got.ApprovedBy, got.ApprovedAt)
		}
	})

	t.Run("RoundTripOfADPoPKey", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
		for _, in := range []*audit.Issuance{
			{ID: "d1", Time: at, ClientID: "c1", Outcome: audit.Issued, JTI: "jti-1", DPoPJKT: "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"},
			{ID: "d2", Time: at.Add(time.Second), ClientID: "c1", Outcome: audit.Issued, JTI: "jti-2"},
		} {
			if err := s.Append(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		page, err := s.Query(ctx, audit.Query{})
		if err != nil || len(page.Items) != 2 {
			t.Fatalf("page = %+v, %v", page, err)
		}
		jkts := map[string]string{}
		for _, it := range page.Items {
			jkts[it.ID] = it.DPoPJKT
		}
		if jkts["d1"] != "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs" || jkts["d2"] != "" {
			t.Errorf("dpop_jkt stored as %v", jkts)
		}
	})

	// A denial records what the client sent, which may be anything: text
	// no store can hold is replaced, never a reason to lose the record.
	t.Run("UnstorableTextIsReplaced", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tools := []string{"ok", "nul\x00"}
		rec := &audit.Issuance{ID: "r\x00", Time: auditEpoch, ClientID: "a\x00b\xff", Outcome: audit.Denied,
			Reason: "bad_secret", Tools: tools, Audience: "https://r\xfe"}
		if err := s.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if tools[1] != "nul\x00" {
			t.Errorf("Append changed the caller's tools to %q", tools)
		}
		for _, id := range []string{"a\uFFFDb\uFFFD", "a\x00b\xff"} {
			page, err := s.Query(ctx, audit.Query{ClientID: id})
			if err != nil || len(page.Items) != 1 {
				t.Fatalf("query by client id %q found %d records, %v; want 1", id, len(page.Items), err)
			}
		}
		page, err := s.Query(ctx, audit.Query{})
		if err != nil {
			t.Fatal(err)
		}
		got := page.Items[0]
		if got.ID != "r\uFFFD" || got.Audience != "https://r\uFFFD" || !slices.Equal(got.Tools, []string{"ok", "nul\uFFFD"}) {
			t.Errorf("stored %+v", got)
		}
	})

	// Appends arrive concurrently (Postgres writes them together in one
	// INSERT): a duplicate id among them fails alone.
	t.Run("ConcurrentAppendsFailOnlyTheDuplicate", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Append(ctx, testIssuance("taken", "c", audit.Issued, 0)); err != nil {
			t.Fatal(err)
		}
		const n = 200
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			id := fmt.Sprintf("r%03d", i)
			at := time.Duration(i) * time.Millisecond
			if i == 100 {
				id, at = "taken", 0 // a retry of the stored record
			}
			wg.Go(func() {
				errs[i] = s.Append(ctx, testIssuance(id, "c", audit.Denied, at))
			})
		}
		wg.Wait()
		for i, err := range errs {
			if i == 100 {
				if !errors.Is(err, audit.ErrDuplicateID) {
					t.Errorf("duplicate append: %v, want ErrDuplicateID", err)
				}
			} else if err != nil {
				t.Errorf("append %d: %v", i, err)
			}
		}
		page, err := s.Query(ctx, audit.Query{Outcome: audit.Denied, Limit: audit.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != n-1 {
			t.Errorf("stored %d denied records, want %d", len(page.Items), n-1)
		}
	})

	t.Run("AppendAssignsIDAndRejectsBadRecords", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		rec := testIssuance("", "c1", audit.Issued, 0)
		rec.JTI = "jti-1"
		if err := s.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if rec.ID == "" {
			t.Fatal("Append left the id empty")
		}
		for name, bad := range map[string]*audit.Issuance{
			"unknown outcome":   testIssuance("b1", "c1", "maybe", 0),
			"issued without id": testIssuance("b2", "", audit.Issued, 0),
			"zero time":         {ID: "b3", ClientID: "c1", Outcome: audit.Denied},
			"duplicate record":  testIssuance(rec.ID, "c1", audit.Denied, 0),
		} {
			if err := s.Append(ctx, bad); err == nil {
				t.Errorf("%s: Append accepted %+v", name, bad)
			}
		}
		page, err := s.Query(ctx, audit.Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 || page.Items[0].ID != rec.ID || page.Items[0].JTI != "jti-1" {
			t.Errorf("after rejected appends the log holds %+v", page.Items)
		}
	})

	// A record is named by its id and time together: the same id at
	// another time is another record.
	t.Run("SameIDAtAnotherTimeIsAnotherRecord", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, at := range []time.Duration{0, time.Second} {
			if err := s.Append(ctx, testIssuance("same", "c", audit.Issued, at)); err != nil {
				t.Fatalf("append at +%s: %v", at, err)
			}
		}
		page, err := s.Query(ctx, audit.Query{})
		if err != nil || len(page.Items) != 2 {
			t.Fatalf("stored %d records, %v; want 2", len(page.Items), err)
		}
	})

	// Retention removes what is older than the cutoff; a store may keep
	// the cutoff's own day (Postgres drops whole days) but never less.
	t.Run("RetainDropsOldRecords", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ats := map[string]time.Duration{
			"3d": -72 * time.Hour, "2d": -48 * time.Hour, "prevday": -30 * time.Hour, // 2026-11-29 03:00
			"sameday": -time.Hour, "cutoff": 0, "after": time.Hour,
		}
		for id, at := range ats {
			if err := s.Append(ctx, testIssuance(id, "c", audit.Denied, at)); err != nil {
				t.Fatal(err)
			}
		}
		now, retention := auditEpoch.Add(24*time.Hour), 24*time.Hour
		if err := s.Retain(ctx, now, 0); err != nil {
			t.Fatal(err)
		}
		if got := queryAll(t, s, audit.Query{}); len(got) != len(ats) {
			t.Fatalf("retention 0 kept %v, want all %d", got, len(ats))
		}
		if err := s.Retain(ctx, now, retention); err != nil {
			t.Fatal(err)
		}
		got := queryAll(t, s, audit.Query{})
		got = slices.DeleteFunc(got, func(id string) bool { return id == "sameday" }) // either way
		if want := []string{"after", "cutoff"}; !slices.Equal(got, want) {
			t.Errorf("after retention the log holds %v, want %v (and maybe sameday)", got, want)
		}
		// Retaining again changes nothing, and the log still takes records.
		if err := s.Retain(ctx, now, retention); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, testIssuance("later", "c", audit.Issued, 2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got := queryAll(t, s, audit.Query{ClientID: "c", Outcome: audit.Issued}); !slices.Equal(got, []string{"later"}) {
			t.Errorf("issued after retention: %v", got)
		}
	})

	// A request whose context ended before its record was durable never
	// received its token: the record is still written, an issuance marked
	// not delivered (with its jti), a refusal as it was.
	t.Run("EndedContextStoresUndelivered", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ended, cancel := context.WithCancel(ctx)
		cancel()
		issued := testIssuance("gone-issued", "c", audit.Issued, 0)
		issued.JTI = "jti-gone"
		denied := testIssuance("gone-denied", "c", audit.Denied, time.Second)
		denied.Reason = "bad_secret"
		for _, rec := range []*audit.Issuance{issued, denied} {
			if err := s.Append(ended, rec); !errors.Is(err, context.Canceled) {
				t.Errorf("Append(%s) with an ended context = %v, want context.Canceled", rec.ID, err)
			}
		}
		// The store may write it after Append returned.
		var got []audit.Issuance
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			page, err := s.Query(ctx, audit.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if got = page.Items; len(got) == 2 {
				break
			}
		}
		if len(got) != 2 {
			t.Fatalf("the log holds %+v, want both records", got)
		}
		if r := got[1]; r.ID != "gone-issued" || r.Outcome != audit.Error || r.Reason != audit.ReasonNotDelivered || r.JTI != "jti-gone" {
			t.Errorf("undelivered issuance stored as %+v", r)
		}
		if r := got[0]; r.ID != "gone-denied" || r.Outcome != audit.Denied || r.Reason != "bad_secret" {
			t.Errorf("refusal of an ended request stored as %+v", r)
		}
		if page, _ := s.Query(ctx, audit.Query{Outcome: audit.Issued}); len(page.Items) != 0 {
			t.Errorf("the log claims an issuance nobody received: %+v", page.Items)
		}
	})

	t.Run("Filters", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, r := range []*audit.Issuance{
			testIssuance("a", "c1", audit.Issued, 0),
			testIssuance("b", "c1", audit.Denied, time.Minute),
			testIssuance("c", "c2", audit.Issued, 2*time.Minute),
			testIssuance("d", "c2", audit.Error, 3*time.Minute),
			testIssuance("e", "c1", audit.Issued, 4*time.Minute),
		} {
			if err := s.Append(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			name string
			q    audit.Query
			want []string
		}{
			{"all, newest first", audit.Query{}, []string{"e", "d", "c", "b", "a"}},
			{"client", audit.Query{ClientID: "c1"}, []string{"e", "b", "a"}},
			{"outcome", audit.Query{Outcome: audit.Issued}, []string{"e", "c", "a"}},
			{"since is inclusive", audit.Query{Since: auditEpoch.Add(2 * time.Minute)}, []string{"e", "d", "c"}},
			{"all three", audit.Query{ClientID: "c1", Outcome: audit.Issued, Since: auditEpoch.Add(time.Second)}, []string{"e"}},
			{"nothing matches", audit.Query{ClientID: "c3"}, []string{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				page, err := s.Query(ctx, tc.q)
				if err != nil {
					t.Fatal(err)
				}
				if page.Items == nil {
					t.Error("Items is nil; an empty page must list nothing, not null")
				}
				if got := issuanceIDs(page.Items); !slices.Equal(got, tc.want) || page.Next != "" {
					t.Errorf("ids = %v next %q, want %v and no next", got, page.Next, tc.want)
				}
			})
		}
	})

	t.Run("KeysetPagination", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		// Three records share one instant: the id breaks the tie.
		for _, r := range []*audit.Issuance{
			testIssuance("r1", "c", audit.Issued, 0),
			testIssuance("r2", "c", audit.Issued, time.Second),
			testIssuance("r3b", "c", audit.Denied, 2*time.Second),
			testIssuance("r3a", "c", audit.Issued, 2*time.Second),
			testIssuance("r3c", "c", audit.Issued, 2*time.Second),
			testIssuance("r4", "c", audit.Issued, 3*time.Second),
			testIssuance("r5", "c", audit.Issued, 4*time.Second),
		} {
			if err := s.Append(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		var pages [][]string
		q := audit.Query{Limit: 3}
		for i := 0; ; i++ {
			page, err := s.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, issuanceIDs(page.Items))
			if i == 0 {
				// A record appended mid-walk is newer: later pages are unmoved.
				if err := s.Append(ctx, testIssuance("r6", "c", audit.Issued, 5*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			if page.Next == "" {
				break
			}
			if i > 5 {
				t.Fatal("pagination does not end")
			}
			q.Cursor = page.Next
		}
		want := [][]string{{"r5", "r4", "r3c"}, {"r3b", "r3a", "r2"}, {"r1"}}
		if !slices.EqualFunc(pages, want, slices.Equal) {
			t.Errorf("pages = %v, want %v", pages, want)
		}

		// An exactly full last page has no next.
		page, err := s.Query(ctx, audit.Query{Limit: 8})
		if err != nil || len(page.Items) != 8 || page.Next != "" {
			t.Errorf("full page: %d items, next %q, err %v", len(page.Items), page.Next, err)
		}
	})

	t.Run("InvalidQueries", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for name, q := range map[string]audit.Query{
			"garbage cursor":  {Cursor: "!!!"},
			"cursor not ours": {Cursor: "bm90LWEtY3Vyc29y"},
			"negative limit":  {Limit: -1},
			"huge limit":      {Limit: audit.MaxLimit + 1},
			"unknown outcome": {Outcome: "maybe"},
		} {
			if _, err := s.Query(ctx, q); !errors.Is(err, audit.ErrInvalidQuery) {
				t.Errorf("%s: err = %v, want ErrInvalidQuery", name, err)
			}
		}
	})

	t.Run("DefaultLimit", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i := range audit.DefaultLimit + 1 {
			if err := s.Append(ctx, testIssuance("", "c", audit.Issued, time.Duration(i)*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
		}
		page, err := s.Query(ctx, audit.Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != audit.DefaultLimit || page.Next == "" {
			t.Errorf("default page: %d items, next %q", len(page.Items), page.Next)
		}
	})
}

// queryAll is every id q selects, newest first, across pages.
func queryAll(t *testing.T, s audit.Store, q audit.Query) []string {
	t.Helper()
	ids := []string{}
	q.Limit = audit.MaxLimit
	for {
		page, err := s.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, issuanceIDs(page.Items)...)
		if page.Next == "" {
			return ids
		}
		q.Cursor = page.Next
	}
}

func issuanceIDs(items []audit.Issuance) []string {
	out := []string{}
	for _, r := range items {
		out = append(out, r.ID)
	}
	return out
}
