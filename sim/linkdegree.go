package sim

import "math"

// The LinkBench out-degree distribution: how many links an id1 gets at
// load time (research/targets.md §2.4). LinkBench reads it from
// config/Distribution.dat ("nlinks") and gives each id1 the value of the
// CDF's inverse at u = 1 − rank/n, rank being the id's place in a shuffled
// order of the n ids [RealDistribution.getNlinks,
// PiecewiseLinearDistribution.expectedCount]: rank 0 gets the largest
// degree, and the share of ids with degree ≤ k is exactly the CDF at k,
// with no sampling noise.
//
// The table follows §2.4's summary, not the file itself: 45% of ids have
// no links, 77% at most 1, 95% at most 5, 99% at most 15; between those
// points P(degree > k) is interpolated log-linearly in k, and above 15 it
// is a power-law tail P(degree > k) = 0.01·(k/15)^−α up to a largest
// degree of 962,000, with α chosen so that the mean is 4.1 (§2.4's ≈4.1).
// (The Distribution.dat in facebookarchive/linkbench at the time of
// writing reads differently, 19.7% at 0, 73.0% ≤ 1, 95.9% ≤ 5, 99.0% ≤ 15
// and a largest value of 311,772; §2.4 is the specification here.)
//
// Cap: the top id's 962,000 links would dwarf a 2-core graph (at maxid1 =
// 100K, nearly four times all the other links) and make its load and lists
// the run's cost. Degrees are capped at linkDegreeCap,
// 10,000, getlinklist's row limit, so the largest list is still one full
// page of results. The cap lowers the mean from 4.1 to ≈2.6 (2.65 for
// maxid1 = 100K, 2.61 for 1M): the tail above 10,000 links, 0.003% of ids,
// holds over a third of the uncapped links. Tiny graphs sit above that, as
// their top id still gets the whole cap (≈4.0 links per id for maxid1 =
// 5,000, half of them on that one id).

// degreeCDF[k] is P(out-degree ≤ k) for k = 0..15.
var degreeCDF = [...]float64{
	0.45, 0.77, 0.88080, 0.91884, 0.93822, 0.95, // 0..5
	0.96172, 0.96946, 0.97488, 0.97886, 0.98189, // 6..10
	0.98425, 0.98613, 0.98767, 0.98894, 0.99, // 11..15
}

const (
	// degreeTailAlpha is the tail exponent above 15 links: it makes the
	// uncapped mean 4.1.
	degreeTailAlpha = 0.9116
	// degreeMax is the largest degree of the uncapped distribution.
	degreeMax = 962_000
	// linkDegreeCap caps the degree of any one id1 at load time.
	linkDegreeCap = 10_000
)

// degreeQuantile returns the smallest degree k with P(degree ≤ k) ≥ u,
// for u in [0, 1], without the cap: degreeMax for u = 1.
func degreeQuantile(u float64) int64 {
	last := len(degreeCDF) - 1
	if u <= degreeCDF[last] {
		for k, f := range degreeCDF {
			if u <= f {
				return int64(k)
			}
		}
	}
	s := 1 - u // P(degree > k) must be ≤ s
	if s <= 0 {
		return degreeMax
	}
	k := float64(last) * math.Pow((1-degreeCDF[last])/s, 1/degreeTailAlpha)
	return min(int64(math.Ceil(k-1e-9)), degreeMax)
}

// degreeOfRank is the capped degree of the id at place rank (0 the
// largest) of n ids.
func degreeOfRank(rank, n int64) int64 {
	return min(degreeQuantile(1-float64(rank)/float64(n)), linkDegreeCap)
}
