package clients

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
)

// maxAuthorizationLen bounds the header ParseBasic decodes.
const maxAuthorizationLen = 4096

var (
	errNotBasic       = errors.New("the Authorization scheme is not Basic")
	errMalformedBasic = errors.New("malformed Basic credentials: want base64(form-url-encoded client_id, a colon, form-url-encoded client_secret), RFC 6749 section 2.3.1")
)

// ParseBasic decodes "Basic base64(id:secret)" where id and secret are each
// form-url-encoded first (RFC 6749 §2.3.1), so both may hold ':' or
// non-ASCII characters. The scheme is case-insensitive (RFC 9110 §11.1).
func ParseBasic(header string) (clientID, secret string, err error) {
	if len(header) > maxAuthorizationLen {
		return "", "", errMalformedBasic
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "", "", errNotBasic
	}
	if !ok {
		return "", "", errMalformedBasic
	}
	token = strings.TrimSpace(token)
	raw, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		// Some clients drop the padding; the meaning is unambiguous.
		if raw, err = base64.RawStdEncoding.DecodeString(token); err != nil {
			return "", "", errMalformedBasic
		}
	}
	encID, encSecret, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", errMalformedBasic
	}
	if clientID, err = url.QueryUnescape(encID); err != nil {
		return "", "", errMalformedBasic
	}
	if secret, err = url.QueryUnescape(encSecret); err != nil {
		return "", "", errMalformedBasic
	}
	return clientID, secret, nil
}
