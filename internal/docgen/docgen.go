package docgen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Defaults of Options' zero fields.
const (
	DefaultHTMLMedian  = 64 << 10
	DefaultShortMedian = 2 << 10
	DefaultSigma       = 0.5
	DefaultSmallMedian = 2 << 10
	// MaxMediumText is the largest MEDIUMTEXT value, the default MaxLen.
	MaxMediumText = 1<<24 - 1
	// MaxText is the largest TEXT value: no short_html length exceeds it.
	MaxText = 1<<16 - 1
	// maxSigma bounds Sigma so that exp(sigma·z) stays a sane float.
	maxSigma = 4
)

// Options shape a Generator. The zero value is the "document" workload of
// research/targets.md §2.5 without the small-doc mode; New rejects values
// outside the ranges below, naming what is allowed.
type Options struct {
	// HTMLMedian is the median html length in bytes; 0 means 64 KiB.
	HTMLMedian int
	// ShortMedian is the median short_html length in bytes; 0 means 2 KiB.
	// At most 65,535 (TEXT).
	ShortMedian int
	// Sigma is the lognormal sigma of both lengths; 0 means 0.5. At most 4.
	Sigma float64
	// SmallDocs is the share of html lengths drawn around SmallMedian
	// instead of HTMLMedian, in [0, 1]; 0 means none (§2.5's knob: 0.2).
	SmallDocs float64
	// SmallMedian is the median html length of small documents in bytes;
	// 0 means 2 KiB.
	SmallMedian int
	// MaxLen caps every length; 0 means 16 MiB - 1 (MEDIUMTEXT), also the
	// largest allowed. It must not be below HTMLMedian, ShortMedian, or
	// SmallMedian when SmallDocs > 0.
	MaxLen int
}

// withDefaults validates o and fills its zero fields.
func (o Options) withDefaults() (Options, error) {
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"HTMLMedian", &o.HTMLMedian, DefaultHTMLMedian},
		{"ShortMedian", &o.ShortMedian, DefaultShortMedian},
		{"SmallMedian", &o.SmallMedian, DefaultSmallMedian},
		{"MaxLen", &o.MaxLen, MaxMediumText},
	} {
		if *f.v < 0 {
			return o, fmt.Errorf("docgen: %s is %d; allowed: 0 (default %d) or a positive byte count", f.name, *f.v, f.def)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if o.MaxLen > MaxMediumText {
		return o, fmt.Errorf("docgen: MaxLen is %d; allowed: at most %d (MEDIUMTEXT)", o.MaxLen, MaxMediumText)
	}
	if o.ShortMedian > MaxText {
		return o, fmt.Errorf("docgen: ShortMedian is %d; allowed: at most %d (TEXT)", o.ShortMedian, MaxText)
	}
	if math.IsNaN(o.Sigma) || o.Sigma < 0 || o.Sigma > maxSigma {
		return o, fmt.Errorf("docgen: Sigma is %v; allowed: 0 (default %v) or a value in (0, %v]", o.Sigma, DefaultSigma, float64(maxSigma))
	}
	if o.Sigma == 0 {
		o.Sigma = DefaultSigma
	}
	if math.IsNaN(o.SmallDocs) || o.SmallDocs < 0 || o.SmallDocs > 1 {
		return o, fmt.Errorf("docgen: SmallDocs is %v; allowed: a share in [0, 1]", o.SmallDocs)
	}
	for _, m := range []struct {
		name string
		v    int
		used bool
	}{{"HTMLMedian", o.HTMLMedian, true}, {"ShortMedian", o.ShortMedian, true}, {"SmallMedian", o.SmallMedian, o.SmallDocs > 0}} {
		if m.used && m.v > o.MaxLen {
			return o, fmt.Errorf("docgen: MaxLen %d is smaller than %s %d; allowed: MaxLen >= HTMLMedian, ShortMedian and (when SmallDocs > 0) SmallMedian", o.MaxLen, m.name, m.v)
		}
	}
	return o, nil
}

// Generator draws the lengths and texts of the "document" workload's
// values. All its methods share one random stream, so the sequence of
// calls (not only the seed) determines the outputs: one seed, one Options
// and one sequence of calls always give the same values.
//
// A Generator is not safe for concurrent use; give each goroutine its own
// (New is cheap: the vocabulary and snippet tables are built once per
// process and shared read-only).
type Generator struct {
	r     *rand.Rand
	t     *tables
	o     Options
	short int // cap on ShortLen: min(MaxLen, MaxText)

	// Block scratch (see text.go): blocks are written here first, so that
	// Text only copies whole blocks into dst. put clamps at lim.
	buf  []byte
	lim  int
	over bool

	// Per-value state, reset by Text.
	tpl     [maxTemplates]span // boilerplate blocks already in this value
	ntpl    int
	cite    int // last citation number
	sect    int // last section number
	title0  int // title words' ranks (the page's subject); title1 < 0: none
	title1  int
	cur0    int // current word pair (links, headings, ids)
	cur1    int
	counter int        // value of hCount holes
	style   int        // index in runSpans: this value's run style
	nblk    int        // blocks drawn (every tplEvery-th is a template slot)
	phr     [64]phrase // recent phrases, a ring
	nphr    int
	tgt     [32]target // recent link targets, a ring
	ntgt    int
}

type phrase struct {
	n uint8
	w [maxPhrase]uint16
}

type target struct {
	a, b int32 // word ranks; b < 0: one word
	tag  uint8 // index in linkTags
}

type span struct{ off, end int } // relative to the value's start

// New returns a Generator for seed. It returns an error, naming what is
// allowed, when an option is out of range.
func New(seed uint64, o Options) (*Generator, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Generator{
		r:     rand.New(rand.NewPCG(seed, seed^0x646f6367656e2e31)),
		t:     shared(),
		o:     o,
		short: min(o.MaxLen, MaxText),
		buf:   make([]byte, 0, scratchCap),
	}, nil
}

// lognormal draws median·exp(sigma·Z), rounded, within [1, limit].
func (g *Generator) lognormal(median, limit int) int {
	x := float64(median) * math.Exp(g.o.Sigma*g.r.NormFloat64())
	if !(x < float64(limit)) { // also catches +Inf
		return limit
	}
	return max(1, int(math.Round(x)))
}

// HTMLLen draws the next html length: lognormal around HTMLMedian, or,
// for a SmallDocs share of draws, around SmallMedian; capped at MaxLen.
func (g *Generator) HTMLLen() int {
	med := g.o.HTMLMedian
	if g.o.SmallDocs > 0 && g.r.Float64() < g.o.SmallDocs {
		med = g.o.SmallMedian
	}
	return g.lognormal(med, g.o.MaxLen)
}

// ShortLen draws the next short_html length: lognormal around ShortMedian,
// capped at MaxLen and at 65,535 bytes (TEXT).
func (g *Generator) ShortLen() int { return g.lognormal(g.o.ShortMedian, g.short) }
