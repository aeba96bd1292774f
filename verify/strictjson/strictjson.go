// Package strictjson reads JSON objects as every peer will. JSON parsers
// disagree on a member given twice (the first or the last wins, or an
// error) and on case: Go's encoding/json matches member names without
// regard to case, most others exactly. A reader that must see what the
// peers behind it see refuses both. Package verify and typeward route
// read JSON-RPC messages through it.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// FoldKey maps s to one representative of its case-folding class: each
// rune becomes the least rune of its Unicode simple folding orbit ("K",
// "k" and the Kelvin sign all become "K"), so two names fold alike
// exactly when encoding/json would match one against the other.
func FoldKey(s string) string {
	if ascii(s) {
		// An ASCII letter's orbit is its two cases (and, for k and s, a
		// rune above ASCII): the least is the upper case.
		return strings.ToUpper(s)
	}
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

func ascii[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FoldEqual reports FoldKey(a) == FoldKey(b) without building either key
// when both are ASCII (compared upper-cased in place): a reader checking
// every member name allocates nothing for them.
func FoldEqual[T string | []byte](a, b T) bool {
	if !ascii(a) || !ascii(b) {
		return FoldKey(string(a)) == FoldKey(string(b))
	}
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Object splits one JSON object into its members, by their exact names.
// It refuses anything but one object, data after it, and two members
// whose names fold alike (FoldKey): {"name":"a","Name":"b"} is a
// duplicate to encoding/json. Values are not looked into.
func Object(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := map[string]json.RawMessage{}
	folded := map[string]struct{}{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		k := FoldKey(name)
		if _, dup := folded[k]; dup {
			return nil, fmt.Errorf("member %q appears twice in an object", name)
		}
		folded[k], out[name] = struct{}{}, value
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// Member is the member of obj (from Object) whose name folds as name
// does, as encoding/json finds it; Object keeps at most one.
func Member(obj map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	k := FoldKey(name)
	for n, v := range obj {
		if FoldKey(n) == k {
			return v, true
		}
	}
	return nil, false
}

// Exact refuses a member of obj whose name folds as one of names does
// without being it ("RESULT" for "result"): one peer would ignore it and
// another obey it.
func Exact(obj map[string]json.RawMessage, names ...string) error {
	for n := range obj {
		for _, k := range names {
			if n != k && FoldEqual(n, k) {
				return fmt.Errorf("member %q, not %q", n, k)
			}
		}
	}
	return nil
}
