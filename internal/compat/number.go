package compat

import (
	"math"
	"math/big"
	"strconv"

	"github.com/typeward/typeward/internal/verdict"
)

// bound is one end of a numeric interval; nil v means unbounded. Values are
// exact rationals parsed from the schema's json.Number literals, so 0.1 is
// one tenth, not the nearest float.
type bound struct {
	v    *big.Rat
	excl bool
	ptr  string
}

// numberBounds is the source interval: the tightest bounds of all
// conjuncts. When the source's numbers are integers only, the bounds are
// rounded inward to integers (x > 0 becomes x ≥ 1).
func numberBounds(s view) (lo, hi bound) {
	return tightest(s, func(n node) nodeBounds { return nodeBounds{lowerBounds(n), upperBounds(n)} })
}

// numberBounds is numberBounds with each conjunct's bounds parsed once per
// Check: a hostile conjunction meets the same conjuncts at every step.
// The values are copies, so a caller may change them.
func (r *run) numberBounds(s view) (lo, hi bound) {
	if r.caches == nil {
		return numberBounds(s)
	}
	lo, hi = tightest(s, r.boundsOf)
	if lo.v != nil {
		lo.v = new(big.Rat).Set(lo.v)
	}
	if hi.v != nil {
		hi.v = new(big.Rat).Set(hi.v)
	}
	return lo, hi
}

// nodeBounds are one node's parsed bounds.
type nodeBounds struct{ lower, upper []bound }

// maxCachedBounds bounds the nodes whose bounds one Check remembers.
const maxCachedBounds = 4096

// boundsOf is n's bounds, remembered within the Check; never handed out,
// so never changed. A synthetic node is keyed apart from its pointer.
func (r *run) boundsOf(n node) nodeBounds {
	key := n.ptr
	if n.synthetic {
		key += "\x00synthetic"
	}
	if b, ok := r.caches.bounds[key]; ok {
		return b
	}
	b := nodeBounds{lowerBounds(n), upperBounds(n)}
	if len(r.caches.bounds) < maxCachedBounds {
		r.caches.bounds[key] = b
	}
	return b
}

// cmpRat is a.Cmp(b), without the cross multiplication when both are
// integers (the common bounds).
func cmpRat(a, b *big.Rat) int {
	if a.IsInt() && b.IsInt() {
		return a.Num().Cmp(b.Num())
	}
	return a.Cmp(b)
}

// tightest is the source interval from each conjunct's bounds, rounded
// inward to integers when the source's numbers are integers only.
func tightest(s view, of func(node) nodeBounds) (lo, hi bound) {
	for _, n := range s.conj {
		nb := of(n)
		for _, b := range nb.lower {
			if lo.v == nil {
				lo = b
			} else if c := cmpRat(b.v, lo.v); c > 0 || (c == 0 && b.excl) {
				lo = b
			}
		}
		for _, b := range nb.upper {
			if hi.v == nil {
				hi = b
			} else if c := cmpRat(b.v, hi.v); c < 0 || (c == 0 && b.excl) {
				hi = b
			}
		}
	}
	if s.types&KindFraction == 0 {
		if lo.v != nil {
			c := ceilRat(lo.v)
			if lo.excl && lo.v.IsInt() {
				c.Add(c, big.NewInt(1))
			}
			lo = bound{v: new(big.Rat).SetInt(c), ptr: lo.ptr}
		}
		if hi.v != nil {
			f := floorRat(hi.v)
			if hi.excl && hi.v.IsInt() {
				f.Sub(f, big.NewInt(1))
			}
			hi = bound{v: new(big.Rat).SetInt(f), ptr: hi.ptr}
		}
	}
	return lo, hi
}

// lowerBounds reads minimum and exclusiveMinimum, in both the numeric form
// and the draft-04 boolean form the validator still honours.
func lowerBounds(n node) []bound {
	return bounds(n, "minimum", "exclusiveMinimum")
}

func upperBounds(n node) []bound {
	return bounds(n, "maximum", "exclusiveMaximum")
}

func bounds(n node, incl, excl string) []bound {
	var out []bound
	boolExcl, _ := n.m[excl].(bool)
	if v, ok := ratOf(n.m[incl]); ok {
		out = append(out, bound{v: v, excl: boolExcl, ptr: n.ptr + "/" + incl})
	}
	if v, ok := ratOf(n.m[excl]); ok {
		out = append(out, bound{v: v, excl: true, ptr: n.ptr + "/" + excl})
	}
	return out
}

// number checks the target's numeric keywords against the source interval
// and step.
func (r *run) number(s view, t node, p path) []finding {
	var out []finding
	lo, hi := r.numberBounds(s)
	for _, b := range lowerBounds(t) {
		if lo.v != nil && (lo.v.Cmp(b.v) > 0 || (lo.v.Cmp(b.v) == 0 && (!b.excl || lo.excl))) {
			continue
		}
		out = append(out, with(r.errorf(verdict.CodeRangeMismatch, orPtr(lo.ptr, r.srcPtr(s)), b.ptr, p,
			"%s allows values %s %s but %s requires %s %s", srcMark, below(b.excl), ratText(b.v), tgtMark, atLeast(b.excl), ratText(b.v)), beyond(b.v, b.excl, -1)...)...)
	}
	for _, b := range upperBounds(t) {
		if hi.v != nil && (hi.v.Cmp(b.v) < 0 || (hi.v.Cmp(b.v) == 0 && (!b.excl || hi.excl))) {
			continue
		}
		out = append(out, with(r.errorf(verdict.CodeRangeMismatch, orPtr(hi.ptr, r.srcPtr(s)), b.ptr, p,
			"%s allows values %s %s but %s requires %s %s", srcMark, above(b.excl), ratText(b.v), tgtMark, atMost(b.excl), ratText(b.v)), beyond(b.v, b.excl, 1)...)...)
	}
	if m, ok := ratOf(t.m["multipleOf"]); ok && m.Sign() > 0 && !r.multipleProven(s, m, lo, hi) {
		out = append(out, r.report(verdict.CodeMultipleOfMismatch, r.srcKeywordPtr(s, "multipleOf"), t.ptr+"/multipleOf", p,
			"%s need not be a multiple of %s as %s requires", srcMark, ratText(m), tgtMark))
	}
	return out
}

// multipleProven: some source step is a whole multiple of m, or the source
// is integral and m divides 1, or the source is a single value that is a
// multiple of m.
func (r *run) multipleProven(s view, m *big.Rat, lo, hi bound) bool {
	// A value that is a multiple of every source step is a multiple of
	// their least common multiple (of 2 and 3: 6).
	var step *big.Rat
	for _, n := range s.conj {
		if k, ok := ratOf(n.m["multipleOf"]); ok && k.Sign() > 0 {
			step = lcmRat(step, k)
		}
	}
	if step != nil && new(big.Rat).Quo(step, m).IsInt() {
		return true
	}
	if s.types&KindFraction == 0 && new(big.Rat).Inv(m).IsInt() {
		return true
	}
	if lo.v != nil && hi.v != nil && !lo.excl && !hi.excl && lo.v.Cmp(hi.v) == 0 && new(big.Rat).Quo(lo.v, m).IsInt() {
		return true
	}
	return false
}

func below(excl bool) string {
	if excl {
		return "≤"
	}
	return "<"
}

func above(excl bool) string {
	if excl {
		return "≥"
	}
	return ">"
}

func atLeast(excl bool) string {
	if excl {
		return ">"
	}
	return "≥"
}

func atMost(excl bool) string {
	if excl {
		return "<"
	}
	return "≤"
}

func orPtr(p, fallback string) string {
	if p == "" {
		return fallback
	}
	return p
}

func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func floorRat(r *big.Rat) *big.Int {
	q, _ := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	return q
}

// ratText prints a bound as people wrote it: exact while short (1/3, 0.5
// reads as 1/2), in exponent form when the exact digits would flood a message.
func ratText(r *big.Rat) string {
	if s := r.RatString(); len(s) <= 24 {
		return s
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) || (f == 0 && r.Sign() != 0) {
		return new(big.Float).SetRat(r).Text('g', 6)
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// lcmRat is the least common multiple of two positive rationals in lowest
// terms, lcm(a/b, c/d) = lcm(a, c) / gcd(b, d); a nil a is the identity.
func lcmRat(a, b *big.Rat) *big.Rat {
	if a == nil {
		return b
	}
	g := new(big.Int).GCD(nil, nil, a.Num(), b.Num())
	num := new(big.Int).Mul(a.Num(), b.Num())
	num.Quo(num, g)
	den := new(big.Int).GCD(nil, nil, a.Denom(), b.Denom())
	return new(big.Rat).SetFrac(num, den)
}
