package witness

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
)

// numbers emits the source's bounds and their neighbours (±1, ± a step
// finer than the bound's own digits, the nearest admissible values of
// exclusive bounds), multiples of multipleOf near the bounds, non-integers
// where numbers are allowed, then the target's bounds seen from the source
// and a spread of magnitudes. Values outside the source's own bounds are
// skipped here, before they cost a validation.
func (g *generator) numbers(v *view, _ int, emit func(any) bool) bool {
	seen := map[string]bool{}
	var out func(r *big.Rat) bool
	out = func(r *big.Rat) bool {
		if !floatSafe(r) {
			for _, x := range nearDoubles(r) {
				if floatSafe(x) && !out(x) {
					return false
				}
			}
			return true
		}
		if !v.admits(r) {
			return true
		}
		s := decimal(r)
		if seen[s] {
			return true
		}
		seen[s] = true
		g.steps++
		return emit(json.Number(s))
	}
	var anchors []*big.Rat // the values the source's keywords name
	for _, b := range []*big.Rat{v.lo, v.hi, v.xlo, v.xhi} {
		if b != nil {
			anchors = append(anchors, b)
		}
	}
	step := v.step()
	for _, a := range anchors {
		for _, r := range neighbours(a, step, v.kinds&kFrac != 0) {
			if !out(r) {
				return false
			}
		}
	}
	if step != nil {
		for _, r := range []*big.Rat{step, neg(step), mul(step, 2), mul(step, 3), new(big.Rat)} {
			if !out(r) {
				return false
			}
		}
		// The multiples nearest the bounds, from inside.
		for _, b := range anchors {
			q := new(big.Rat).Quo(b, step)
			lo := new(big.Int).Div(q.Num(), q.Denom()) // floor
			for _, k := range []int64{-1, 0, 1, 2} {
				m := new(big.Rat).Mul(step, new(big.Rat).SetInt(new(big.Int).Add(lo, big.NewInt(k))))
				if !out(m) {
					return false
				}
			}
		}
	}
	for _, h := range g.hints.numbers {
		for _, r := range neighbours(h, step, v.kinds&kFrac != 0) {
			if !out(r) {
				return false
			}
		}
	}
	for _, s := range numberSamples {
		r, _ := new(big.Rat).SetString(s)
		if !out(r) {
			return false
		}
	}
	return true
}

// numberSamples: small values, fractions, the edges of common integer
// widths and of exact float64 integers, and large magnitudes.
var numberSamples = []string{
	"0", "1", "-1", "2", "0.5", "1.5", "-0.5", "0.1", "10", "100", "-100", "1000",
	"255", "256", "65536", "2147483647", "2147483648", "-2147483649", "4294967296",
	"9007199254740992", "-9007199254740992", "1e21", "-1e21", "0.001", "1e-10",
}

// floatSafe tells whether a validator that reads JSON numbers as doubles,
// as most do, sees this very number: its literal is the shortest spelling
// of a double (0.1 is, 2^53+1 and 1e-400 are not). A witness must convince
// such validators too, so generated numbers are kept float-safe; the
// source's own const and enum values are not filtered.
func floatSafe(r *big.Rat) bool {
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return false
	}
	back, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return ok && back.Cmp(r) == 0
}

// nearDoubles are the shortest spellings of the double nearest a number and
// of its neighbours.
func nearDoubles(r *big.Rat) []*big.Rat {
	f, _ := r.Float64()
	var out []*big.Rat
	for _, d := range []float64{f, math.Nextafter(f, math.Inf(1)), math.Nextafter(f, math.Inf(-1))} {
		if math.IsInf(d, 0) {
			continue
		}
		if x, ok := new(big.Rat).SetString(strconv.FormatFloat(d, 'g', -1, 64)); ok {
			out = append(out, x)
		}
	}
	return out
}

// neighbours of a value: itself, ±1, ± a finer step, ± the multipleOf step.
func neighbours(a, step *big.Rat, fractions bool) []*big.Rat {
	out := []*big.Rat{a, add(a, one), sub(a, one)}
	if fractions {
		fine := fineStep(a)
		out = append(out, add(a, fine), sub(a, fine), add(a, half), sub(a, half))
	}
	if !a.IsInt() {
		fl := floor(a)
		out = append(out, fl, add(fl, one))
	}
	if step != nil {
		out = append(out, add(a, step), sub(a, step))
	}
	return out
}

// admits applies the view's numeric keywords: bounds, integrality and the
// multipleOf steps (a cheap prefilter; the validator has the last word).
func (v *view) admits(r *big.Rat) bool {
	if v.kinds&kFrac == 0 && !r.IsInt() {
		return false
	}
	if v.kinds&(kInt|kFrac) == 0 {
		return false
	}
	if (v.lo != nil && r.Cmp(v.lo) < 0) || (v.hi != nil && r.Cmp(v.hi) > 0) ||
		(v.xlo != nil && r.Cmp(v.xlo) <= 0) || (v.xhi != nil && r.Cmp(v.xhi) >= 0) {
		return false
	}
	for _, m := range v.multipleOf {
		if !new(big.Rat).Quo(r, m).IsInt() {
			return false
		}
	}
	return true
}

// step is the least common multiple of the multipleOf values (nil if none):
// for p1/q1 and p2/q2 in lowest terms, lcm(p1,p2)/gcd(q1,q2).
func (v *view) step() *big.Rat {
	var acc *big.Rat
	for _, m := range v.multipleOf {
		if acc == nil {
			acc = new(big.Rat).Set(m)
			continue
		}
		p := lcm(acc.Num(), m.Num())
		q := new(big.Int).GCD(nil, nil, acc.Denom(), m.Denom())
		if p.BitLen() > 4096 {
			return acc // a pathological step: keep the first; the validator judges
		}
		acc = new(big.Rat).SetFrac(p, q)
	}
	return acc
}

func lcm(a, b *big.Int) *big.Int {
	g := new(big.Int).GCD(nil, nil, a, b)
	return new(big.Int).Mul(new(big.Int).Quo(a, g), b)
}

var (
	one  = big.NewRat(1, 1)
	half = big.NewRat(1, 2)
)

func add(a, b *big.Rat) *big.Rat { return new(big.Rat).Add(a, b) }
func sub(a, b *big.Rat) *big.Rat { return new(big.Rat).Sub(a, b) }
func neg(a *big.Rat) *big.Rat    { return new(big.Rat).Neg(a) }
func mul(a *big.Rat, k int64) *big.Rat {
	return new(big.Rat).Mul(a, new(big.Rat).SetInt64(k))
}

func floor(a *big.Rat) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Div(a.Num(), a.Denom())) // Div floors for a positive divisor
}

// fineStep is one unit in the decimal place after a value's last digit
// (0.01 for 1.5, 0.1 for 3): the nearest values a decimal literal can
// express just beside it.
func fineStep(a *big.Rat) *big.Rat {
	places := decimalPlaces(a)
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places+1)), nil))
}

// decimalPlaces is the number of digits after the point a value needs
// (max of the powers of 2 and 5 in its denominator), or a cap for a
// fraction with no finite decimal expansion.
func decimalPlaces(a *big.Rat) int {
	const most = 420 // beyond schema.MaxExponent
	d := new(big.Int).Set(a.Denom())
	twos := int(d.TrailingZeroBits())
	d.Rsh(d, uint(twos))
	fives := 0
	five, rem := big.NewInt(5), new(big.Int)
	for fives < most {
		q, m := new(big.Int).QuoRem(d, five, rem)
		if m.Sign() != 0 {
			break
		}
		d, fives = q, fives+1
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return 20
	}
	return min(max(twos, fives), most)
}

// decimal writes a rational as a JSON number literal: exact when it has a
// finite decimal expansion, else rounded to 20 places.
func decimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(decimalPlaces(r))
}
