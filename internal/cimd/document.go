package cimd

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/typeward/typeward/verify/strictjson"
)

// Document is a client ID metadata document (draft-ietf-oauth-client-id-
// metadata-document): RFC 7591 client metadata published at the URL that
// is the client_id. Members typeward does not use are ignored.
type Document struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	JWKSURI                 string   `json:"jwks_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// Auth methods a document may name: a document is public, so it can hold
// no shared secret (draft §4.1).
const (
	authNone          = "none"
	authPrivateKeyJWT = "private_key_jwt"
)

// Bounds on list members: far above any real client's, so that what one
// document costs stays small.
const (
	maxRedirectURIs = 20
	maxListItems    = 10
)

// members are the names Parse reads; another member folding like one of
// them ("Client_ID") is refused, as two readers would disagree on it.
var members = []string{"client_id", "client_name", "client_uri", "redirect_uris", "grant_types",
	"response_types", "token_endpoint_auth_method", "jwks_uri", "jwks", "scope", "client_secret",
	"client_secret_expires_at"}

// Parse reads the document fetched from id and checks what makes it one:
// a JSON object whose client_id is exactly id, with client_name and
// redirect_uris, no secret, and token_endpoint_auth_method none (the
// default) or private_key_jwt with an https jwks_uri. What the values
// mean for a client (redirect URI forms, grant types, name bounds) is
// checked where every client's metadata is, in package clients.
func Parse(id string, data []byte) (*Document, error) {
	obj, err := strictjson.Object(data)
	if err != nil {
		return nil, refuse(id, ReasonNotJSON, "is not one JSON object (%v)", err)
	}
	if err := strictjson.Exact(obj, members...); err != nil {
		return nil, refuse(id, ReasonInvalid, "%v", err)
	}
	var d Document
	for _, m := range []struct {
		name     string
		into     any
		required bool
	}{
		{"client_id", &d.ClientID, true},
		{"client_name", &d.ClientName, true},
		{"redirect_uris", &d.RedirectURIs, true},
		{"client_uri", &d.ClientURI, false},
		{"grant_types", &d.GrantTypes, false},
		{"response_types", &d.ResponseTypes, false},
		{"token_endpoint_auth_method", &d.TokenEndpointAuthMethod, false},
		{"jwks_uri", &d.JWKSURI, false},
		{"scope", &d.Scope, false},
	} {
		raw, ok := obj[m.name]
		if !ok || string(raw) == "null" {
			if m.required {
				return nil, refuse(id, ReasonInvalid, "lacks %s, which is required", m.name)
			}
			continue
		}
		if err := json.Unmarshal(raw, m.into); err != nil {
			return nil, refuse(id, ReasonInvalid, "member %s has the wrong type (%s)", m.name, typeWanted(m.into))
		}
	}
	if d.ClientID != id {
		return nil, refuse(id, ReasonClientID, "names client_id %q, not the URL it was fetched from", clip(d.ClientID))
	}
	for _, secret := range []string{"client_secret", "client_secret_expires_at"} {
		if _, ok := obj[secret]; ok {
			return nil, refuse(id, ReasonInvalid, "holds %s: a published document cannot keep a secret", secret)
		}
	}
	if _, ok := obj["jwks"]; ok {
		return nil, refuse(id, ReasonInvalid, "holds jwks: name the keys by jwks_uri, which typeward fetches")
	}
	if strings.TrimSpace(d.ClientName) == "" {
		return nil, refuse(id, ReasonInvalid, "client_name is empty")
	}
	if len(d.RedirectURIs) == 0 || slices.Contains(d.RedirectURIs, "") {
		return nil, refuse(id, ReasonInvalid, "redirect_uris is empty or holds an empty string")
	}
	if len(d.RedirectURIs) > maxRedirectURIs {
		return nil, refuse(id, ReasonInvalid, "redirect_uris has more than %d entries", maxRedirectURIs)
	}
	if len(d.GrantTypes) > maxListItems || len(d.ResponseTypes) > maxListItems {
		return nil, refuse(id, ReasonInvalid, "grant_types or response_types has more than %d entries", maxListItems)
	}
	if slices.ContainsFunc(d.ResponseTypes, func(t string) bool { return t != "code" }) {
		return nil, refuse(id, ReasonInvalid, `response_types may hold only "code"`)
	}
	switch d.TokenEndpointAuthMethod {
	case "":
		d.TokenEndpointAuthMethod = authNone
	case authNone, authPrivateKeyJWT:
	default:
		return nil, refuse(id, ReasonInvalid, "token_endpoint_auth_method %q: want none or private_key_jwt (a published document cannot keep a secret)", clip(d.TokenEndpointAuthMethod))
	}
	if d.TokenEndpointAuthMethod == authPrivateKeyJWT {
		if d.JWKSURI == "" {
			return nil, refuse(id, ReasonInvalid, "private_key_jwt needs a jwks_uri")
		}
		if u, err := url.Parse(d.JWKSURI); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" {
			return nil, refuse(id, ReasonInvalid, "jwks_uri %q is not an https URL", clip(d.JWKSURI))
		}
	} else if d.JWKSURI != "" {
		return nil, refuse(id, ReasonInvalid, "jwks_uri is only used with private_key_jwt")
	}
	return &d, nil
}

func typeWanted(into any) string {
	if _, ok := into.(*string); ok {
		return "want a string"
	}
	return "want an array of strings"
}

// clip bounds a value quoted back in an error.
func clip(s string) string {
	const n = 80
	if len(s) > n {
		return fmt.Sprintf("%s…", s[:n])
	}
	return s
}
