package jwk_test

import (
	"strings"
	"testing"

	"github.com/typeward/typeward/verify/jwk"
)

const rfc7638N = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"

// The thumbprints of RFC 7638 §3.1 (RSA) and RFC 8037 A.3 (Ed25519),
// whatever the members' order and the members outside the thumbprint.
func TestThumbprintVectors(t *testing.T) {
	for _, tc := range []struct{ jwk, alg, want string }{
		{`{"kty":"RSA","n":"` + rfc7638N + `","e":"AQAB","alg":"RS256","kid":"2011-04-29"}`, "RS256", "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"},
		{`{"x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","crv":"Ed25519","kty":"OKP"}`, "EdDSA", "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"},
	} {
		k, err := jwk.Parse([]byte(tc.jwk))
		if err != nil {
			t.Fatal(err)
		}
		if k.Thumbprint != tc.want || k.Alg != tc.alg {
			t.Errorf("%s: thumbprint %s alg %s, want %s %s", tc.jwk[:30], k.Thumbprint, k.Alg, tc.want, tc.alg)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	const x, y = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
	for _, tc := range []struct{ name, jwk, want string }{
		{"private EC", `{"kty":"EC","crv":"P-256","x":"` + x + `","y":"` + y + `","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}`, `member "d": a private`},
		{"private Ed25519", `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}`, `member "d"`},
		{"private, case-folded", `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","D":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}`, `member "d"`},
		{"symmetric", `{"kty":"oct","k":"c2VjcmV0"}`, `member "k"`},
		{"off the curve", `{"kty":"EC","crv":"P-256","x":"` + x + `","y":"` + x + `"}`, "EC:"},
		{"short coordinate", `{"kty":"EC","crv":"P-256","x":"AAAA","y":"` + y + `"}`, "a coordinate of 3 bytes"},
		{"P-384", `{"kty":"EC","crv":"P-384","x":"` + x + `","y":"` + y + `"}`, "not supported"},
		{"RSA 1024", `{"kty":"RSA","e":"AQAB","n":"` + rfc7638N[:172] + `"}`, "at least 2048 bits"},
		{"RSA even exponent", `{"kty":"RSA","e":"Ag","n":"` + rfc7638N + `"}`, "odd exponent"},
		{"padded base64", `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo="}`, "OKP"},
		{"duplicate member", `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","X":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`, "appears twice"},
		{"not an object", `"key"`, "not a JSON object"},
	} {
		if k, err := jwk.Parse([]byte(tc.jwk)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Parse = %+v, %v; want an error with %q", tc.name, k, err, tc.want)
		}
	}
}

// FuzzParse: no JWK makes Parse panic, and a key it returns has a public
// key, an algorithm and a thumbprint.
func FuzzParse(f *testing.F) {
	f.Add(`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`)
	f.Add(`{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`)
	f.Add(`{"kty":"RSA","e":"AQAB","n":"` + rfc7638N + `"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		k, err := jwk.Parse([]byte(doc))
		if err == nil && (k.Public == nil || k.Alg == "" || len(k.Thumbprint) != 43) {
			t.Fatalf("Parse(%s) = %+v", doc, k)
		}
	})
}
