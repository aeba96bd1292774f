package schemaview

import (
	"encoding/json"
	"maps"
	"slices"
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

func TestInPlace(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		refs      []string // pointers of Refs()
		allOf     int
		replaced  bool
		scoped    []string
	}{
		{"2020-12 $ref beside allOf", `{"$ref":"#/$defs/a","allOf":[{}],"$defs":{"a":{}}}`, []string{"/$defs/a"}, 1, false, nil},
		{"draft-07 $ref replaces its siblings", `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","allOf":[{}],"definitions":{"a":{}}}`, []string{"/definitions/a"}, 0, true, nil},
		{"a static $dynamicRef", `{"$dynamicRef":"#m","$defs":{"a":{"$dynamicAnchor":"m"}}}`, []string{"/$defs/a"}, 0, false, nil},
		{"a scope-dependent $dynamicRef", `{"$id":"https://x/root","$dynamicAnchor":"m","$dynamicRef":"#m","$defs":{"b":{"$id":"https://x/b","$dynamicAnchor":"m"}}}`, nil, 0, false, []string{"$dynamicRef"}},
		{"draft-07 has no $dynamicRef", `{"$schema":"http://json-schema.org/draft-07/schema#","$dynamicRef":"#m","definitions":{"a":{"$dynamicAnchor":"m"}}}`, nil, 0, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := load(t, tc.doc)
			in := v.InPlace(root(t, v), FollowAll)
			var refs []string
			for _, r := range in.Refs() {
				refs = append(refs, r.Ptr)
			}
			if !slices.Equal(refs, tc.refs) || len(in.AllOf) != tc.allOf || in.Replaced != tc.replaced || !slices.Equal(in.Scoped, tc.scoped) || in.RefErr != nil {
				t.Fatalf("refs %v allOf %d replaced %v scoped %v err %v", refs, len(in.AllOf), in.Replaced, in.Scoped, in.RefErr)
			}
			if in := v.InPlace(root(t, v), FollowAllOf); len(in.Refs()) != 0 || len(in.Scoped) != 0 {
				t.Fatalf("FollowAllOf followed references: %+v", in)
			}
		})
	}
}

func TestItemRest(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		ptr       string
		from      int
		has       bool
		unsure    bool
	}{
		{"items", `{"prefixItems":[{}],"items":{"type":"string"}}`, "/items", 1, true, false},
		{"unevaluatedItems alone", `{"unevaluatedItems":{"type":"string"}}`, "/unevaluatedItems", 0, true, false},
		{"unevaluatedItems past allOf's prefix", `{"allOf":[{"prefixItems":[{},{}]}],"unevaluatedItems":false}`, "/unevaluatedItems", 2, true, false},
		{"unevaluatedItems beside items in allOf", `{"allOf":[{"items":{}}],"unevaluatedItems":false}`, "", 0, false, false},
		{"unevaluatedItems beside contains", `{"contains":{},"unevaluatedItems":false}`, "/unevaluatedItems", 0, false, true},
		{"draft-07 additionalItems past an items array", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`, "/additionalItems", 1, true, false},
		{"draft-07 has no unevaluatedItems", `{"$schema":"http://json-schema.org/draft-07/schema#","unevaluatedItems":false}`, "", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := load(t, tc.doc)
			r := v.ItemRest(root(t, v))
			if r.Sub.Ptr != tc.ptr || r.From != tc.from || r.Has != tc.has || r.Unsure != tc.unsure {
				t.Fatalf("ItemRest = %q from %d has %v unsure %v", r.Sub.Ptr, r.From, r.Has, r.Unsure)
			}
		})
	}
}

func TestGuaranteed(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"required", `{"required":["a","b"]}`, []string{"a", "b"}},
		{"dependentRequired closure", `{"required":["a"],"dependentRequired":{"a":["b"],"b":["c"],"z":["y"]}}`, []string{"a", "b", "c"}},
		{"draft-07 dependencies lists", `{"$schema":"http://json-schema.org/draft-07/schema#","required":["a"],"dependencies":{"a":["b"],"b":{"required":["q"]}}}`, []string{"a", "b"}},
		{"draft-07 ignores dependentRequired", `{"$schema":"http://json-schema.org/draft-07/schema#","required":["a"],"dependentRequired":{"a":["b"]}}`, []string{"a"}},
		// Before, a closed object as large as its declared names guaranteed none.
		{"closed and full", `{"properties":{"a":{},"b":{}},"additionalProperties":false,"minProperties":2,"dependentRequired":{"b":["c"]}}`, []string{"a", "b", "c"}},
		{"closed, one short", `{"properties":{"a":{},"b":{}},"additionalProperties":false,"minProperties":1}`, nil},
		{"patterns open it", `{"properties":{"a":{},"b":{}},"patternProperties":{"^x":{}},"additionalProperties":false,"minProperties":2}`, nil},
		{"open", `{"properties":{"a":{},"b":{}},"minProperties":2}`, nil},
		{"a count written 1.0", `{"properties":{"a":{}},"additionalProperties":false,"minProperties":1.0}`, []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := load(t, tc.doc)
			got := slices.Sorted(maps.Keys(v.Guaranteed([]Sub{root(t, v)})))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Guaranteed = %v, want %v", got, tc.want)
			}
		})
	}
}
