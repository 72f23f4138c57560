package sim

import (
	"bytes"
	"cmp"
	"compress/flate"
	"context"
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
)

var wlCtx = context.Background()

// wlRecorder counts the operations a worker reports.
type wlRecorder struct {
	mu   sync.Mutex
	n    []int64
	ns   []int64
	seq  []int // the first operations, in order
	rows int64 // reported by range operations
}

func newWLRecorder(ops int) *wlRecorder {
	return &wlRecorder{n: make([]int64, ops), ns: make([]int64, ops)}
}

func (c *wlRecorder) Rows(n int) {
	c.mu.Lock()
	c.rows += int64(n)
	c.mu.Unlock()
}

func (c *wlRecorder) Op(op int, ns int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[op]++
	c.ns[op] += ns
	if len(c.seq) < 1000 {
		c.seq = append(c.seq, op)
	}
}

func lbTestConfig(t testing.TB, seed uint64, maxid1, loaders int) Config {
	t.Helper()
	c, err := Config{Workload: "linkbench", Seed: seed, PoolBytes: 64 << 20,
		Linkbench: LinkbenchConfig{MaxID1: maxid1, Loaders: loaders}}.Validate()
	require.NoError(t, err)
	return c
}

// wlOpenStore opens an in-memory store for w and creates its tables.
func wlOpenStore(t testing.TB, c Config, w Workload) *zipsim.Store {
	t.Helper()
	o, err := c.StoreOptions(w.DataBytes())
	require.NoError(t, err)
	st, err := zipsim.Open("", o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	require.NoError(t, w.Create(wlCtx, st))
	return st
}

// wlLoad loads w and checks that progress adds up to LoadRows.
func wlLoad(t testing.TB, st *zipsim.Store, w Workload) time.Duration {
	t.Helper()
	var rows atomic.Int64
	start := time.Now()
	require.NoError(t, w.Load(wlCtx, st, func(n int64) {
		require.Positive(t, n)
		rows.Add(n)
	}))
	el := time.Since(start)
	require.Equal(t, w.LoadRows(), rows.Load(), "progress reports every row Load inserts")
	return el
}

func TestLinkbenchMix(t *testing.T) {
	const draws = 400_000
	r := rand.New(rand.NewPCG(1, 2))
	n := make([]int, len(linkbenchOps))
	for range draws {
		n[chooseLinkOp(r)]++
	}
	var total, reads float64
	for i, o := range linkbenchOps {
		got := 100 * float64(n[i]) / draws
		t.Logf("%-12s want %7.3f%%  got %7.3f%%", o.name, o.pct, got)
		require.InDelta(t, o.pct, got, 1, o.name)
		// Four standard deviations of a binomial share.
		sd := 100 * math.Sqrt(o.pct/100*(1-o.pct/100)/draws)
		require.InDelta(t, o.pct, got, 4*sd, o.name)
		total += o.pct
		if i <= lbGetLink {
			reads += o.pct
		}
	}
	require.InDelta(t, 100, total, 1e-6)
	t.Logf("reads %.2f%%, writes %.2f%%", reads, 100-reads)
}

func TestLinkbenchMultiget(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const draws = 200_000
	var sum, ones, top int
	for range draws {
		k := multigetSize(r)
		require.GreaterOrEqual(t, k, 1)
		require.LessOrEqual(t, k, lbMultigetN)
		sum += k
		if k == 1 {
			ones++
		}
		top = max(top, k)
	}
	mean := float64(sum) / draws
	t.Logf("getlink multiget: mean %.3f ids, P(1) %.3f, largest %d", mean, float64(ones)/draws, top)
	require.InDelta(t, 1/lbMultigetP, mean, 0.05)
	require.InDelta(t, lbMultigetP, float64(ones)/draws, 0.01)
}

// lbPayloadStats draws n payloads and returns their lengths, the share of
// values whose first chunk is fresh rather than copied from the motif
// buffer (among values of at least minFresh bytes), every byte's range
// and the deflate ratio of the values concatenated.
func lbPayloadStats(t *testing.T, g *motifGen, draw func(*rand.Rand, []byte) []byte, n, minFresh int) (lens []int, fresh float64, lo, hi byte, ratio float64) {
	r := rand.New(rand.NewPCG(5, 6))
	var all bytes.Buffer
	var data []byte
	lo, hi = 255, 0
	var seen, fr int
	for range n {
		data = draw(r, data)
		lens = append(lens, len(data))
		for _, b := range data {
			lo, hi = min(lo, b), max(hi, b)
		}
		if len(data) >= minFresh {
			seen++
			if !bytes.Contains(g.motif[:], data[:min(len(data), motifChunk)]) {
				fr++
			}
		}
		all.Write(data)
	}
	var z bytes.Buffer
	fw, err := flate.NewWriter(&z, 6)
	require.NoError(t, err)
	_, err = fw.Write(all.Bytes())
	require.NoError(t, err)
	require.NoError(t, fw.Close())
	return lens, float64(fr) / float64(seen), lo, hi, float64(z.Len()) / float64(all.Len())
}

func lbMeanMedian(lens []int) (mean float64, median, largest int) {
	s := slices.Clone(lens)
	slices.Sort(s)
	var sum int
	for _, l := range s {
		sum += l
	}
	return float64(sum) / float64(len(s)), s[len(s)/2], s[len(s)-1]
}

func TestLinkbenchPayload(t *testing.T) {
	lb, err := newLinkbenchWorkload(lbTestConfig(t, 1, 1000, 1))
	require.NoError(t, err)

	lens, fresh, lo, hi, ratio := lbPayloadStats(t, lb.linkData, lb.linkPayload, 200_000, 16)
	mean, median, largest := lbMeanMedian(lens)
	capped := 0
	for _, l := range lens {
		if l == lbLinkDataCap {
			capped++
		}
	}
	t.Logf("link data: median %d, mean %.2f, largest %d (%d at the cap), bytes %d..%d, fresh first chunks %.3f, deflate ratio %.3f",
		median, mean, largest, capped, lo, hi, fresh, ratio)
	require.Equal(t, lbLinkDataMedian, median)
	require.InDelta(t, 8*math.Exp(0.5), mean, 0.4) // lognormal mean, ≈13.2
	require.Equal(t, lbLinkDataCap, largest)
	require.Positive(t, capped)
	require.Equal(t, byte(lbLinkStart), lo)
	require.Equal(t, byte(lbLinkEnd), hi)
	require.InDelta(t, lbLinkUnique, fresh, 0.02)

	lens, fresh, lo, hi, ratio = lbPayloadStats(t, lb.nodeData, lb.nodePayload, 50_000, motifChunk)
	mean, median, largest = lbMeanMedian(lens)
	t.Logf("node data: median %d, mean %.1f, largest %d, bytes %d..%d, fresh first chunks %.3f, deflate ratio %.3f",
		median, mean, largest, lo, hi, fresh, ratio)
	require.InDelta(t, lbNodeDataMedian, median, 4)
	require.InDelta(t, 128*math.Exp(0.5), mean, 10) // ≈211
	require.LessOrEqual(t, largest, lbNodeDataCap)
	require.Equal(t, byte(lbNodeStart), lo)
	require.Equal(t, byte(lbNodeEnd), hi)
	require.InDelta(t, lbNodeUnique, fresh, 0.02)
}

func TestLinkbenchDegree(t *testing.T) {
	// The distribution itself: exact shares at §2.4's points.
	points := []struct {
		k    int64
		want float64
	}{{0, 0.45}, {1, 0.77}, {5, 0.95}, {15, 0.99}}
	for _, n := range []int64{100_000, 1_000_000} {
		var sum, largest int64
		le := make([]int64, len(points))
		for rank := range n {
			d := degreeOfRank(rank, n)
			sum += d
			largest = max(largest, d)
			for i, p := range points {
				if d <= p.k {
					le[i]++
				}
			}
		}
		for i, p := range points {
			got := float64(le[i]) / float64(n)
			require.InDelta(t, p.want, got, 0.01, "n %d: P(degree ≤ %d)", n, p.k)
		}
		t.Logf("n %d: P(≤0) %.4f P(≤1) %.4f P(≤5) %.4f P(≤15) %.4f, mean %.3f, largest %d (cap %d)",
			n, float64(le[0])/float64(n), float64(le[1])/float64(n), float64(le[2])/float64(n), float64(le[3])/float64(n),
			float64(sum)/float64(n), largest, linkDegreeCap)
		require.Equal(t, int64(linkDegreeCap), largest)
	}

	// Uncapped, the mean is §2.4's 4.1: Σ P(degree > k).
	var mean float64
	for k := range int64(degreeMax) {
		mean += 1 - degreeCDFAt(k)
	}
	t.Logf("uncapped mean %.3f, largest %d", mean, degreeQuantile(1))
	require.InDelta(t, 4.1, mean, 0.02)
	require.Equal(t, int64(degreeMax), degreeQuantile(1))

	// Through the shuffle: ids get the same degrees in another order.
	c := lbTestConfig(t, 7, 20_001, 1)
	lb, err := newLinkbenchWorkload(c)
	require.NoError(t, err)
	var byID, byRank []int64
	var moved int
	for id := int64(1); id <= lb.n; id++ {
		byID = append(byID, lb.degree(id))
		byRank = append(byRank, degreeOfRank(id-1, lb.n))
		if byID[id-1] != byRank[id-1] {
			moved++
		}
	}
	require.Greater(t, moved, int(lb.n)/4, "the shuffle moves degrees")
	slices.Sort(byID)
	slices.Sort(byRank)
	require.Equal(t, byRank, byID)
	links, counts := lb.totals()
	var sum, cnt int64
	for _, d := range byID {
		sum += d
		cnt += min(d, 2)
	}
	require.Equal(t, sum, links)
	require.Equal(t, cnt, counts)
}

// degreeCDFAt is P(degree ≤ k) of the uncapped distribution.
func degreeCDFAt(k int64) float64 {
	if k < int64(len(degreeCDF)) {
		return degreeCDF[k]
	}
	if k >= degreeMax {
		return 1
	}
	last := float64(len(degreeCDF) - 1)
	return 1 - (1-degreeCDF[len(degreeCDF)-1])*math.Pow(float64(k)/last, -degreeTailAlpha)
}

// lbLinkState scans linktable and counttable: the visible links per
// (id1, type), the links in all, and the counts.
func lbLinkState(t *testing.T, st *zipsim.Store) (visible, counts map[[2]int64]int64, links int64) {
	t.Helper()
	visible, counts = map[[2]int64]int64{}, map[[2]int64]int64{}
	require.NoError(t, st.Table("linktable").Scan(wlCtx, nil, nil, false, func(row zipsim.Row) bool {
		links++
		if row[lcVis].Int() == 1 {
			visible[[2]int64{row[lcID1].Int(), row[lcType].Int()}]++
		}
		return true
	}))
	require.NoError(t, st.Table("counttable").Scan(wlCtx, nil, nil, false, func(row zipsim.Row) bool {
		counts[[2]int64{row[ccID].Int(), row[ccType].Int()}] = row[ccCount].Int()
		return true
	}))
	return visible, counts, links
}

// lbRequireCounts checks that every count is the number of visible
// links of its (id1, type).
func lbRequireCounts(t *testing.T, visible, counts map[[2]int64]int64) {
	t.Helper()
	for k, v := range visible {
		require.Equal(t, v, counts[k], "count of (%d, %d)", k[0], k[1])
	}
	for k, c := range counts {
		require.Equal(t, visible[k], c, "count of (%d, %d)", k[0], k[1])
	}
}

func wlRequireClean(t *testing.T, st *zipsim.Store) {
	t.Helper()
	require.NoError(t, errors.Join(st.Check(wlCtx)...))
}

func TestLinkbenchLoadAndRequests(t *testing.T) {
	const maxid1, events = 5000, 2000
	c := lbTestConfig(t, 11, maxid1, 3)
	lb, err := newLinkbenchWorkload(c)
	require.NoError(t, err)
	st := wlOpenStore(t, c, lb)
	el := wlLoad(t, st, lb)

	wantLinks, wantCounts := lb.totals()
	visible, counts, links := lbLinkState(t, st)
	t.Logf("load of maxid1 %d with 3 loaders: %d nodes, %d links (%.2f per node), %d counts in %v (%.0f rows/s)",
		maxid1, lb.n, links, float64(links)/float64(lb.n), len(counts), el.Round(time.Millisecond),
		float64(lb.LoadRows())/el.Seconds())
	require.Equal(t, wantLinks, links)
	require.Equal(t, int(wantCounts), len(counts))
	lbRequireCounts(t, visible, counts)
	var nodes int64
	require.NoError(t, st.Table("nodetable").Scan(wlCtx, nil, nil, false, func(row zipsim.Row) bool {
		nodes++
		require.Equal(t, nodes, row[0].Int())
		return true
	}))
	require.Equal(t, lb.n, nodes)
	// id2 = id1 + j, j = 0..n−1, for the loaded links of each (id1, type).
	require.NoError(t, st.Table("linktable").Scan(wlCtx, nil, nil, false, func(row zipsim.Row) bool {
		id1, id2 := row[lcID1].Int(), row[lcID2].Int()
		require.Less(t, id2-id1, lb.loadedLinks(id1, int(row[lcType].Int()-lbLinkType0)))
		require.GreaterOrEqual(t, id2, id1)
		return true
	}))
	wlRequireClean(t, st)

	// A list read counts its rows for the server layer: every loaded link
	// of a (id1, type) is visible.
	lw, err := lb.worker(st, 0)
	require.NoError(t, err)
	id1 := int64(1)
	for ; lb.loadedLinks(id1, 0) == 0; id1++ {
	}
	n, _, err := lw.scanList(wlCtx, id1, lbLinkType0, -1)
	require.NoError(t, err)
	require.EqualValues(t, lb.loadedLinks(id1, 0), n)
	require.Equal(t, n, lw.rows)

	w, err := lb.Worker(st, 0)
	require.NoError(t, err)
	rec := newWLRecorder(len(lb.Ops()))
	start := time.Now()
	for range events {
		require.NoError(t, w.Next(wlCtx, rec))
	}
	el = time.Since(start)
	var sum int64
	for i, name := range lb.Ops() {
		sum += rec.n[i]
		var avg time.Duration
		if rec.n[i] > 0 {
			avg = time.Duration(rec.ns[i] / rec.n[i])
		}
		t.Logf("%-12s %5d (%5.2f%%), mean %v", name, rec.n[i], 100*float64(rec.n[i])/events, avg)
	}
	require.Equal(t, int64(events), sum, "one operation per event")
	require.Positive(t, rec.rows, "getlinklist and getlink report their rows")
	t.Logf("%d requests in %v (%.0f/s), %d rows read by ranges and multigets", events, el.Round(time.Millisecond), events/el.Seconds(), rec.rows)

	visible, counts, links2 := lbLinkState(t, st)
	lbRequireCounts(t, visible, counts)
	require.GreaterOrEqual(t, links2, links, "links are hidden, never removed")
	t.Logf("after requests: %d links (%d added), %d counts", links2, links2-links, len(counts))
	wlRequireClean(t, st)
}

func TestLinkbenchMergeThreshold(t *testing.T) {
	// MERGE_THRESHOLD reaches every table, nodetable too, whose other
	// options ignore the Config.
	for _, mt := range []int{0, 25} {
		c, err := Config{Workload: "linkbench", PoolBytes: 16 << 20, KBS: 8, MergeThreshold: mt,
			Linkbench: LinkbenchConfig{MaxID1: 300}}.Validate()
		require.NoError(t, err)
		lb, err := newLinkbenchWorkload(c)
		require.NoError(t, err)
		st := wlOpenStore(t, c, lb)
		want := cmp.Or(mt, 50)
		for _, name := range []string{"linktable", "counttable", "nodetable"} {
			require.Equal(t, want, st.Table(name).Options().MergeThresholdPct, "%s, merge_threshold %d", name, mt)
		}
	}
	_, err := Config{MergeThreshold: 51}.Validate()
	require.ErrorContains(t, err, "merge_threshold 51: use 1..50")
}

func TestLinkbenchThreads(t *testing.T) {
	// Several workers at once, partitioned compressed link and count
	// tables: counts stay exact and the indexes sound.
	c, err := Config{Workload: "linkbench", Seed: 5, PoolBytes: 64 << 20, Partitions: 4, KBS: 8, Threads: 4,
		Linkbench: LinkbenchConfig{MaxID1: 3000}}.Validate()
	require.NoError(t, err)
	lb, err := newLinkbenchWorkload(c)
	require.NoError(t, err)
	st := wlOpenStore(t, c, lb)

	lo := st.Table("linktable").Options()
	require.Equal(t, zipsim.Compressed, lo.RowFormat)
	require.Equal(t, 8, lo.KeyBlockSize)
	require.Equal(t, 4, lo.Partitions)
	require.Equal(t, []string{"id1"}, lo.PartitionBy)
	co := st.Table("counttable").Options()
	require.Equal(t, zipsim.Compressed, co.RowFormat)
	require.Equal(t, []string{"id"}, co.PartitionBy)
	no := st.Table("nodetable").Options()
	require.Equal(t, zipsim.Dynamic, no.RowFormat, "nodetable stays DYNAMIC")
	require.Equal(t, 1, no.Partitions)

	wlLoad(t, st, lb)
	rec := newWLRecorder(len(lb.Ops()))
	var wg sync.WaitGroup
	errs := make([]error, c.Threads)
	for i := range c.Threads {
		w, err := lb.Worker(st, i)
		require.NoError(t, err)
		wg.Go(func() {
			for range 400 {
				if err := w.Next(wlCtx, rec); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	visible, counts, _ := lbLinkState(t, st)
	lbRequireCounts(t, visible, counts)
	wlRequireClean(t, st)
}

// wlHashTables hashes every row of every table of st, in key order.
func wlHashTables(t *testing.T, st *zipsim.Store) uint64 {
	t.Helper()
	h := fnv.New64a()
	for _, tb := range st.Tables() {
		h.Write([]byte(tb.Name()))
		require.NoError(t, tb.Scan(wlCtx, nil, nil, false, func(row zipsim.Row) bool {
			for _, v := range row {
				h.Write([]byte(v.String()))
				h.Write([]byte{0})
			}
			return true
		}))
	}
	return h.Sum64()
}

func TestLinkbenchDeterminism(t *testing.T) {
	const events = 1000
	run := func(seed uint64, loaders int) (uint64, []int, []int) {
		c := lbTestConfig(t, seed, 3000, loaders)
		lb, err := newLinkbenchWorkload(c)
		require.NoError(t, err)
		st := wlOpenStore(t, c, lb)
		wlLoad(t, st, lb)
		h := wlHashTables(t, st)
		// The op chooser alone, from the worker's generator.
		w, err := lb.worker(st, 1)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(c.Seed^saltLBWorker, 1)) // the worker's generator
		choices := make([]int, events)
		for i := range choices {
			choices[i] = chooseLinkOp(r)
		}
		rec := newWLRecorder(len(lb.Ops()))
		for range events {
			require.NoError(t, w.Next(wlCtx, rec))
		}
		require.Equal(t, choices[0], rec.seq[0], "Next draws its op first")
		return h, choices, rec.seq
	}
	h1, c1, s1 := run(21, 1)
	h2, c2, s2 := run(21, 4)
	h3, c3, _ := run(22, 2)
	require.Equal(t, h1, h2, "same seed: same data, whatever the loaders")
	require.Equal(t, c1, c2)
	require.Equal(t, s1, s2, "same seed: same first %d operations", events)
	require.NotEqual(t, h1, h3, "another seed: other data")
	require.NotEqual(t, c1, c3)
}

func TestLinkbenchAccessSkew(t *testing.T) {
	// Shuffled Zipf ids: the hottest ids are scattered, and link reads
	// are skewed as Zipf(0.8) is.
	lb, err := newLinkbenchWorkload(lbTestConfig(t, 3, 100_001, 1))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(8, 9))
	lb.rankIDs()
	hits := map[int64]int{}
	const draws = 200_000
	for range draws {
		id := lb.linkReadID1(r)
		require.GreaterOrEqual(t, id, int64(1))
		require.LessOrEqual(t, id, lb.n)
		hits[id]++
	}
	type hot struct {
		id int64
		n  int
	}
	var hs []hot
	for id, n := range hits {
		hs = append(hs, hot{id, n})
	}
	slices.SortFunc(hs, func(a, b hot) int { return b.n - a.n })
	top := 0
	for _, h := range hs[:100] {
		top += h.n
	}
	t.Logf("link reads over 100K ids: %d distinct ids in %d draws, top 100 ids take %.1f%%, hottest ids %v",
		len(hits), draws, 100*float64(top)/draws, []int64{hs[0].id, hs[1].id, hs[2].id})
	require.False(t, hs[0].id < 100 && hs[1].id < 100 && hs[2].id < 100, "hot ids are shuffled")
	require.Greater(t, float64(top)/draws, 0.1)
}

func TestLinkbenchNew(t *testing.T) {
	w, err := New(lbTestConfig(t, 1, 1000, 2))
	require.NoError(t, err)
	require.Equal(t, "linkbench", w.Name())
	require.Len(t, w.Ops(), 10)
	c := lbTestConfig(t, 1, 1000, 2)
	c.Linkbench.MaxID1 = 1
	w, err = New(c)
	require.Error(t, err)
	require.Nil(t, w)
	st, err := zipsim.Open("", zipsim.Options{})
	require.NoError(t, err)
	defer st.Close()
	lb, err := New(lbTestConfig(t, 1, 1000, 2))
	require.NoError(t, err)
	wk, err := lb.Worker(st, 0)
	require.Error(t, err, "no tables yet")
	require.Nil(t, wk)
	require.Error(t, lb.Load(wlCtx, st, nil))
}
