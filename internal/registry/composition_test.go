package registry_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/typeward/typeward/internal/registry"
)

// A stored composition's definition is any JSON object: the digest is
// refused with ErrInvalidComposition or it ignores spelling (key order,
// whitespace), so the same definition re-encoded keeps its digest.
func FuzzCompositionDigest(f *testing.F) {
	for _, seed := range []string{
		`{"edges":[{"from":"a","to":"b","map":{"x":"y"}}]}`,
		` { "b" : 1.50, "a" : [true, null] } `,
		`[]`, `{"a":`, ``, `{"a":1}{}`, "{\"a\":\"\xff\"}", `{"n":1e400}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, def string) {
		digest, err := registry.CompositionDigest("c", []byte(def))
		if err != nil {
			if !errors.Is(err, registry.ErrInvalidComposition) {
				t.Fatalf("error %v does not wrap ErrInvalidComposition", err)
			}
			return
		}
		trimmed := bytes.TrimSpace([]byte(def))
		if trimmed[0] != '{' || !utf8.Valid(trimmed) {
			t.Fatalf("accepted %q, which is not a UTF-8 JSON object", def)
		}
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("accepted %q, which does not decode: %v", def, err)
		}
		respelled, err := json.MarshalIndent(v, "", "   ")
		if err != nil {
			t.Fatal(err)
		}
		again, err := registry.CompositionDigest("c", respelled)
		if err != nil || again != digest {
			t.Fatalf("%q respelled as %s: digest %s, %v; want %s", def, respelled, again, err, digest)
		}
	})
}
