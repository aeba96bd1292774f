package verify_test

import (
	"encoding/base64"
	"strings"
	"testing"
)

func decodeSeg(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func encodeSeg(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func kidOf(t *testing.T, tok string) string {
	t.Helper()
	h := decodeSeg(t, strings.Split(tok, ".")[0])
	_, after, _ := strings.Cut(h, `"kid":"`)
	kid, _, _ := strings.Cut(after, `"`)
	return kid
}
