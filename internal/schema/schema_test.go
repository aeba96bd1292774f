package schema

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRefusals(t *testing.T) {
	deep := strings.Repeat(`{"items":`, MaxDepth) + `{}` + strings.Repeat(`}`, MaxDepth)
	many := `{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{},`, MaxSubschemas+1), ",") + `]}`
	tests := []struct {
		name    string
		doc     string
		kind    error
		pointer string
		detail  string // substring
	}{
		{"too large", `{"description":"` + strings.Repeat("x", MaxDocumentBytes) + `"}`, ErrTooLarge, "", "bytes"},
		{"too deep", deep, ErrTooDeep, "", "64"},
		{"too many objects", many, ErrTooManyNodes, "", "10000"},
		{"not json", `{"type":`, ErrSyntax, "", "line 1, column 9: unexpected end of input"},
		{"trailing garbage", `{} {}`, ErrSyntax, "", "line 1, column 4: more after the top-level value"},
		{"bad literal on line 3", "{\n  \"type\": \"string\",\n  \"x\": tru\n}", ErrSyntax, "", "line 3, column 11: invalid character"},
		{"empty", ``, ErrSyntax, "", "line 1, column 1: unexpected end of input"},
		{"array root", `[]`, ErrInvalid, "", "an array"},
		{"null root", `null`, ErrInvalid, "", "null"},
		{"http ref", `{"properties":{"a":{"$ref":"https://evil.example/s.json"}}}`, ErrRemoteRef, "/properties/a/$ref", "evil.example"},
		{"file ref", `{"$ref":"file:///etc/passwd"}`, ErrRemoteRef, "/$ref", "/etc/passwd"},
		{"relative ref", `{"$ref":"other.json#/x"}`, ErrRemoteRef, "/$ref", "other.json"},
		{"dynamic ref", `{"$dynamicRef":"https://x/y#meta"}`, ErrRemoteRef, "/$dynamicRef", ""},
		{"a resource the bundle does not hold", `{"$defs":{"a":{"$id":"https://x/a"}},"$ref":"https://x/b"}`, ErrRemoteRef, "/$ref", "https://x/b"},
		{"pointer relative to the embedded resource", `{"$defs":{"a":{"$id":"https://x/a","$ref":"#/$defs/z"},"z":{}}}`, ErrRefUnresolved, "/$defs/a/$ref", "#/$defs/z"},
		{"anchor of another resource", `{"$defs":{"a":{"$id":"https://x/a","$anchor":"in"}},"$ref":"#in"}`, ErrRefUnresolved, "/$ref", "#in"},
		{"two resources with one $id", `{"$defs":{"a":{"$id":"https://x/a"},"b":{"$id":"https://x/a"}}}`, ErrInvalid, "/$defs/b/$id", "two resources"},
		{"dangling pointer ref", `{"$ref":"#/$defs/missing"}`, ErrRefUnresolved, "/$ref", "missing"},
		{"dangling anchor ref", `{"$ref":"#nowhere"}`, ErrRefUnresolved, "/$ref", "#nowhere"},
		{"draft 3", `{"$schema":"http://json-schema.org/draft-03/schema#"}`, ErrDialect, "/$schema", "draft-03"},
		{"unknown dialect", `{"$schema":"https://example.com/my-meta"}`, ErrDialect, "/$schema", "example.com"},
		{"dialect not a string", `{"$schema":7}`, ErrDialect, "/$schema", ""},
		{"bad type keyword", `{"type":"strnig"}`, ErrInvalid, "", "at '/type': value must be one of"},
		{"draft-07 tuple in 2020-12", `{"items":[{"type":"string"}]}`, ErrInvalid, "", "at '/items': got array, want boolean or object"},
		{"bad pattern", `{"pattern":"(?<=a)b"}`, ErrInvalid, "", "at '/pattern': '(?<=a)b' is not valid regex"},
		{"huge exponent", `{"multipleOf":1e-99999999}`, ErrNumberRange, "/multipleOf", "exponent"},
		{"huge exponent in enum", `{"enum":[1,2E+5000]}`, ErrNumberRange, "/enum/1", "2E+5000"},
		{"overlong integer literal", `{"maximum":` + strings.Repeat("9", 500) + `}`, ErrNumberRange, "/maximum", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.doc))
			if err == nil {
				t.Fatalf("Parse accepted it (digest %s)", s.Digest)
			}
			if !errors.Is(err, tt.kind) {
				t.Fatalf("error %v, want kind %v", err, tt.kind)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not *schema.Error", err)
			}
			if tt.pointer != "" && se.Pointer != tt.pointer {
				t.Errorf("pointer %q, want %q", se.Pointer, tt.pointer)
			}
			if !strings.Contains(err.Error(), tt.detail) {
				t.Errorf("error %q does not mention %q", err, tt.detail)
			}
			// The reason reaches a CLI line and an HTTP problem: one line,
			// without the compiler's internal resource name.
			if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, resourceURL) {
				t.Errorf("error %q is not one self-contained line", msg)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		dialect Dialect
	}{
		{"empty", `{}`, Draft2020},
		{"true", `true`, Draft2020},
		{"false", `false`, Draft2020},
		{"explicit 2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, Draft2020},
		{"draft-07 with hash", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`, Draft7},
		{"draft-07 without hash", `{"$schema":"https://json-schema.org/draft-07/schema","definitions":{"a":{}},"$ref":"#/definitions/a"}`, Draft7},
		{"local ref and anchor", `{"$defs":{"n":{"$anchor":"node","type":"object","properties":{"next":{"$ref":"#node"}}}},"$ref":"#/$defs/n"}`, Draft2020},
		{"root id is fine", `{"$id":"https://example.com/s","$defs":{"a":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, Draft2020},
		{"escaped pointer ref", `{"$defs":{"a/b":{"type":"string"},"c~d":{"type":"integer"}},"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c~0d"}}}`, Draft2020},
		{"percent-encoded ref", `{"$defs":{"a b":{"type":"string"}},"$ref":"#/$defs/a%20b"}`, Draft2020},
		{"bundled resources", `{"$id":"https://example.com/root","$defs":{"addr":{"$id":"addr","type":"object","properties":{"zip":{"$ref":"#/$defs/zip"}},"$defs":{"zip":{"type":"string"}}}},"properties":{"home":{"$ref":"addr"},"zip":{"$ref":"addr#/$defs/zip"}}}`, Draft2020},
		{"bundled under an internal base", `{"$defs":{"a":{"$id":"https://example.com/a","$anchor":"x","type":"string"}},"$ref":"https://example.com/a#x"}`, Draft2020},
		{"big number kept", `{"maximum":12345678901234567890123}`, Draft2020},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if s.Dialect != tt.dialect {
				t.Errorf("dialect %s, want %s", s.Dialect, tt.dialect)
			}
			if !strings.HasPrefix(s.Digest, "sha256:") || len(s.Digest) != len("sha256:")+64 {
				t.Errorf("digest %q", s.Digest)
			}
		})
	}
}

func TestCanonicalDigestIgnoresSpelling(t *testing.T) {
	a := `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer","maximum":1e3}},"required":["a"]}`
	b := "{\n  \"required\": [\"a\"],\n  \"properties\": {\"a\": {\"maximum\": 1e3, \"type\": \"integer\"},\n \"b\": {\"type\": \"string\"}},\n  \"type\": \"object\"\n}"
	c := `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer","maximum":1e3}},"required":["a","b"]}`
	sa, sb, sc := mustParse(t, a), mustParse(t, b), mustParse(t, c)
	if sa.Digest != sb.Digest {
		t.Errorf("key order or whitespace changed the digest:\n%s\n%s", sa.Canonical, sb.Canonical)
	}
	if sa.Digest == sc.Digest {
		t.Error("a different schema has the same digest")
	}
	want := `{"properties":{"a":{"maximum":1e3,"type":"integer"},"b":{"type":"string"}},"required":["a"],"type":"object"}`
	if string(sa.Canonical) != want {
		t.Errorf("canonical\n got %s\nwant %s", sa.Canonical, want)
	}
}

func TestCanonicalKeepsStringsExact(t *testing.T) {
	s := mustParse(t, `{"pattern":"^<a&b>\u00e9\\d$","description":"\"q\"\n"}`)
	want := `{"description":"\"q\"\n","pattern":"^<a&b>é\\d$"}`
	if string(s.Canonical) != want {
		t.Errorf("canonical\n got %s\nwant %s", s.Canonical, want)
	}
}

func TestFromValueDetaches(t *testing.T) {
	doc := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}
	s, err := FromValue(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc["type"] = "array"
	if v, _ := s.At("/type"); v != "object" {
		t.Errorf("loaded schema shares the caller's map: type is now %v", v)
	}
}

func TestResolveAndValidateAt(t *testing.T) {
	s := mustParse(t, `{
		"$defs": {"id": {"$anchor": "ident", "type": "integer", "minimum": 1}},
		"type": "object",
		"properties": {"id": {"$ref": "#/$defs/id"}, "tags": {"type": "array", "items": {"type": "string"}}}
	}`)
	v, ptr, err := s.Resolve("#ident")
	if err != nil || ptr != "/$defs/id" {
		t.Fatalf("Resolve(#ident) = %v, %q, %v", v, ptr, err)
	}
	if _, _, err := s.Resolve("#/properties/nope"); !errors.Is(err, ErrRefUnresolved) {
		t.Errorf("dangling ref: %v", err)
	}
	if _, _, err := s.Resolve("https://x"); !errors.Is(err, ErrRemoteRef) {
		t.Errorf("remote ref: %v", err)
	}
	if err := s.ValidateAt("/properties/tags/items", "x"); err != nil {
		t.Errorf("string against items: %v", err)
	}
	if err := s.ValidateAt("/properties/tags/items", 3); err == nil {
		t.Error("number accepted by string items")
	}
	if err := s.ValidateAt("/properties/id", 0); err == nil {
		t.Error("0 accepted by minimum 1 through $ref")
	}
	if err := s.Validate(map[string]any{"id": 2, "tags": []any{"a"}}); err != nil {
		t.Errorf("valid instance: %v", err)
	}
	if err := s.ValidateAt("/properties/missing", 1); err == nil {
		t.Error("validating at a missing pointer succeeded")
	}
}

func mustParse(t testing.TB, doc string) *Schema {
	t.Helper()
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse(%s): %v", doc, err)
	}
	return s
}

// TestBundledResources: a bundled 2020-12 schema resolves each reference
// against the resource that holds it, as the validator does.
func TestBundledResources(t *testing.T) {
	s, err := Parse([]byte(`{"$id":"https://example.com/root","$defs":{"addr":{"$id":"addr","type":"object","properties":{"zip":{"$ref":"#/$defs/zip"}},"$defs":{"zip":{"type":"string","maxLength":5}}},"zip":{"type":"integer"}},"properties":{"home":{"$ref":"addr"},"code":{"$ref":"#/$defs/zip"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, ref, want string }{
		{"/properties/home", "addr", "/$defs/addr"},
		{"/$defs/addr/properties/zip", "#/$defs/zip", "/$defs/addr/$defs/zip"},
		{"/properties/code", "#/$defs/zip", "/$defs/zip"},
		{"/properties/code", "https://example.com/addr#/$defs/zip", "/$defs/addr/$defs/zip"},
	} {
		_, got, err := s.ResolveFrom(c.from, c.ref)
		if err != nil || got != c.want {
			t.Errorf("%s from %s: %q, %v; want %q", c.ref, c.from, got, err, c.want)
		}
	}
	home := map[string]any{"home": map[string]any{"zip": "1234567"}}
	if s.Validate(home) == nil {
		t.Error("the validator accepts a zip longer than the embedded resource allows")
	}
	if s.Validate(map[string]any{"code": "x"}) == nil {
		t.Error("the validator resolves the root's #/$defs/zip into the embedded resource")
	}
	if s.DynamicScoped() {
		t.Error("no $dynamicRef, yet dynamic scope is reported")
	}
	d, err := Parse([]byte(`{"$defs":{"a":{"$id":"https://x/a","$dynamicAnchor":"m","$dynamicRef":"#m"}},"$dynamicAnchor":"m","$ref":"https://x/a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !d.DynamicScoped() {
		t.Error("a bundle with $dynamicRef is not reported dynamic-scoped")
	}
	if _, _, ok := d.ResolveDynamic("/$defs/a", "#m"); ok {
		t.Error("a scope-dependent $dynamicRef was resolved statically")
	}
}

func TestDerivedBuildsOnce(t *testing.T) {
	s, err := Parse([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	builds := 0
	done := make(chan any)
	for range 4 {
		go func() {
			done <- s.Derived("k", func() any { builds++; return builds })
		}()
	}
	for range 4 {
		if v := <-done; v != 1 {
			t.Errorf("Derived = %v, want the first build's 1", v)
		}
	}
	if other := s.Derived("other", func() any { return "x" }); other != "x" {
		t.Errorf("another key: %v", other)
	}
}
