package compat

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/schema"
)

// metaschemaKeywords lists the keywords the vendored metaschemas of a
// dialect declare (testdata/metaschemas, copied from the validator's
// embedded set): the properties of every vocabulary schema.
func metaschemaKeywords(t *testing.T, dialect string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "metaschemas", dialect, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no metaschemas for %s: %v", dialect, err)
	}
	out := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for k := range doc.Properties {
			out[k] = true
		}
	}
	return out
}

// TestKeywordTableCoversMetaschemas: every keyword of draft 2020-12 and
// draft-07 is classified (modeled, annotation or unmodeled), and nothing
// outside a dialect's metaschemas is classified as one of its keywords.
func TestKeywordTableCoversMetaschemas(t *testing.T) {
	for _, d := range []struct {
		name string
		d7   bool
	}{{"2020-12", false}, {"draft-07", true}} {
		kws := metaschemaKeywords(t, d.name)
		if len(kws) < 40 {
			t.Fatalf("%s: only %d keywords in the metaschemas", d.name, len(kws))
		}
		for _, kw := range slices.Sorted(maps.Keys(kws)) {
			if keywordClass(kw, d.d7) == classUnknown {
				t.Errorf("%s keyword %q is in no column of the keyword table", d.name, kw)
			}
		}
		for _, kw := range slices.Sorted(maps.Keys(keywordTable)) {
			if keywordClass(kw, d.d7) != classUnknown && !kws[kw] {
				t.Errorf("the keyword table classifies %q for %s, whose metaschemas do not have it", kw, d.name)
			}
		}
	}
}

// TestKeywordTableMatchesValidator ties the table's annotations to the
// validator's options: what the table calls an annotation the validator
// never rejects by, and what it calls modeled in one dialect only the
// validator ignores in the other.
func TestKeywordTableMatchesValidator(t *testing.T) {
	const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	cases := []struct {
		keyword string
		d7      bool
		schema  string
		value   any
	}{
		{"format", false, `{"format":"email"}`, "not an email"},
		{"format", true, `{` + d7 + `"format":"email"}`, "not an email"},
		{"contentEncoding", false, `{"contentEncoding":"base64"}`, "!!!"},
		{"contentEncoding", true, `{` + d7 + `"contentEncoding":"base64"}`, "!!!"},
		{"contentMediaType", false, `{"contentMediaType":"application/json"}`, "{"},
		{"contentMediaType", true, `{` + d7 + `"contentMediaType":"application/json"}`, "{"},
		{"contentSchema", false, `{"contentMediaType":"application/json","contentSchema":false}`, "1"},
		{"additionalItems", false, `{"additionalItems":false}`, []any{"x"}},
		{"additionalItems", true, `{` + d7 + `"items":[{}],"additionalItems":false}`, []any{"x", "y"}},
		{"dependentRequired", true, `{` + d7 + `"dependentRequired":{"a":["b"]}}`, map[string]any{"a": 1}},
		{"dependentRequired", false, `{"dependentRequired":{"a":["b"]}}`, map[string]any{"a": 1}},
		{"prefixItems", true, `{` + d7 + `"prefixItems":[false]}`, []any{"x"}},
		{"deprecated", false, `{"deprecated":true,"readOnly":true,"writeOnly":true}`, "x"},
	}
	for _, c := range cases {
		s, err := schema.Parse([]byte(c.schema))
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		rejects := s.Validate(c.value) != nil
		if asserts := asserts(c.keyword, c.d7); rejects != asserts {
			t.Errorf("%s (draft-07 %v): the validator rejects %v: %v, the table says it asserts: %v", c.keyword, c.d7, c.value, rejects, asserts)
		}
	}
}

// TestDraft4ReadsAsDraft07: the checker reads a draft-04 document as its
// draft-07 translation (internal/schema/draft4.go), so the draft-07 column
// is the draft-04 column too: every draft-04 keyword but id (read as $id)
// is classified there, and every draft-07 keyword draft-04 lacks is
// dropped from the reading, as the draft-04 validator ignores it.
func TestDraft4ReadsAsDraft07(t *testing.T) {
	d4 := metaschemaKeywords(t, "draft-04")
	if len(d4) < 30 {
		t.Fatalf("only %d keywords in the draft-04 metaschema", len(d4))
	}
	for _, kw := range slices.Sorted(maps.Keys(d4)) {
		if kw != "id" && keywordClass(kw, true) == classUnknown {
			t.Errorf("draft-04 keyword %q is not classified for draft-07", kw)
		}
	}
	for _, kw := range slices.Sorted(maps.Keys(keywordTable)) {
		if keywordClass(kw, true) == classUnknown || d4[kw] {
			continue
		}
		doc := `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"p":{"` + kw + `":{"type":"string"},"type":"integer"}}}`
		s, err := schema.Parse([]byte(doc))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if _, kept := s.At("/properties/p/" + kw); kept {
			t.Errorf("draft-07 keyword %q, not a draft-04 one, is kept in the draft-04 reading", kw)
		}
		if s.Validate(map[string]any{"p": "x"}) == nil {
			t.Errorf("%s: the validator no longer applies type", doc)
		}
	}
}
