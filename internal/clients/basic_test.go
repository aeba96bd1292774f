package clients_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/clients"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestParseBasic(t *testing.T) {
	malformed := "malformed Basic credentials: want base64(form-url-encoded client_id, a colon, form-url-encoded client_secret), RFC 6749 section 2.3.1"
	for _, tc := range []struct {
		name, header       string
		wantID, wantSecret string
		wantErr            string
	}{
		{"plain", "Basic " + b64("client:secret"), "client", "secret", ""},
		{"case-insensitive scheme, extra spaces", "  bAsIc   " + b64("client:secret") + " ", "client", "secret", ""},
		{"unpadded", "Basic " + strings.TrimRight(b64("c:s1"), "="), "c", "s1", ""},
		// RFC 6749 §2.3.1: both parts are form-url-encoded before base64.
		{"encoded colon in id", "Basic " + b64("ops%3Aadmin:pw"), "ops:admin", "pw", ""},
		{"plus is a space", "Basic " + b64("a+b:c+d"), "a b", "c d", ""},
		{"encoded percent and non-ASCII", "Basic " + b64("id:%25%C3%A9"), "id", "%é", ""},
		{"second colon belongs to the secret", "Basic " + b64("id:a:b"), "id", "a:b", ""},
		{"empty secret", "Basic " + b64("id:"), "id", "", ""},
		{"bearer", "Bearer " + b64("a:b"), "", "", "the Authorization scheme is not Basic"},
		{"scheme only", "Basic", "", "", malformed},
		{"not base64", "Basic %%%", "", "", malformed},
		{"no colon", "Basic " + b64("idsecret"), "", "", malformed},
		{"bad escape in id", "Basic " + b64("id%zz:s"), "", "", malformed},
		{"bad escape in secret", "Basic " + b64("id:100%"), "", "", malformed},
		{"oversized", "Basic " + strings.Repeat("A", 5000), "", "", malformed},
	} {
		id, secret, err := clients.ParseBasic(tc.header)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if id != tc.wantID || secret != tc.wantSecret || msg != tc.wantErr {
			t.Errorf("%s: ParseBasic = (%q, %q, %q), want (%q, %q, %q)", tc.name, id, secret, msg, tc.wantID, tc.wantSecret, tc.wantErr)
		}
	}
}

func FuzzParseBasic(f *testing.F) {
	for _, seed := range []string{
		"Basic " + b64("client:secret"), "Basic " + b64("ops%3Aadmin:p%25w"), "basic ", "Basic", "Bearer x",
		"Basic " + b64(":"), "Basic =", "Basic " + b64("a%:b"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		id, secret, err := clients.ParseBasic(header)
		if err != nil {
			if id != "" || secret != "" {
				t.Errorf("error %v with values (%q, %q)", err, id, secret)
			}
			return
		}
		// What parses must survive a round trip through the encoding.
		again, againSecret, err := clients.ParseBasic(basic(id, secret))
		if err != nil || again != id || againSecret != secret {
			t.Errorf("round trip of (%q, %q) = (%q, %q, %v)", id, secret, again, againSecret, err)
		}
	})
}
