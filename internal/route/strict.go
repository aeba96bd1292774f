package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/typeward/typeward/verify/strictjson"
)

// The router must read a message as every peer behind or before it will.
// JSON parsers disagree on a member given twice (first or last wins, or
// an error) and on case: Go's encoding/json matches member names without
// regard to case, most others exactly. So the messages the router acts on
// are read strictly: UTF-8 only, no object with a member twice (names
// compared folded) at any depth, and a member the router reads must be
// spelt exactly (a "RESULT" or "isError" in another case is refused, not
// ignored by one peer and obeyed by another).

// errAmbiguous is a message peers could read differently.
var errAmbiguous = errors.New("ambiguous JSON")

// checkStrict refuses data unless it is one JSON value, UTF-8, and no
// object in it, at any depth, has a member twice. It walks the tokens iteratively: its cost is
// linear, whatever the nesting.
func checkStrict(data []byte) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: not UTF-8", errAmbiguous)
	}
	if err := checkSurrogates(data); err != nil {
		return err
	}
	type frame struct {
		keys map[string]struct{} // nil for an array
		key  bool                // an object expecting a member name
	}
	var stack []*frame
	values := 0 // top-level values
	valueDone := func() {
		if n := len(stack); n == 0 {
			values++
		} else if stack[n-1].keys != nil {
			stack[n-1].key = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		if len(stack) == 0 && values == 1 {
			if _, err := dec.Token(); err != io.EOF {
				return fmt.Errorf("%w: data after the JSON value", errAmbiguous)
			}
			return nil
		}
		tok, err := dec.Token()
		if err == io.EOF {
			return fmt.Errorf("%w: unexpected end of JSON input", errAmbiguous)
		}
		if err != nil {
			return fmt.Errorf("%w: %v", errAmbiguous, err)
		}
		if n := len(stack); n > 0 && stack[n-1].key {
			top := stack[n-1]
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			name, _ := tok.(string)
			k := strictjson.FoldKey(name)
			if _, dup := top.keys[k]; dup {
				return fmt.Errorf("%w: member %q appears twice in an object", errAmbiguous, name)
			}
			top.keys[k], top.key = struct{}{}, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]struct{}{}, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			if n, ok := tok.(json.Number); ok {
				if err := checkNumber(n); err != nil {
					return err
				}
			}
			valueDone()
		}
	}
}

// checkNumber refuses a number outside float64's range: past its largest
// magnitude (1e400: Infinity to JavaScript, an error to Go, exact to the
// validator) or so small it reads as 0 (1e-400). Peers read those
// differently, and their exponents are what makes the validator's exact
// arithmetic costly (1e999999 or 1e-999999 take ~20 ms each as a big.Rat,
// and the "integer" check makes one of every number).
func checkNumber(n json.Number) error {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || (f == 0 && strings.ContainsAny(mantissa(string(n)), "123456789")) {
		return fmt.Errorf("%w: number %.40s is outside the range of a 64-bit float", errAmbiguous, n)
	}
	return nil
}

// mantissa is a JSON number's digits before its exponent.
func mantissa(n string) string {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		return n[:i]
	}
	return n
}

// strictObject is a JSON object's members by exact name: data must be one
// object passing checkStrict, and no member's name may fold to one of
// known without being it.
func strictObject(data []byte, known ...string) (map[string]json.RawMessage, error) {
	if err := checkStrict(data); err != nil {
		return nil, err
	}
	out, err := strictjson.Object(data)
	if err == nil {
		err = strictjson.Exact(out, known...)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errAmbiguous, err)
	}
	return out, nil
}

// rpcMembers are the members of a JSON-RPC message the router reads.
var rpcMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// parseMessage reads one JSON-RPC message strictly.
func parseMessage(data []byte) (*rpcMessage, error) {
	obj, err := strictObject(data, rpcMembers...)
	if err != nil {
		return nil, err
	}
	msg := &rpcMessage{ID: obj["id"], Params: obj["params"], Result: obj["result"], Error: obj["error"]}
	if raw, ok := obj["method"]; ok {
		if json.Unmarshal(raw, &msg.Method) != nil {
			return nil, fmt.Errorf("%w: method is not a string", errAmbiguous)
		}
	}
	if raw, ok := obj["jsonrpc"]; ok {
		_ = json.Unmarshal(raw, &msg.JSONRPC)
	}
	msg.members = obj
	return msg, nil
}

// checkSurrogates refuses a string escape of a lone UTF-16 surrogate
// ("\ud800" unpaired): Go reads it as U+FFFD, JavaScript and Python keep
// the surrogate, so the router would validate another string than the
// upstream gets.
func checkSurrogates(data []byte) error {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 < len(data) && data[i+1] == 'u' {
				r, ok := hex4(data, i+2)
				switch {
				case ok && r >= 0xd800 && r < 0xdc00:
					// A high surrogate must be followed by a low one.
					if lo, ok := hex4(data, i+8); i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' && ok && lo >= 0xdc00 && lo < 0xe000 {
						i += 11
						continue
					}
					return fmt.Errorf("%w: a lone UTF-16 surrogate escape", errAmbiguous)
				case ok && r >= 0xdc00 && r < 0xe000:
					return fmt.Errorf("%w: a lone UTF-16 surrogate escape", errAmbiguous)
				}
			}
			i++ // the escaped character
		}
	}
	return nil
}

// hex4 reads the four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(data[i:i+4]), 16, 16)
	return rune(n), err == nil
}
