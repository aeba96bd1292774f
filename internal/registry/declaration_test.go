package registry_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/registry"
)

// wantProblem matches a Problem; Message is a prefix because the tail of a
// schema error is the compiler's wording.
type wantProblem struct {
	tool, code, pointer, message string
}

func TestDeclareReportsEveryProblem(t *testing.T) {
	okInput := json.RawMessage(`{"type":"object"}`)
	long := strings.Repeat("a", 129)
	tests := []struct {
		name string
		tool registry.Tool
		want []wantProblem
	}{
		{"JSON that is not UTF-8", registry.Tool{Name: "t", InputSchema: json.RawMessage("{\"type\":\"object\",\"description\":\"\xff\"}"),
			OutputSchema: json.RawMessage("{\"description\":\"\xff\"}"), Meta: json.RawMessage("{\"k\":\"\xff\"}")},
			[]wantProblem{
				{"t", "invalid_input_schema", "", "schema is not UTF-8 text, as JSON must be"},
				{"t", "invalid_output_schema", "", "schema is not UTF-8 text, as JSON must be"},
				{"t", "invalid_meta", "", "_meta must be a JSON object"},
			}},
		{"NUL and invalid UTF-8 in text", registry.Tool{Name: "t", InputSchema: okInput, Title: "bad\xff", Description: "a\x00b"},
			[]wantProblem{
				{"t", "invalid_text", "", "title contains a NUL character or bytes that are not UTF-8"},
				{"t", "invalid_text", "", "description contains a NUL character or bytes that are not UTF-8"},
			}},
		{"name with a space", registry.Tool{Name: "get user", InputSchema: okInput},
			[]wantProblem{{"get user", "invalid_name", "", `"get user" is not 1 to 128 characters of A-Z a-z 0-9 _ - .`}}},
		{"empty name and no schema", registry.Tool{},
			[]wantProblem{
				{"", "invalid_name", "", "the empty name is not 1 to 128 characters"},
				{"", "missing_input_schema", "", "no inputSchema: MCP requires one, an object schema"},
			}},
		{"name too long", registry.Tool{Name: long, InputSchema: okInput},
			[]wantProblem{{long, "invalid_name", "", `"aaaa`}}},
		{"slash in name", registry.Tool{Name: "a/b", InputSchema: okInput},
			[]wantProblem{{"a/b", "invalid_name", "", `"a/b" is not`}}},
		{"null input", registry.Tool{Name: "t", InputSchema: json.RawMessage(` null `)},
			[]wantProblem{{"t", "null_input_schema", "", "inputSchema is null: MCP requires an object schema"}}},
		{"array input", registry.Tool{Name: "t", InputSchema: json.RawMessage(`[{"type":"object"}]`)},
			[]wantProblem{{"t", "non_object_input_schema", "", "inputSchema is an array, not an object schema"}}},
		{"boolean input", registry.Tool{Name: "t", InputSchema: json.RawMessage(`true`)},
			[]wantProblem{{"t", "non_object_input_schema", "", "inputSchema is a boolean, not an object schema"}}},
		{"array-rooted input schema", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"array","items":{"type":"string"}}`)},
			[]wantProblem{{"t", "non_object_input_schema", "/type", `inputSchema has type "array": MCP requires type "object"`}}},
		{"type list without object", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":["string","null"]}`)},
			[]wantProblem{{"t", "non_object_input_schema", "/type", `inputSchema has type ["string","null"]`}}},
		{"remote ref in input, bad dialect in output", registry.Tool{Name: "t",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://evil.example/s.json"}}}`),
			OutputSchema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-03/schema#"}`)},
			[]wantProblem{
				{"t", "invalid_input_schema", "/properties/a/$ref", "schema references a non-local $ref"},
				{"t", "invalid_output_schema", "/$schema", "schema declares an unsupported dialect"},
			}},
		{"input not JSON", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":`)},
			[]wantProblem{{"t", "invalid_input_schema", "", "schema is not valid JSON"}}},
		{"input does not compile", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","minProperties":"two"}`)},
			[]wantProblem{{"t", "invalid_input_schema", "", "schema does not compile"}}},
		{"input too deep", registry.Tool{Name: "t", InputSchema: json.RawMessage(strings.Repeat(`{"items":`, 70) + `{}` + strings.Repeat(`}`, 70))},
			[]wantProblem{{"t", "invalid_input_schema", "", "schema exceeds the nesting depth bound"}}},
		{"unresolvable local ref", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}}}`)},
			[]wantProblem{{"t", "invalid_input_schema", "/properties/a/$ref", "schema $ref does not resolve"}}},
		{"annotations and _meta not objects", registry.Tool{Name: "t", InputSchema: okInput, Annotations: json.RawMessage(`[]`), Meta: json.RawMessage(`"x"`)},
			[]wantProblem{
				{"t", "invalid_annotations", "", "annotations must be a JSON object"},
				{"t", "invalid_meta", "", "_meta must be a JSON object"},
			}},
		{"everything wrong at once", registry.Tool{Name: "bad name!", InputSchema: json.RawMessage(`"object"`), OutputSchema: json.RawMessage(`{"$ref":"other.json"}`)},
			[]wantProblem{
				{"bad name!", "invalid_name", "", `"bad name!" is not`},
				{"bad name!", "non_object_input_schema", "", "inputSchema is a string, not an object schema"},
				{"bad name!", "invalid_output_schema", "/$ref", "schema references a non-local $ref"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := registry.Declare("srv", tc.tool)
			if d != nil {
				t.Fatalf("declared %+v despite problems", d)
			}
			var de *registry.DeclarationError
			if !errors.As(err, &de) || !errors.Is(err, registry.ErrInvalidDeclaration) {
				t.Fatalf("error %v is not a *DeclarationError", err)
			}
			assertProblems(t, de.Problems, tc.want)
			assertProblems(t, registry.CheckDeclaration(tc.tool), tc.want)
		})
	}
}

func assertProblems(t *testing.T, got []registry.Problem, want []wantProblem) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("problems = %v, want %d: %v", got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Tool != w.tool || g.Code != w.code || g.Pointer != w.pointer || !strings.HasPrefix(g.Message, w.message) {
			t.Errorf("problem %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestDeclareAcceptsRealShapes(t *testing.T) {
	tests := []struct {
		name string
		tool registry.Tool
	}{
		{"parameterless tool", registry.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		{"nullable object root", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":["object","null"]}`)}},
		{"draft-07", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`)}},
		{"array output (MCP 2026-07-28)", registry.Tool{Name: "list.items-v2", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"array"}`)}},
		{"null output means none", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`null`), Annotations: json.RawMessage(`null`)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := registry.Declare("", tc.tool)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := registry.VersionDigest(d.Input, d.Output); err != nil || d.Digest != v {
				t.Errorf("digest %s does not cover the schemas", d.Digest)
			}
		})
	}
}

func TestDeclareRefusesBadServerNames(t *testing.T) {
	for _, server := range []string{"has space", "tab\there", "nul\x00", "bad\xffutf8", strings.Repeat("s", 257)} {
		_, err := registry.Declare(server, registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)})
		var de *registry.DeclarationError
		if !errors.As(err, &de) || len(de.Problems) != 1 || de.Problems[0].Code != registry.CodeInvalidServer {
			t.Errorf("server %q: error %v, want one invalid_server problem", server, err)
		}
	}
}

func TestDeclarationDigestIgnoresSpelling(t *testing.T) {
	a, err := registry.Declare("", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := registry.Declare("", registry.Tool{Name: "t", InputSchema: json.RawMessage("{\n \"properties\": {\"a\": {\"type\": \"string\"}},\n \"type\": \"object\"\n}")})
	if err != nil {
		t.Fatal(err)
	}
	c, err := registry.Declare("", registry.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest || a.Digest == c.Digest {
		t.Errorf("digests a=%s b=%s c=%s: want a == b != c", a.Digest, b.Digest, c.Digest)
	}
}

func FuzzDeclare(f *testing.F) {
	f.Add("search", []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`), []byte(`{"type":"array"}`))
	f.Add("get user", []byte(`null`), []byte(``))
	f.Add("", []byte(`[1,2]`), []byte(`{"$ref":"http://x"}`))
	f.Add("t", []byte(`{"type":"object","$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`), []byte(`true`))
	f.Fuzz(func(t *testing.T, name string, input, output []byte) {
		tool := registry.Tool{Name: name, InputSchema: input, OutputSchema: output}
		d, err := registry.Declare("srv", tool)
		if (d == nil) == (err == nil) {
			t.Fatalf("Declare returned %v and %v", d, err)
		}
		if err == nil && !registry.ValidToolName(name) {
			t.Fatalf("accepted the invalid name %q", name)
		}
		if err != nil && len(registry.CheckDeclaration(tool)) == 0 {
			t.Fatalf("Declare refused (%v) what CheckDeclaration accepts", err)
		}
	})
}

// Schemas no RFC 8785 digest represents are refused at declaration: two
// different numbers would otherwise share a digest.
func TestDeclareRefusesUndigestableSchemas(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}`, ``},
		{`{"type":"object"}`, `{"type":"number","minimum":1.00000000000000001}`},
	} {
		_, err := registry.Declare("", registry.Tool{Name: "t", InputSchema: json.RawMessage(tc.in), OutputSchema: json.RawMessage(tc.out)})
		var de *registry.DeclarationError
		if !errors.As(err, &de) || len(de.Problems) != 1 || de.Problems[0].Code != registry.CodeUndigestable ||
			!strings.Contains(de.Problems[0].Message, "not exactly representable") {
			t.Errorf("Declare(%s, %s) = %v", tc.in, tc.out, err)
		}
	}
}
