package composition

import "context"

// Validates is the one interface of a validator: a *Validator, or a cache
// in front of one. An error is the registry's failure, never the
// composition's.
type Validates interface {
	Validate(ctx context.Context, c *Composition) (*Result, error)
}

// Validate parses a composition document and validates it: the one way a
// document is validated, by the token and backchannel endpoints, the
// admin API, the console and Record. A document that does not parse is
// its *ParseError; admit, when given, sees the parsed composition first
// and its refusal is returned as is, so that a refused composition costs
// no validation (the token endpoint's allow-list).
func Validate(ctx context.Context, v Validates, doc []byte, admit func(*Composition) error) (*Composition, *Result, error) {
	c, err := Parse(doc)
	if err != nil {
		return nil, nil, err
	}
	if admit != nil {
		if err := admit(c); err != nil {
			return c, nil, err
		}
	}
	res, err := v.Validate(ctx, c)
	if err != nil {
		return c, nil, err
	}
	return c, res, nil
}
