package witness

import "testing"

// TestDraft7KeywordsOnly: the search reads a draft-07 source as the
// validator does. dependentRequired is not a draft-07 keyword, so {"a": ""}
// is a draft-07 instance without "b"; before, the search added "b" with
// every "a" (a guard: the mutations found the witness before too).
func TestDraft7KeywordsOnly(t *testing.T) {
	src := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"dependentRequired":{"a":["b"]}}`
	tgt := `{"type":"object","dependentRequired":{"a":["b"]}}`
	f, ok := NewSearcher(untimed, 0).Search(side(t, src, ""), side(t, tgt, ""))
	if !ok {
		t.Fatal("no witness")
	}
	confirm(t, src, "", tgt, "", f)
}
