package composition

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// Every path finding of a mapping (may_be_missing, may_be_null) carries a
// witness: a whole output value that the real validator accepts under the
// source tool's output schema and from which the mapping cannot read a
// value, with the complaint of the path's requirement saying where. The
// witness is re-validated here, apart from the validator.
func TestPathFindingsCarryWitnesses(t *testing.T) {
	cat := loadCatalog(t, "testdata/tools.json")
	v := NewValidator(cat, nil, compat.NewChecker())
	for _, tc := range []struct {
		name, doc string
		want      []string // "code: witness_error message"
	}{
		{"optional source field", edge("strict", `{"maybe":"text","count":"id"}`, ""),
			[]string{"may_be_missing: at '': missing property 'maybe'"}},
		{"per item: an element's optional field", edge("strict", `{"rows[].name":"text","rows[].id":"id"}`, `,"each":true`),
			[]string{"may_be_missing: at '/rows/0': missing property 'name'"}},
		{"projection: an absent or null array", edge("strict", `{"opt_list[].id":"id","thing.label":"text"}`, ""), []string{
			"may_be_missing: at '': missing property 'opt_list'",
			"may_be_null: at '/opt_list': got null, want " + notNull,
		}},
		// names is optional: an absent rows is fine, a hole in the array is not.
		{"projection into an optional target: a hole in the array", edge("loose", `{"rows[].name":"names"}`, ""),
			[]string{"may_be_missing: at '/rows/0': missing property 'name'"}},
		{"nullable union", edge("strict", `{"nullable_obj.x":"text","count":"id"}`, ""),
			[]string{"may_be_null: at '/nullable_obj': got null, want " + notNull}},
		{"type-array nullable object", edge("strict", `{"typed_nullable.y":"text","count":"id"}`, ""),
			[]string{"may_be_null: at '/typed_nullable': got null, want " + notNull}},
		{"a field only some union branches have", edge("strict", `{"shapes.b":"text","count":"id"}`, ""),
			[]string{"may_be_missing: at '/shapes': missing property 'b'"}},
		{"a union that may be null", edge("strict", `{"variant.kind":"text","count":"id"}`, ""),
			[]string{"may_be_null: at '/variant': got null, want " + notNull}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, is := range validate(t, v, tc.doc).Issues {
				if is.SourceTool == "" || (is.Code != verdict.CodeMayBeMissing && is.Code != verdict.CodeMayBeNull) {
					continue
				}
				if is.Verdict != verdict.Incompatible || is.Witness == nil || is.WitnessError == nil || is.WitnessError.Message == "" {
					t.Fatalf("path finding without a confirmed witness: %+v", is)
				}
				src, err := cat.ResolveTool(t.Context(), is.SourceTool[strings.IndexByte(is.SourceTool, '/')+1:], 0)
				if err != nil {
					t.Fatal(err)
				}
				w := assertSourceAccepts(t, src, is.Witness)
				assertNothingToRead(t, w, is)
				got = append(got, is.Code+": "+is.WitnessError.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("path findings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

const notNull = "boolean or number or string or array or object"

func assertSourceAccepts(t *testing.T, src *registry.ResolvedTool, witness json.RawMessage) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(witness))
	d.UseNumber()
	var w any
	if err := d.Decode(&w); err != nil {
		t.Fatalf("witness %s: %v", witness, err)
	}
	if err := src.Output.Validate(w); err != nil {
		t.Fatalf("the output schema of %s rejects the witness %s: %v", src.QualifiedName(), witness, err)
	}
	return w
}

// assertNothingToRead checks, on the witness itself, what the complaint
// says: at its instance location the value is null (may_be_null) or an
// object without the named property (may_be_missing).
func assertNothingToRead(t *testing.T, w any, is verdict.Issue) {
	t.Helper()
	msg := is.WitnessError.Message
	loc, rest, ok := strings.Cut(strings.TrimPrefix(msg, "at '"), "': ")
	if !ok {
		t.Fatalf("complaint %q names no location", msg)
	}
	at := w
	for _, tok := range strings.Split(loc, "/")[1:] {
		switch c := at.(type) {
		case map[string]any:
			at = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(c) {
				t.Fatalf("witness %s has no %s", is.Witness, loc)
			}
			at = c[i]
		default:
			t.Fatalf("witness %s has no %s", is.Witness, loc)
		}
	}
	if is.Code == verdict.CodeMayBeNull {
		if at != nil {
			t.Fatalf("witness %s is not null at %q", is.Witness, loc)
		}
		return
	}
	name := strings.TrimSuffix(strings.TrimPrefix(rest, "missing property '"), "'")
	if obj, isObj := at.(map[string]any); !isObj || hasKey(obj, name) {
		t.Fatalf("witness %s has %q at %q", is.Witness, name, loc)
	}
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// A finding inside projected elements or optional containers: the witness
// is a whole output that leaves nothing to read. The checker confirms the
// first three itself; for Sentry's find_monitors its candidate falls short
// (an element needs all twelve required members, some with date-time
// patterns), and so it does for a.b's null (a requires c); the witness is
// then an output in which the path has a value, changed at the path
// (pathWitness: without that step these two fail).
func TestPathWitnessInsideElements(t *testing.T) {
	const output = `{"type":"object","required":["items","more"],"properties":{"more":{"type":"boolean"},
		"items":{"type":"array","items":{"type":"object","required":["id","s"],"additionalProperties":false,"properties":{
			"id":{"type":"string","format":"uri"},"n":{"type":"integer"},
			"s":{"anyOf":[{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]},{"type":"null"}]}}}}}}`
	const input = `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`
	var monitors string
	for _, srv := range loadServers(t) {
		for _, tool := range srv.Tools {
			if strings.HasPrefix(srv.Server, "sentry-mcp") && tool.Name == "find_monitors" {
				monitors = string(tool.OutputSchema)
			}
		}
	}
	if monitors == "" {
		t.Fatal("the corpus has no Sentry find_monitors")
	}
	for _, tc := range []struct{ output, mapping, each, want string }{
		{output, `{"items[].s.v":"f"}`, "", "may_be_null: at '/items/0/s': got null, want " + notNull},
		{output, `{"items[].s.v":"f"}`, `,"each":true`, "may_be_null: at '/items/0/s': got null, want " + notNull},
		{output, `{"items[].n":"f"}`, "", "may_be_missing: at '/items/0': missing property 'n'"},
		{monitors, `{"monitors[].schedule.value":"f"}`, "", "may_be_null: at '/monitors/0/schedule': got null, want " + notNull},
		// a is optional and requires c: the candidate {"a":{"b":null}} lacks
		// it, and an instance of the output has no a at all.
		{`{"properties":{"a":{"properties":{"a":{"type":["integer","null"]},"b":{"properties":{"a":{"maxLength":3,"type":"string"},"b":{"type":"boolean"}},"required":["a"],"type":["object","null"],"unevaluatedProperties":{}},"c":{"properties":{"c":{"type":["string","null"]}},"required":["c"],"type":"object","unevaluatedProperties":false}},"required":["c"],"type":"object"},"b":{"enum":["x",null]}},"required":["b"],"type":"object"}`,
			`{"a.b.a":"f"}`, "", "may_be_missing: at '': missing property 'a'\nmay_be_null: at '/a/b': got null, want " + notNull},
	} {
		t.Run(tc.mapping+tc.each, func(t *testing.T) {
			out, err := schema.Parse([]byte(tc.output))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, is := range mappingIssues(t, tc.output, input, tc.mapping, tc.each) {
				if is.Code != verdict.CodeMayBeMissing && is.Code != verdict.CodeMayBeNull {
					continue
				}
				if is.Verdict != verdict.Incompatible || is.WitnessError == nil {
					t.Fatalf("path finding without a confirmed witness: %+v", is)
				}
				w := assertSourceAccepts(t, &registry.ResolvedTool{Name: "src", Output: out}, is.Witness)
				assertNothingToRead(t, w, is)
				got = append(got, is.Code+": "+is.WitnessError.Message)
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("path findings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), tc.want)
			}
		})
	}
}
