// Package jcs is the JSON Canonicalization Scheme of RFC 8785: the one
// serialisation of a JSON value that any language reproduces, so a digest
// over it can be recomputed by a router written in anything. Object
// members are sorted by their UTF-16 code units, strings are escaped
// minimally, and numbers are written as ECMAScript writes an IEEE 754
// double.
//
// Input must be I-JSON (RFC 7493): UTF-8, no duplicate member names, no
// lone surrogates, and every number exactly what a double-precision reader
// reads (9007199254740993 or 1.00000000000000001 would silently become
// another number, and two different documents would share one digest).
// Anything else is refused with an error naming it.
package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds nesting, so that no input recurses without limit.
const MaxDepth = 256

// Canonicalize returns the RFC 8785 serialisation of the JSON text data.
func Canonicalize(data []byte) ([]byte, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("jcs: not UTF-8")
	}
	if err := checkSurrogates(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var buf bytes.Buffer
	if err := value(dec, &buf, 0); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("jcs: data after the JSON value")
	}
	return buf.Bytes(), nil
}

func value(dec *json.Decoder, buf *bytes.Buffer, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("jcs: nested more than %d levels", MaxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("jcs: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			buf.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := value(dec, buf, depth+1); err != nil {
					return err
				}
			}
			buf.WriteByte(']')
		} else {
			if err := object(dec, buf, depth); err != nil {
				return err
			}
		}
		_, err := dec.Token() // the closing delimiter
		return err
	case string:
		writeString(buf, t)
	case json.Number:
		s, err := Number(t.String())
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case bool:
		buf.WriteString(strconv.FormatBool(t))
	case nil:
		buf.WriteString("null")
	}
	return nil
}

func object(dec *json.Decoder, buf *bytes.Buffer, depth int) error {
	type member struct {
		key   string
		units []uint16
		value []byte
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("jcs: %w", err)
		}
		key := tok.(string) // the decoder allows nothing else here
		var v bytes.Buffer
		if err := value(dec, &v, depth+1); err != nil {
			return err
		}
		members = append(members, member{key, utf16.Encode([]rune(key)), v.Bytes()})
	}
	slices.SortFunc(members, func(a, b member) int { return slices.Compare(a.units, b.units) })
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			if members[i-1].key == m.key {
				return fmt.Errorf("jcs: member %q appears twice", m.key)
			}
			buf.WriteByte(',')
		}
		writeString(buf, m.key)
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return nil
}

// writeString escapes as RFC 8785 §3.2.2.2 says: '"' and '\', the short
// forms \b \t \n \f \r, other controls as \u00xx, everything else as is.
func writeString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\t':
			buf.WriteString(`\t`)
		case '\n':
			buf.WriteString(`\n`)
		case '\f':
			buf.WriteString(`\f`)
		case '\r':
			buf.WriteString(`\r`)
		default:
			if r < 0x20 {
				fmt.Fprintf(buf, `\u%04x`, r)
			} else {
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

// checkSurrogates refuses a \u escape of a UTF-16 surrogate that is not
// part of a pair: I-JSON forbids it, and decoders disagree on what it
// means (Go reads U+FFFD, JavaScript keeps the lone unit).
func checkSurrogates(data []byte) error {
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\':
			if i+1 < len(data) && data[i+1] == 'u' {
				u, ok := hex4(data, i+2)
				switch {
				case ok && u >= 0xd800 && u < 0xdc00:
					low, ok := uint16(0), i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u'
					if ok {
						low, ok = hex4(data, i+8)
					}
					if !ok || low < 0xdc00 || low >= 0xe000 {
						return fmt.Errorf(`jcs: lone surrogate \u%04x`, u)
					}
					i += 11
					continue
				case ok && u >= 0xdc00 && u < 0xe000:
					return fmt.Errorf(`jcs: lone surrogate \u%04x`, u)
				}
			}
			i++ // whatever is escaped, it does not end the string
		}
	}
	return nil
}

func hex4(data []byte, at int) (uint16, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(data[at:at+4]), 16, 16)
	return uint16(v), err == nil
}

// Number is a JSON number literal as RFC 8785 writes it: the ECMAScript
// serialisation of the double it denotes. A literal the double does not
// denote exactly (out of range, or more precise than a double) is refused.
func Number(literal string) (string, error) {
	f, err := strconv.ParseFloat(literal, 64)
	if err != nil {
		return "", fmt.Errorf("jcs: number %s is outside the range of an IEEE 754 double", literal)
	}
	out := FormatDouble(f)
	if !sameDecimal(literal, out) {
		return "", fmt.Errorf("jcs: number %s is not exactly representable as an IEEE 754 double (it would read as %s)", literal, out)
	}
	return out, nil
}

// FormatDouble is ECMAScript's Number.prototype.toString for a finite f
// (ECMA-262 Number::toString): the shortest digits that read back as f,
// in plain notation for exponents from -6 to 20, else as d.ddde±n.
func FormatDouble(f float64) string {
	if f == 0 {
		return "0" // and -0
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// 'e' with the shortest precision gives "d.dddde±xx".
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1 // the value is 0.digits × 10^n
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	out := sign + digits[:1]
	if k > 1 {
		out += "." + digits[1:]
	}
	if n-1 >= 0 {
		return out + "e+" + strconv.Itoa(n-1)
	}
	return out + "e" + strconv.Itoa(n-1)
}

// sameDecimal reports whether two decimal literals denote the same number,
// comparing their significant digits and scale (no big arithmetic, so a
// huge exponent costs nothing).
func sameDecimal(a, b string) bool {
	na, oka := normalize(a)
	nb, okb := normalize(b)
	return oka && okb && na == nb
}

// normalize writes a decimal literal as sign, significant digits and the
// exponent of the last digit: "-1.50e3" and "-1500" both give "-15e2".
func normalize(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	e := 0
	if hasExp {
		var err error
		if e, err = strconv.Atoi(exp); err != nil || e > 1<<20 || e < -(1<<20) {
			return "", false
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	e -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	e += len(digits) - len(trimmed)
	if trimmed == "" {
		return "0", true // -0 is 0
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.Itoa(e), true
}
