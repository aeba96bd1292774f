package cimd_test

import (
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/cimd"
)

// FuzzParse: no document panics the parser, and one it accepts holds
// what Parse promises.
func FuzzParse(f *testing.F) {
	const id = "https://client.example/meta.json"
	for _, seed := range []string{
		`{"client_id":"https://client.example/meta.json","client_name":"x","redirect_uris":["http://127.0.0.1/cb"]}`,
		`{"client_id":"https://client.example/meta.json","client_name":"x","redirect_uris":["https://a/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks_uri":"https://client.example/jwks"}`,
		`{"client_id":"https://client.example/meta.json","Client_ID":"x"}`,
		`{"client_id":1}`, `[]`, `null`, `{"redirect_uris":"x"}`, `{}`, `{"a":{"b":[1,2,{"c":null}]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := cimd.Parse(id, data)
		if err != nil {
			return
		}
		if d.ClientID != id || d.ClientName == "" || len(d.RedirectURIs) == 0 {
			t.Fatalf("accepted without its required members: %+v", d)
		}
		if d.TokenEndpointAuthMethod != "none" && (d.TokenEndpointAuthMethod != "private_key_jwt" || d.JWKSURI == "") {
			t.Fatalf("accepted auth method %q with jwks_uri %q", d.TokenEndpointAuthMethod, d.JWKSURI)
		}
		if slices.ContainsFunc(d.ResponseTypes, func(s string) bool { return s != "code" }) {
			t.Fatalf("accepted response_types %v", d.ResponseTypes)
		}
	})
}
