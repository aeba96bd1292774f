package oauth

import "net/url"

// single returns a parameter that must not be repeated (RFC 6749 §3.2);
// absent is "".
func single(form url.Values, name string) (string, error) {
	if vs := form[name]; len(vs) > 1 {
		return "", badRequest(CodeInvalidRequest, "parameter "+name+" is repeated")
	} else if len(vs) == 1 {
		return vs[0], nil
	}
	return "", nil
}

// singles reads parameters that must not be repeated, in order.
func singles(form url.Values, names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		v, err := single(form, n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
