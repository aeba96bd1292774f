package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
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
// object in it, at any depth, has a member twice (names compared folded,
// strictjson.FoldKey), no string escapes a lone surrogate and no number
// is outside a 64-bit float's range. One pass over the bytes, with an
// explicit stack: its cost is linear whatever the nesting, and it
// allocates only for objects' member names.
func checkStrict(data []byte) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: not UTF-8", errAmbiguous)
	}
	sc := scanner{data: data, stack: make([]scanFrame, 0, 8), names: make([][]byte, 0, 32)}
	err := sc.run()
	if err == nil || errors.Is(err, errAmbiguous) {
		return err
	}
	return fmt.Errorf("%w: %v", errAmbiguous, err)
}

// scanner walks one JSON text for checkStrict.
type scanner struct {
	data  []byte
	i     int
	stack []scanFrame
	// names are the member names of the open objects, each object's from
	// its frame's first on: slices of data (decoded when escaped), so a
	// name costs no allocation.
	names [][]byte
}

// scanFrame is an open array, or an open object and where its member
// names start in names.
type scanFrame struct {
	object bool
	first  int
}

var errSyntax = errors.New("invalid JSON")

func (sc *scanner) ws() {
	for sc.i < len(sc.data) {
		switch sc.data[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

func (sc *scanner) peek() byte {
	sc.ws()
	if sc.i < len(sc.data) {
		return sc.data[sc.i]
	}
	return 0
}

func (sc *scanner) run() error {
	for {
		// A value.
		switch c := sc.peek(); {
		case c == '{':
			sc.i++
			sc.stack = append(sc.stack, scanFrame{object: true, first: len(sc.names)})
			if sc.peek() == '}' {
				sc.i++
				sc.stack = sc.stack[:len(sc.stack)-1]
				break
			}
			if err := sc.member(); err != nil {
				return err
			}
			continue
		case c == '[':
			sc.i++
			sc.stack = append(sc.stack, scanFrame{})
			if sc.peek() == ']' {
				sc.i++
				sc.stack = sc.stack[:len(sc.stack)-1]
				break
			}
			continue
		case c == '"':
			if _, err := sc.str(false); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			if err := sc.number(); err != nil {
				return err
			}
		default:
			if err := sc.literal(); err != nil {
				return err
			}
		}
		// After a value: close what it ends, or go on to the next.
		for {
			n := len(sc.stack)
			if n == 0 {
				if sc.peek() != 0 || sc.i != len(sc.data) {
					return errors.New("data after the JSON value")
				}
				return nil
			}
			top := &sc.stack[n-1]
			c := sc.peek()
			switch {
			case c == ',':
				sc.i++
				if top.object {
					if err := sc.member(); err != nil {
						return err
					}
				}
			case c == '}' && top.object, c == ']' && !top.object:
				sc.i++
				if top.object {
					sc.names = sc.names[:top.first]
				}
				sc.stack = sc.stack[:n-1]
				continue
			default:
				return errSyntax
			}
			break
		}
	}
}

// member reads an object's member name and its colon.
func (sc *scanner) member() error {
	if sc.peek() != '"' {
		return errSyntax
	}
	name, err := sc.str(true)
	if err != nil {
		return err
	}
	if sc.peek() != ':' {
		return errSyntax
	}
	sc.i++
	top := &sc.stack[len(sc.stack)-1]
	for _, n := range sc.names[top.first:] {
		if strictjson.FoldEqual(n, name) {
			return fmt.Errorf("member %q appears twice in an object", name)
		}
	}
	sc.names = append(sc.names, name)
	return nil
}

// str reads a string at sc.i, refusing control characters, bad escapes
// and lone surrogates; with decode, it returns its contents.
func (sc *scanner) str(decode bool) ([]byte, error) {
	start := sc.i
	sc.i++
	escaped := false
	for sc.i < len(sc.data) {
		c := sc.data[sc.i]
		switch {
		case c == '"':
			sc.i++
			raw := sc.data[start:sc.i]
			if !decode || !escaped {
				return raw[1 : len(raw)-1], nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, err
			}
			return []byte(s), nil
		case c < 0x20:
			return nil, errors.New("a control character in a string")
		case c == '\\':
			escaped = true
			if sc.i+1 >= len(sc.data) {
				return nil, errSyntax
			}
			switch sc.data[sc.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.i += 2
			case 'u':
				r, ok := hex4(sc.data, sc.i+2)
				if !ok {
					return nil, errSyntax
				}
				switch {
				case r >= 0xd800 && r < 0xdc00:
					// A high surrogate must be followed by a low one.
					lo, ok := hex4(sc.data, sc.i+8)
					if sc.i+7 >= len(sc.data) || sc.data[sc.i+6] != '\\' || sc.data[sc.i+7] != 'u' || !ok || lo < 0xdc00 || lo >= 0xe000 {
						return nil, errors.New("a lone UTF-16 surrogate escape")
					}
					sc.i += 12
				case r >= 0xdc00 && r < 0xe000:
					return nil, errors.New("a lone UTF-16 surrogate escape")
				default:
					sc.i += 6
				}
			default:
				return nil, errSyntax
			}
		default:
			sc.i++
		}
	}
	return nil, errors.New("unexpected end of JSON input")
}

// number reads a number and refuses one outside float64's range (checkNumber).
func (sc *scanner) number() error {
	start := sc.i
	digits := func() int {
		n := 0
		for sc.i < len(sc.data) && sc.data[sc.i] >= '0' && sc.data[sc.i] <= '9' {
			sc.i++
			n++
		}
		return n
	}
	if sc.data[sc.i] == '-' {
		sc.i++
	}
	if sc.i < len(sc.data) && sc.data[sc.i] == '0' {
		sc.i++
	} else if digits() == 0 {
		return errSyntax
	}
	exp := false
	if sc.i < len(sc.data) && sc.data[sc.i] == '.' {
		sc.i++
		if digits() == 0 {
			return errSyntax
		}
	}
	if sc.i < len(sc.data) && (sc.data[sc.i] == 'e' || sc.data[sc.i] == 'E') {
		exp = true
		sc.i++
		if sc.i < len(sc.data) && (sc.data[sc.i] == '+' || sc.data[sc.i] == '-') {
			sc.i++
		}
		if digits() == 0 {
			return errSyntax
		}
	}
	if !exp && sc.i-start <= 300 {
		return nil // no exponent, at most 300 characters: within range, and not 0 unless it is
	}
	return checkNumber(json.Number(sc.data[start:sc.i]))
}

// literal reads true, false or null.
func (sc *scanner) literal() error {
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(sc.data[sc.i:], []byte(lit)) {
			sc.i += len(lit)
			return nil
		}
	}
	if sc.i >= len(sc.data) {
		return errors.New("unexpected end of JSON input")
	}
	return errSyntax
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
// object, and no member's name may fold to one of known without being it.
// data is part of a message checkStrict passed (parseMessage): valid JSON
// with no member twice, so it is split in one pass, not validated again.
func strictObject(data []byte, known ...string) (map[string]json.RawMessage, error) {
	out, err := splitObject(data)
	if err == nil {
		err = strictjson.Exact(out, known...)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errAmbiguous, err)
	}
	return out, nil
}

// splitObject splits a checked JSON object into its members.
func splitObject(data []byte) (map[string]json.RawMessage, error) {
	sc := scanner{data: data}
	if sc.peek() != '{' {
		return nil, errors.New("not a JSON object")
	}
	sc.i++
	out := map[string]json.RawMessage{}
	if sc.peek() == '}' {
		return out, nil
	}
	for {
		if sc.peek() != '"' {
			return nil, errSyntax
		}
		name, err := sc.str(true)
		if err != nil {
			return nil, err
		}
		if sc.peek() != ':' {
			return nil, errSyntax
		}
		sc.i++
		sc.ws()
		start := sc.i
		if err := sc.skip(); err != nil {
			return nil, err
		}
		out[string(name)] = data[start:sc.i]
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			return out, nil
		default:
			return nil, errSyntax
		}
	}
}

// splitArray splits a checked JSON array into its elements.
func splitArray(data []byte) ([]json.RawMessage, error) {
	sc := scanner{data: data}
	if sc.peek() != '[' {
		return nil, errors.New("not a JSON array")
	}
	sc.i++
	var out []json.RawMessage
	if sc.peek() == ']' {
		return out, nil
	}
	for {
		sc.ws()
		start := sc.i
		if err := sc.skip(); err != nil {
			return nil, err
		}
		out = append(out, data[start:sc.i])
		switch sc.peek() {
		case ',':
			sc.i++
		case ']':
			return out, nil
		default:
			return nil, errSyntax
		}
	}
}

// stringIs reports whether raw, a JSON string of a checked message, reads
// as want, without decoding it: false for anything else (a reader then
// decodes it).
func stringIs(raw, want []byte) bool {
	raw = bytes.Trim(raw, " \t\n\r")
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	raw = raw[1 : len(raw)-1]
	j := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			if j >= len(want) || want[j] != c {
				return false
			}
			i, j = i+1, j+1
			continue
		}
		if i+1 >= len(raw) {
			return false
		}
		var r rune
		switch raw[i+1] {
		case '"', '\\', '/':
			r = rune(raw[i+1])
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			hi, ok := hex4(raw, i+2)
			if !ok {
				return false
			}
			r, i = hi, i+4
			if hi >= 0xd800 && hi < 0xe000 {
				lo, ok := hex4(raw, i+4)
				if !ok || hi >= 0xdc00 || raw[i+2] != '\\' || raw[i+3] != 'u' || lo < 0xdc00 || lo >= 0xe000 {
					return false
				}
				r, i = utf16.DecodeRune(hi, lo), i+6
			}
		default:
			return false
		}
		i += 2
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		if j+n > len(want) || !bytes.Equal(want[j:j+n], buf[:n]) {
			return false
		}
		j += n
	}
	return j == len(want)
}

// skip moves past one value of checked JSON, tracking only strings and
// nesting.
func (sc *scanner) skip() error {
	depth := 0
	for sc.i < len(sc.data) {
		switch c := sc.data[sc.i]; c {
		case '"':
			if _, err := sc.str(false); err != nil {
				return err
			}
			if depth == 0 {
				return nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return nil // the end of the object holding a bare value
			}
			if depth--; depth == 0 {
				sc.i++
				return nil
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return nil
			}
		}
		sc.i++
	}
	if depth != 0 {
		return errors.New("unexpected end of JSON input")
	}
	return nil
}

// rpcMembers are the members of a JSON-RPC message the router reads.
var rpcMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// parseMessage reads one JSON-RPC message strictly.
func parseMessage(data []byte) (*rpcMessage, error) {
	if err := checkStrict(data); err != nil {
		return nil, err
	}
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

// hex4 reads the four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(data[i:i+4]), 16, 16)
	return rune(n), err == nil
}
