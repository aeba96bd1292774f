package witness

import (
	"encoding/json"
	"maps"
	"slices"
)

// mutate returns a variant of a source instance: a property dropped, added
// or retyped, an item duplicated, dropped or retyped, a scalar nudged or
// retyped, or the value nested one level. Values are shared with the
// candidate lists, so a mutation copies what it changes.
func (g *generator) mutate(v any, depth int) any {
	g.steps++
	if depth < maxDepth && g.rnd.IntN(8) == 0 {
		if g.rnd.IntN(2) == 0 {
			return []any{v}
		}
		return map[string]any{g.name(): v}
	}
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		out := maps.Clone(v)
		switch op := g.rnd.IntN(4); {
		case op == 0 && len(keys) > 0:
			delete(out, keys[g.rnd.IntN(len(keys))])
		case op == 1 || len(keys) == 0:
			out[g.name()] = g.sample()
		case op == 2:
			out[keys[g.rnd.IntN(len(keys))]] = g.sample()
		default:
			k := keys[g.rnd.IntN(len(keys))]
			out[k] = g.mutate(v[k], depth+1)
		}
		return out
	case []any:
		out := slices.Clone(v)
		switch op := g.rnd.IntN(4); {
		case op == 0 && len(v) > 0:
			return append(out, v[g.rnd.IntN(len(v))]) // a duplicate
		case op == 1 && len(v) > 0:
			i := g.rnd.IntN(len(v))
			return append(out[:i], out[i+1:]...)
		case op == 2 || len(v) == 0:
			return append(out, g.sample())
		default:
			i := g.rnd.IntN(len(v))
			out[i] = g.mutate(v[i], depth+1)
			return out
		}
	case json.Number:
		if r, ok := ratOf(v); ok && g.rnd.IntN(2) == 0 {
			nudges := []func() string{
				func() string { return decimal(add(r, one)) },
				func() string { return decimal(sub(r, one)) },
				func() string { return decimal(add(r, half)) },
				func() string { return decimal(neg(r)) },
				func() string { return decimal(mul(r, 10)) },
			}
			n := json.Number(nudges[g.rnd.IntN(len(nudges))]())
			if m, ok := ratOf(n); ok && floatSafe(m) {
				return n
			}
		}
	case string:
		if g.rnd.IntN(2) == 0 {
			variants := []string{"", v + "a", v + v, " " + v, v + "\n"}
			if len(v) > 1 {
				variants = append(variants, v[1:], v[:len(v)-1])
			}
			s := variants[g.rnd.IntN(len(variants))]
			if len(s) <= 4*maxStringRunes {
				return s
			}
		}
	}
	return g.sample()
}

// mutationNames are the property names mutations add.
var mutationNames = []string{"extra", "a", "id", "name", "value", "type"}

func (g *generator) name() string {
	if len(g.hints.names) > 0 && g.rnd.IntN(2) == 0 {
		return g.hints.names[g.rnd.IntN(len(g.hints.names))]
	}
	return mutationNames[g.rnd.IntN(len(mutationNames))]
}

func (g *generator) sample() any {
	return sampleValues[g.rnd.IntN(len(sampleValues))]
}
