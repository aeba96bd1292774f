package witness

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/witnesses.golden.json")

const goldenPath = "testdata/witnesses.golden.json"

func mustParse(t testing.TB, doc string) *schema.Schema {
	t.Helper()
	s, err := schema.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return s
}

// confirm re-validates a witness as a 403 body would carry it: marshalled,
// decoded again, against freshly loaded copies of both documents.
func confirm(t *testing.T, srcDoc, srcPtr, tgtDoc, tgtPtr string, f Found) string {
	t.Helper()
	b, err := json.Marshal(f.Value)
	if err != nil {
		t.Fatalf("witness %#v does not marshal: %v", f.Value, err)
	}
	if len(b) > MaxValueBytes {
		t.Errorf("witness is %d bytes, more than %d", len(b), MaxValueBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if err := mustParse(t, srcDoc).ValidateAt(srcPtr, v); err != nil {
		t.Errorf("witness %s is rejected by the source: %v", b, err)
	}
	if err := mustParse(t, tgtDoc).ValidateAt(tgtPtr, v); err == nil {
		t.Errorf("witness %s is accepted by the target", b)
	}
	// As a validator that reads numbers as doubles (most JavaScript ones)
	// sees it: the verdicts must not depend on digits a double drops. (A
	// number taken verbatim from a schema literal a double cannot spell is
	// exempt: such a validator misreads the schema as well.)
	if !allFloatSafe(v) {
		return string(b)
	}
	var asDoubles any
	if err := json.Unmarshal(b, &asDoubles); err != nil {
		t.Fatal(err)
	}
	if err := mustParse(t, srcDoc).ValidateAt(srcPtr, asDoubles); err != nil {
		t.Errorf("witness %s read as doubles is rejected by the source: %v", b, err)
	}
	if err := mustParse(t, tgtDoc).ValidateAt(tgtPtr, asDoubles); err == nil {
		t.Errorf("witness %s read as doubles is accepted by the target", b)
	}
	if f.Rejection == nil || !isRejection(f.Rejection) {
		t.Errorf("witness %s carries no validation error: %v", b, f.Rejection)
	}
	return string(b)
}

type pair struct {
	name           string
	src, tgt       string
	srcPtr, tgtPtr string
	family         string
}

// incompatible pairs: the search must find a witness, one or more per
// generator family.
var incompatible = []pair{
	{name: "pattern longer than target maxLength", family: "pattern",
		src: `{"type":"string","pattern":"^[a-z]{3}-[0-9]{2}$"}`, tgt: `{"type":"string","maxLength":5}`},
	{name: "pattern repetition beyond the target's", family: "pattern",
		src: `{"type":"string","pattern":"^ab+c$"}`, tgt: `{"type":"string","pattern":"^abc$"}`},
	{name: "pattern alternative the target lacks", family: "pattern",
		src: `{"type":"string","pattern":"^(red|green|blue)$"}`, tgt: `{"enum":["red","green"]}`},
	{name: "pattern character class wider than the target's", family: "pattern",
		src: `{"type":"string","pattern":"^[a-z]$"}`, tgt: `{"type":"string","pattern":"^[a-m]$"}`},
	{name: "date is not a date-time (draft-07 asserts formats)", family: "format",
		src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"date"}`,
		tgt: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"date-time"}`},
	{name: "uuid is not an email", family: "format",
		src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"uuid"}`,
		tgt: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"email"}`},
	{name: "ipv6 into ipv4", family: "format",
		src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"ipv6"}`,
		tgt: `{"$schema":"http://json-schema.org/draft-07/schema#","format":"ipv4"}`},
	{name: "maximum one past the target's", family: "numeric bound neighbour",
		src: `{"type":"integer","minimum":0,"maximum":100}`, tgt: `{"type":"integer","maximum":99}`},
	{name: "exclusive minimum's nearest admissible value", family: "numeric bound neighbour",
		src: `{"type":"number","exclusiveMinimum":0}`, tgt: `{"minimum":0.5}`},
	{name: "exclusive maximum of an integer", family: "numeric bound neighbour",
		src: `{"type":"integer","exclusiveMaximum":10}`, tgt: `{"exclusiveMaximum":9}`},
	{name: "a fine step below a decimal minimum", family: "numeric bound neighbour",
		src: `{"type":"number","minimum":1.25}`, tgt: `{"exclusiveMinimum":1.25}`},
	{name: "unbounded integer into a bounded one (the target's bound)", family: "numeric bound neighbour",
		src: `{"type":"integer"}`, tgt: `{"type":"integer","maximum":1000,"minimum":-1000}`},
	{name: "past 2^53 by a double, not by one", family: "numeric bound neighbour",
		src: `{"type":"integer"}`, tgt: `{"maximum":9007199254740992}`},
	{name: "half steps are not integers", family: "multipleOf",
		src: `{"type":"number","multipleOf":0.5}`, tgt: `{"type":"integer"}`},
	{name: "multiples of 3 are not all multiples of 6", family: "multipleOf",
		src: `{"type":"integer","multipleOf":3}`, tgt: `{"multipleOf":6}`},
	{name: "multipleOf 0.01 into 0.1", family: "multipleOf",
		src: `{"type":"number","multipleOf":0.01,"minimum":1}`, tgt: `{"multipleOf":0.1}`},
	{name: "multipleOf near a bound", family: "multipleOf",
		src: `{"type":"integer","multipleOf":7,"minimum":100,"maximum":120}`, tgt: `{"maximum":110}`},
	{name: "an enum value the target lacks", family: "enum",
		src: `{"enum":["a","b","c"]}`, tgt: `{"enum":["a","b"]}`},
	{name: "const of the wrong type", family: "enum",
		src: `{"const":1}`, tgt: `{"type":"string"}`},
	{name: "repeated items into uniqueItems", family: "uniqueItems",
		src: `{"type":"array","items":{"type":"integer"}}`, tgt: `{"type":"array","uniqueItems":true}`},
	{name: "required-only object misses what the target requires", family: "required-only object",
		src: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]}`,
		tgt: `{"required":["a","b"]}`},
	{name: "extra property into a closed object", family: "extra property",
		src: `{"type":"object","properties":{"a":{"type":"string"}}}`,
		tgt: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`},
	{name: "extra property of another type", family: "extra property",
		src: `{"type":"object"}`, tgt: `{"type":"object","additionalProperties":{"type":"string"}}`},
	{name: "maximal object exceeds maxProperties", family: "maximal object",
		src: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}}}`,
		tgt: `{"maxProperties":2}`},
	{name: "property value through its candidates", family: "property candidates",
		src: `{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`,
		tgt: `{"type":"object","properties":{"n":{"maximum":1}}}`},
	{name: "prefixItems position of another type", family: "prefixItems",
		src: `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"minItems":2}`,
		tgt: `{"type":"array","prefixItems":[{"type":"string"},{"type":"string"}]}`},
	{name: "an item beyond the prefix", family: "prefixItems",
		src: `{"type":"array","prefixItems":[{"type":"string"}]}`, tgt: `{"type":"array","maxItems":1}`},
	{name: "draft-07 tuple with additional items", family: "draft-07",
		src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"}],"additionalItems":{"type":"integer"}}`,
		tgt: `{"type":"array","items":{"type":"string"}}`},
	{name: "draft-07 $ref ignores its siblings", family: "draft-07",
		src: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s","maxLength":1}},"required":["a"]}`,
		tgt: `{"properties":{"a":{"maxLength":1}}}`},
	{name: "draft-07 dependencies pull a property in", family: "draft-07",
		src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"dependencies":{"a":["b"]}}`,
		tgt: `{"type":"object","properties":{"b":{"type":"string"}}}`},
	{name: "draft-04 exclusive bounds, the nearest admissible integer", family: "draft-04",
		src: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":5,"exclusiveMaximum":true}`,
		tgt: `{"type":"integer","minimum":2}`},
	{name: "a draft-04 target excludes its maximum", family: "draft-04",
		src: `{"type":"number","maximum":3}`, tgt: `{"$schema":"http://json-schema.org/draft-04/schema#","maximum":3,"exclusiveMaximum":true}`},
	{name: "const means nothing in a draft-04 source", family: "draft-04",
		src: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"string","const":"a"}`, tgt: `{"const":"a"}`},
	{name: "local $ref into $defs", family: "$ref",
		src: `{"$defs":{"n":{"type":"integer","minimum":5}},"$ref":"#/$defs/n"}`, tgt: `{"maximum":5}`},
	{name: "recursive $ref, the witness one level down", family: "$ref",
		src: `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`,
		tgt: `{"type":"object","properties":{"next":{"type":"object","properties":{"v":{"type":"string"}}}}}`},
	// The validator accepts null under a schema that is its own negation
	// (it stops the recursion), so the validator's answer is the truth here.
	{name: "a self-negating $ref the validator accepts", family: "$ref",
		src: `{"$defs":{"leaf":{"not":{"$ref":"#/$defs/leaf"}}},"$ref":"#/$defs/leaf"}`, tgt: `{"enum":[{"a":1,"b":"x"}]}`},
	{name: "an anyOf branch the target lacks", family: "combinators",
		src: `{"anyOf":[{"type":"string"},{"type":"null"}]}`, tgt: `{"type":"string"}`},
	{name: "oneOf branches", family: "combinators",
		src: `{"oneOf":[{"type":"integer","minimum":10},{"type":"string","minLength":2}]}`, tgt: `{"type":["integer","string"],"maxLength":1}`},
	{name: "allOf branches declare different properties", family: "combinators",
		src: `{"allOf":[{"properties":{"a":{"type":"integer"}},"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}]}`,
		tgt: `{"properties":{"b":{"type":"integer"}}}`},
	{name: "if/then/else branches", family: "combinators",
		src: `{"if":{"type":"integer"},"then":{"minimum":10},"else":{"type":"string"}}`, tgt: `{"type":"string"}`},
	{name: "null where allowed", family: "null",
		src: `{"type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"]}`,
		tgt: `{"type":"object","properties":{"a":{"type":"string"}}}`},
	{name: "patternProperties name from the pattern", family: "patternProperties",
		src: `{"type":"object","patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
		tgt: `{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`},
	{name: "propertyNames from their pattern", family: "propertyNames",
		src: `{"type":"object","propertyNames":{"pattern":"^[A-Z]{2,3}$"}}`, tgt: `{"type":"object","maxProperties":0}`},
	{name: "contains candidate", family: "contains",
		src: `{"type":"array","contains":{"const":5}}`, tgt: `{"type":"array","items":{"maximum":4}}`},
	{name: "minContains copies of a contains candidate", family: "contains",
		src: `{"type":"array","contains":{"type":"number"},"minContains":2}`, tgt: `{"type":"array","maxItems":1}`},
	{name: "a name the target's patternProperties constrain", family: "target hints",
		src: `{"type":"object","additionalProperties":{"type":"integer"}}`,
		tgt: `{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`},
	{name: "nested extra property beside a declared one", family: "extra property",
		src: `{"type":"object","properties":{"c":{"type":"object","patternProperties":{"^x":{"type":"string","minLength":1}},"properties":{"a":true}}},"required":["c"]}`,
		tgt: `{"type":"object","properties":{"c":{"type":"object","patternProperties":{"^x":{"type":"string","minLength":2}}}}}`},
	{name: "string length at the bound", family: "string length",
		src: `{"type":"string","maxLength":10}`, tgt: `{"maxLength":5}`},
	{name: "a length in code points, not bytes", family: "string length",
		src: `{"type":"string","minLength":1,"maxLength":1}`, tgt: `{"type":"string","pattern":"^[a-z]$"}`},
	{name: "type-wide samples from an open source", family: "samples",
		src: `{}`, tgt: `{"type":["object","array","string","number"]}`},
	{name: "reference pipeline: rows into data (examples/)", family: "nested",
		src:    `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object"}},"row_count":{"type":"integer","minimum":0}},"required":["rows","row_count"]}`,
		srcPtr: "/properties/rows",
		tgt:    `{"type":"object","properties":{"data":{"type":"array","items":{"type":"string"}},"delimiter":{"type":"string","enum":[",",";","\t"]}},"required":["data"]}`,
		tgtPtr: "/properties/data"},
	{name: "a subschema inside $defs by pointer", family: "pointer",
		src: `{"$defs":{"a":{"type":"integer"}}}`, srcPtr: "/$defs/a",
		tgt: `{"$defs":{"b":{"type":"integer","minimum":0}}}`, tgtPtr: "/$defs/b"},
}

// compatible pairs: no value of the source breaks the target, so no search
// may find one.
var compatible = []pair{
	{name: "identical", src: `{"type":"object","properties":{"a":{"type":"integer","minimum":0}},"required":["a"]}`,
		tgt: `{"type":"object","properties":{"a":{"type":"integer","minimum":0}},"required":["a"]}`},
	{name: "integer into number", src: `{"type":"integer"}`, tgt: `{"type":"number"}`},
	{name: "draft-04 exclusive minimum into minimum+1", src: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","minimum":0,"exclusiveMinimum":true}`,
		tgt: `{"type":"integer","minimum":1}`},
	{name: "enum into its type", src: `{"enum":["a","b"]}`, tgt: `{"type":"string","minLength":1}`},
	{name: "contradictory source", src: `{"type":"integer","minimum":5,"maximum":1}`, tgt: `false`},
	{name: "false source", src: `false`, tgt: `{"type":"null"}`},
	{name: "narrower length", src: `{"type":"string","minLength":3,"maxLength":4}`, tgt: `{"type":"string","minLength":1,"maxLength":8}`},
	{name: "anything into true", src: `{}`, tgt: `true`},
	{name: "closed object into open", src: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		tgt: `{"type":"object","additionalProperties":{"type":"string"}}`},
	{name: "multipleOf 6 into 3", src: `{"type":"integer","multipleOf":6}`, tgt: `{"multipleOf":3}`},
	{name: "pattern into a looser pattern", src: `{"type":"string","pattern":"^[a-c]{2}$"}`, tgt: `{"type":"string","pattern":"^[a-z]+$"}`},
	{name: "recursive source into itself", src: `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
		tgt: `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`},
}

// parsed shares loaded documents between tests (loading the hostile ones
// costs more than searching them); confirm loads its own copies.
var parsed sync.Map

func side(t testing.TB, doc, ptr string) Side {
	if s, ok := parsed.Load(doc); ok {
		return Side{Schema: s.(*schema.Schema), Pointer: ptr}
	}
	s := mustParse(t, doc)
	parsed.Store(doc, s)
	return Side{Schema: s, Pointer: ptr}
}

func TestIncompatiblePairsHaveWitnesses(t *testing.T) {
	golden := map[string]string{}
	if data, err := os.ReadFile(goldenPath); err == nil && !*update {
		raw := map[string]json.RawMessage{}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		for n, w := range raw {
			var buf bytes.Buffer
			if err := json.Compact(&buf, w); err != nil {
				t.Fatal(err)
			}
			golden[n] = buf.String()
		}
	}
	got := map[string]string{}
	families := map[string]bool{}
	for _, p := range incompatible {
		t.Run(p.name, func(t *testing.T) {
			s := NewSearcher(untimed, 0)
			f, ok, st := s.search(side(t, p.src, p.srcPtr), side(t, p.tgt, p.tgtPtr))
			if !ok {
				t.Fatalf("no witness after %d candidates (%d steps, timed out %v)", st.tried, st.steps, st.timedOut)
			}
			w := confirm(t, p.src, p.srcPtr, p.tgt, p.tgtPtr, f)
			got[p.name] = w
			families[p.family] = true
			if want, ok := golden[p.name]; ok && want != w && !*update {
				t.Errorf("witness %s, golden %s (run with -update if the generators changed on purpose)", w, want)
			}
			if st.tried > DefaultCandidates {
				t.Errorf("tried %d candidates, budget %d", st.tried, DefaultCandidates)
			}
		})
	}
	for _, fam := range []string{"pattern", "format", "numeric bound neighbour", "multipleOf", "enum", "uniqueItems",
		"required-only object", "extra property", "prefixItems", "draft-07", "draft-04", "$ref", "combinators", "nested"} {
		if !families[fam] {
			t.Errorf("no witness found for family %q", fam)
		}
	}
	if *update {
		writeGolden(t, got)
	} else if len(golden) != len(incompatible) {
		t.Errorf("golden file has %d witnesses for %d pairs: run with -update", len(golden), len(incompatible))
	}
}

func writeGolden(t *testing.T, got map[string]string) {
	raw := map[string]json.RawMessage{}
	for n, w := range got {
		raw[n] = json.RawMessage(w)
	}
	b, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenPath, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCompatiblePairsYieldNothing(t *testing.T) {
	for _, p := range compatible {
		t.Run(p.name, func(t *testing.T) {
			s := NewSearcher(Budget{Candidates: 256, Time: time.Minute}, 0)
			f, ok, st := s.search(side(t, p.src, p.srcPtr), side(t, p.tgt, p.tgtPtr))
			if ok {
				b, _ := json.Marshal(f.Value)
				t.Fatalf("found %s in a compatible pair: %v", b, f.Rejection)
			}
			if st.tried > 256 {
				t.Errorf("tried %d candidates, budget 256", st.tried)
			}
		})
	}
}

// The same pair gives the same witness, from fresh searchers and from
// searchers whose memo answers.
func TestDeterministic(t *testing.T) {
	for _, p := range incompatible {
		src, tgt := side(t, p.src, p.srcPtr), side(t, p.tgt, p.tgtPtr)
		a, okA := NewSearcher(untimed, 0).Search(src, tgt)
		b, okB := NewSearcher(untimed, 0).Search(side(t, p.src, p.srcPtr), side(t, p.tgt, p.tgtPtr))
		ea, _ := json.Marshal(a.Value)
		eb, _ := json.Marshal(b.Value)
		if okA != okB || string(ea) != string(eb) {
			t.Errorf("%s: %v %s then %v %s", p.name, okA, ea, okB, eb)
		}
	}
}

func TestMemo(t *testing.T) {
	p := incompatible[0]
	s := NewSearcher(untimed, 1<<20)
	src, tgt := side(t, p.src, p.srcPtr), side(t, p.tgt, p.tgtPtr)
	first, ok, st := s.search(src, tgt)
	if !ok || st.memoized {
		t.Fatalf("first search: found %v, memoized %v", ok, st.memoized)
	}
	again, ok, st := s.search(src, tgt)
	if !ok || !st.memoized || again.Value != first.Value {
		t.Fatalf("second search: found %v, memoized %v, %v vs %v", ok, st.memoized, again.Value, first.Value)
	}
	// Another pointer is another pair.
	if _, _, st := s.search(Side{src.Schema, "/pattern"}, tgt); st.memoized {
		t.Error("a different pointer was answered from the memo")
	}
}

// The memo never holds more than its bound, whatever it is fed, and
// evicts the least recently used pair first.
func TestMemoBounded(t *testing.T) {
	const bound = 8 << 10
	s := NewSearcher(untimed, bound)
	var sides [][2]Side
	for i, p := range incompatible {
		sides = append(sides, [2]Side{side(t, p.src, p.srcPtr), side(t, p.tgt, p.tgtPtr)})
		s.Search(sides[i][0], sides[i][1])
		if b := s.memo.c.Bytes(); b > bound {
			t.Fatalf("after %d searches the memo holds %d bytes, bound %d", i+1, b, bound)
		}
	}
	n := s.memo.c.Len()
	if n == 0 || n >= len(incompatible) {
		t.Fatalf("memo holds %d entries of %d", n, len(incompatible))
	}
	last := sides[len(sides)-1]
	if _, _, st := s.search(last[0], last[1]); !st.memoized {
		t.Error("the most recent pair was evicted")
	}
	if _, _, st := s.search(sides[0][0], sides[0][1]); st.memoized {
		t.Error("the oldest pair survived")
	}
	off := NewSearcher(untimed, 0)
	off.Search(sides[0][0], sides[0][1])
	if _, _, st := off.search(sides[0][0], sides[0][1]); st.memoized {
		t.Error("a searcher without a memo remembered")
	}
}

func TestConcurrentSearches(t *testing.T) {
	s := NewSearcher(untimed, 1<<16)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := incompatible[i%len(incompatible)]
			if _, ok := s.Search(side(t, p.src, p.srcPtr), side(t, p.tgt, p.tgtPtr)); !ok {
				t.Errorf("%s: no witness", p.name)
			}
		}()
	}
	wg.Wait()
}

func TestNilSchemas(t *testing.T) {
	if _, ok := NewSearcher(untimed, 0).Search(Side{}, Side{}); ok {
		t.Error("found a witness without schemas")
	}
}

func seeded(n uint64) *rand.Rand { return rand.New(rand.NewPCG(n, n)) }

func farFuture() time.Time { return time.Now().Add(time.Hour) }

func allFloatSafe(v any) bool {
	switch v := v.(type) {
	case json.Number:
		r, ok := ratOf(v)
		return ok && floatSafe(r)
	case []any:
		for _, e := range v {
			if !allFloatSafe(e) {
				return false
			}
		}
	case map[string]any:
		for _, e := range v {
			if !allFloatSafe(e) {
				return false
			}
		}
	}
	return true
}

// untimed is the default candidate budget with a clock that never runs out
// in a test: what a test asserts must not depend on the machine's load.
var untimed = Budget{Candidates: DefaultCandidates, Time: time.Minute}
