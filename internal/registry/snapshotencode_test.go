package registry_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/registry"
)

func TestEncodeImportKeepsDeclarationsVerbatim(t *testing.T) {
	tools := []registry.Tool{
		{Name: "a", Title: "A <b>", InputSchema: json.RawMessage("{ \"type\" : \"object\",\n \"x\": \"<&>\" }"),
			Annotations: json.RawMessage(`{"readOnlyHint" :true}`)},
		{Name: "has space", InputSchema: json.RawMessage(`null`), Meta: json.RawMessage(`{"k":[1, 2]}`)},
		{Name: "no_schema"},
	}
	got, err := registry.EncodeImport("srv", "tools.json", tools)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"a","title":"A \u003cb\u003e","inputSchema":{ "type" : "object",` + "\n" + ` "x": "<&>" },"annotations":{"readOnlyHint" :true}},` +
		`{"name":"has space","inputSchema":null,"_meta":{"k":[1, 2]}},{"name":"no_schema"}]`
	if string(got) != want {
		t.Errorf("EncodeImport =\n%s\nwant\n%s", got, want)
	}
	if empty, err := registry.EncodeImport("srv", "", nil); err != nil || string(empty) != "[]" {
		t.Errorf("no tools: %s, %v; want []", empty, err)
	}
}

func TestEncodeImportRefusesWhatIsNotJSONText(t *testing.T) {
	tools := []registry.Tool{
		{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "bad\xff", InputSchema: json.RawMessage(`{"type":`), OutputSchema: json.RawMessage("\"\xff\"")},
		{Name: "t", Description: "\xfe", Annotations: json.RawMessage(`[`), Meta: json.RawMessage(`x`)},
	}
	_, err := registry.EncodeImport("srv", "file\x00", tools)
	var de *registry.DeclarationError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a *DeclarationError", err)
	}
	var got []string
	for _, p := range de.Problems {
		got = append(got, p.Tool+":"+p.Code)
	}
	want := []string{":invalid_text", "bad\xff:invalid_name", "bad\xff:invalid_input_schema", "bad\xff:invalid_output_schema",
		"t:invalid_text", "t:invalid_annotations", "t:invalid_meta"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q\nwant     %q", got, want)
	}
	if _, err := registry.EncodeImport("bad server", "", nil); !errors.Is(err, registry.ErrInvalidDeclaration) {
		t.Errorf("bad server name: %v", err)
	}
}

// Whatever the tools, the encoding is refused or is a JSON array that
// decodes to the same tools, raw members byte for byte.
func FuzzEncodeImport(f *testing.F) {
	f.Add("search", "Search <it>", `{ "type":"object" }`, `{"a" : 1}`)
	f.Add("", "", ``, `null`)
	f.Add("x y", "\xff", `{"type":`, `[1,2]`)
	f.Fuzz(func(t *testing.T, name, desc, input, meta string) {
		in := []registry.Tool{{Name: name, Description: desc, InputSchema: json.RawMessage(input), Meta: json.RawMessage(meta)}}
		enc, err := registry.EncodeImport("srv", "", in)
		if err != nil {
			if !errors.Is(err, registry.ErrInvalidDeclaration) {
				t.Fatalf("error %v does not wrap ErrInvalidDeclaration", err)
			}
			return
		}
		var out []registry.Tool
		if err := json.Unmarshal(enc, &out); err != nil {
			t.Fatalf("encoding %s does not decode: %v", enc, err)
		}
		got := out[0]
		// Byte for byte, but for whitespace around a member, which no
		// JSON decoder keeps.
		if len(out) != 1 || got.Name != name || got.Description != desc ||
			!bytes.Equal(got.InputSchema, bytes.TrimSpace(in[0].InputSchema)) || !bytes.Equal(got.Meta, bytes.TrimSpace(in[0].Meta)) {
			t.Fatalf("round trip of %+v gave %+v", in[0], out)
		}
	})
}
