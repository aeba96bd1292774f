package keys

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func TestParseKEK(t *testing.T) {
	raw := bytes.Repeat([]byte{0xab}, KEKSize)
	want, err := NewKEK(raw)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      string
		wantErr string // "" for success
	}{
		{"hex", hex.EncodeToString(raw), ""},
		{"hex upper with newline", strings.ToUpper(hex.EncodeToString(raw)) + "\n", ""},
		{"base64 std", base64.StdEncoding.EncodeToString(raw), ""},
		{"base64 raw url", base64.RawURLEncoding.EncodeToString(raw), ""},
		{"empty", "  ", "empty"},
		{"short hex", hex.EncodeToString(raw[:16]), "decodes to 24 bytes, want 32"},
		{"long base64", base64.StdEncoding.EncodeToString(append(raw, 1)), "decodes to 33 bytes, want 32"},
		{"garbage", "not a key!", "neither 64 hex digits nor base64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKEK(tc.in)
			if tc.wantErr == "" {
				if err != nil || got.ID() != want.ID() {
					t.Fatalf("ParseKEK = %v, %v; want KEK %s", got, err, want.ID())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ParseKEK error = %v, want one containing %q", err, tc.wantErr)
			}
			if strings.TrimSpace(tc.in) != "" && strings.Contains(err.Error(), strings.TrimSpace(tc.in)) {
				t.Errorf("the error echoes the key: %v", err)
			}
		})
	}
}

func TestSealOpen(t *testing.T) {
	kek, _ := NewKEK(bytes.Repeat([]byte{1}, KEKSize))
	other, _ := NewKEK(bytes.Repeat([]byte{2}, KEKSize))
	secret := []byte("pkcs8 private key")
	sealed, err := kek.seal("kid-1", secret)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, secret) {
		t.Fatal("sealed bytes contain the plaintext")
	}
	again, _ := kek.seal("kid-1", secret)
	if bytes.Equal(sealed, again) {
		t.Fatal("two seals of one key are identical: nonce reuse")
	}
	good := Record{KID: "kid-1", KEKID: kek.ID(), Sealed: sealed}

	got, err := kek.open(&good)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open = %q, %v; want the plaintext", got, err)
	}

	flipped := append([]byte(nil), sealed...)
	flipped[len(flipped)-1] ^= 1
	tests := []struct {
		name    string
		kek     *KEK
		rec     Record
		wrong   bool // ErrWrongKEK expected
		wantErr string
	}{
		{"other KEK", other, good, true, "sealed under " + kek.ID() + " but the configured TYPEWARD_KEY_ENCRYPTION_KEY is " + other.ID()},
		{"other KEK claiming this id", other, Record{KID: "kid-1", KEKID: other.ID(), Sealed: sealed}, false, "does not decrypt"},
		{"moved to another kid", kek, Record{KID: "kid-2", KEKID: kek.ID(), Sealed: sealed}, false, "does not decrypt"},
		{"tampered", kek, Record{KID: "kid-1", KEKID: kek.ID(), Sealed: flipped}, false, "does not decrypt"},
		{"truncated", kek, Record{KID: "kid-1", KEKID: kek.ID(), Sealed: sealed[:10]}, false, "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.kek.open(&tc.rec)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, ErrWrongKEK) != tc.wrong {
				t.Fatalf("open error = %v; want one containing %q (ErrWrongKEK: %v)", err, tc.wantErr, tc.wrong)
			}
		})
	}
}

// Whatever TYPEWARD_KEY_ENCRYPTION_KEY holds, parsing never panics, and a
// key it accepts is 32 bytes that seal and open, with a stable id.
func FuzzParseKEK(f *testing.F) {
	f.Add("")
	f.Add(strings.Repeat("ab", KEKSize))
	f.Add(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, KEKSize)))
	f.Add(base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, KEKSize)))
	f.Add(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, KEKSize-1)))
	f.Add(" \n" + strings.Repeat("0", 2*KEKSize) + "\t")
	f.Fuzz(func(t *testing.T, s string) {
		kek, err := ParseKEK(s)
		if err != nil {
			return
		}
		again, err := ParseKEK(s)
		if err != nil || again.ID() != kek.ID() {
			t.Fatalf("parsing %q again: %v, id %s vs %s", s, err, again.ID(), kek.ID())
		}
		sealed, err := kek.seal("kid", []byte("private"))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := again.open(&Record{KID: "kid", KEKID: again.ID(), Sealed: sealed})
		if err != nil || string(plain) != "private" {
			t.Fatalf("open = %q, %v", plain, err)
		}
	})
}
