package storage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/page"
)

// clenOf returns the compressed length of a page's bytes [38:], measured
// with Compress (no limit) on the shared codec for setting.
func clenOf(t testing.TB, setting string, img []byte) int {
	s, err := compress.ParseSetting(setting)
	require.NoError(t, err)
	c, err := compress.Shared(s)
	require.NoError(t, err)
	out, err := c.Compress(nil, img[page.FilHeaderSize:])
	require.NoError(t, err)
	return len(out)
}

// expectedSlot returns roundup(38+clen, fsb) for a page, or the page size
// when that would not save a block.
func expectedSlot(t testing.TB, setting string, img []byte, fsb int) int {
	if n := page.FilHeaderSize + clenOf(t, setting, img); n <= len(img)-fsb {
		return roundUp(n, fsb)
	}
	return len(img)
}

func TestTransparentSysbenchPages(t *testing.T) {
	for _, sd := range spaceDevices() {
		t.Run("dev="+sd.name, func(t *testing.T) {
			const n = 100
			dev := sd.fresh(t)
			ts, err := Create(dev, Options{SpaceID: 3, Compression: "zlib"})
			require.NoError(t, err)
			fsb := ts.Options().FSBlockSize
			pages := make([][]byte, n+1)
			want := int64(16384) // the header slot, written whole
			for p := uint32(1); p <= n; p++ {
				pages[p] = sbPage(16384, 3, p, uint64(p))
				want += int64(expectedSlot(t, "zlib", pages[p], fsb))
				require.NoError(t, ts.WritePage(p, pages[p]))
			}
			require.NoError(t, ts.Sync())
			u := ts.Usage()
			t.Logf("%s: logical %d, allocated %d, Σ roundup(38+clen, %d) + header %d (%.0f%%)", sd.name, u.LogicalBytes, u.AllocatedBytes, fsb, want, 100*float64(u.AllocatedBytes)/float64(u.LogicalBytes))
			require.Equal(t, int64(n+1), u.Pages)
			require.Equal(t, int64((n+1)*16384), u.LogicalBytes)
			require.Equal(t, int64(n*16384+expectedSlot(t, "zlib", pages[n], fsb)), u.ApparentBytes, "punching keeps the apparent size; the last slot ends after its image")
			require.Equal(t, int64(n), u.Holes)
			require.Less(t, u.AllocatedBytes, u.LogicalBytes*6/10, "sysbench pages must save well over a third")
			if _, ok := dev.(*Memory); ok {
				require.Equal(t, want, u.AllocatedBytes)
			} else {
				require.InDelta(t, want, u.AllocatedBytes, float64((n+1)*fsb), "st_blocks within a block per page of Σ roundup(38+clen)")
			}
			s := ts.Stats()
			require.Equal(t, uint64(n), s.PagesCompressed)
			require.Zero(t, s.PagesNoSaving)
			require.Equal(t, uint64(want-16384), s.BytesWritten)
			require.Positive(t, s.CompressTime)

			// The raw slot carries type COMPRESSED, the original type and clen.
			raw := make([]byte, 16384)
			require.NoError(t, dev.ReadAt(raw, 16384))
			f := page.Fil(raw)
			require.Equal(t, page.TypeCompressed, f.Type())
			require.Equal(t, uint32(page.TypeIndex), f.Aux()>>16)
			require.Equal(t, clenOf(t, "zlib", pages[1]), int(f.Aux()&0xFFFF))
			require.Equal(t, pages[1][:28], raw[:28], "checksum, page no, links and LSN are kept")
			require.Equal(t, pages[1][34:38], raw[34:38], "space id is kept")

			buf := make([]byte, 16384)
			for p := uint32(1); p <= n; p++ {
				require.NoError(t, ts.ReadPage(p, buf))
				require.NoError(t, page.Verify(buf), "page %d", p)
				require.Equal(t, pages[p], buf, "page %d", p)
			}
			require.Equal(t, uint64(n), ts.Stats().Decompressions)
			require.Positive(t, ts.Stats().DecompressTime)

			// The count of compressed slots survives a restart.
			require.NoError(t, ts.Close())
			ts, err = Open(sd.reopen(t, dev))
			require.NoError(t, err)
			require.Equal(t, int64(n), ts.Usage().Holes)
			require.NoError(t, ts.ReadPage(50, buf))
			require.Equal(t, pages[50], buf)
			require.NoError(t, ts.Close())
		})
	}
}

func TestTransparentRandomPagesWrittenWhole(t *testing.T) {
	mem := mustMemory(t)
	ts, err := Create(mem, Options{Compression: "zlib:1"})
	require.NoError(t, err)
	const n = 20
	for p := uint32(1); p <= n; p++ {
		require.NoError(t, ts.WritePage(p, randomPage(16384, 0, p, uint64(p))))
	}
	s := ts.Stats()
	require.Equal(t, uint64(n), s.PagesNoSaving)
	require.Zero(t, s.PagesCompressed)
	require.Equal(t, uint64(n*16384), s.BytesWritten)
	u := ts.Usage()
	require.Zero(t, u.Holes)
	require.Equal(t, int64((n+1)*16384), u.AllocatedBytes)
	buf := make([]byte, 16384)
	require.NoError(t, ts.ReadPage(7, buf))
	require.Equal(t, randomPage(16384, 0, 7, 7), buf)
	require.Zero(t, ts.Stats().Decompressions)
}

func TestTransparentHolesFollowRewrites(t *testing.T) {
	mem := mustMemory(t)
	ts, err := Create(mem, Options{Compression: "zstd"})
	require.NoError(t, err)
	for p := uint32(1); p <= 10; p++ {
		require.NoError(t, ts.WritePage(p, sbPage(16384, 0, p, uint64(p))))
	}
	require.Equal(t, int64(10), ts.Usage().Holes)
	// A page that no longer compresses fills its hole.
	require.NoError(t, ts.WritePage(4, randomPage(16384, 0, 4, 1)))
	require.NoError(t, ts.WritePage(5, randomPage(16384, 0, 5, 1)))
	require.Equal(t, int64(8), ts.Usage().Holes)
	require.False(t, ts.holes.has(4))
	// Rewriting a compressed page keeps the count.
	require.NoError(t, ts.WritePage(6, sbPage(16384, 0, 6, 99)))
	// And compressing again punches again.
	require.NoError(t, ts.WritePage(4, sbPage(16384, 0, 4, 4)))
	require.Equal(t, int64(9), ts.Usage().Holes)
	require.True(t, ts.holes.has(4))

	// A page whose Aux field is in use cannot be stored: the slot header
	// needs Aux, and only ZBLOB pages, which never reach such a space, use it.
	aux := sbPage(16384, 0, 11, 11)
	page.Fil(aux).SetAux(1234)
	page.SetChecksum(aux)
	writes := ts.Stats().Writes
	err = ts.WritePage(11, aux)
	require.ErrorContains(t, err, "write page 11: FIL Aux field is 0x4d2")
	require.ErrorContains(t, err, "ZBLOB")
	require.Equal(t, writes, ts.Stats().Writes)
	require.Equal(t, uint32(11), ts.Pages(), "a refused page does not extend the space")

	// The type TPC uses for its slots cannot be written by the layer above.
	bad := stamp(make([]byte, 16384), 0, 12, page.TypeCompressed, 1)
	require.ErrorContains(t, ts.WritePage(12, bad), "reserved")

	require.NoError(t, ts.Close())
	ts, err = Open(mem.Reopen())
	require.NoError(t, err)
	require.Equal(t, int64(9), ts.Usage().Holes)
	for p := uint32(1); p <= 10; p++ {
		require.Equal(t, p != 5, ts.holes.has(p), "page %d", p)
	}
}

// TestTransparentLastSlotShort: a compressed page in a new last slot is one
// device write of its image; the space size is the header's page count, and
// the rest of the slot reads as zeros past the device's end.
func TestTransparentLastSlotShort(t *testing.T) {
	mem := mustMemoryBS(t, 1024)
	r := &sleepRecorder{}
	lat := WithLatency(mem, LatencyModel{Write: time.Microsecond, Sleep: r.sleep})
	ts, err := Create(lat, Options{Compression: "zlib", PageSize: 8192})
	require.NoError(t, err)
	require.Equal(t, 1024, ts.Options().FSBlockSize)
	img := sbPage(8192, 0, 9, 9)
	slot := expectedSlot(t, "zlib", img, 1024)
	require.Less(t, slot, 8192)
	w0 := lat.Stats().Writes
	require.NoError(t, ts.WritePage(9, img))
	require.Equal(t, uint64(1), lat.Stats().Writes-w0, "one device write: nothing extends the file to the end of the slot")
	require.Equal(t, int64(9*8192+slot), mem.Size())
	require.Equal(t, uint32(10), ts.Pages())
	u := ts.Usage()
	require.Equal(t, int64(10*8192), u.LogicalBytes)
	require.Equal(t, mem.Size(), u.ApparentBytes)
	require.Equal(t, int64(8192+slot), mem.Allocated(), "the 1K-block memory device holds the header and the compressed image only")
	buf := make([]byte, 8192)
	require.NoError(t, ts.ReadPage(9, buf))
	require.Equal(t, img, buf)
	require.NoError(t, ts.ReadPage(3, buf))
	require.Equal(t, make([]byte, 8192), buf)

	// Sync records the new size in the header, once.
	w0 = lat.Stats().Writes
	require.NoError(t, ts.Sync())
	require.NoError(t, ts.Sync())
	require.Equal(t, uint64(1), lat.Stats().Writes-w0, "the header is written when the space has grown, not at every Sync")
	hdr, err := decodeHeader(readBack(t, mem, 0, 8192))
	require.NoError(t, err)
	require.Equal(t, uint32(10), hdr.pages)
	require.NoError(t, ts.Close())

	ts, err = Open(mem.Reopen())
	require.NoError(t, err)
	require.Equal(t, uint32(10), ts.Pages())
	require.Equal(t, int64(1), ts.Usage().Holes)
	require.NoError(t, ts.ReadPage(9, buf))
	require.Equal(t, img, buf)
	// Growing past the short slot leaves its tail a gap, never written.
	next := sbPage(8192, 0, 10, 10)
	require.NoError(t, ts.WritePage(10, next))
	require.Equal(t, int64(10*8192+expectedSlot(t, "zlib", next, 1024)), mem.Size())
	require.NoError(t, ts.ReadPage(9, buf))
	require.Equal(t, img, buf)
	require.NoError(t, ts.Close())
}

func TestTransparentCorruptSlots(t *testing.T) {
	mem := mustMemory(t)
	ts, err := Create(mem, Options{Compression: "zlib"})
	require.NoError(t, err)
	require.NoError(t, ts.WritePage(1, sbPage(16384, 0, 1, 1)))
	good := readBack(t, mem, 16384, 16384)
	clen := int(page.Fil(good).Aux() & 0xFFFF)
	buf := make([]byte, 16384)

	corrupt := func(name string, edit func(b []byte), reason string) {
		t.Helper()
		b := append([]byte(nil), good...)
		edit(b)
		require.NoError(t, mem.WriteAt(b, 16384))
		err := ts.ReadPage(1, buf)
		var ce *page.CorruptError
		require.ErrorAs(t, err, &ce, name)
		require.Equal(t, uint32(1), ce.PageNo, name)
		require.Contains(t, err.Error(), reason, name)
	}
	corrupt("payload", func(b []byte) { b[38+clen/2] ^= 0xFF }, "transparent compression")
	corrupt("zero length", func(b []byte) { page.Fil(b).SetAux(uint32(page.TypeIndex) << 16) }, "outside 1..")
	corrupt("length too long", func(b []byte) { page.Fil(b).SetAux(uint32(page.TypeIndex)<<16 | 0xFFFF) }, "outside 1..")
	corrupt("truncated stream", func(b []byte) { page.Fil(b).SetAux(uint32(page.TypeIndex)<<16 | uint32(clen-10)) }, "transparent compression")
	corrupt("original type compressed", func(b []byte) { page.Fil(b).SetAux(uint32(page.TypeCompressed)<<16 | uint32(clen)) }, "original page type")
	corrupt("page no in header", func(b []byte) { page.Fil(b).SetPageNo(77); b[38+3] ^= 1 }, "page 1:")

	// A restored page whose checksum was damaged: ReadPage returns it and
	// page.Verify catches it.
	b := append([]byte(nil), good...)
	b[0] ^= 1
	require.NoError(t, mem.WriteAt(b, 16384))
	require.NoError(t, ts.ReadPage(1, buf))
	require.Error(t, page.Verify(buf))
}

// TestTransparentSavesABlockBoundary checks the rule "a page is stored
// compressed only if it saves at least one filesystem block" at its edge,
// independently of the tablespace's own limit arithmetic: each probe page
// is a random prefix of k bytes followed by zeros, its compressed length
// clen is measured with Compress on the shared codec, and the page must be
// stored compressed exactly when 38+clen ≤ PageSize−FSBlockSize. k is
// bisected (by measuring alone) to where that flips, and every k near it
// is written and checked, over a few seeds, until probes land on the
// boundary (38+clen = PageSize−FSBlockSize) and one byte past it. Where a
// codec's length jumps over those values (zlib with 512-byte blocks
// switches between stored and coded blocks there; s2 best moves in 16-byte
// steps), exact is false and only the rule is checked, on every probe.
func TestTransparentSavesABlockBoundary(t *testing.T) {
	cases := []struct {
		setting string
		ps, bs  int
		exact   bool
	}{
		{"zlib", 16384, 4096, true},
		{"zlib:1", 8192, 1024, true},
		{"deflate:9", 16384, 512, true},
		{"zstd", 16384, 4096, true},
		{"zstd", 4096, 512, true},
		{"s2", 16384, 2048, true},
		{"zlib", 16384, 512, false},
		{"s2:best", 8192, 4096, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/page=%d/block=%d", c.setting, c.ps, c.bs), func(t *testing.T) {
			mem := mustMemoryBS(t, c.bs)
			ts, err := Create(mem, Options{PageSize: c.ps, Compression: c.setting})
			require.NoError(t, err)
			boundary := c.ps - c.bs // the most bytes a compressed page may take
			data := c.ps - page.FilHeaderSize
			rnd := make([]byte, data)
			img := make([]byte, c.ps)
			// build makes the probe page for prefix length k and returns
			// 38+clen.
			build := func(seed uint64, k int) int {
				clear(img)
				copy(img[page.FilHeaderSize:], rnd[:k])
				stamp(img, 0, 1, page.TypeIndex, seed)
				return page.FilHeaderSize + clenOf(t, c.setting, img)
			}
			buf := make([]byte, c.ps)
			check := func(n int) {
				s0 := ts.Stats()
				require.NoError(t, ts.WritePage(1, img))
				d := ts.Stats().Sub(s0)
				raw := readBack(t, mem, int64(c.ps), c.ps)
				if n <= boundary {
					require.Equal(t, uint64(1), d.PagesCompressed, "38+clen = %d ≤ %d must be stored compressed", n, boundary)
					require.Equal(t, page.TypeCompressed, page.Fil(raw).Type())
					require.Equal(t, n-page.FilHeaderSize, int(page.Fil(raw).Aux()&0xFFFF))
					require.Equal(t, uint64(roundUp(n, c.bs)), d.BytesWritten)
					require.Equal(t, int64(c.ps+roundUp(n, c.bs)), mem.Allocated(), "header slot + the rounded image")
					require.Equal(t, int64(1), ts.Usage().Holes)
				} else {
					require.Equal(t, uint64(1), d.PagesNoSaving, "38+clen = %d > %d must be stored whole", n, boundary)
					require.Equal(t, img, raw)
					require.Equal(t, uint64(c.ps), d.BytesWritten)
					require.Zero(t, ts.Usage().Holes)
				}
				require.NoError(t, ts.ReadPage(1, buf))
				require.Equal(t, img, buf)
			}
			seeds := uint64(8)
			if !c.exact {
				seeds = 2
			}
			var at, past, below, above int
			closestIn, closestOut := 0, 1<<30 // the largest 38+clen stored compressed, the smallest stored whole
			for seed := uint64(1); seed <= seeds && !(at > 0 && past > 0); seed++ {
				r := rand.New(rand.NewPCG(seed, 2))
				for i := range rnd {
					rnd[i] = byte(r.Uint32()) // all 8 bits: pattern's are never 0
				}
				lo, hi := 0, data
				for lo < hi { // the least k whose page is stored whole
					if m := (lo + hi) / 2; build(seed, m) <= boundary {
						lo = m + 1
					} else {
						hi = m
					}
				}
				for k := max(lo-8, 0); k <= min(lo+8, data); k++ {
					n := build(seed, k)
					check(n)
					if n <= boundary {
						closestIn = max(closestIn, n)
					} else {
						closestOut = min(closestOut, n)
					}
					switch {
					case n == boundary:
						at++
					case n == boundary+1:
						past++
					case n < boundary:
						below++
					default:
						above++
					}
				}
			}
			t.Logf("probes: %d at the boundary %d, %d one byte past, %d below, %d above; closest 38+clen stored compressed %d, stored whole %d", at, boundary, past, below, above, closestIn, closestOut)
			require.Positive(t, at+below, "some probe was stored compressed")
			require.Positive(t, past+above, "some probe was stored whole")
			if c.exact {
				require.Positive(t, at, "a probe with 38+clen = PageSize−FSBlockSize")
				require.Positive(t, past, "a probe with 38+clen = PageSize−FSBlockSize+1")
			}
		})
	}
}

// faulty is a Memory whose WriteAt and PunchHole fail on demand.
type faulty struct {
	*Memory
	writeFault atomic.Int32 // one of the fault constants below, for the next WriteAt
	punchFault atomic.Bool  // fail the next PunchHole
}

var errInjected = errors.New("injected device error")

const (
	noFault      = iota
	faultBefore  // fail having written nothing
	faultHalfway // write the first half, then fail
)

func (f *faulty) WriteAt(p []byte, off int64) error {
	switch f.writeFault.Swap(noFault) {
	case faultBefore:
		return errInjected
	case faultHalfway:
		if err := f.Memory.WriteAt(p[:len(p)/2], off); err != nil {
			return err
		}
		return errInjected
	}
	return f.Memory.WriteAt(p, off)
}

func (f *faulty) PunchHole(off, length int64) error {
	if f.punchFault.Swap(false) {
		return errInjected
	}
	return f.Memory.PunchHole(off, length)
}

// checkConsistent checks that Usage().Holes is the number of slots whose
// FIL type on the device is COMPRESSED and that the device size is within
// the space, then closes the space and reopens it, which must work and find
// the same size and count. It returns the reopened space.
func checkConsistent(t *testing.T, ts *Tablespace, mem *Memory) *Tablespace {
	t.Helper()
	n, phys := ts.Pages(), int64(ts.PhysicalSize())
	var compressed int64
	for p := uint32(1); p < n; p++ {
		if page.Fil(readBack(t, mem, int64(p)*phys, page.FilHeaderSize)).Type() == page.TypeCompressed {
			compressed++
		}
	}
	holes := ts.Usage().Holes
	require.Equal(t, compressed, holes, "Holes is the number of compressed slots")
	require.Greater(t, mem.Size(), int64(n-1)*phys)
	require.LessOrEqual(t, mem.Size(), int64(n)*phys)
	require.NoError(t, ts.Close())
	ts, err := Open(&faulty{Memory: mem.Reopen()})
	require.NoError(t, err)
	require.Equal(t, n, ts.Pages())
	require.Equal(t, holes, ts.Usage().Holes)
	return ts
}

// TestTransparentDeviceErrors: a write or punch that fails leaves the space
// consistent (the count of compressed slots matches the slots) and
// reopenable.
func TestTransparentDeviceErrors(t *testing.T) {
	mem := mustMemory(t)
	dev := &faulty{Memory: mem}
	ts, err := Create(dev, Options{Compression: "zlib"})
	require.NoError(t, err)
	fault := func() *faulty { return ts.Device().(*faulty) }
	sb := func(p uint32) []byte { return sbPage(16384, 0, p, uint64(p)) }
	rnd := func(p uint32) []byte { return randomPage(16384, 0, p, uint64(p)) }
	buf := make([]byte, 16384)

	// A failed punch over a slot that held a whole page: the compressed
	// image is there, so the slot counts as compressed; only its tail is
	// still allocated.
	require.NoError(t, ts.WritePage(1, rnd(1)))
	fault().punchFault.Store(true)
	err = ts.WritePage(1, sb(1))
	require.ErrorIs(t, err, errInjected)
	require.ErrorContains(t, err, "write page 1: punch hole after the compressed image")
	require.Equal(t, int64(1), ts.Usage().Holes)
	require.Equal(t, int64(2*16384), mem.Allocated(), "the tail was not punched")
	require.NoError(t, ts.ReadPage(1, buf))
	require.Equal(t, sb(1), buf)
	ts = checkConsistent(t, ts, mem)
	require.NoError(t, ts.WritePage(1, sb(1)))
	require.Less(t, mem.Allocated(), int64(2*16384), "a later write punches the tail")

	// A failed punch after a compressed image in a new last slot.
	fault().punchFault.Store(true)
	require.ErrorIs(t, ts.WritePage(2, sb(2)), errInjected)
	require.Equal(t, uint32(3), ts.Pages())
	require.Equal(t, int64(2), ts.Usage().Holes)
	ts = checkConsistent(t, ts, mem)
	require.NoError(t, ts.ReadPage(2, buf))
	require.Equal(t, sb(2), buf)

	// A compressed write to a new slot that fails before reaching the
	// device does not grow the space.
	size := mem.Size()
	fault().writeFault.Store(faultBefore)
	require.ErrorIs(t, ts.WritePage(5, sb(5)), errInjected)
	require.Equal(t, uint32(3), ts.Pages())
	require.Equal(t, size, mem.Size())
	require.ErrorIs(t, ts.ReadPage(5, buf), ErrPageOutOfRange)
	ts = checkConsistent(t, ts, mem)

	// One that fails halfway through a compressed image grows it: the slot
	// has bytes on the device, and its header says COMPRESSED, so it counts
	// as Open's scan would count it.
	fault().writeFault.Store(faultHalfway)
	require.ErrorIs(t, ts.WritePage(5, sb(5)), errInjected)
	require.Equal(t, uint32(6), ts.Pages())
	require.Equal(t, int64(3), ts.Usage().Holes)
	ts = checkConsistent(t, ts, mem)
	require.NoError(t, ts.WritePage(5, sb(5)))

	// So does a whole page that fails halfway into a new slot.
	fault().writeFault.Store(faultHalfway)
	require.ErrorIs(t, ts.WritePage(7, rnd(7)), errInjected)
	require.Equal(t, uint32(8), ts.Pages())
	ts = checkConsistent(t, ts, mem)

	// A whole page that fails to overwrite a compressed slot leaves it
	// compressed, and readable.
	fault().writeFault.Store(faultBefore)
	require.ErrorIs(t, ts.WritePage(2, rnd(2)), errInjected)
	require.Equal(t, int64(3), ts.Usage().Holes)
	require.NoError(t, ts.ReadPage(2, buf))
	require.Equal(t, sb(2), buf)
	ts = checkConsistent(t, ts, mem)

	// One that fails halfway overwrites the slot's FIL header: no longer
	// compressed.
	fault().writeFault.Store(faultHalfway)
	require.ErrorIs(t, ts.WritePage(2, rnd(2)), errInjected)
	require.Equal(t, int64(2), ts.Usage().Holes)
	ts = checkConsistent(t, ts, mem)
	require.NoError(t, ts.Close())
}

// TestTransparentHolesInvariant: while writers flip their pages between
// compressible and incompressible images, Usage().Holes read concurrently
// is never negative and never more than the pages written. Run it under
// -race as well.
func TestTransparentHolesInvariant(t *testing.T) {
	const writers, per, rounds = 4, 4, 100
	ts, err := Create(mustMemory(t), Options{Compression: "zlib:1"})
	require.NoError(t, err)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var reads atomic.Int64
	bad := make(chan string, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			h, n := ts.Usage().Holes, int64(ts.Pages())
			reads.Add(1)
			if h < 0 || h > writers*per || h > n-1 {
				select {
				case bad <- fmt.Sprintf("Holes = %d with %d pages", h, n):
				default:
				}
			}
		}
	}()
	errs := make(chan error, writers)
	var ww sync.WaitGroup
	for w := range writers {
		ww.Add(1)
		go func() {
			defer ww.Done()
			for r := range rounds {
				for i := range per {
					p := uint32(1 + w*per + i)
					img := sbPage(16384, 0, p, uint64(p))
					if (r+i)%2 == 1 {
						img = randomPage(16384, 0, p, uint64(p))
					}
					if err := ts.WritePage(p, img); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	ww.Wait()
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	select {
	case msg := <-bad:
		t.Fatal(msg)
	default:
	}
	t.Logf("%d concurrent reads of Usage", reads.Load())
	// The last round (99) leaves pages with odd i compressed.
	require.Equal(t, int64(writers*per/2), ts.Usage().Holes)
	require.NoError(t, ts.Close())
}

// TestHeaderFitsEverySetting: every canonical compression setting fits the
// header's fixed-size field, which is why Options does not check its length.
func TestHeaderFitsEverySetting(t *testing.T) {
	n := 0
	for a := compress.Algorithm(0); (compress.Setting{Algorithm: a}).Validate() == nil; a++ {
		for level := 0; level <= 32; level++ {
			s := compress.Setting{Algorithm: a, Level: level}
			if s.Validate() != nil {
				continue
			}
			require.LessOrEqual(t, len(s.String()), hdrCompMax, s.String())
			n++
		}
	}
	require.Greater(t, n, 20)
}
