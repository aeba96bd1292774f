package clients_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/clients"
)

func testHasher(t testing.TB) *clients.Hasher {
	t.Helper()
	h, err := clients.NewHasher(bytes.Repeat([]byte{7}, clients.PepperBytes))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestGenerateSecretHas256Bits(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		s := clients.GenerateSecret()
		raw, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("secret %q is not unpadded base64url: %v", s, err)
		}
		if len(raw) != 32 {
			t.Fatalf("secret carries %d bytes, want 32", len(raw))
		}
		if seen[s] {
			t.Fatalf("secret %q generated twice", s)
		}
		seen[s] = true
	}
}

func TestGenerateIDIsHex128(t *testing.T) {
	id := clients.GenerateID()
	if raw, err := hex.DecodeString(id); err != nil || len(raw) != 16 {
		t.Errorf("id %q: %d bytes, %v", id, len(raw), err)
	}
	if clients.GenerateID() == id {
		t.Error("two ids are equal")
	}
}

func TestHasherVerify(t *testing.T) {
	h := testHasher(t)
	stored := h.Hash("client-a", "s3cret")
	other, _ := clients.NewHasher(bytes.Repeat([]byte{8}, clients.PepperBytes))
	for _, tc := range []struct {
		name           string
		h              *clients.Hasher
		id, secret     string
		stored         []byte
		wantVerifiable bool
	}{
		{"right secret", h, "client-a", "s3cret", stored, true},
		{"wrong secret", h, "client-a", "s3creT", stored, false},
		{"empty secret", h, "client-a", "", stored, false},
		{"hash copied onto another client", h, "client-b", "s3cret", stored, false},
		{"other pepper", other, "client-a", "s3cret", stored, false},
		{"no stored hash", h, "client-a", "s3cret", nil, false},
		{"truncated stored hash", h, "client-a", "s3cret", stored[:16], false},
		// The dummy is Hash("", ""): it must never verify as a real hash.
		{"dummy inputs without a hash", h, "", "", nil, false},
	} {
		if got := tc.h.Verify(tc.id, tc.secret, tc.stored); got != tc.wantVerifiable {
			t.Errorf("%s: Verify = %v, want %v", tc.name, got, tc.wantVerifiable)
		}
	}
	// The id is length-prefixed: ("ab","c") and ("a","bc") differ.
	if bytes.Equal(h.Hash("ab", "c"), h.Hash("a", "bc")) {
		t.Error("hash does not separate id from secret")
	}
}

func TestNewHasherRejectsShortPepper(t *testing.T) {
	if _, err := clients.NewHasher(make([]byte, clients.PepperBytes-1)); err == nil || !strings.Contains(err.Error(), "need at least 32") {
		t.Errorf("err = %v", err)
	}
}

func TestParsePepper(t *testing.T) {
	key := bytes.Repeat([]byte{0xfb}, 32) // 0xfb makes '+' '/' vs '-' '_' differ
	for _, tc := range []struct {
		name, in, wantErr string
	}{
		{"std padded", base64.StdEncoding.EncodeToString(key), ""},
		{"std raw", base64.RawStdEncoding.EncodeToString(key), ""},
		{"url padded", base64.URLEncoding.EncodeToString(key), ""},
		{"url raw with newline", base64.RawURLEncoding.EncodeToString(key) + "\n", ""},
		{"empty", "  ", "client secret pepper is empty"},
		{"not base64", "this is not base64!", "client secret pepper is not base64"},
		{"too short", base64.StdEncoding.EncodeToString(key[:16]), "client secret pepper: 16 bytes, need at least 32"},
	} {
		got, err := clients.ParsePepper(tc.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != tc.wantErr {
			t.Errorf("%s: err = %q, want %q", tc.name, msg, tc.wantErr)
		}
		if tc.wantErr == "" && !bytes.Equal(got, key) {
			t.Errorf("%s: decoded %x", tc.name, got)
		}
	}
}

// Whatever TYPEWARD_CLIENT_SECRET_PEPPER holds, parsing never panics, and a
// pepper it accepts keys a Hasher.
func FuzzParsePepper(f *testing.F) {
	f.Add("")
	f.Add(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, clients.PepperBytes)))
	f.Add(base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfe}, clients.PepperBytes+5)))
	f.Add(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, clients.PepperBytes-1)))
	f.Add("not base64 at all!")
	f.Fuzz(func(t *testing.T, s string) {
		pepper, err := clients.ParsePepper(s)
		if err != nil {
			return
		}
		h, err := clients.NewHasher(pepper)
		if err != nil {
			t.Fatalf("ParsePepper accepted %q but NewHasher refuses it: %v", s, err)
		}
		if !h.Verify("id", "secret", h.Hash("id", "secret")) {
			t.Fatal("a hash does not verify")
		}
	})
}
