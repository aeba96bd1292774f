package composition

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/registry"
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
