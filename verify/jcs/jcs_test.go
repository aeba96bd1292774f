package jcs

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

// RFC 8785 Appendix B: IEEE 754 bit patterns and their serialisation.
func TestFormatDoubleRFC8785(t *testing.T) {
	for _, tc := range []struct{ bits, want string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	} {
		b, _ := hex.DecodeString(tc.bits)
		f := math.Float64frombits(binary.BigEndian.Uint64(b))
		if got := FormatDouble(f); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.bits, got, tc.want)
		}
		// Every serialisation is itself an exact literal.
		if got, err := Number(tc.want); err != nil || got != tc.want {
			t.Errorf("Number(%s) = %s, %v", tc.want, got, err)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// RFC 8785 §3.2.2's example, with 333333333.33333329 written as the
		// double it reads as (the original is refused below).
		{`{
  "numbers": [333333333.3333333, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`, `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
		// §3.2.3: members sorted by UTF-16 code units, so U+1F600 (a
		// surrogate pair, 0xD83D…) sorts before U+FB33 though its UTF-8
		// is greater.
		{`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			`{"\r":"Carriage Return","1":"One","` + "\u0080" + `":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face","` + "\ufb33" + `":"Hebrew Letter Dalet With Dagesh"}`},
		{`{"b":[1,{"d":-0.0,"c":1.5e1}],"a":"<&>\u2028"}`, `{"a":"<&>` + "\u2028" + `","b":[1,{"c":15,"d":0}]}`},
		{` [ ] `, `[]`},
		{`"\u001f\u007f"`, `"\u001f` + "\x7f" + `"`},
		{`9007199254740991`, `9007199254740991`},
		{`1.0`, `1`},
		{`100e-2`, `1`},
		{`0.1`, `0.1`},
	} {
		got, err := Canonicalize([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Canonicalize(%s)\n got %s, %v\nwant %s", tc.in, got, err, tc.want)
		}
	}
}

func TestCanonicalizeRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`333333333.33333329`, "not exactly representable"},
		{`9007199254740993`, "not exactly representable"},
		{`1.00000000000000001`, "not exactly representable"},
		{`1e400`, "outside the range"},
		{`1e-400`, "not exactly representable"},
		{`{"a":1,"a":2}`, `member "a" appears twice`},
		{`"\ud800"`, "lone surrogate"},
		{`"\udc00x"`, "lone surrogate"},
		{`"\ud800\u0041"`, "lone surrogate"},
		{"\"\xff\"", "not UTF-8"},
		{`{} {}`, "data after"},
		{`{"a":}`, "jcs:"},
		{strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2), "nested more than"},
	} {
		if got, err := Canonicalize([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Canonicalize(%.40s) = %s, %v; want an error with %q", tc.in, got, err, tc.want)
		}
	}
	// An escaped backslash before "u" is no escape.
	if _, err := Canonicalize([]byte(`"\\ud800"`)); err != nil {
		t.Errorf(`"\\ud800": %v`, err)
	}
}

// FuzzCanonicalize: no input panics; what is accepted is a fixed point.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `1e21`, `-0.000001`, `"\ud83d\ude00"`, `{"a":{"b":{}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Canonicalize([]byte(in))
		if err != nil {
			return
		}
		again, err := Canonicalize(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not a fixed point: %s -> %s -> %s, %v", in, out, again, err)
		}
	})
}
