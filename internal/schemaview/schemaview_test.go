package schemaview

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/typeward/typeward/internal/schema"
)

func load(t *testing.T, doc string) View {
	t.Helper()
	s, err := schema.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return Of(s)
}

func root(t *testing.T, v View) Sub {
	t.Helper()
	s, ok := v.At("")
	if !ok {
		t.Fatal("no root")
	}
	return s
}

// Whether a root unevaluatedProperties applies to the name "a": what the
// validator does with {"a": …} when the schema forbids unevaluated ones.
func TestUnevaluatedProperty(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      Use
	}{
		{"alone", `{"unevaluatedProperties":false}`, Applied},
		{"own properties", `{"properties":{"a":{}},"unevaluatedProperties":false}`, NotApplied},
		{"own additionalProperties", `{"additionalProperties":{},"unevaluatedProperties":false}`, NotApplied},
		{"through allOf", `{"allOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false}`, NotApplied},
		{"through $ref", `{"$ref":"#/$defs/d","$defs":{"d":{"patternProperties":{"^a$":{}}}},"unevaluatedProperties":false}`, NotApplied},
		{"through a static $dynamicRef", `{"$dynamicRef":"#m","$defs":{"d":{"$dynamicAnchor":"m","properties":{"a":{}}}},"unevaluatedProperties":false}`, NotApplied},
		{"allOf naming another", `{"allOf":[{"properties":{"b":{}}}],"unevaluatedProperties":false}`, Applied},
		{"a subschema evaluating all", `{"allOf":[{"additionalProperties":true}],"unevaluatedProperties":false}`, NotApplied},
		{"a nullable union's object branch", `{"anyOf":[{"type":"null"},{"properties":{"a":{}}}],"unevaluatedProperties":false}`, NotApplied},
		{"a union evaluating nothing", `{"anyOf":[{"type":"object"},{"minProperties":1}],"unevaluatedProperties":false}`, Applied},
		{"a union whose branches evaluate", `{"anyOf":[{"properties":{"a":{}}},{"properties":{"b":{}}}],"unevaluatedProperties":false}`, MayApply},
		{"if/then", `{"if":{"properties":{"a":{}}},"unevaluatedProperties":false}`, MayApply},
		{"draft-07 has no unevaluatedProperties", `{"$schema":"http://json-schema.org/draft-07/schema#","unevaluatedProperties":false}`, NotApplied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := load(t, tc.doc)
			if got := v.UnevaluatedProperty(root(t, v), "a"); got != tc.want {
				t.Fatalf("UnevaluatedProperty = %d, want %d", got, tc.want)
			}
			// The real validator agrees wherever the answer is decided.
			err := v.Doc().Validate(map[string]any{"a": json.Number("1")})
			switch tc.want {
			case Applied:
				if err == nil {
					t.Fatal("the validator accepts {\"a\":1}: unevaluatedProperties did not apply")
				}
			case NotApplied:
				if err != nil {
					t.Fatalf("the validator rejects {\"a\":1}: %v", err)
				}
			}
		})
	}
}

func TestItemEvaluation(t *testing.T) {
	for _, tc := range []struct {
		name, doc  string
		prefix     int
		all, exact bool
	}{
		{"alone", `{"unevaluatedItems":false}`, 0, false, true},
		{"own prefix", `{"prefixItems":[{},{}],"unevaluatedItems":false}`, 2, false, true},
		{"prefix through allOf", `{"allOf":[{"prefixItems":[{}]}],"prefixItems":[{},{},{}],"unevaluatedItems":false}`, 3, false, true},
		{"longer prefix through $ref", `{"$ref":"#/$defs/t","$defs":{"t":{"prefixItems":[{},{}]}},"unevaluatedItems":false}`, 2, false, true},
		{"items through allOf", `{"allOf":[{"items":{}}],"unevaluatedItems":false}`, 0, true, true},
		{"contains", `{"contains":{"type":"string"},"unevaluatedItems":false}`, 0, false, false},
		{"a union with prefixes", `{"oneOf":[{"prefixItems":[{}]},{"prefixItems":[{},{}]}],"unevaluatedItems":false}`, 0, false, false},
		{"a union with one array branch", `{"oneOf":[{"type":"null"},{"prefixItems":[{},{}]}],"unevaluatedItems":false}`, 2, false, true},
		{"a union of bounds", `{"anyOf":[{"minItems":1},{"maxItems":0}],"unevaluatedItems":false}`, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := load(t, tc.doc)
			ev := v.ItemEvaluation(root(t, v))
			if got := ev.EvaluatedPrefix(); got != tc.prefix || ev.All != tc.all || ev.Exact != tc.exact {
				t.Fatalf("prefix %d all %v exact %v, want %d %v %v", got, ev.All, ev.Exact, tc.prefix, tc.all, tc.exact)
			}
		})
	}
}

func TestItems(t *testing.T) {
	for _, tc := range []struct {
		name, doc, tuple string
		prefix           int
		rest             string
	}{
		{"2020-12 prefixItems and items", `{"prefixItems":[{},{}],"items":false}`, "prefixItems", 2, "/items"},
		{"2020-12 items only", `{"items":{"type":"string"}}`, "", 0, "/items"},
		{"draft-07 items array", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`, "items", 1, "/additionalItems"},
		{"draft-07 items schema", `{"$schema":"http://json-schema.org/draft-07/schema#","items":{}}`, "", 0, "/items"},
		{"draft-07 ignores prefixItems", `{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[{}]}`, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := load(t, tc.doc)
			s := root(t, v)
			it := v.Items(s)
			rest := ""
			if it.HasRest {
				rest = it.Rest.Ptr
			}
			if kw := v.TupleKeyword(s); kw != tc.tuple || len(it.Prefix) != tc.prefix || rest != tc.rest {
				t.Fatalf("tuple %q prefix %d rest %q, want %q %d %q", kw, len(it.Prefix), rest, tc.tuple, tc.prefix, tc.rest)
			}
		})
	}
}

// Less is exact where float64 rounds.
func TestLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"1", "2", true}, {"2", "1", false}, {"1", "1.0", false},
		{"9007199254740993", "9007199254740994", true}, // equal as float64
		{"0.30000000000000001", "0.3", false}, {"0.3", "0.30000000000000001", true},
		{"x", "1", false},
	} {
		if got := Less(json.Number(tc.a), json.Number(tc.b)); got != tc.want {
			t.Errorf("Less(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

// The regexp cache is bounded: a stream of novel patterns (each schema may
// bring its own) never grows it past its byte budget.
func TestRegexpCacheIsBounded(t *testing.T) {
	for i := range 50_000 {
		if Regexp("^a"+strconv.Itoa(i)+"$") == nil {
			t.Fatalf("pattern %d did not compile", i)
		}
	}
	if st := regexps.Stats(); st.Bytes > regexpCacheBytes || st.Evictions == 0 {
		t.Fatalf("cache holds %d bytes (bound %d) after %d evictions", st.Bytes, regexpCacheBytes, st.Evictions)
	}
	if Regexp("(") != nil {
		t.Fatal("an invalid pattern compiled")
	}
}
