package czlib

// The golden test compares this package's streams with C zlib 1.2.13's.
// testdata/golden.txt holds, for every input of inputs_test.go and every
// level, windowBits and memLevel tried, the length and SHA-256 of the stream
// that zlib.compressobj(level, zlib.DEFLATED, windowBits, memLevel)
// .compress(data) + .flush() makes (one deflate(Z_FINISH) over the input).
// Regenerate it, after changing an input generator here and in gen.py
// alike, with a Python whose zlib is 1.2.13:
//
//	cd compress/internal/czlib && python3 testdata/gen.py
//
// To see a failing case's expected bytes:
//
//	python3 testdata/gen.py -dump NAME LEVEL WBITS MEMLEVEL > want.z

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

type goldenCase struct {
	name                      string
	level, wbits, memLevel, n int
	sum                       string
}

func readGolden(t *testing.T) []goldenCase {
	t.Helper()
	f, err := os.Open("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 6 {
			t.Fatalf("bad golden line %q", line)
		}
		c := goldenCase{name: fs[0], sum: fs[5]}
		for i, p := range []*int{&c.level, &c.wbits, &c.memLevel, &c.n} {
			if *p, err = strconv.Atoi(fs[i+1]); err != nil {
				t.Fatalf("bad golden line %q: %v", line, err)
			}
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// raceMixed are the settings at which TestGolden checks the 300 KB input
// under the race detector.
var raceMixed = map[[3]int]bool{{1, 9, 1}: true, {6, 14, 9}: true, {9, 15, 8}: true}

// TestGolden checks every (input, level, windowBits, memLevel) of
// testdata/golden.txt byte for byte against C zlib 1.2.13. One Writer per
// configuration compresses all inputs, so reuse is checked too.
func TestGolden(t *testing.T) {
	cases := readGolden(t)
	if len(cases) < 500 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	inputs := map[string][]byte{}
	for _, name := range goldenInputNames {
		inputs[name] = goldenInput(name)
	}
	writers := map[[3]int]*Writer{}
	var out []byte
	checked := 0
	for _, c := range cases {
		// The race detector slows compression 20-50 times: there the
		// 300 KB input runs at three settings only.
		if raceEnabled && c.name == "mixed" && !raceMixed[[3]int{c.level, c.wbits, c.memLevel}] {
			continue
		}
		key := [3]int{c.level, c.wbits, c.memLevel}
		w := writers[key]
		if w == nil {
			var err error
			if w, err = NewWriter(c.level, c.wbits, c.memLevel); err != nil {
				t.Fatal(err)
			}
			writers[key] = w
		}
		in, ok := inputs[c.name]
		if !ok {
			t.Fatalf("golden.txt names unknown input %q", c.name)
		}
		out = w.Compress(out[:0], in)
		sum := sha256.Sum256(out)
		if len(out) != c.n || hex.EncodeToString(sum[:]) != c.sum {
			t.Errorf("%s level %d windowBits %d memLevel %d: got %d bytes sha256 %x, zlib 1.2.13 gives %d bytes %s",
				c.name, c.level, c.wbits, c.memLevel, len(out), sum, c.n, c.sum)
			continue
		}
		checked++
	}
	t.Logf("%d golden cases identical to zlib 1.2.13", checked)
}

// TestWindowBits8 checks that windowBits 8 is taken as 9, as deflateInit2
// does (same stream, header included).
func TestWindowBits8(t *testing.T) {
	w8, err := NewWriter(6, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	w9, _ := NewWriter(6, 9, 8)
	in := goldenInput("rows1")
	if a, b := w8.Compress(nil, in), w9.Compress(nil, in); !bytes.Equal(a, b) {
		t.Fatal("windowBits 8 differs from 9")
	}
}

func TestNewWriterErrors(t *testing.T) {
	for _, p := range [][3]int{
		{0, 15, 8}, {10, 15, 8}, {-2, 15, 8},
		{6, 7, 8}, {6, 16, 8}, {6, -15, 8},
		{6, 15, 0}, {6, 15, 10},
	} {
		if _, err := NewWriter(p[0], p[1], p[2]); err == nil {
			t.Errorf("NewWriter(%d, %d, %d) accepted", p[0], p[1], p[2])
		} else if !strings.Contains(err.Error(), "must be") {
			t.Errorf("NewWriter(%d, %d, %d): error %q does not say what is allowed", p[0], p[1], p[2], err)
		}
	}
	if w, err := NewWriter(-1, 15, 8); err != nil || w.level != 6 {
		t.Errorf("level -1: %v", err)
	}
}

func inflate(t *testing.T, z []byte) []byte {
	t.Helper()
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return got
}

// randomInput mixes random bytes, runs and copies of earlier bytes, so the
// streams hold literals, short and long matches and stored blocks.
func randomInput(r *rand.Rand, n int) []byte {
	b := make([]byte, 0, n)
	for len(b) < n {
		switch r.IntN(4) {
		case 0:
			for m := r.IntN(300); m > 0; m-- {
				b = append(b, byte(r.IntN(256)))
			}
		case 1:
			c := byte(r.IntN(256))
			for m := r.IntN(600); m > 0; m-- {
				b = append(b, c)
			}
		case 2:
			for m := r.IntN(200); m > 0; m-- {
				b = append(b, "0123456789-"[r.IntN(11)])
			}
		case 3:
			if len(b) > 0 {
				d := 1 + r.IntN(len(b))
				for m := 3 + r.IntN(400); m > 0; m-- {
					b = append(b, b[len(b)-d])
				}
			}
		}
	}
	return b[:n]
}

// TestRoundTrip inflates random inputs with compress/zlib at random
// settings, reusing Writers.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	writers := map[[3]int]*Writer{}
	rounds := 300
	if raceEnabled || testing.Short() {
		rounds = 60
	}
	var out []byte
	for i := 0; i < rounds; i++ {
		key := [3]int{1 + r.IntN(9), 8 + r.IntN(8), 1 + r.IntN(9)}
		w := writers[key]
		if w == nil {
			var err error
			if w, err = NewWriter(key[0], key[1], key[2]); err != nil {
				t.Fatal(err)
			}
			writers[key] = w
		}
		n := r.IntN(40000)
		if r.IntN(4) == 0 {
			n = r.IntN(300)
		}
		in := randomInput(r, n)
		out = w.Compress(out[:0], in)
		if got := inflate(t, out); !bytes.Equal(got, in) {
			t.Fatalf("round %d, settings %v, %d bytes: round trip differs", i, key, n)
		}
	}
}

// TestCompressAppends checks that Compress appends after dst's contents.
func TestCompressAppends(t *testing.T) {
	w, _ := NewWriter(6, 14, 9)
	in := goldenInput("text")
	want := w.Compress(nil, in)
	got := w.Compress([]byte("prefix"), in)
	if string(got[:6]) != "prefix" || !bytes.Equal(got[6:], want) {
		t.Fatal("Compress did not append the same stream after dst")
	}
}

func TestCompressLimit(t *testing.T) {
	names := []string{"empty", "short", "rows1", "random", "mixed"}
	if raceEnabled {
		names = names[:4]
	}
	for _, name := range names {
		in := goldenInput(name)
		for _, cfg := range [][3]int{{6, 14, 9}, {1, 15, 8}, {9, 9, 1}} {
			w, _ := NewWriter(cfg[0], cfg[1], cfg[2])
			want := w.Compress(nil, in)
			size := len(want)
			for _, limit := range []int{size - 1, size - 2, size - 5, size / 2, 0} {
				if limit < 0 {
					continue
				}
				dst := []byte("ab")
				got, ok := w.CompressLimit(dst, in, limit)
				if ok {
					t.Errorf("%s %v: limit %d < size %d reported ok", name, cfg, limit, size)
				}
				if string(got) != "ab" {
					t.Errorf("%s %v: limit %d: dst changed to %d bytes", name, cfg, limit, len(got))
				}
			}
			for _, limit := range []int{size, size + 1, size + 1000} {
				got, ok := w.CompressLimit([]byte("ab"), in, limit)
				if !ok || string(got[:2]) != "ab" || !bytes.Equal(got[2:], want) {
					t.Errorf("%s %v: limit %d >= size %d: ok=%v, identical=%v", name, cfg, limit, size, ok, ok && bytes.Equal(got[2:], want))
				}
			}
			// The Writer is still good after giving up.
			if got := w.Compress(nil, in); !bytes.Equal(got, want) {
				t.Errorf("%s %v: Compress after a failed CompressLimit differs", name, cfg)
			}
		}
	}
	if _, ok := (&Writer{}).CompressLimit(nil, nil, -1); ok {
		t.Error("negative limit reported ok")
	}
}

// TestCompressLimitStopsEarly checks that a hopeless limit gives up long
// before the input is compressed (with memLevel 1 the 300 KB input is many
// blocks) and that nothing is written past the limit.
func TestCompressLimitStopsEarly(t *testing.T) {
	in := goldenInput("mixed")
	w, _ := NewWriter(6, 15, 1)
	full := w.Compress(nil, in)
	const limit = 1000
	dst := make([]byte, 0, len(full)+64)
	got, ok := w.CompressLimit(dst, in, limit)
	if ok || len(got) != 0 {
		t.Fatalf("limit %d: ok=%v, %d bytes", limit, ok, len(got))
	}
	if len(w.in) != 0 || w.out != nil {
		t.Fatal("Writer keeps references to the caller's buffers")
	}
	spare := dst[:cap(dst)]
	if !bytes.Equal(spare[:2], full[:2]) {
		t.Error("the stream written into dst's spare capacity does not start with the header")
	}
	for _, c := range spare[limit:] {
		if c != 0 {
			t.Fatal("CompressLimit wrote past its limit")
		}
	}
	// And it is cheaper than compressing everything.
	if !raceEnabled && !testing.Short() {
		fullRun := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				w.Compress(dst[:0], in)
			}
		})
		limRun := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				w.CompressLimit(dst[:0], in, limit)
			}
		})
		if limRun.NsPerOp()*5 > fullRun.NsPerOp() {
			t.Errorf("CompressLimit(%d) takes %v ns, full Compress %v ns: not stopping early", limit, limRun.NsPerOp(), fullRun.NsPerOp())
		}
	}
}

// TestAllocs checks that a reused Writer allocates nothing when dst has room.
func TestAllocs(t *testing.T) {
	for _, cfg := range [][3]int{{6, 14, 9}, {1, 9, 1}} {
		w, _ := NewWriter(cfg[0], cfg[1], cfg[2])
		in := goldenInput("rows1")
		dst := make([]byte, 0, 2*len(in)+64)
		w.Compress(dst, in)
		// A failing CompressLimit into a dst with just limit bytes of
		// room must not grow it either.
		small := make([]byte, 0, 100)
		allocs := testing.AllocsPerRun(20, func() {
			w.Compress(dst[:0], in)
			w.CompressLimit(dst[:0], in, 100)
			w.CompressLimit(small, in, 100)
		})
		if allocs != 0 {
			t.Errorf("%v: %v allocations per Compress+CompressLimit, want 0", cfg, allocs)
		}
	}
}
