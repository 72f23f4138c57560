package sim

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Key distributions of sysbench's --rand-type (research/targets.md §2.2),
// a general Zipfian rank generator (YCSB, LinkBench) and a pseudo-random
// permutation that scatters ranks over ids.
//
// Sources:
//   - sysbench src/sb_rand.c (1.0): sb_rand_uniform, sb_rand_gaussian,
//     sb_rand_pareto, sb_rand_zipfian (rejection-inversion, after Apache
//     Commons RNG's RejectionInversionZipfSampler and Hörmann & Derflinger,
//     "Rejection-inversion to generate variates from monotone discrete
//     distributions", TOMACS 6(3), 1996);
//   - sysbench 0.5 sysbench.c: sb_rand_special (see specialID);
//   - YCSB core/.../generator/ZipfianGenerator.java, implementing Gray et
//     al., "Quickly generating billion-record synthetic databases", SIGMOD
//     1994.
//
// Every generator is a deterministic function of the *rand.Rand it is
// given and allocates nothing per draw.

// sysbench's defaults: --rand-spec-iter, --rand-spec-pct, --rand-spec-res,
// --rand-pareto-h and --rand-zipfian-exp.
const (
	specIter = 12
	specPct  = 1
	specRes  = 75
	paretoH  = 0.2
	zipfExp  = 0.8
)

// paretoPower is sb_rand.c's pareto_power = log(h)/log(1-h), ≈ 7.2126 for
// h = 0.2: P(id ≤ 1 + h·N) = h^(1/power) = 1 - h.
var paretoPower = math.Log(paretoH) / math.Log(1-paretoH)

type distKind uint8

const (
	distUniform distKind = iota
	distGaussian
	distSpecial
	distPareto
	distZipfian
)

// keyDist draws ids in [1, n] with one of sysbench's distributions.
type keyDist struct {
	kind distKind
	n    int64
	zipf zipfRI // distZipfian only
}

// newKeyDist returns sysbench's distribution name ("uniform", "gaussian",
// "special", "pareto" or "zipfian") over ids [1, n] with sysbench's
// default parameters.
func newKeyDist(name string, n int64) (keyDist, error) {
	if n < 1 || n > math.MaxUint32 {
		return keyDist{}, fmt.Errorf("sim: key distribution over %d ids: use 1..%d", n, uint32(math.MaxUint32))
	}
	d := keyDist{n: n}
	switch name {
	case "uniform":
		d.kind = distUniform
	case "gaussian":
		d.kind = distGaussian
	case "special":
		d.kind = distSpecial
	case "pareto":
		d.kind = distPareto
	case "zipfian":
		d.kind = distZipfian
		d.zipf = newZipfRI(n, zipfExp)
	default:
		return keyDist{}, fmt.Errorf("sim: key distribution %q: use uniform, gaussian, special, pareto or zipfian", name)
	}
	return d, nil
}

// next returns an id in [1, n].
func (d *keyDist) next(r *rand.Rand) int64 {
	var id int64
	switch d.kind {
	case distUniform:
		// sb_rand_uniform: a + u·(b−a+1).
		id = 1 + int64(r.Float64()*float64(d.n))
	case distGaussian:
		id = gaussianID(r, d.n)
	case distSpecial:
		id = specialID(r, d.n)
	case distPareto:
		// sb_rand_pareto: a + (b−a+1)·u^power.
		id = 1 + int64(float64(d.n)*math.Pow(r.Float64(), paretoPower))
	case distZipfian:
		// sb_rand_zipfian: rank = id, not shuffled.
		id = d.zipf.next(r)
	}
	return min(max(id, 1), d.n)
}

// gaussianID is sb_rand_gaussian: a + ⌊(Σ of rand_iter draws of u·(b−a+1)) /
// rand_iter⌋, the mean of 12 uniform draws over [1, n]. Its mean is about
// n/2 and its sd n/sqrt(12·12) = n/12.
func gaussianID(r *rand.Rand, n int64) int64 {
	var sum float64
	for range specIter {
		sum += r.Float64()
	}
	return 1 + int64(sum*float64(n)/specIter)
}

// specialID is sysbench 0.5's sb_rand_special (the 0.4/0.5 default):
// draw res uniformly in [0, n·100/(100−res)); below n (1 − res% of draws)
// return a gaussian draw over the whole range, otherwise a uniform draw
// inside the middle pct% of ids, [n/2 − n·pct/200, that + max(n·pct/100,
// 1)). sysbench 1.0 reuses the branch's draw for the position, which only
// reaches the upper three quarters of that band; 0.5's integer version,
// followed here, covers all of it.
func specialID(r *rand.Rand, n int64) int64 {
	if r.Float64()*100 < 100-specRes {
		return gaussianID(r, n)
	}
	d := max(n*specPct/100, 1)
	return 1 + n/2 - n*specPct/200 + r.Int64N(d)
}

// zipfRI is sysbench's Zipfian sampler (sb_rand_zipfian_int): rejection-
// inversion, exact for any exponent e ≥ 0, O(1) to set up and to draw.
// next returns k in [1, n] with P(k) ∝ k^−e.
type zipfRI struct {
	n, e        float64
	s           float64 // zipf_s
	hIntegralX1 float64 // hIntegral(1.5) − 1
	hIntegralN  float64 // hIntegral(n + 0.5)
}

func newZipfRI(n int64, e float64) zipfRI {
	return zipfRI{
		n:           float64(n),
		e:           e,
		s:           2 - hIntegralInverse(hIntegral(2.5, e)-zipfH(2, e), e),
		hIntegralX1: hIntegral(1.5, e) - 1,
		hIntegralN:  hIntegral(float64(n)+0.5, e),
	}
}

func (z *zipfRI) next(r *rand.Rand) int64 {
	for {
		u := z.hIntegralN + r.Float64()*(z.hIntegralX1-z.hIntegralN)
		x := hIntegralInverse(u, z.e)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if k-x <= z.s || u >= hIntegral(k+0.5, z.e)-zipfH(k, z.e) {
			return int64(k)
		}
	}
}

// hIntegral is H(x) = (x^(1−e) − 1)/(1 − e), or log x for e = 1: the
// integral of zipfH.
func hIntegral(x, e float64) float64 {
	logX := math.Log(x)
	return expm1Over((1-e)*logX) * logX
}

// hIntegralInverse is H⁻¹.
func hIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1 // numerical error, as sb_rand.c
	}
	return math.Exp(log1pOver(t) * x)
}

// zipfH is h(x) = x^−e.
func zipfH(x, e float64) float64 { return math.Exp(-e * math.Log(x)) }

// log1pOver is log(1+x)/x, by Taylor series near 0.
func log1pOver(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// expm1Over is (exp(x)−1)/x, by Taylor series near 0.
func expm1Over(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x/3*(1+0.25*x))
}

// zipfian is YCSB's ZipfianGenerator (Gray et al. 1994): ranks [0, n) with
// rank 0 the most frequent. Ranks 0 and 1 get exactly their Zipf shares
// 1/ζ(n,θ) and 2^−θ/ζ(n,θ); the rest follow the continuous density
// x^−θ on [2, n) scaled to the remaining mass, so rank r ≥ 2 has share
// (1 − ζ(2,θ)/ζ(n,θ))·(H(r+1) − H(r))/(H(n) − H(2)) with H as hIntegral.
// That is the generator YCSB and LinkBench use; it over-weights the first
// continuous ranks (rank 2 by ≈16% at θ = 0.8) and converges to the power
// law further down. YCSB's formula n·(η·u − η + 1)^(1/(1−θ)) is written
// here through H and H⁻¹, which is the same map for θ ≠ 1 and also
// defines θ = 1 (H = log).
type zipfian struct {
	n         int64
	theta     float64
	zetan     float64 // ζ(n, θ) = Σ_{i=1..n} i^−θ
	half      float64 // 1 + 2^−θ = ζ(2, θ)
	u2        float64 // ζ(2, θ)/ζ(n, θ): P(rank < 2)
	h2, hspan float64 // H(2) and H(n) − H(2)
}

// newZipfian returns a Zipfian rank generator over [0, n) with exponent
// theta > 0 (θ < 1, θ = 1 and θ > 1 are all allowed). Setting up sums
// ζ(n, θ), exactly for the first 2^20 terms and by Euler–Maclaurin beyond.
func newZipfian(n int64, theta float64) (*zipfian, error) {
	if n < 1 {
		return nil, fmt.Errorf("sim: zipfian over %d items: need at least one", n)
	}
	if !(theta > 0) || math.IsInf(theta, 0) {
		return nil, fmt.Errorf("sim: zipfian exponent %v: need a finite theta > 0", theta)
	}
	z := &zipfian{n: n, theta: theta, zetan: zeta(n, theta), half: 1 + math.Pow(0.5, theta)}
	z.u2 = z.half / z.zetan
	z.h2 = hIntegral(2, theta)
	z.hspan = hIntegral(float64(n), theta) - z.h2
	return z, nil
}

// next returns a rank in [0, n).
func (z *zipfian) next(r *rand.Rand) int64 {
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 || z.n == 1 {
		return 0
	}
	if uz < z.half || z.n == 2 {
		return 1
	}
	// u is in [ζ(2)/ζ(n), 1): map it linearly onto H over [2, n).
	v := (u - z.u2) / (1 - z.u2)
	rank := int64(hIntegralInverse(z.h2+v*z.hspan, z.theta))
	return min(max(rank, 2), z.n-1)
}

// zeta returns Σ_{i=1..n} i^−θ: the first 2^20 terms summed, the rest by
// Euler–Maclaurin (integral, end-point and first derivative terms), whose
// error is far below float64 rounding of the sum at that distance.
func zeta(n int64, theta float64) float64 {
	const exact = 1 << 20
	m := min(n, exact)
	var sum float64
	for i := m; i >= 1; i-- { // small terms first
		sum += math.Pow(float64(i), -theta)
	}
	if n == m {
		return sum
	}
	a, b := float64(m), float64(n)
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	df := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	// Σ_{i=m+1..n} f(i) = ∫_m^n f + (f(n) − f(m))/2 + (f'(n) − f'(m))/12 − …
	var in float64
	if theta == 1 {
		in = math.Log(b / a)
	} else {
		in = (math.Pow(b, 1-theta) - math.Pow(a, 1-theta)) / (1 - theta)
	}
	return sum + in + (f(b)-f(a))/2 + (df(b)-df(a))/12
}

// permutation is a fixed pseudo-random bijection of [0, n), computed
// without tables: a 4-round balanced Feistel network over the smallest
// even number of bits covering n, with cycle-walking (re-encrypting until
// the value falls below n; the domain is under 4n, so that takes fewer
// than 4 rounds on average). Black & Rogaway, "Ciphers with arbitrary
// finite domains", CT-RSA 2002.
type permutation struct {
	n    int64
	half uint   // bits per Feistel half
	mask uint64 // (1 << half) − 1
	keys [4]uint64
}

// newPermutation returns the permutation of [0, n) for seed.
func newPermutation(n int64, seed uint64) permutation {
	p := permutation{n: max(n, 1)}
	b := uint(bits.Len64(uint64(p.n - 1)))
	b = max(b+(b&1), 2)
	p.half = b / 2
	p.mask = 1<<p.half - 1
	s := seed
	for i := range p.keys {
		s += 0x9e3779b97f4a7c15
		p.keys[i] = splitmix(s)
	}
	return p
}

// at returns the image of i, which must be in [0, n).
func (p permutation) at(i int64) int64 {
	if p.n <= 1 {
		return 0
	}
	x := uint64(i)
	for {
		l, r := x>>p.half, x&p.mask
		for _, k := range p.keys {
			l, r = r, l^(splitmix(r^k)&p.mask)
		}
		x = l<<p.half | r
		if x < uint64(p.n) {
			return int64(x)
		}
	}
}

// splitmix is SplitMix64's finaliser.
func splitmix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
