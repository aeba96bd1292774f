package composition

import (
	"context"

	"github.com/typeward/typeward/internal/registry"
)

// Stored is the stored compositions as the admin API serves them: each
// with its latest validation and whether that validation still stands.
type Stored struct {
	Registry  registry.Store
	Validator Validates
}

// Entry is a stored composition and whether its validation no longer
// stands (never validated, or a tool or stored composition it used has
// changed since), so that its valid says nothing about the registry as it
// is. Stale is read after the composition, so that a change between the
// two reads shows as stale rather than hides.
type Entry struct {
	registry.Composition
	Stale bool
}

// Check is the dry run: a document validated, nothing stored.
func (s *Stored) Check(ctx context.Context, doc []byte) (*Result, error) {
	_, res, err := Validate(ctx, s.Validator, doc, nil)
	return res, err
}

// Put stores a definition, validates it and records the result. A
// definition that does not parse is refused (*ParseError) and nothing is
// stored; one that parses but does not type-check is stored with its
// failing validation, so that fixing a tool and revalidating is enough.
func (s *Stored) Put(ctx context.Context, name string, definition []byte) (Entry, *Result, error) {
	if _, err := Parse(definition); err != nil {
		return Entry{}, nil, err
	}
	c, err := s.Registry.PutComposition(ctx, name, definition)
	if err != nil {
		return Entry{}, nil, err
	}
	return s.record(ctx, c)
}

// Get is one stored composition.
func (s *Stored) Get(ctx context.Context, name string) (Entry, error) {
	c, err := s.Registry.Composition(ctx, name)
	if err != nil {
		return Entry{}, err
	}
	return s.entry(ctx, c)
}

// List is every stored composition, sorted by name.
func (s *Stored) List(ctx context.Context) ([]Entry, error) {
	list, err := s.Registry.ListCompositions(ctx)
	if err != nil {
		return nil, err
	}
	stale, err := s.Registry.StaleCompositions(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(stale))
	for _, c := range stale {
		names[c.Name] = true
	}
	out := make([]Entry, len(list))
	for i, c := range list {
		out[i] = Entry{Composition: c, Stale: names[c.Name]}
	}
	return out, nil
}

// Revalidate validates a stored composition against the registry as it
// is now and records the result.
func (s *Stored) Revalidate(ctx context.Context, name string) (Entry, *Result, error) {
	c, err := s.Registry.Composition(ctx, name)
	if err != nil {
		return Entry{}, nil, err
	}
	return s.record(ctx, c)
}

func (s *Stored) record(ctx context.Context, c registry.Composition) (Entry, *Result, error) {
	rec, err := Record(ctx, s.Registry, s.Validator, c)
	if err != nil {
		return Entry{}, nil, err
	}
	e, err := s.entry(ctx, rec.Composition)
	return e, rec.Result, err
}

func (s *Stored) entry(ctx context.Context, c registry.Composition) (Entry, error) {
	f, err := s.Registry.CompositionFreshness(ctx, c.Name)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Composition: c, Stale: f.Stale}, nil
}
