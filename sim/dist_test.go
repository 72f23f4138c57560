package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zipsim/zipsim/internal/sbdata"
)

const distSamples = 200_000

func drawIDs(t *testing.T, name string, n int64, samples int) []int64 {
	t.Helper()
	d, err := newKeyDist(name, n)
	if err != nil {
		t.Fatal(err)
	}
	r := sbdata.Rand(42)
	ids := make([]int64, samples)
	for i := range ids {
		id := d.next(r)
		if id < 1 || id > n {
			t.Fatalf("%s: id %d outside [1, %d]", name, id, n)
		}
		ids[i] = id
	}
	return ids
}

func TestDistUniform(t *testing.T) {
	const n = 10_000
	ids := drawIDs(t, "uniform", n, distSamples)
	var dec [10]int
	for _, id := range ids {
		dec[(id-1)*10/n]++
	}
	var chi float64
	exp := float64(distSamples) / 10
	for i, c := range dec {
		share := float64(c) / distSamples
		if math.Abs(share-0.1) > 0.01 {
			t.Errorf("decile %d has %.4f of draws, want 0.1 ± 0.01", i, share)
		}
		chi += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	// 9 degrees of freedom: P(χ² > 27.88) = 0.001.
	if chi > 27.88 {
		t.Errorf("chi-square over deciles %.2f > 27.88", chi)
	}
	t.Logf("uniform n=%d: decile shares %v, chi-square %.2f (9 df)", n, dec, chi)
}

func TestDistGaussian(t *testing.T) {
	const n = 10_000
	ids := drawIDs(t, "gaussian", n, distSamples)
	mean, sd := meanSD(ids)
	// id = 1 + ⌊n·M⌋ with M the mean of 12 U[0,1): E ≈ n/2 + 1/2, and
	// sd(M) = sqrt(Var(U)/12) = sqrt(1/144) = 1/12, so sd ≈ n/12 (the
	// floor adds 1/12 to the variance, nothing at this n).
	wantMean, wantSD := float64(n)/2+0.5, math.Sqrt(float64(n)*float64(n)/144+1.0/12)
	if math.Abs(mean-wantMean) > 0.005*n {
		t.Errorf("mean %.1f, want %.1f ± %.0f", mean, wantMean, 0.005*n)
	}
	if math.Abs(sd/wantSD-1) > 0.02 {
		t.Errorf("sd %.1f, want %.1f ± 2%%", sd, wantSD)
	}
	t.Logf("gaussian n=%d: mean %.1f (want %.1f), sd %.1f (want %.1f)", n, mean, wantMean, sd, wantSD)
}

func TestDistSpecial(t *testing.T) {
	for _, n := range []int64{10_000, 1_000_001} {
		ids := drawIDs(t, "special", n, distSamples)
		// The middle 1% of [1, n].
		lo, hi := 1+n/2-n/200, n/2-n/200+max(n/100, 1)
		in := 0
		for _, id := range ids {
			if id >= lo && id <= hi {
				in++
			}
		}
		share := float64(in) / distSamples
		// 75% land there by construction, plus the gaussian quarter's
		// ≈4.8% of its own draws (±0.06 sd).
		if share < 0.75 || share > 0.78 {
			t.Errorf("n=%d: %.4f of draws in the middle 1%% [%d, %d], want ≥ 0.75 (≈0.762)", n, share, lo, hi)
		}
		mean, sd := meanSD(ids)
		t.Logf("special n=%d: %.4f of draws in ids [%d, %d] (%d ids); mean %.1f sd %.1f", n, share, lo, hi, hi-lo+1, mean, sd)
	}
}

func TestDistPareto(t *testing.T) {
	const n = 10_000
	ids := drawIDs(t, "pareto", n, distSamples)
	low := 0
	for _, id := range ids {
		if id <= n/5 {
			low++
		}
	}
	share := float64(low) / distSamples
	if math.Abs(share-0.8) > 0.01 {
		t.Errorf("%.4f of draws in the lowest 20%% of ids, want 0.80 ± 0.01", share)
	}
	t.Logf("pareto n=%d: %.4f of draws in ids [1, %d]; power %.4f", n, share, n/5, paretoPower)
}

// TestDistZipfian checks sysbench's zipfian (rejection-inversion,
// exponent 0.8, id = rank) against the exact law P(k) = k^−0.8/ζ(n, 0.8).
func TestDistZipfian(t *testing.T) {
	const n = 100_000
	const samples = 2_000_000
	ids := drawIDs(t, "zipfian", n, samples)
	counts := make([]int, n+1)
	for _, id := range ids {
		counts[id]++
	}
	z := zeta(n, zipfExp)
	ratio := float64(counts[1]) / float64(counts[2])
	if want := math.Pow(2, zipfExp); math.Abs(ratio/want-1) > 0.03 {
		t.Errorf("f(1)/f(2) = %.4f, want 2^0.8 = %.4f ± 3%%", ratio, want)
	}
	worst := 0.0
	for k := 1; k <= 20; k++ {
		want := float64(samples) * math.Pow(float64(k), -zipfExp) / z
		dev := float64(counts[k])/want - 1
		worst = max(worst, math.Abs(dev))
		if tol := countTol(want); math.Abs(dev) > tol {
			t.Errorf("id %d drawn %d times, want %.0f ± %.1f%%", k, counts[k], want, 100*tol)
		}
	}
	// Mass by decade of ids, against the law.
	for lo := 1; lo < n; lo *= 10 {
		hi := min(lo*10, n+1)
		got, want := 0, 0.0
		for k := lo; k < hi; k++ {
			got += counts[k]
			want += math.Pow(float64(k), -zipfExp)
		}
		want *= samples / z
		if math.Abs(float64(got)/want-1) > 0.02 {
			t.Errorf("ids [%d, %d) drawn %d times, want %.0f ± 2%%", lo, hi, got, want)
		}
	}
	t.Logf("zipfian n=%d: f(1)/f(2) = %.4f (2^0.8 = %.4f), worst deviation of ids 1..20 from k^-0.8/ζ: %.2f%%", n, ratio, math.Pow(2, zipfExp), 100*worst)
}

func TestDistDeterministic(t *testing.T) {
	for _, name := range []string{"uniform", "gaussian", "special", "pareto", "zipfian"} {
		d, err := newKeyDist(name, 12345)
		if err != nil {
			t.Fatal(err)
		}
		r1, r2 := sbdata.Rand(7), sbdata.Rand(7)
		for range 1000 {
			if a, b := d.next(r1), d.next(r2); a != b {
				t.Fatalf("%s: %d != %d from equal seeds", name, a, b)
			}
		}
		// n = 1 always gives 1.
		one, _ := newKeyDist(name, 1)
		for range 100 {
			if id := one.next(r1); id != 1 {
				t.Fatalf("%s over [1, 1] gave %d", name, id)
			}
		}
	}
	if _, err := newKeyDist("normal", 10); err == nil {
		t.Error("unknown distribution accepted")
	}
	if _, err := newKeyDist("uniform", 0); err == nil {
		t.Error("empty range accepted")
	}
}

// grayShare is the share of rank r under YCSB's generator (see zipfian).
func grayShare(n int64, theta, z float64, r int64) float64 {
	switch r {
	case 0:
		return 1 / z
	case 1:
		return math.Pow(2, -theta) / z
	}
	h2, hn := hIntegral(2, theta), hIntegral(float64(n), theta)
	hi := hIntegral(float64(r+1), theta)
	if r == n-1 {
		hi = hn
	}
	return (1 - (1+math.Pow(2, -theta))/z) * (hi - hIntegral(float64(r), theta)) / (hn - h2)
}

func TestZipfRanks(t *testing.T) {
	const n = 10_000
	const samples = 2_000_000
	for _, theta := range []float64{0.606, 0.741, 0.8, 1.0, 1.2} {
		z, err := newZipfian(n, theta)
		if err != nil {
			t.Fatal(err)
		}
		r := sbdata.Rand(uint64(theta * 1000))
		counts := make([]int, n)
		for range samples {
			k := z.next(r)
			if k < 0 || k >= n {
				t.Fatalf("theta %v: rank %d outside [0, %d)", theta, k, n)
			}
			counts[k]++
		}
		zn := zeta(n, theta)
		ratio := float64(counts[0]) / float64(counts[1])
		if want := math.Pow(2, theta); math.Abs(ratio/want-1) > 0.03 {
			t.Errorf("theta %v: f(0)/f(1) = %.4f, want 2^θ = %.4f ± 3%%", theta, ratio, want)
		}
		// The generator's own law, rank by rank for the top 20 and by
		// decades below; and how far that law is from the pure power law
		// (YCSB's approximation, logged).
		worst, worstPure := 0.0, 0.0
		for k := int64(0); k < 20; k++ {
			want := samples * grayShare(n, theta, zn, k)
			if dev, tol := float64(counts[k])/want-1, countTol(want); math.Abs(dev) > tol {
				t.Errorf("theta %v: rank %d drawn %d times, want %.0f ± %.1f%%", theta, k, counts[k], want, 100*tol)
			} else {
				worst = max(worst, math.Abs(dev))
			}
			pure := samples * math.Pow(float64(k+1), -theta) / zn
			worstPure = max(worstPure, math.Abs(float64(counts[k])/pure-1))
		}
		for lo := int64(1); lo < n; lo *= 10 {
			hi := min(lo*10, n)
			got, want := 0, 0.0
			for k := lo; k < hi; k++ {
				got += counts[k]
				want += grayShare(n, theta, zn, k)
			}
			want *= samples
			if math.Abs(float64(got)/want-1) > 0.02 {
				t.Errorf("theta %v: ranks [%d, %d) drawn %d times, want %.0f ± 2%%", theta, lo, hi, got, want)
			}
		}
		pure2 := grayShare(n, theta, zn, 2) / (math.Pow(3, -theta) / zn)
		pure100 := grayShare(n, theta, zn, 100) / (math.Pow(101, -theta) / zn)
		t.Logf("theta %.3f: f(0)/f(1) = %.4f (2^θ = %.4f); top 20 ranks within %.2f%% of the generator's law, within %.1f%% of k^-θ/ζ; law/power-law at rank 2 %.3f, at rank 100 %.3f",
			theta, ratio, math.Pow(2, theta), 100*worst, 100*worstPure, pure2, pure100)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := newZipfian(10, bad); err == nil {
			t.Errorf("theta %v accepted", bad)
		}
	}
	if _, err := newZipfian(0, 0.8); err == nil {
		t.Error("n = 0 accepted")
	}
	for _, n := range []int64{1, 2, 3} {
		z, _ := newZipfian(n, 0.8)
		r := sbdata.Rand(1)
		for range 1000 {
			if k := z.next(r); k < 0 || k >= n {
				t.Fatalf("n=%d: rank %d", n, k)
			}
		}
	}
}

func TestZipfZeta(t *testing.T) {
	// Euler–Maclaurin beyond 2^20 terms against a plain sum.
	for _, theta := range []float64{0.606, 1, 1.2} {
		const n = 3 << 20
		var sum float64
		for i := n; i >= 1; i-- {
			sum += math.Pow(float64(i), -theta)
		}
		if got := zeta(n, theta); math.Abs(got/sum-1) > 1e-12 {
			t.Errorf("zeta(%d, %v) = %.15g, want %.15g", n, theta, got, sum)
		}
	}
}

func TestPermBijection(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 4, 5, 7, 16, 17, 97, 100, 1000, 1021, 4096, 65537, 100_000} {
		for _, seed := range []uint64{0, 1, 0xdeadbeef} {
			p := newPermutation(n, seed)
			seen := make([]bool, n)
			fixed := 0
			for i := int64(0); i < n; i++ {
				j := p.at(i)
				if j < 0 || j >= n {
					t.Fatalf("n=%d seed %d: at(%d) = %d outside [0, n)", n, seed, i, j)
				}
				if seen[j] {
					t.Fatalf("n=%d seed %d: %d hit twice", n, seed, j)
				}
				seen[j] = true
				if j == i {
					fixed++
				}
				if p.at(i) != j {
					t.Fatalf("n=%d: at(%d) not deterministic", n, i)
				}
			}
			// A random permutation has about one fixed point.
			if n >= 1000 && fixed > 20 {
				t.Errorf("n=%d seed %d: %d fixed points", n, seed, fixed)
			}
		}
	}
	a, b := newPermutation(1000, 1), newPermutation(1000, 2)
	same := 0
	for i := int64(0); i < 1000; i++ {
		if a.at(i) == b.at(i) {
			same++
		}
	}
	if same > 20 {
		t.Errorf("seeds 1 and 2 agree on %d of 1000 points", same)
	}
}

func BenchmarkDist(b *testing.B) {
	for _, name := range []string{"uniform", "gaussian", "special", "pareto", "zipfian"} {
		b.Run(name, func(b *testing.B) {
			d, _ := newKeyDist(name, 1_000_000)
			r := rand.New(rand.NewPCG(1, 2))
			var s int64
			for b.Loop() {
				s += d.next(r)
			}
			_ = s
		})
	}
	b.Run("gray0.8", func(b *testing.B) {
		z, _ := newZipfian(1_000_000, 0.8)
		p := newPermutation(1_000_000, 3)
		r := rand.New(rand.NewPCG(1, 2))
		var s int64
		for b.Loop() {
			s += p.at(z.next(r))
		}
		_ = s
	})
}

// countTol is the relative tolerance of a count expected to be want: 3%,
// or 4 standard deviations of a Poisson count where that is wider.
func countTol(want float64) float64 { return max(0.03, 4/math.Sqrt(want)) }

func meanSD(ids []int64) (mean, sd float64) {
	for _, id := range ids {
		mean += float64(id)
	}
	mean /= float64(len(ids))
	for _, id := range ids {
		d := float64(id) - mean
		sd += d * d
	}
	return mean, math.Sqrt(sd / float64(len(ids)))
}
