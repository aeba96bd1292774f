package verify

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/typeward/typeward/verify/dpop"
)

// Errors of VerifyRequest beside Verify's.
var (
	// ErrNoToken: the request carries no Bearer or DPoP credentials.
	ErrNoToken = errors.New("no access token")
	// ErrAmbiguous: two Authorization or two DPoP headers; proxies
	// disagree on which one counts.
	ErrAmbiguous = errors.New("ambiguous credentials")
	// ErrDPoPBound: a DPoP-bound token presented as a bearer token, or a
	// bearer token presented with the DPoP scheme.
	ErrDPoPBound = errors.New("token kind does not match the scheme")
	// ErrInvalidProof wraps every refusal of the DPoP proof, beside one of
	// package dpop's reasons.
	ErrInvalidProof = dpop.ErrInvalidProof
)

// Scheme is how a request presented its token.
type Scheme string

// The schemes of an Authorization header.
const (
	SchemeBearer Scheme = "Bearer"
	SchemeDPoP   Scheme = "DPoP"
)

// VerifyRequest checks the credentials of r: a bearer token not bound to
// a key ("Authorization: Bearer"), or a DPoP-bound token
// ("Authorization: DPoP") with a proof (the DPoP header) signed by the key
// of its cnf.jkt for this request: its method, its URL (this router's
// resource URI's scheme and host with the request's path), the token's
// hash, a fresh iat and a jti never seen. It returns the scheme used, even
// with an error, for the challenge.
func (v *Verifier) VerifyRequest(r *http.Request) (*Claims, Scheme, error) {
	if len(r.Header.Values("Authorization")) > 1 {
		return nil, SchemeBearer, fmt.Errorf("%w: more than one Authorization header", ErrAmbiguous)
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	var s Scheme
	switch {
	case !ok || token == "":
		return nil, SchemeBearer, ErrNoToken
	case strings.EqualFold(scheme, string(SchemeBearer)):
		s = SchemeBearer
	case strings.EqualFold(scheme, string(SchemeDPoP)):
		s = SchemeDPoP
	default:
		return nil, SchemeBearer, ErrNoToken
	}
	if n := len(r.Header.Values(dpop.Header)); n > 1 {
		return nil, SchemeDPoP, fmt.Errorf("%w: %d DPoP headers", ErrAmbiguous, n)
	}
	claims, err := v.Verify(r.Context(), token)
	if err != nil {
		return nil, s, err
	}
	switch {
	case s == SchemeBearer && claims.JKT != "":
		return nil, SchemeDPoP, fmt.Errorf("%w: the token is DPoP-bound: send it as \"Authorization: DPoP\" with a DPoP proof", ErrDPoPBound)
	case s == SchemeDPoP && claims.JKT == "":
		return nil, s, fmt.Errorf("%w: the token is not DPoP-bound: send it as \"Authorization: Bearer\"", ErrDPoPBound)
	case s == SchemeBearer:
		return claims, s, nil
	}
	proof := r.Header.Get(dpop.Header)
	if proof == "" {
		return nil, s, fmt.Errorf("%w: no DPoP header", ErrInvalidProof)
	}
	if _, err := v.dpop.Check(r.Context(), proof, dpop.Request{
		Method: r.Method, URL: v.requestURL(r), AccessToken: token, JKT: claims.JKT,
	}); err != nil {
		return nil, s, err
	}
	return claims, s, nil
}

// requestURL is the URL r was sent to, as the client named it: the
// resource URI's scheme and host (a proxy in front may have changed the
// Host) with r's path; without an audience, r's own.
func (v *Verifier) requestURL(r *http.Request) string {
	if v.origin != "" {
		return v.origin + r.URL.EscapedPath()
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.EscapedPath()
}

// originOf is the scheme and host of a URL, "" when it has none.
func originOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return ""
}

// DPoPAlgorithms are the proof algorithms accepted, for metadata
// (dpop_signing_alg_values_supported) and challenges.
func (v *Verifier) DPoPAlgorithms() []string { return v.dpop.Algorithms() }
