package schema

import (
	"bytes"
	"errors"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{}`, `true`, `{"type":["string","null"]}`, `{"$ref":"#"}`, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}]}`, `{"properties":{"a":{"$ref":"http://x"}}}`,
		`{"pattern":"[a-"}`, `{"enum":[1,"a",null,{"$ref":"x"}]}`, `[[[[`, `{"$defs":{"a":{"$anchor":"x"}},"$ref":"#x"}`, `{"multipleOf":1e-400}`, `{"minimum":1e400}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","id":"http://x/y","definitions":{"a":{"id":"#a","minimum":1,"exclusiveMinimum":true}},"items":{"$ref":"#a"},"const":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not *schema.Error: %v", err, err)
			}
			return
		}
		// A loaded schema's canonical form loads again to the same digest.
		again, err := Parse(s.Canonical)
		if err != nil {
			t.Fatalf("canonical form does not reload: %v\n%s", err, s.Canonical)
		}
		if again.Digest != s.Digest || !bytes.Equal(again.Canonical, s.Canonical) {
			t.Fatalf("canonical form is not a fixed point:\n%s\n%s", s.Canonical, again.Canonical)
		}
		// A draft-04 document's draft-07 reading loads on its own (projections
		// re-load Root).
		if s.Declared == Draft4 {
			if _, err := FromValue(s.Root); err != nil {
				t.Fatalf("the draft-07 reading does not load: %v\n%s", err, data)
			}
		}
	})
}
