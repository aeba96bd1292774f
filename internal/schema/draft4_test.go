package schema

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const d4 = `"$schema":"http://json-schema.org/draft-04/schema#",`

// TestDraft4Loads: a draft-04 document loads as Declared Draft4, is held as
// its draft-07 reading (Dialect Draft7), keeps its own canonical bytes, and
// the validator judges it as draft-04.
func TestDraft4Loads(t *testing.T) {
	for _, c := range []struct{ name, doc, root string }{
		{"with hash", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","minimum":5,"exclusiveMinimum":true}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","exclusiveMinimum":5,"type":"integer"}`},
		{"https without hash, false modifier", `{"$schema":"https://json-schema.org/draft-04/schema","maximum":5,"exclusiveMaximum":false}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","maximum":5}`},
		{"non-draft-04 keywords dropped, property names kept", `{` + d4 + `"$id":"https://x/y","const":1,"contains":{},"propertyNames":{},"if":{},"then":{},"else":{},"examples":[1],"$comment":"c",` +
			`"properties":{"const":{"id":"#c","readOnly":true},"id":{"type":"string"}},"enum":[{"const":1,"id":"x"}]}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","enum":[{"const":1,"id":"x"}],"properties":{"const":{"$id":"#c"},"id":{"type":"string"}}}`},
		{"every draft-04 subschema position", `{` + d4 + `"definitions":{"a":{"minimum":1,"exclusiveMinimum":true}},"not":{"maximum":1,"exclusiveMaximum":true},` +
			`"allOf":[{"const":1}],"items":[{"const":1}],"additionalItems":{"const":1},"dependencies":{"a":["b"],"c":{"const":1}},"patternProperties":{"p":{"const":1}},"additionalProperties":false}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","additionalItems":{},"additionalProperties":false,"allOf":[{}],"definitions":{"a":{"exclusiveMinimum":1}},` +
				`"dependencies":{"a":["b"],"c":{}},"items":[{}],"not":{"exclusiveMaximum":1},"patternProperties":{"p":{}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse([]byte(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			if s.Declared != Draft4 || s.Dialect != Draft7 {
				t.Errorf("declared %q, read as %q; want draft-04 read as draft-07", s.Declared, s.Dialect)
			}
			root, _ := Canonical(s.Root)
			if string(root) != c.root {
				t.Errorf("root\n%s\nwant\n%s", root, c.root)
			}
			var orig any
			_ = json.Unmarshal([]byte(c.doc), &orig)
			if canon, _ := Canonical(orig); string(canon) != string(s.Canonical) {
				t.Errorf("canonical bytes are not the document's: %s", s.Canonical)
			}
		})
	}
}

// TestDraft4ReadingAcceptsWhatTheValidatorAccepts: for each document the
// draft-07 reading (loaded on its own) and the draft-04 validator agree on
// every instance, including the ones draft-04 and draft-07 differ on.
func TestDraft4ReadingAcceptsWhatTheValidatorAccepts(t *testing.T) {
	for _, c := range []struct {
		doc       string
		instances []string
		accepted  []bool
	}{
		{`{` + d4 + `"minimum":5,"exclusiveMinimum":true}`, []string{"5", "5.01", "4"}, []bool{false, true, false}},
		{`{` + d4 + `"minimum":5,"exclusiveMinimum":false}`, []string{"5", "4"}, []bool{true, false}},
		{`{` + d4 + `"maximum":5,"exclusiveMaximum":true}`, []string{"5", "4.99"}, []bool{false, true}},
		{`{` + d4 + `"const":1,"contains":{"type":"string"},"propertyNames":{"maxLength":1},"if":true,"then":false}`, []string{"2", "[1]", `{"long":1}`}, []bool{true, true, true}},
		{`{` + d4 + `"definitions":{"n":{"type":"number"}},"properties":{"v":{"$ref":"#/definitions/n","minimum":5}}}`, []string{`{"v":1}`, `{"v":"x"}`}, []bool{true, false}},
		{`{` + d4 + `"definitions":{"a":{"id":"#pos","minimum":0,"exclusiveMinimum":true}},"items":{"$ref":"#pos"}}`, []string{"[1]", "[0]"}, []bool{true, false}},
		{`{` + d4 + `"id":"http://x/root","definitions":{"b":{"id":"http://x/b","definitions":{"c":{"minimum":1,"exclusiveMinimum":true}},"properties":{"q":{"$ref":"#/definitions/c"}}},"c":{"maximum":0}},"properties":{"p":{"$ref":"b"}}}`,
			[]string{`{"p":{"q":1}}`, `{"p":{"q":1.5}}`}, []bool{false, true}},
		{`{` + d4 + `"properties":{"a":{"format":"email"}}}`, []string{`{"a":"x@y.z"}`, `{"a":"nope"}`}, []bool{true, false}},
	} {
		s, err := Parse([]byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		reading, err := FromValue(s.Root)
		if err != nil {
			t.Fatalf("%s: the draft-07 reading does not load: %v", c.doc, err)
		}
		if reading.Declared != Draft7 {
			t.Fatalf("%s: the reading declares %q", c.doc, reading.Declared)
		}
		for i, in := range c.instances {
			var v any
			d := json.NewDecoder(strings.NewReader(in))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if got := s.Validate(v) == nil; got != c.accepted[i] {
				t.Errorf("%s: draft-04 validator accepts %s: %v, want %v", c.doc, in, got, c.accepted[i])
			}
			if got := reading.Validate(v) == nil; got != c.accepted[i] {
				t.Errorf("%s: draft-07 reading accepts %s: %v, want %v", c.doc, in, got, c.accepted[i])
			}
		}
	}
}

func TestDraft4Refusals(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		kind      error
		detail    string
	}{
		{"boolean subschema", `{` + d4 + `"properties":{"a":true}}`, ErrInvalid, "properties/a"},
		{"numeric exclusiveMinimum", `{` + d4 + `"exclusiveMinimum":5}`, ErrInvalid, "exclusiveMinimum"},
		{"$ref into a non-draft-04 keyword", `{` + d4 + `"const":{"minimum":1,"exclusiveMinimum":true},"$ref":"#/const"}`, ErrRefUnresolved, "#/const"},
		{"$ref into data", `{` + d4 + `"x-defs":{"a":{"minimum":1,"exclusiveMinimum":true}},"$ref":"#/x-defs/a"}`, ErrInvalid, "must land on a draft-04 subschema"},
		{"draft 3", `{"$schema":"http://json-schema.org/draft-03/schema#"}`, ErrDialect, "draft-04"},
	} {
		_, err := Parse([]byte(c.doc))
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.detail) {
			t.Errorf("%s: got %v, want %v mentioning %q", c.name, err, c.kind, c.detail)
		}
	}
}

// The reading never shares maps with the document the validator compiled.
func TestDraft4ReadingIsACopy(t *testing.T) {
	var doc any
	_ = json.Unmarshal([]byte(`{`+d4+`"properties":{"a":{"minimum":1,"exclusiveMinimum":true}}}`), &doc)
	before, _ := Canonical(doc)
	reading, _ := fromDraft4(doc)
	reading.(map[string]any)["properties"].(map[string]any)["a"].(map[string]any)["x"] = 1
	after, _ := Canonical(doc)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("fromDraft4 changed its input: %s", after)
	}
}

// TestDraft4ValidatorIgnoresDroppedKeywords: each assertion the reading
// drops rejects the instance under draft-07 and not under draft-04, so
// dropping it is what the validator does.
func TestDraft4ValidatorIgnoresDroppedKeywords(t *testing.T) {
	for _, c := range []struct {
		keywords string
		instance any
	}{
		{`"const":1`, json.Number("2")},
		{`"contains":{"type":"string"}`, []any{json.Number("1")}},
		{`"propertyNames":{"maxLength":1}`, map[string]any{"ab": true}},
		{`"if":{},"then":false`, "x"},
		{`"if":false,"else":false`, "x"},
	} {
		for _, d := range []struct {
			schema string
			reject bool
		}{{"http://json-schema.org/draft-07/schema#", true}, {"http://json-schema.org/draft-04/schema#", false}} {
			s, err := Parse([]byte(`{"$schema":"` + d.schema + `",` + c.keywords + `}`))
			if err != nil {
				t.Fatal(err)
			}
			if rejects := s.Validate(c.instance) != nil; rejects != d.reject {
				t.Errorf("%s under %s rejects %v: %v, want %v", c.keywords, d.schema, c.instance, rejects, d.reject)
			}
		}
	}
}
