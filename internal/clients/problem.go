package clients

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a registration: Field is a JSON pointer
// into the request body (RFC 6901), Message says what is wrong with it.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError carries every problem of a registration at once, so an
// operator fixes them in one round trip. The admin API answers it as 400
// (RFC 7591 invalid_client_metadata) with the list.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid client metadata: ")
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s", p.Field, p.Message)
	}
	return b.String()
}
