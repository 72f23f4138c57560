package storage

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/internal/fuzzseed"
	"github.com/zipsim/zipsim/page"
)

// headerSeeds returns valid header slots of several shapes.
func headerSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, o := range []Options{
		{},
		{PageSize: 8192, ZipSize: 8192, SpaceID: 5},
		{PageSize: 4096, ZipSize: 1024, SpaceID: 1},
		{PageSize: 4096, Compression: "zlib:1", FSBlockSize: 1024, SpaceID: 9},
		{PageSize: 8192, Compression: "zstd", FSBlockSize: 512},
	} {
		mem := mustMemoryBS(t, o.FSBlockSize)
		ts, err := Create(mem, o)
		require.NoError(t, err)
		require.NoError(t, ts.Close())
		out = append(out, readBack(t, mem.Reopen(), 0, ts.PhysicalSize()))
	}
	return out
}

// FuzzOpenHeader gives Open arbitrary bytes as the start of a device: it
// must return an error or a working tablespace, never panic.
func FuzzOpenHeader(f *testing.F) {
	for _, s := range headerSeeds(f) {
		f.Add(true, s)
		f.Add(false, s[:1024])
	}
	f.Add(false, []byte{})
	f.Add(false, []byte("ZIPSIMTS"))
	f.Fuzz(func(t *testing.T, fixChecksum bool, data []byte) {
		if fixChecksum {
			// Get past the checksum so the fields behind it are explored.
			data = append([]byte(nil), data...)
			if len(data) >= hdrPhysical+4 {
				if phys, err := probePhysical(data); err == nil && len(data) >= phys {
					page.SetChecksum(data[:phys])
				}
			}
		}
		// A device whose block size is the header's, when that is one a
		// Memory can have, so that Open gets past the block size check.
		bs := 0
		if len(data) >= hdrFSBlock+4 {
			if v := int(binary.BigEndian.Uint32(data[hdrFSBlock:])); validFSBlock(v) {
				bs = v
			}
		}
		mem := mustMemoryBS(t, bs)
		if len(data) > 0 {
			require.NoError(t, mem.WriteAt(data, 0))
		}
		ts, err := Open(mem)
		if err != nil {
			require.Nil(t, ts)
			return
		}
		o := ts.Options()
		phys := int64(ts.PhysicalSize())
		require.NoError(t, page.CheckPageSize(o.PageSize))
		require.Contains(t, []int64{1024, 2048, 4096, 8192, 16384}, phys)
		n := ts.Pages()
		require.GreaterOrEqual(t, n, uint32(1))
		require.Greater(t, mem.Size(), int64(n-1)*phys)
		require.LessOrEqual(t, mem.Size(), int64(n)*phys)
		// Whatever it found, the space works, and grows by the page written.
		p := min(n, page.FilNull-1)
		img := stamp(make([]byte, phys), o.SpaceID, p, page.TypeIndex, 1)
		require.NoError(t, ts.WritePage(p, img))
		buf := make([]byte, phys)
		require.NoError(t, ts.ReadPage(p, buf))
		require.Equal(t, img, buf)
		require.NoError(t, ts.Close())
		ts, err = Open(mem.Reopen())
		require.NoError(t, err)
		require.Equal(t, o, ts.Options())
		require.Equal(t, p+1, ts.Pages())
	})
}

var fuzzSettings = []string{"zlib", "zstd", "s2", "deflate:1"}

var fuzzSpaces struct {
	once   sync.Once
	mems   []*Memory
	spaces []*Tablespace
}

// fuzzSpace returns a shared TPC tablespace per setting (one per fuzz
// worker process), page 1 of which the target overwrites.
func fuzzSpace(t testing.TB, alg byte) (*Memory, *Tablespace) {
	fuzzSpaces.once.Do(func() {
		for _, s := range fuzzSettings {
			mem := mustMemory(t)
			ts, err := Create(mem, Options{Compression: s})
			require.NoError(t, err)
			require.NoError(t, ts.WritePage(1, sbPage(16384, 0, 1, 1)))
			fuzzSpaces.mems = append(fuzzSpaces.mems, mem)
			fuzzSpaces.spaces = append(fuzzSpaces.spaces, ts)
		}
	})
	i := int(alg) % len(fuzzSettings)
	return fuzzSpaces.mems[i], fuzzSpaces.spaces[i]
}

// compressedSlotSeeds returns real compressed slots, one per setting.
func compressedSlotSeeds(t testing.TB) (algs []byte, slots [][]byte) {
	for i, s := range fuzzSettings {
		mem := mustMemory(t)
		ts, err := Create(mem, Options{Compression: s})
		require.NoError(t, err)
		img := sbPage(16384, 0, 1, uint64(i+1))
		require.NoError(t, ts.WritePage(1, img))
		raw := readBack(t, mem, 16384, 16384)
		if page.Fil(raw).Type() != page.TypeCompressed {
			// s2 does not save a 4K block on sysbench rows; give it emptier pages.
			clear(img[8192:])
			require.NoError(t, ts.WritePage(1, stamp(img, 0, 1, page.TypeIndex, 1)))
			raw = readBack(t, mem, 16384, 16384)
		}
		require.Equal(t, page.TypeCompressed, page.Fil(raw).Type(), s)
		clen := int(page.Fil(raw).Aux() & 0xFFFF)
		algs = append(algs, byte(i))
		slots = append(slots, raw[:page.FilHeaderSize+clen])
	}
	return algs, slots
}

// FuzzReadCompressedSlot puts arbitrary bytes in a slot of a transparently
// compressed space, marked COMPRESSED: ReadPage must return an error or a
// page, never panic.
func FuzzReadCompressedSlot(f *testing.F) {
	algs, slots := compressedSlotSeeds(f)
	for i := range algs {
		f.Add(algs[i], slots[i])
	}
	f.Add(byte(0), []byte{})
	f.Fuzz(func(t *testing.T, alg byte, data []byte) {
		mem, ts := fuzzSpace(t, alg)
		slot := make([]byte, 16384)
		copy(slot, data)
		page.Fil(slot).SetType(page.TypeCompressed)
		require.NoError(t, mem.WriteAt(slot, 16384))
		buf := make([]byte, 16384)
		if err := ts.ReadPage(1, buf); err != nil {
			return
		}
		f := page.Fil(buf)
		require.NotEqual(t, page.TypeCompressed, f.Type())
		require.Zero(t, f.Aux())
		require.Equal(t, slot[:page.FilType], buf[:page.FilType])
	})
}

// TestFuzzCorpusUpToDate keeps testdata/fuzz in step with the seeds above;
// -update-corpus rewrites them.
func TestFuzzCorpusUpToDate(t *testing.T) {
	seeds := fuzzseed.Seeds{}
	for i, s := range headerSeeds(t) {
		seeds.Add("FuzzOpenHeader", fmt.Sprintf("valid-%d", i), true, s)
	}
	mem := closedSpace(t, Options{Compression: "zlib"})
	b := readBack(t, mem, 0, 16384)
	b[100] ^= 1
	seeds.Add("FuzzOpenHeader", "bad-checksum", false, b[:1024])
	b[hdrState] = stateOpen
	seeds.Add("FuzzOpenHeader", "not-clean", true, b)
	algs, slots := compressedSlotSeeds(t)
	for i := range algs {
		seeds.Add("FuzzReadCompressedSlot", strings.ReplaceAll(fuzzSettings[i], ":", "-"), algs[i], slots[i])
	}
	bad := append([]byte(nil), slots[0]...)
	bad[60] ^= 0xFF
	seeds.Add("FuzzReadCompressedSlot", "zlib-damaged", algs[0], bad)
	fuzzseed.Check(t, seeds)
}
