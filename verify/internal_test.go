package verify

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"net/http"
	"slices"
	"testing"
	"time"
)

func TestCacheMaxAge(t *testing.T) {
	def := 5 * time.Minute
	tests := []struct {
		header []string
		want   time.Duration
	}{
		{nil, def},
		{[]string{"public, max-age=900"}, 900 * time.Second},
		{[]string{"Max-Age=60"}, time.Minute},
		{[]string{`max-age="30"`}, 30 * time.Second},
		{[]string{"max-age=0"}, 0},
		{[]string{"public, no-cache"}, 0},
		{[]string{"no-store, max-age=600"}, 0},
		{[]string{"max-age=-5"}, def},
		{[]string{"max-age=soon"}, def},
		{[]string{"max-age=99999999999999999999"}, def},
		{[]string{"max-age=31536000"}, maxJWKSMaxAge},
		{[]string{"max-age=10, max-age=20"}, 10 * time.Second},
		{[]string{"public", "max-age=120"}, 2 * time.Minute},
	}
	for _, tc := range tests {
		h := http.Header{}
		for _, v := range tc.header {
			h.Add("Cache-Control", v)
		}
		if got := cacheMaxAge(h, def); got != tc.want {
			t.Errorf("cacheMaxAge(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestParseJWKS(t *testing.T) {
	const (
		ec      = `{"kty":"EC","crv":"P-256","kid":"ec","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`
		ecAlg   = `{"kty":"EC","crv":"P-256","kid":"ec-alg","alg":"ES256","use":"sig","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`
		ed      = `{"kty":"OKP","crv":"Ed25519","kid":"ed","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`
		noKid   = `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`
		encUse  = `{"kty":"OKP","crv":"Ed25519","kid":"enc","use":"enc","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`
		wrongAl = `{"kty":"OKP","crv":"Ed25519","kid":"wrong-alg","alg":"ES256","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`
		private = `{"kty":"OKP","crv":"Ed25519","kid":"private","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}`
		oct     = `{"kty":"oct","kid":"hmac","k":"c2VjcmV0"}`
		rsa     = `{"kty":"RSA","kid":"rsa","e":"AQAB","n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw"}`
		bad     = `{"kty":"EC","crv":"P-256","kid":"off-curve","x":"AAAA","y":"AAAA"}`
	)
	set := `{"keys":[` + ec + `,` + ecAlg + `,` + ed + `,` + noKid + `,` + encUse + `,` + wrongAl + `,` + private + `,` + oct + `,` + rsa + `,` + bad + `,42]}`
	keys, err := parseJWKS([]byte(set))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for kid, k := range keys {
		got = append(got, kid+":"+k.Alg)
	}
	slices.Sort(got)
	if want := []string{"ec-alg:ES256", "ec:ES256", "ed:EdDSA"}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	for _, doc := range []string{`[]`, `{}`, `{"keys":{}}`, `nope`} {
		if _, err := parseJWKS([]byte(doc)); err == nil {
			t.Errorf("parseJWKS(%s) succeeded", doc)
		}
	}
}

// FuzzParseJWKS: no document makes the JWKS parser panic, and every key it
// keeps has an algorithm typeward signs with.
func FuzzParseJWKS(f *testing.F) {
	f.Add(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"ed","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`)
	f.Add(`{"keys":[{"kty":"EC","crv":"P-256","kid":"ec","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}`)
	f.Add(`{"keys":[{"kty":"EC","crv":"P-521","kid":"x","x":"","y":""},{"kty":"RSA","n":"","e":""}]}`)
	f.Add(`{"keys":null}`)
	f.Fuzz(func(t *testing.T, doc string) {
		keys, err := parseJWKS([]byte(doc))
		if err != nil && keys != nil {
			t.Fatal("keys with an error")
		}
		for kid, k := range keys {
			if kid == "" || (k.Alg != "ES256" && k.Alg != "EdDSA") || algOfKey(k.Public) != k.Alg {
				t.Fatalf("kept key %q with alg %q", kid, k.Alg)
			}
		}
	})
}

// FuzzCacheMaxAge: any Cache-Control value gives a max-age within bounds.
func FuzzCacheMaxAge(f *testing.F) {
	for _, s := range []string{"public, max-age=900", "no-store", "max-age=-1", "max-age=9223372036854775807", `max-age=""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{"Cache-Control": {v}}
		if got := cacheMaxAge(h, time.Minute); got < 0 || got > maxJWKSMaxAge {
			t.Fatalf("cacheMaxAge(%q) = %v", v, got)
		}
	})
}

// algOfKey is the JWS algorithm a public key is for.
func algOfKey(key crypto.PublicKey) string {
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return "ES256"
		}
	case ed25519.PublicKey:
		return "EdDSA"
	}
	return ""
}
