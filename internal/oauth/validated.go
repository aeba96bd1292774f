package oauth

import (
	"context"
	"errors"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/verdict"
)

// validated is the validation of the composition an authorization_details
// parameter asks for, and its issues graded under the client's
// validation mode, the one the request is judged by (the cached
// validation is graded lenient). Every decision is observed, cached or
// not: a dashboard of validations must not go quiet when the cache
// answers.
func (s *Service) validated(ctx context.Context, client *clients.Client, details string) (*validation, []verdict.Issue, error) {
	started := time.Now()
	v, hit, err := s.validation(ctx, client, details)
	if err != nil {
		return nil, nil, err
	}
	issues := v.result.Under(client.Validation.OrLenient()).Issues
	s.observe(started, hit, v, issues)
	return v, issues, nil
}

// validation finds the validation details asks for: from the cache when
// these exact bytes (or the stored definition they name) were validated
// since the last registry change, else made now.
func (s *Service) validation(ctx context.Context, client *clients.Client, details string) (v *validation, hit bool, err error) {
	caches := s.caches()
	// Before anything is read: what is resolved from here on is at least
	// this current.
	registryGen := s.registryGeneration()
	gen := caches.inline.Generation()
	if v, ok := caches.inline.Get(details); ok {
		return v, true, nil
	}
	cr, err := ParseAuthorizationDetails(details)
	if err != nil {
		return nil, false, err
	}
	if cr.ID == "" {
		v, err = s.validate(ctx, client, cr.Inline, caches.inline, details, gen, registryGen)
		return v, false, err
	}
	definition, err := s.document(ctx, cr)
	if err != nil {
		return nil, false, err
	}
	key := string(definition)
	gen = caches.stored.Generation()
	if v, ok := caches.stored.Get(key); ok {
		return v, true, nil
	}
	v, err = s.validate(ctx, client, definition, caches.stored, key, gen, registryGen)
	return v, false, err
}

// validate validates doc, refusing first a composition naming a tool
// outside the client's allow-list (so that it never costs a validation
// nor a cache entry), and caches the validation under key (read at
// generation gen) when it depends on nothing but doc and the registry.
func (s *Service) validate(ctx context.Context, client *clients.Client, doc []byte, cache *validationCache, key string, gen uint64, registryGen int64) (*validation, error) {
	c, res, err := composition.Validate(ctx, s.Validator, doc, func(c *composition.Composition) error {
		return s.admitTools(ctx, client, c)
	})
	var malformed *composition.ParseError
	switch {
	case errors.As(err, &malformed):
		return nil, badRequest(CodeInvalidAuthorizationDetails, truncate(err.Error(), 512))
	case err != nil:
		return nil, AsError(err) // the allow-list's refusal, or the registry's failure
	}
	v := newValidation(res)
	v.edges, v.generation = len(c.Edges), registryGen
	if v.effects, err = s.effects(ctx, v.tools); err != nil {
		return nil, err
	}
	if cacheable(c) {
		cache.PutAt(gen, key, v)
	}
	return v, nil
}

// observe counts a validation decision.
func (s *Service) observe(started time.Time, hit bool, v *validation, issues []verdict.Issue) {
	if s.Metrics == nil {
		return
	}
	cache := "hit"
	if !hit {
		cache = "miss"
	}
	s.Metrics.ValidationDuration.WithLabelValues(cache).Observe(time.Since(started).Seconds())
	s.Metrics.CompositionEdges.Observe(float64(v.edges))
	for _, is := range issues {
		s.Metrics.ValidationIssues.WithLabelValues(string(is.Severity), is.Code).Inc()
	}
}
