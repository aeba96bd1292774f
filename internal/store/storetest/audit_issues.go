package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/verdict"
)

// sampleIssues are a refusal's issues as the token endpoint records them:
// witnesses of every JSON kind, null included, in the checker's own
// spelling (key order and spacing must come back as they went in).
func sampleIssues() []audit.Issue {
	we := func(loc, msg string) *verdict.WitnessError {
		return &verdict.WitnessError{KeywordLocation: loc, Message: msg}
	}
	return []audit.Issue{
		{Issue: verdict.Issue{Severity: verdict.SeverityError, Code: "type_mismatch", Verdict: verdict.Incompatible,
			SourceTool: "db_query", TargetTool: "transform_csv", Edge: "db_query->transform_csv", FieldPath: "rows",
			SourcePointer: "/properties/rows", TargetPointer: "/properties/data", Message: "rows: array of objects, data wants strings",
			Witness: json.RawMessage(`[{"z": 1,"a":{}}]`), WitnessError: we("/properties/data/items/type", "got object, want string")}},
		{Issue: verdict.Issue{Severity: verdict.SeverityError, Code: "may_be_null", Verdict: verdict.Incompatible, FieldPath: "n",
			Message: "n may be null", Witness: json.RawMessage(`null`), WitnessError: we("/type", "got null, want number")}},
		{Issue: verdict.Issue{Severity: verdict.SeverityError, Code: "pattern", Verdict: verdict.Incompatible, FieldPath: "s",
			Message: "s may hold NUL", Witness: json.RawMessage(`"a\u0000b"`), WitnessError: we("/pattern", "no match")}},
		{Issue: verdict.Issue{Severity: verdict.SeverityWarning, Code: "cannot_prove", Verdict: verdict.Unknown, FieldPath: "q", Message: "undecided"}},
		{Issue: verdict.Issue{Severity: verdict.SeverityError, Code: "unbound_required_input", TargetTool: "email_send", Message: "to is unbound"}},
	}
}

func runAuditIssues(t *testing.T, newStore func(t *testing.T) audit.Store) {
	ctx := context.Background()

	t.Run("RoundTripOfIssues", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		in := sampleIssues()
		rec := &audit.Issuance{ID: "i1", Time: auditEpoch, ClientID: "c", Outcome: audit.Denied, Reason: "type_mismatch",
			Issues: in, IssuesDropped: 2}
		if err := s.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
		in[0].Message = "changed by the caller afterwards"
		in[0].Witness[1] = '!'
		got := queryOne(t, s)
		if want := sampleIssues(); !reflect.DeepEqual(got.Issues, want) || got.IssuesDropped != 2 {
			t.Errorf("issues stored as\n%s\nwant\n%s", jsonOf(got.Issues), jsonOf(want))
		}
		// A record without issues has none, not an empty list.
		if err := s.Append(ctx, testIssuance("i2", "c", audit.Issued, time.Second)); err != nil {
			t.Fatal(err)
		}
		if got := queryOne(t, s); got.ID != "i2" || got.Issues != nil || got.IssuesDropped != 0 {
			t.Errorf("a record without issues reads back as %+v", got)
		}
	})

	// However large a refusal, its record is bounded: MaxIssues issues
	// (the rest counted), texts and witnesses cut and marked.
	t.Run("IssuesAreBounded", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		long := strings.Repeat("é", audit.MaxIssueMessage) // two bytes a rune: a cut must respect them
		bigWitness := json.RawMessage(`"` + strings.Repeat("w", 2*audit.MaxWitnessBytes) + `"`)
		var in []audit.Issue
		for i := range audit.MaxIssues + 5 {
			in = append(in, audit.Issue{Issue: verdict.Issue{Severity: verdict.SeverityError, Code: "type_mismatch", FieldPath: long,
				Message: long + "\x00", Witness: bigWitness,
				WitnessError: &verdict.WitnessError{KeywordLocation: long, Message: fmt.Sprint(i)}}})
		}
		in = append(in[:1], audit.Issue{Issue: verdict.Issue{Code: "bad_witness", Message: "m", Witness: json.RawMessage(`{"unclosed"`)}})
		in = append(in, make([]audit.Issue, audit.MaxIssues+5)...)
		if err := s.Append(ctx, &audit.Issuance{ID: "b1", Time: auditEpoch, ClientID: "c", Outcome: audit.Denied,
			Issues: in, IssuesDropped: 1}); err != nil {
			t.Fatal(err)
		}
		got := queryOne(t, s)
		if len(got.Issues) != audit.MaxIssues || got.IssuesDropped != 1+len(in)-audit.MaxIssues {
			t.Fatalf("kept %d issues, %d dropped; want %d, %d", len(got.Issues), got.IssuesDropped, audit.MaxIssues, 1+len(in)-audit.MaxIssues)
		}
		first := got.Issues[0]
		if len(first.FieldPath) > audit.MaxIssueText || !strings.HasSuffix(first.FieldPath, "é…") ||
			len(first.Message) > audit.MaxIssueMessage || !strings.HasSuffix(first.Message, "é…") ||
			len(first.WitnessError.KeywordLocation) > audit.MaxIssueText {
			t.Errorf("texts not cut on a rune and marked: path %q (%d bytes), message %d bytes", first.FieldPath, len(first.FieldPath), len(first.Message))
		}
		if first.Witness != nil || len(first.WitnessClipped) > audit.MaxWitnessBytes+len("…") ||
			!strings.HasPrefix(first.WitnessClipped, `"www`) || !strings.HasSuffix(first.WitnessClipped, "…") {
			t.Errorf("an oversized witness is kept as %d bytes %q / clipped %d bytes", len(first.Witness), first.Witness[:min(len(first.Witness), 20)], len(first.WitnessClipped))
		}
		if bad := got.Issues[1]; bad.Witness != nil || bad.WitnessClipped != `{"unclosed"` {
			t.Errorf("a witness that is not JSON is kept as %q / %q, want it clipped text", bad.Witness, bad.WitnessClipped)
		}
		if size := len(jsonOf(got)); size > 40<<10 {
			t.Errorf("a bounded record is %d bytes of JSON", size)
		}
	})

	// Postgres writes concurrent appends in one INSERT: each record keeps
	// its own issues.
	t.Run("ConcurrentAppendsKeepTheirIssues", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		const n = 50
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				w := json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))
				rec := &audit.Issuance{ID: fmt.Sprintf("c%02d", i), Time: auditEpoch.Add(time.Duration(i) * time.Millisecond),
					ClientID: "c", Outcome: audit.Denied, Issues: []audit.Issue{{Issue: verdict.Issue{Code: "type_mismatch", Message: fmt.Sprint(i), Witness: w}}}}
				if err := s.Append(ctx, rec); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		page, err := s.Query(ctx, audit.Query{Limit: n})
		if err != nil || len(page.Items) != n {
			t.Fatalf("stored %d records, %v", len(page.Items), err)
		}
		for _, r := range page.Items {
			var i int
			fmt.Sscanf(r.ID, "c%02d", &i)
			if len(r.Issues) != 1 || r.Issues[0].Message != fmt.Sprint(i) || string(r.Issues[0].Witness) != fmt.Sprintf(`{"i":%d}`, i) {
				t.Errorf("record %s holds %s", r.ID, jsonOf(r.Issues))
			}
		}
	})
}

// queryOne is the newest record of s.
func queryOne(t *testing.T, s audit.Store) audit.Issuance {
	t.Helper()
	page, err := s.Query(context.Background(), audit.Query{Limit: 1})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("query: %+v, %v", page, err)
	}
	return page.Items[0]
}

func jsonOf(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}
