package docgen

import (
	"bytes"
	"compress/flate"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func newGen(t testing.TB, seed uint64, o Options) *Generator {
	t.Helper()
	g, err := New(seed, o)
	if err != nil {
		t.Fatalf("New(%d, %+v): %v", seed, o, err)
	}
	return g
}

// deflateRatio is compressed/original size at deflate level 6.
func deflateRatio(t testing.TB, b []byte) float64 {
	t.Helper()
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, 6)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return float64(out.Len()) / float64(len(b))
}

// sequence draws a fixed mix of calls, as a loader would.
func sequence(g *Generator) (lens []int, text []byte) {
	for i := 0; i < 5; i++ {
		h, s := g.HTMLLen(), g.ShortLen()
		lens = append(lens, h, s)
		text = g.Text(text, h)
		text = g.Text(text, s)
	}
	return lens, text
}

func TestDeterminism(t *testing.T) {
	o := Options{SmallDocs: 0.2}
	l1, t1 := sequence(newGen(t, 42, o))
	l2, t2 := sequence(newGen(t, 42, o))
	if !slices.Equal(l1, l2) || !bytes.Equal(t1, t2) {
		t.Fatal("two generators with seed 42 differ")
	}
	l3, t3 := sequence(newGen(t, 43, o))
	if slices.Equal(l1, l3) {
		t.Error("seeds 42 and 43 drew the same lengths")
	}
	if bytes.Equal(t1[:min(len(t1), len(t3))], t3[:min(len(t1), len(t3))]) {
		t.Error("seeds 42 and 43 wrote the same text")
	}
	// The shared tables do not depend on any generator: rebuilding them
	// gives the same vocabulary.
	if !slices.Equal(buildTables().words, shared().words) {
		t.Error("the vocabulary is not deterministic")
	}
}

// checkText checks that b looks like HTML text: printable ASCII and
// newlines only, starting with '<'.
func checkText(t *testing.T, b []byte) {
	t.Helper()
	for i, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\n' {
			t.Fatalf("byte %d is %#x: %q", i, c, b[max(0, i-40):min(len(b), i+40)])
		}
	}
	if len(b) > 0 && b[0] != '<' {
		t.Fatalf("text starts with %q, not '<'", b[:min(len(b), 20)])
	}
}

func TestTextLength(t *testing.T) {
	g := newGen(t, 1, Options{})
	sizes := []int{0, 1, 2, 100, 64 << 10, 1 << 20}
	for n := 0; n <= 600; n++ { // the tiny, fragment and fill paths
		sizes = append(sizes, n)
	}
	for n := 3900; n <= 4300; n += 7 { // around the page/fragment switch
		sizes = append(sizes, n)
	}
	for i := 0; i < 200; i++ {
		sizes = append(sizes, g.HTMLLen(), g.ShortLen())
	}
	prefix := []byte("prefix")
	for _, n := range sizes {
		b := g.Text(slices.Clone(prefix), n)
		if !bytes.HasPrefix(b, prefix) {
			t.Fatalf("n=%d: dst's contents changed", n)
		}
		b = b[len(prefix):]
		if len(b) != n {
			t.Fatalf("Text(dst, %d) appended %d bytes", n, len(b))
		}
		checkText(t, b)
	}
	if b := g.Text(prefix, -5); !bytes.Equal(b, prefix) {
		t.Errorf("Text(dst, -5) = %q, want dst unchanged", b)
	}
	page := g.Text(nil, 64<<10)
	for _, want := range []string{"<!DOCTYPE html>", "<a href=\"/wiki/", "</p>\n", "</html>\n"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("a 64 KiB page lacks %q", want)
		}
	}
	if !bytes.HasSuffix(page, []byte("</html>\n")) {
		t.Errorf("a 64 KiB page ends with %q", page[len(page)-20:])
	}
	if frag := g.Text(nil, 2<<10); !bytes.HasPrefix(frag, []byte(fragHead)) || !bytes.HasSuffix(frag, []byte(fragTail)) {
		t.Errorf("a 2 KiB value is not a <div> fragment: %q ... %q", frag[:40], frag[len(frag)-40:])
	}
}

func TestDeflateRatio(t *testing.T) {
	g := newGen(t, 1, Options{})
	var b []byte
	for _, c := range []struct {
		n        int
		mean     [2]float64 // allowed mean
		each     [2]float64 // allowed single values
		required bool
	}{
		{64 << 10, [2]float64{0.08, 0.12}, [2]float64{0.07, 0.13}, true},
		{2 << 10, [2]float64{0.12, 0.6}, [2]float64{0, 1}, false}, // worse; only reported
	} {
		const count = 20
		sum, lo, hi := 0.0, 1.0, 0.0
		for i := 0; i < count; i++ {
			b = g.Text(b[:0], c.n)
			r := deflateRatio(t, b)
			sum += r
			lo, hi = min(lo, r), max(hi, r)
			if r < c.each[0] || r > c.each[1] {
				t.Errorf("%d-byte value %d: deflate-6 ratio %.4f outside [%.2f, %.2f]", c.n, i, r, c.each[0], c.each[1])
			}
		}
		mean := sum / count
		t.Logf("%6d-byte values: deflate-6 ratio mean %.4f (min %.4f, max %.4f) over %d", c.n, mean, lo, hi, count)
		if mean < c.mean[0] || mean > c.mean[1] {
			t.Errorf("%d-byte values: mean deflate-6 ratio %.4f outside [%.2f, %.2f]", c.n, mean, c.mean[0], c.mean[1])
		}
	}
}

// percentile returns the p-quantile of sorted xs.
func percentile(xs []int, p float64) float64 { return float64(xs[int(p*float64(len(xs)-1))]) }

func TestLengths(t *testing.T) {
	const draws = 20000
	g := newGen(t, 3, Options{})
	html := make([]int, draws)
	short := make([]int, draws)
	for i := range html {
		html[i], short[i] = g.HTMLLen(), g.ShortLen()
	}
	for _, c := range []struct {
		name   string
		xs     []int
		median float64
	}{{"HTMLLen", html, 64 << 10}, {"ShortLen", short, 2 << 10}} {
		slices.Sort(c.xs)
		p50, p84 := percentile(c.xs, 0.5), percentile(c.xs, 0.8413)
		if math.Abs(p50/c.median-1) > 0.05 {
			t.Errorf("%s: median %.0f, want %.0f ±5%%", c.name, p50, c.median)
		}
		// For a lognormal, p84/p50 = exp(sigma).
		if s := math.Log(p84 / p50); math.Abs(s/DefaultSigma-1) > 0.10 {
			t.Errorf("%s: log(p84/p50) = %.3f, want sigma %.2f ±10%%", c.name, s, DefaultSigma)
		}
		t.Logf("%s: median %.0f, p84/p50 %.3f (exp(0.5) = %.3f), max %d", c.name, p50, p84/p50, math.Exp(0.5), c.xs[len(c.xs)-1])
	}

	g = newGen(t, 4, Options{SmallDocs: 0.2})
	small := 0
	for i := 0; i < draws; i++ {
		if g.HTMLLen() < 8<<10 {
			small++
		}
	}
	if share := float64(small) / draws; math.Abs(share-0.2) > 0.02 {
		t.Errorf("SmallDocs 0.2: %.3f of html lengths below 8 KiB, want 0.20 ±0.02", share)
	}

	// MaxLen caps lengths; a tiny median still gives lengths >= 1.
	g = newGen(t, 5, Options{HTMLMedian: 1000, MaxLen: 1200, Sigma: 2, ShortMedian: 1})
	for i := 0; i < 2000; i++ {
		if h, s := g.HTMLLen(), g.ShortLen(); h < 1 || h > 1200 || s < 1 || s > 1200 {
			t.Fatalf("lengths %d, %d outside [1, MaxLen 1200]", h, s)
		}
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string // in the error
	}{
		{Options{HTMLMedian: -1}, "HTMLMedian is -1"},
		{Options{ShortMedian: -2}, "ShortMedian is -2"},
		{Options{SmallMedian: -3}, "SmallMedian is -3"},
		{Options{MaxLen: -4}, "MaxLen is -4"},
		{Options{MaxLen: MaxMediumText + 1}, "at most 16777215"},
		{Options{ShortMedian: MaxText + 1}, "at most 65535 (TEXT)"},
		{Options{Sigma: -0.1}, "Sigma is -0.1"},
		{Options{Sigma: math.NaN()}, "Sigma is NaN"},
		{Options{Sigma: 5}, "Sigma is 5"},
		{Options{SmallDocs: -0.01}, "SmallDocs is -0.01; allowed: a share in [0, 1]"},
		{Options{SmallDocs: 1.5}, "SmallDocs is 1.5"},
		{Options{SmallDocs: math.NaN()}, "SmallDocs is NaN"},
		{Options{MaxLen: 1000}, "MaxLen 1000 is smaller than HTMLMedian 65536"},
		{Options{HTMLMedian: 100, MaxLen: 1000}, "MaxLen 1000 is smaller than ShortMedian 2048"},
		{Options{HTMLMedian: 100, ShortMedian: 100, SmallDocs: 0.1, MaxLen: 1000}, "MaxLen 1000 is smaller than SmallMedian 2048"},
	} {
		g, err := New(1, c.o)
		if err == nil || g != nil {
			t.Errorf("New(%+v) = %v, %v; want an error", c.o, g, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "allowed") {
			t.Errorf("New(%+v): error %q, want it to contain %q and say what is allowed", c.o, err, c.want)
		}
	}
	for _, o := range []Options{
		{},
		{SmallDocs: 1, Sigma: 4, MaxLen: MaxMediumText},
		{HTMLMedian: 1, ShortMedian: 1, SmallMedian: 1, SmallDocs: 0.5, MaxLen: 1},
		{HTMLMedian: 100, ShortMedian: 100, MaxLen: 1000}, // SmallMedian unused
	} {
		if _, err := New(1, o); err != nil {
			t.Errorf("New(%+v): %v", o, err)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	g := newGen(t, 1, Options{SmallDocs: 0.2})
	dst := make([]byte, 0, 1<<20)
	for _, n := range []int{50, 2 << 10, 64 << 10, 1 << 20} {
		if a := testing.AllocsPerRun(20, func() { dst = g.Text(dst[:0], n) }); a != 0 {
			t.Errorf("Text(dst, %d) with room in dst: %v allocations per call", n, a)
		}
	}
	if a := testing.AllocsPerRun(100, func() { g.HTMLLen(); g.ShortLen() }); a != 0 {
		t.Errorf("HTMLLen+ShortLen: %v allocations per call", a)
	}
}

func TestTables(t *testing.T) {
	tb := shared()
	if len(tb.words) != VocabSize {
		t.Fatalf("%d words, want %d", len(tb.words), VocabSize)
	}
	seen := map[string]bool{}
	for _, w := range tb.words {
		if seen[w] || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			t.Fatalf("word %q is repeated or not lower-case letters", w)
		}
		seen[w] = true
	}
	if n := len(snippetPool()); n < 150 || n > 250 {
		t.Errorf("%d snippets, want about 200", n)
	}
	// Zipf(1.0): P(rank 1) = 1/H(5000) ≈ 0.110, P(rank 2) half that.
	g := newGen(t, 9, Options{})
	var counts [VocabSize]int
	const draws = 200000
	for i := 0; i < draws; i++ {
		counts[g.zipf()]++
	}
	h := 0.0
	for k := 1; k <= VocabSize; k++ {
		h += 1 / float64(k)
	}
	for _, k := range []int{0, 1, 9, 99} {
		want := draws / h / float64(k+1)
		if got := float64(counts[k]); math.Abs(got/want-1) > 0.1 {
			t.Errorf("rank %d drawn %.0f times, want %.0f ±10%%", k+1, got, want)
		}
	}
}

// TestConcurrentGenerators runs generators on several goroutines: the
// shared tables are read-only (run with -race).
func TestConcurrentGenerators(t *testing.T) {
	var wg sync.WaitGroup
	out := make([][]byte, 4)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, err := New(77, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			out[i] = g.Text(nil, 32<<10)
		}()
	}
	wg.Wait()
	for i := range out {
		if !bytes.Equal(out[i], out[0]) {
			t.Fatalf("goroutine %d wrote different text for one seed", i)
		}
	}
}

func BenchmarkText(b *testing.B) {
	const n = 64 << 10
	g := newGen(b, 1, Options{})
	dst := make([]byte, 0, n)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		dst = g.Text(dst[:0], n)
	}
}
