package verify_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify"
)

// pinnedKey is a KeySource holding one key, for a router that is given
// typeward's public key instead of fetching the JWKS.
type pinnedKey struct {
	kid string
	key crypto.PublicKey
}

func (p pinnedKey) Key(_ context.Context, kid string) (crypto.PublicKey, string, error) {
	if kid != p.kid {
		return nil, "", fmt.Errorf("kid %q is not the pinned key", kid)
	}
	return p.key, "EdDSA", nil
}

// Verify checks a token and returns the tools it allows. Here a pinned
// Ed25519 key stands in for typeward's JWKS, and the token is signed in
// place; a router gets both from typeward.
func ExampleVerifier_Verify() {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	issued := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	claims := jwt.MapClaims{
		"iss": "https://typeward.example.com", "sub": "pipeline-runner", "client_id": "pipeline-runner",
		"aud": "https://router.example.com/mcp", "iat": issued.Unix(), "exp": issued.Add(5 * time.Minute).Unix(),
		"jti": "4f1c", "scope": "mcp:tool:db_query mcp:tool:transform_csv",
		"mcp_tools": []string{"db_query", "transform_csv"},
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["typ"], tok.Header["kid"] = "at+jwt", "k1"
	signed, err := tok.SignedString(priv)
	if err != nil {
		log.Fatal(err)
	}

	v, err := verify.New(verify.Config{
		Issuer:   "https://typeward.example.com",
		Audience: "https://router.example.com/mcp",
		Keys:     pinnedKey{kid: "k1", key: priv.Public()},
		Now:      func() time.Time { return issued.Add(time.Minute) },
	})
	if err != nil {
		log.Fatal(err)
	}
	got, err := v.Verify(context.Background(), signed)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.ClientID, got.Tools)
	fmt.Println(verify.ToolAllowed(got, "transform_csv"), verify.ToolAllowed(got, "email_send"))

	// The same token ten minutes later: expired, and the error says so.
	late, _ := verify.New(verify.Config{
		Issuer:   "https://typeward.example.com",
		Audience: "https://router.example.com/mcp",
		Keys:     pinnedKey{kid: "k1", key: priv.Public()},
		Now:      func() time.Time { return issued.Add(10 * time.Minute) },
	})
	_, err = late.Verify(context.Background(), signed)
	fmt.Println(errors.Is(err, verify.ErrInvalidToken), errors.Is(err, verify.ErrExpired))
	// Output:
	// pipeline-runner [db_query transform_csv]
	// true false
	// true true
}
