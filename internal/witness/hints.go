package witness

import (
	"maps"
	"math/big"
	"slices"
)

// hints are constants the target names: its numeric bounds, lengths and
// sizes, property names and string constants. The source's generators try
// them (only as values the source accepts) because a witness often sits
// just past a target's bound.
type hints struct {
	numbers []*big.Rat
	lengths []int
	names   []string
	strings []string
}

// Bounds on what is read from the target.
const (
	maxHintNodes = 256
	maxHints     = 16
)

func targetHints(t Side) hints {
	var h hints
	root, ok := t.Schema.At(t.Pointer)
	if !ok {
		return h
	}
	visited := 0
	var walk func(any)
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok || visited >= maxHintNodes {
			if list, isList := v.([]any); isList {
				for _, e := range list {
					walk(e)
				}
			}
			return
		}
		visited++
		for _, k := range slices.Sorted(maps.Keys(m)) {
			switch k {
			case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
				if r, ok := ratOf(m[k]); ok && len(h.numbers) < maxHints {
					h.numbers = append(h.numbers, r)
				}
			case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
				if n, ok := intOf(m[k]); ok && n <= maxStringRunes && len(h.lengths) < maxHints && !slices.Contains(h.lengths, n) {
					h.lengths = append(h.lengths, n)
				}
			case "properties":
				if props, ok := m[k].(map[string]any); ok {
					for _, n := range slices.Sorted(maps.Keys(props)) {
						if len(h.names) < maxHints {
							h.names = append(h.names, n)
						}
						walk(props[n])
					}
				}
				continue
			case "const", "enum", "default", "examples":
				collectStrings(&h, m[k])
				continue
			case "patternProperties":
				// A name each pattern matches, as simply as it can be spelled.
				if sub, ok := m[k].(map[string]any); ok {
					for _, p := range slices.Sorted(maps.Keys(sub)) {
						if s, ok := simplestMatch(p); ok && len(h.names) < maxHints {
							h.names = append(h.names, s)
						}
						walk(sub[p])
					}
				}
				continue
			case "$defs", "definitions", "dependentSchemas", "dependencies":
				if sub, ok := m[k].(map[string]any); ok {
					for _, n := range slices.Sorted(maps.Keys(sub)) {
						walk(sub[n])
					}
				}
				continue
			}
			walk(m[k])
		}
	}
	walk(root)
	return h
}

func collectStrings(h *hints, v any) {
	switch v := v.(type) {
	case string:
		if len(h.strings) < maxHints && len(v) <= maxStringRunes && !slices.Contains(h.strings, v) {
			h.strings = append(h.strings, v)
		}
	case []any:
		for _, e := range v[:min(len(v), maxHints)] {
			collectStrings(h, e)
		}
	}
}
