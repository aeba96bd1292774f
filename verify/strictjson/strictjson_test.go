package strictjson

import (
	"strings"
	"testing"
	"unicode"
)

func TestObject(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"a":1,"b":{"a":1,"a":2}}`, ""}, // values are not looked into
		{` {"name":"x"} `, ""},
		{`{"name":"a","Name":"b"}`, `member "Name" appears twice`},
		{`{"k":1,"\u212a":2}`, "appears twice"}, // the Kelvin sign folds as k
		{`{} {}`, "data after"},
		{`[]`, "not a JSON object"},
		{`{"a":}`, "invalid"},
	} {
		_, err := Object([]byte(c.in))
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Object(%s): %v, want %q", c.in, err, c.err)
		}
	}
}

func TestMemberAndExact(t *testing.T) {
	obj, err := Object([]byte(`{"Method":"tools/call","id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := Member(obj, "method"); !ok || string(v) != `"tools/call"` {
		t.Errorf("Member(method) = %s %v", v, ok)
	}
	if _, ok := Member(obj, "params"); ok {
		t.Error("Member(params) found")
	}
	if err := Exact(obj, "method", "id"); err == nil || !strings.Contains(err.Error(), `"Method", not "method"`) {
		t.Errorf("Exact: %v", err)
	}
	if err := Exact(obj, "id"); err != nil {
		t.Errorf("Exact(id): %v", err)
	}
	if FoldKey("K") != FoldKey("k") || FoldKey("K") != FoldKey("\u212a") {
		t.Error("FoldKey does not fold the Kelvin sign with k")
	}
}

// FoldKey's ASCII shortcut folds as the Unicode orbits do.
func TestFoldKeyASCII(t *testing.T) {
	for c := rune(0); c < 0x80; c++ {
		least := c
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		if got := FoldKey(string(c)); got != string(least) {
			t.Errorf("FoldKey(%q) = %q, want %q", c, got, least)
		}
	}
	if FoldKey("k") != FoldKey("\u212a") || FoldKey("s") != FoldKey("\u017f") || FoldKey("Name") != FoldKey("nAME") {
		t.Error("k, s or a name folds apart from its orbit")
	}
}

// FoldEqual is FoldKey's equality, for every pair of ASCII runes and for
// names mixing ASCII with the runes folding into it.
func TestFoldEqual(t *testing.T) {
	for a := rune(0); a < 0x80; a++ {
		for b := rune(0); b < 0x80; b++ {
			if got, want := FoldEqual(string(a), string(b)), FoldKey(string(a)) == FoldKey(string(b)); got != want {
				t.Errorf("FoldEqual(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{{"name", "NAME", true}, {"name", "names", false}, {"k", "\u212a", true}, {"S", "\u017f", true},
		{"\u00e9", "\u00c9", true}, {"\u00e9", "e", false}, {"", "", true}, {"a", "", false}} {
		if FoldEqual(c.a, c.b) != c.want || FoldEqual([]byte(c.a), []byte(c.b)) != c.want {
			t.Errorf("FoldEqual(%q, %q) != %v", c.a, c.b, c.want)
		}
	}
}
