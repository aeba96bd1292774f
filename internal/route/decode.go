package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// decodeArguments decodes a JSON value of a checked message (arguments,
// a structuredContent) keeping numbers exact; absent arguments are the
// empty object. It is what encoding/json with UseNumber reads, built in
// one pass over the bytes checkStrict passed; anything else (not UTF-8,
// deeper than encoding/json goes, data after the value) is left to
// encoding/json, for its answer.
func decodeArguments(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	// Not UTF-8: encoding/json replaces what is not.
	if sc := (scanner{data: raw}); utf8.Valid(raw) {
		if v, err := sc.value(0); err == nil && sc.peek() == 0 && sc.i == len(raw) {
			return v, nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// maxDecodeDepth is encoding/json's bound of nested arrays and objects.
const maxDecodeDepth = 10000

var errTooDeep = errors.New("nested too deeply")

// value decodes the value at sc.i: objects as map[string]any, arrays as
// []any, numbers as json.Number, as encoding/json does.
func (sc *scanner) value(depth int) (any, error) {
	c := sc.peek()
	if (c == '{' || c == '[') && depth >= maxDecodeDepth {
		return nil, errTooDeep
	}
	switch {
	case c == '{':
		sc.i++
		m := map[string]any{}
		if sc.peek() == '}' {
			sc.i++
			return m, nil
		}
		for {
			if sc.peek() != '"' {
				return nil, errSyntax
			}
			k, err := sc.str(true)
			if err != nil {
				return nil, err
			}
			if sc.peek() != ':' {
				return nil, errSyntax
			}
			sc.i++
			v, err := sc.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[string(k)] = v
			switch sc.peek() {
			case ',':
				sc.i++
			case '}':
				sc.i++
				return m, nil
			default:
				return nil, errSyntax
			}
		}
	case c == '[':
		sc.i++
		a := []any{}
		if sc.peek() == ']' {
			sc.i++
			return a, nil
		}
		for {
			v, err := sc.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			switch sc.peek() {
			case ',':
				sc.i++
			case ']':
				sc.i++
				return a, nil
			default:
				return nil, errSyntax
			}
		}
	case c == '"':
		s, err := sc.str(true)
		return string(s), err
	case c == '-' || c >= '0' && c <= '9':
		start := sc.i
		if err := sc.number(); err != nil {
			return nil, err
		}
		return json.Number(sc.data[start:sc.i]), nil
	}
	for _, lit := range []struct {
		s string
		v any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if bytes.HasPrefix(sc.data[sc.i:], []byte(lit.s)) {
			sc.i += len(lit.s)
			return lit.v, nil
		}
	}
	return nil, errSyntax
}
