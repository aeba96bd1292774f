package route

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/typeward/typeward/verify/strictjson"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/verify"
)

// registryServer serves versions of tool "t" whose schemas are in, with the
// digest it claims (the right one when claim is "").
func registryServer(t *testing.T, in, claim string) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		var version int
		if _, err := fmt.Sscanf(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], "%d", &version); err != nil {
			http.NotFound(w, r)
			return
		}
		digest, _ := verify.DeclarationDigest(json.RawMessage(in), nil)
		if claim != "" {
			digest = claim
		}
		json.NewEncoder(w).Encode(map[string]any{"name": "t", "version": version, "digest": digest, "inputSchema": json.RawMessage(in)})
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// Pinned schemas are fetched once however many calls want them, trusted
// only when they digest to what the token pins, and the cache stays within
// its bound.
func TestSchemaCache(t *testing.T) {
	const in = `{"type":"object","properties":{"q":{"type":"string"}}}`
	digest, _ := verify.DeclarationDigest(json.RawMessage(in), nil)
	srv, hits := registryServer(t, in, "")
	c := newSchemaCache(srv.Client(), srv.URL, 1<<20)
	ctx := context.Background()
	for range 5 {
		p, err := c.get(ctx, verify.ToolRef{Name: "t", Version: 1, Digest: digest})
		if err != nil || p.input == nil || p.output != nil {
			t.Fatalf("get: %+v %v", p, err)
		}
	}
	if hits.Load() != 1 {
		t.Errorf("%d fetches for one version, want 1", hits.Load())
	}
	if _, err := c.get(ctx, verify.ToolRef{Name: "t", Version: 1, Digest: "sha256:other"}); err == nil || !strings.Contains(err.Error(), "the token pins sha256:other") {
		t.Errorf("a token pinning another digest: %v", err)
	}

	// A registry serving schemas that do not digest to what it claims is
	// not trusted.
	liar, _ := registryServer(t, in, "sha256:claimed")
	lc := newSchemaCache(liar.Client(), liar.URL, 1<<20)
	if _, err := lc.get(ctx, verify.ToolRef{Name: "t", Version: 1, Digest: "sha256:claimed"}); err == nil || !strings.Contains(err.Error(), "does not digest") {
		t.Errorf("lying registry: %v", err)
	}

	// Bounded: 200 versions in a cache of 16 KiB.
	small := newSchemaCache(srv.Client(), srv.URL, 16<<10)
	for v := 1; v <= 200; v++ {
		if _, err := small.get(ctx, verify.ToolRef{Name: "t", Version: v, Digest: digest}); err != nil {
			t.Fatal(err)
		}
	}
	if b := small.entries.Bytes(); b > 16<<10 || small.entries.Len() >= 200 {
		t.Errorf("cache holds %d versions in %d bytes, bound 16 KiB", small.entries.Len(), b)
	}
}

// The order state is bounded in size and fails closed: a token it forgot
// has to run its sources again.
func TestOrderStateBounded(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	o := newOrderState(8<<10, func() time.Time { return now })
	claims := func(jti string) *verify.Claims {
		return &verify.Claims{ID: jti, ExpiresAt: now.Add(time.Minute), AuthorizationDetails: []verify.AuthorizationDetail{{
			Type: verify.DetailType, Edges: []verify.Edge{{From: "a", To: "b"}}}}}
	}
	first := claims("jti-0")
	step, err := o.begin(first, "a")
	if err != nil {
		t.Fatal(err)
	}
	o.done(step, nil)
	if _, err := o.begin(first, "b"); err != nil {
		t.Fatalf("b after a: %v", err)
	}
	for i := 1; i <= 100; i++ {
		s, err := o.begin(claims(fmt.Sprint("jti-", i)), "a")
		if err != nil {
			t.Fatal(err)
		}
		o.done(s, nil)
	}
	if b := o.entries.Bytes(); b > 8<<10 {
		t.Errorf("order state holds %d bytes, bound 8 KiB", b)
	}
	if _, err := o.begin(first, "b"); err == nil {
		t.Error("a forgotten token's downstream call was admitted")
	}
	// Past the token's lifetime its history is gone too.
	later := claims("jti-100")
	now = now.Add(2 * time.Minute)
	if _, err := o.begin(later, "b"); err == nil {
		t.Error("an expired token's history was used")
	}
}

func TestItemsAt(t *testing.T) {
	content := map[string]any{"users": []any{1, 2, 3}, "page": map[string]any{"items": []any{1}}}
	for path, want := range map[string]int{"users[]": 3, "page.items[]": 1, "missing[]": 0, "$[]": 0, "users.x[]": 0} {
		if got := itemsAt(content, path); got != want {
			t.Errorf("itemsAt(%s) = %d, want %d", path, got, want)
		}
	}
	if got := itemsAt([]any{1, 2}, "$[]"); got != 2 {
		t.Errorf("root array: %d", got)
	}
}

// FuzzExchangeRewrite: no upstream answer makes the router's reading of
// JSON or SSE panic, and an identity rewrite keeps every message.
func FuzzExchangeRewrite(f *testing.F) {
	for _, s := range []string{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", "data: a\ndata: b\n\n", "\r\n\r\n", ": comment\nid: 7\n", `{"id":1}`} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, body string, sse bool) {
		x := &exchange{status: http.StatusOK, body: []byte(body), sse: sse}
		before := x.messages()
		x.rewrite(func(m []byte) []byte { return nil })
		after := x.messages()
		if len(before) != len(after) {
			t.Fatalf("%d messages became %d", len(before), len(after))
		}
		for i := range before {
			if string(before[i]) != string(after[i]) {
				t.Fatalf("message %d: %q became %q", i, before[i], after[i])
			}
		}
	})
}

// FuzzCheckStrict: checkStrict never panics, passes only valid JSON, and
// refuses what a case-folded or exact member twice makes ambiguous.
func FuzzCheckStrict(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"A":2}`, `[{"k":"\ud83d\ude00"}]`, `"\ud800"`, `{"a":{"b":[1e400]}}`, `"\\ud800"`, `"\u`, `{"a":"\ud800\u0041"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := checkStrict([]byte(s))
		if err == nil && !json.Valid([]byte(s)) {
			t.Fatalf("passed invalid JSON %q", s)
		}
		if want, werr := strictjson.Object([]byte(s)); err == nil && werr == nil {
			// The one-pass split of a checked object is the decoder's.
			got, gerr := splitObject([]byte(s))
			if gerr != nil || len(got) != len(want) {
				t.Fatalf("splitObject(%q) = %q, %v; want %q", s, got, gerr, want)
			}
			for k, v := range want {
				if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
					t.Fatalf("splitObject(%q)[%q] = %q, want %q", s, k, got[k], v)
				}
			}
		}
		var elems []json.RawMessage
		if err == nil && json.Unmarshal([]byte(s), &elems) == nil {
			// So is the split of a checked array.
			got, gerr := splitArray([]byte(s))
			if gerr != nil || len(got) != len(elems) {
				t.Fatalf("splitArray(%q) = %q, %v; want %q", s, got, gerr, elems)
			}
			for i, v := range elems {
				if !bytes.Equal(bytes.TrimSpace(got[i]), bytes.TrimSpace(v)) {
					t.Fatalf("splitArray(%q)[%d] = %q, want %q", s, i, got[i], v)
				}
			}
		}
		var m map[string]json.RawMessage
		if err == nil && json.Unmarshal([]byte(s), &m) == nil {
			seen := map[string]bool{}
			for k := range m {
				if seen[strings.ToLower(k)] {
					t.Fatalf("passed %q with a member twice", s)
				}
				seen[strings.ToLower(k)] = true
			}
		}
	})
}

// stringIs compares a checked JSON string with bytes as decoding it would.
func FuzzStringIs(f *testing.F) {
	for _, s := range [][2]string{{`"a\"b"`, `a"b`}, {`"\u00e9\ud83d\ude00"`, "\u00e9\U0001F600"}, {`"\/\b\f\n\r\t\\"`, "/\b\f\n\r\t\\"},
		{`"ab"`, "a"}, {`"a"`, "ab"}, {`"\u0041"`, "A"}, {`"\u0041"`, "B"}, {`"{\"x\":1}"`, `{"x":1}`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, raw, want string) {
		var d string
		if checkStrict([]byte(raw)) != nil || json.Unmarshal([]byte(raw), &d) != nil {
			return
		}
		if got := stringIs([]byte(raw), []byte(want)); got != (d == want) {
			t.Fatalf("stringIs(%q, %q) = %v; it decodes to %q", raw, want, got, d)
		}
		if !stringIs([]byte(raw), []byte(d)) {
			t.Fatalf("stringIs(%q, %q) = false, what it decodes to", raw, d)
		}
	})
}

// checkStrict accepts JSON peers read alike and refuses the rest.
func TestCheckStrict(t *testing.T) {
	for in, ok := range map[string]bool{
		`{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00","d":-0.5e+3,"e":true,"f":false}`: true,
		` [ ] `: true, `"x"`: true, `0`: true, `{}`: true, `[[[]],{}]`: true, `"\\ud800"`: true,
		`1e308`: true, `-1E-300`: true, `{"a":{"a":1}}`: true, `"\/\b\f\n\r\t"`: true,
		`{"k":1,"\u212a":2}`: false, `{"a":1,"A":2}`: false, `[{"a":1,"a":2}]`: false,
		`"\ud800"`: false, `"\udc00\ud800"`: false, `1e400`: false, `1e-400`: false,
		"0." + strings.Repeat("0", 400) + "1": false, strings.Repeat("9", 400): false,
		`[1,]`: false, `{"a":1,}`: false, `01`: false, `1.`: false, `-`: false, `tru`: false,
		`{"a" 1}`: false, `[1 2]`: false, `{} {}`: false, `"a`: false, "\"\x01\"": false,
		`"\x"`: false, "\xff": false, ``: false, `{"a":1]`: false, `[1}`: false, `nul`: false,
		// Each object's names are its own, an inner object's forgotten when it closes.
		`{"a":{"b":1},"b":2}`: true, `[{"a":1},{"a":2}]`: true, `{"x":{"y":{}},"y":1,"X":2}`: false,
		`{"a":{"b":1,"c":2},"a":3}`: false, `{"\u0061":1,"A":2}`: false, `{"s":1,"\u017f":2}`: false,
		`{"\u00e9":1,"\u00c9":2}`: false, `{"\u00e9":1,"e":2}`: true,
	} {
		if err := checkStrict([]byte(in)); (err == nil) != ok {
			t.Errorf("checkStrict(%.60q) = %v, want ok %v", in, err, ok)
		}
	}
}

// What the router remembers to resume streams is bounded by the bytes of
// the requests its judges keep, not only by their event ids: 100 streams
// of a 1 MB request each keep at most eventStateBytes of them.
func TestResumeStateBounded(t *testing.T) {
	cv := newConversations(time.Minute, time.Now)
	p := peer{session: "s", client: "c"}
	for i := range 100 {
		cv.relayed(p, fmt.Sprint("ev-", i), &judge{retained: 1 << 20})
	}
	if held := int64(cv.events.Len()) << 20; held > eventStateBytes {
		t.Errorf("%d streams of 1 MB remembered, over %d bytes", cv.events.Len(), eventStateBytes)
	}
	if _, ok := cv.resumes(p, "ev-99"); !ok {
		t.Error("the newest stream was forgotten")
	}
	if _, ok := cv.resumes(peer{session: "s", client: "other"}, "ev-99"); ok {
		t.Error("another client resumes the stream")
	}
}

// chunked returns at most n bytes a Read: an answer arriving in pieces.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(c.n, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// FuzzEventReader: reading an SSE stream as it arrives, in pieces of any
// size, finds the events reading it whole finds (a CR at a piece's end,
// a BOM, a last event without its blank line) and never panics.
func FuzzEventReader(f *testing.F) {
	for _, s := range []string{"data: a\n\n", "data: a\r\rdata: b\r\r", "\ufeffdata: x\r\n\r\n", "id: 1\nretry: 5\ndata: \n\n", "data: a\ndata: b", ": c\n\ndata\n\n"} {
		f.Add(s, uint8(1))
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, body string, n uint8) {
		l := newLimiter(1, 1, 1<<40)
		er := newEventReader(&chunked{data: []byte(body), n: int(n%16) + 1}, l.unslotted(), 1<<20, 0)
		var got []sseEvent
		for {
			evs, err := er.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, evs...)
		}
		want := splitEvents([]byte(body))
		if len(got) != len(want) {
			t.Fatalf("%q in pieces of %d: %d events, whole %d", body, n%16+1, len(got), len(want))
		}
		for i := range want {
			if got[i].data != want[i].data || got[i].hasData != want[i].hasData || strings.Join(got[i].fields, "|") != strings.Join(want[i].fields, "|") {
				t.Fatalf("%q event %d: %+v, whole %+v", body, i, got[i], want[i])
			}
		}
	})
}

// decodeArguments reads what encoding/json with UseNumber reads.
func FuzzDecodeArguments(f *testing.F) {
	for _, s := range []string{`{"rows":[{"id":1,"total":37.5,"active":false,"r":null}],"n":-0.5e+3}`, `[]`, `{}`, `"a\u00e9\ud83d\ude00\n"`,
		`{"a":1,"A":2}`, `{"a":1,"a":2}`, `1e400`, `"\ud800"`, `{"a":1} x`, "\"\xff\"", strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":[`, 5000) + strings.Repeat("]}", 5000), ` true `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gerr := decodeArguments(json.RawMessage(s))
		if len(bytes.TrimSpace([]byte(s))) == 0 {
			return
		}
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var want any
		werr := dec.Decode(&want)
		if (gerr == nil) != (werr == nil) || (werr == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("decodeArguments(%.200q) = %.200v, %v; encoding/json reads %.200v, %v", s, got, gerr, want, werr)
		}
	})
}
