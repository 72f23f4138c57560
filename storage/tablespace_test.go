package storage

import (
	"encoding/binary"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/page"
)

// spaceConfigs lists every page size with every zip size it allows, plus
// transparent compression where the page holds two of the device's blocks.
func spaceConfigs(blockSize int) []Options {
	var out []Options
	for _, ps := range []int{4096, 8192, 16384} {
		out = append(out, Options{PageSize: ps})
		for _, z := range page.ZipSizes {
			if z <= ps {
				out = append(out, Options{PageSize: ps, ZipSize: z})
			}
		}
		if ps >= 2*blockSize {
			out = append(out, Options{PageSize: ps, Compression: "zlib"})
		}
	}
	return out
}

func configName(o Options) string {
	return fmt.Sprintf("page=%d/zip=%d/tpc=%s", o.PageSize, o.ZipSize, o.Compression)
}

func TestTablespaceRoundTrip(t *testing.T) {
	for _, sd := range spaceDevices() {
		for _, o := range spaceConfigs(deviceBlockSize(sd.fresh(t))) {
			t.Run("dev="+sd.name+"/"+configName(o), func(t *testing.T) {
				o.SpaceID = 42
				dev := sd.fresh(t)
				ts, err := Create(dev, o)
				require.NoError(t, err)
				phys := ts.PhysicalSize()
				if o.ZipSize != 0 {
					require.Equal(t, o.ZipSize, phys)
				} else {
					require.Equal(t, o.PageSize, phys)
				}
				require.Equal(t, uint32(1), ts.Pages())
				const n = 6
				pages := make([][]byte, n+1)
				for p := uint32(1); p <= n; p++ {
					if p%2 == 0 {
						pages[p] = randomPage(phys, 42, p, uint64(p))
					} else {
						pages[p] = sbPage(phys, 42, p, uint64(p))
					}
					require.NoError(t, ts.WritePage(p, pages[p]))
				}
				require.Equal(t, uint32(n+1), ts.Pages())
				require.NoError(t, ts.Sync())
				want := ts.Options()
				require.NoError(t, ts.Close())
				require.ErrorIs(t, ts.Close(), ErrClosed)

				ts, err = Open(sd.reopen(t, dev))
				require.NoError(t, err)
				require.Equal(t, want, ts.Options())
				require.Equal(t, uint32(42), ts.Options().SpaceID)
				require.Equal(t, uint32(n+1), ts.Pages())
				buf := make([]byte, phys)
				for p := uint32(1); p <= n; p++ {
					require.NoError(t, ts.ReadPage(p, buf))
					require.Equal(t, pages[p], buf, "page %d", p)
					require.NoError(t, page.Verify(buf))
				}
				require.NoError(t, ts.Close())
			})
		}
	}
}

func TestTablespaceDefaults(t *testing.T) {
	ts, err := Create(mustMemory(t), Options{Compression: "none"})
	require.NoError(t, err)
	require.Equal(t, Options{PageSize: 16384}, ts.Options(), "a plain space records no block size")
	require.Equal(t, 16384, ts.PhysicalSize())

	ts, err = Create(mustMemory(t), Options{Compression: " ZLIB "})
	require.NoError(t, err)
	require.Equal(t, "zlib:6", ts.Options().Compression)
}

func TestTablespaceNotClean(t *testing.T) {
	mem := mustMemory(t)
	ts, err := Create(mem, Options{SpaceID: 7})
	require.NoError(t, err)
	require.NoError(t, ts.WritePage(1, sbPage(16384, 7, 1, 1)))

	// A crash: the disk image as it is while the space is open.
	_, err = Open(mem.Clone())
	require.ErrorIs(t, err, ErrNotClean)
	require.Contains(t, err.Error(), "not closed cleanly")
	require.Contains(t, err.Error(), "no redo log")

	require.NoError(t, ts.Close())
	ts, err = Open(mem.Reopen())
	require.NoError(t, err)
	// Open marked it open again: a second Open without Close is a crash.
	_, err = Open(mem.Clone())
	require.ErrorIs(t, err, ErrNotClean)
	require.NoError(t, ts.Close())
	_, err = Open(mem.Clone())
	require.NoError(t, err)
}

func TestTablespaceNotCleanFile(t *testing.T) {
	sd := spaceDevices()[1]
	dev := sd.fresh(t)
	ts, err := Create(dev, Options{})
	require.NoError(t, err)
	require.NoError(t, ts.WritePage(1, sbPage(16384, 0, 1, 1)))
	require.NoError(t, ts.Sync())
	_, err = Open(sd.reopen(t, dev))
	require.ErrorIs(t, err, ErrNotClean)
	require.NoError(t, ts.Close())
	ts2, err := Open(sd.reopen(t, dev))
	require.NoError(t, err)
	require.NoError(t, ts2.Close())
}

// closedSpace returns a memory device holding a cleanly closed space.
func closedSpace(t *testing.T, o Options) *Memory {
	mem := mustMemory(t)
	ts, err := Create(mem, o)
	require.NoError(t, err)
	require.NoError(t, ts.WritePage(1, sbPage(ts.PhysicalSize(), o.SpaceID, 1, 1)))
	require.NoError(t, ts.Close())
	return mem.Reopen()
}

func TestTablespaceDamagedHeader(t *testing.T) {
	t.Run("flipped-byte", func(t *testing.T) {
		for _, off := range []int64{0, 9, 29, 35, 40, 49, 53, 61, 64, 70, 500, 16383} {
			mem := closedSpace(t, Options{Compression: "zlib"})
			b := readBack(t, mem, off, 1)
			require.NoError(t, mem.WriteAt([]byte{b[0] ^ 0x10}, off))
			_, err := Open(mem)
			require.ErrorIs(t, err, ErrHeaderDamaged, "flip at %d", off)
			var ce *page.CorruptError
			require.ErrorAs(t, err, &ce, "flip at %d", off)
			require.Zero(t, ce.PageNo)
			require.Contains(t, err.Error(), "tablespace header is damaged")
		}
	})
	t.Run("no-magic", func(t *testing.T) {
		mem := mustMemory(t)
		require.NoError(t, mem.WriteAt(pattern(16384, 1), 0))
		_, err := Open(mem)
		require.ErrorIs(t, err, ErrHeaderDamaged)
		require.Contains(t, err.Error(), "magic")
	})
	t.Run("version", func(t *testing.T) {
		mem := closedSpace(t, Options{})
		b := readBack(t, mem, 0, 16384)
		binary.BigEndian.PutUint16(b[hdrVersion:], 2)
		page.SetChecksum(b)
		require.NoError(t, mem.WriteAt(b, 0))
		_, err := Open(mem)
		require.EqualError(t, err, "storage: tablespace format version 2 is not supported; this zipsim reads version 1")
	})
	t.Run("bad-state", func(t *testing.T) {
		mem := closedSpace(t, Options{})
		b := readBack(t, mem, 0, 16384)
		b[hdrState] = 9
		page.SetChecksum(b)
		require.NoError(t, mem.WriteAt(b, 0))
		_, err := Open(mem)
		require.ErrorIs(t, err, ErrHeaderDamaged)
		require.Contains(t, err.Error(), "state byte 9")
	})
	t.Run("invalid-sizes", func(t *testing.T) {
		mem := closedSpace(t, Options{PageSize: 8192, ZipSize: 4096})
		b := readBack(t, mem, 0, 4096)
		binary.BigEndian.PutUint32(b[hdrZipSize:], 16384) // larger than the page
		page.SetChecksum(b)
		require.NoError(t, mem.WriteAt(b, 0))
		_, err := Open(mem)
		require.ErrorIs(t, err, ErrHeaderDamaged)
		require.Contains(t, err.Error(), "larger than the page size")
	})
	t.Run("longer-than-space", func(t *testing.T) {
		mem := closedSpace(t, Options{})
		require.NoError(t, mem.WriteAt([]byte{0}, mem.Size())) // one byte past the last slot
		_, err := Open(mem)
		require.EqualError(t, err, "storage: the device holds 32769 bytes, more than the 2 slots of 16384 bytes (32768 bytes) its header records: data was written past the end of the space, or the header is stale")
	})
	t.Run("truncated", func(t *testing.T) {
		mem := closedSpace(t, Options{})
		short := mustMemory(t)
		require.NoError(t, short.WriteAt(readBack(t, mem, 0, 16384), 0)) // the header slot only
		_, err := Open(short)
		require.EqualError(t, err, "storage: the device holds 16384 bytes, but its header records 2 slots of 16384 bytes, so it needs more than 16384: the tablespace is truncated")
	})
	t.Run("zero-pages", func(t *testing.T) {
		mem := closedSpace(t, Options{})
		b := readBack(t, mem, 0, 16384)
		binary.BigEndian.PutUint32(b[hdrPages:], 0)
		page.SetChecksum(b)
		require.NoError(t, mem.WriteAt(b, 0))
		_, err := Open(mem)
		require.ErrorIs(t, err, ErrHeaderDamaged)
		require.ErrorContains(t, err, "space size is 0 pages")
	})
	t.Run("empty", func(t *testing.T) {
		_, err := Open(mustMemory(t))
		require.ErrorContains(t, err, "empty")
	})
}

func TestTablespaceOptionsRejected(t *testing.T) {
	cases := []struct {
		o    Options
		bs   int // the Memory's block size; 0 means 4096
		want []string
	}{
		{Options{PageSize: 32768}, 0, []string{"32768", "4096, 8192 or 16384"}},
		{Options{PageSize: -1}, 0, []string{"4096, 8192 or 16384"}},
		{Options{ZipSize: 3000}, 0, []string{"3000", "1024, 2048, 4096, 8192 or 16384"}},
		{Options{PageSize: 4096, ZipSize: 8192}, 0, []string{"larger than the page size"}},
		{Options{FSBlockSize: 1000, Compression: "zlib"}, 0, []string{"1000", "power of two from 512 to 65536"}},
		{Options{FSBlockSize: 1 << 17, Compression: "zlib"}, 0, []string{"power of two from 512 to 65536"}},
		{Options{Compression: "zlib"}, 1 << 17, []string{"the device's block size 131072 is not supported"}},
		{Options{FSBlockSize: 512, Compression: "zlib"}, 0, []string{"filesystem block size 512 differs from the device's block size 4096", "FSBlockSize 0 or 4096"}},
		{Options{FSBlockSize: 4096, Compression: "zlib"}, 512, []string{"filesystem block size 4096 differs from the device's block size 512"}},
		{Options{Compression: "lz4"}, 0, []string{"lz4", "zlib"}},
		{Options{Compression: "zlib:12"}, 0, []string{"zlib:1..zlib:9"}},
		{Options{Compression: "zlib", ZipSize: 8192}, 0, []string{"cannot be combined", "ROW_FORMAT=COMPRESSED"}},
		{Options{Compression: "zstd", PageSize: 4096}, 0, []string{"two filesystem blocks", "blocks of 2048 bytes or less"}},
		{Options{Compression: "zlib"}, 16384, []string{"two filesystem blocks", "blocks of 8192 bytes or less"}},
	}
	for _, c := range cases {
		_, err := Create(mustMemoryBS(t, c.bs), c.o)
		require.Error(t, err, "%+v", c.o)
		for _, w := range c.want {
			require.Contains(t, err.Error(), w, "%+v", c.o)
		}
	}
	// A device that already holds data.
	mem := mustMemory(t)
	require.NoError(t, mem.WriteAt([]byte{1}, 0))
	_, err := Create(mem, Options{})
	require.ErrorContains(t, err, "empty device")
}

// TestTablespaceBlockSize: FSBlockSize comes from the device, and a space
// cannot be opened on a device whose block size differs from its own.
func TestTablespaceBlockSize(t *testing.T) {
	for _, bs := range []int{512, 1024, 2048, 4096, 8192} {
		ts, err := Create(mustMemoryBS(t, bs), Options{Compression: "zlib"})
		require.NoError(t, err)
		require.Equal(t, bs, ts.Options().FSBlockSize)
		// Through a Latency wrapper too.
		ts, err = Create(WithLatency(mustMemoryBS(t, bs), LatencyModel{}), Options{Compression: "zlib"})
		require.NoError(t, err)
		require.Equal(t, bs, ts.Options().FSBlockSize)
	}
	// A device that does not report its block size: 4096, or what is asked.
	ts, err := Create(opaque{mustMemory(t)}, Options{Compression: "zlib"})
	require.NoError(t, err)
	require.Equal(t, 4096, ts.Options().FSBlockSize)
	ts, err = Create(opaque{mustMemoryBS(t, 512)}, Options{FSBlockSize: 512, Compression: "zlib"})
	require.NoError(t, err)
	require.Equal(t, 512, ts.Options().FSBlockSize)
	require.Zero(t, WithLatency(opaque{mustMemory(t)}, LatencyModel{}).BlockSize(), "Latency reports no block size when its device does not")

	// The space created on 1 KiB blocks, copied to a device with 4 KiB blocks.
	mem := mustMemoryBS(t, 1024)
	ts, err = Create(mem, Options{PageSize: 8192, Compression: "zlib"})
	require.NoError(t, err)
	require.NoError(t, ts.WritePage(1, sbPage(8192, 0, 1, 1)))
	require.NoError(t, ts.Close())
	cp := mustMemory(t)
	require.NoError(t, cp.WriteAt(readBack(t, mem.Reopen(), 0, int(mem.Size())), 0))
	_, err = Open(cp)
	require.EqualError(t, err, blockMismatch(1024, 4096).Error())
	require.ErrorContains(t, err, "filesystem block size 1024 differs from the device's block size 4096")
	ts, err = Open(mem)
	require.NoError(t, err)
	require.NoError(t, ts.Close())
}

// opaque hides a device's BlockSize.
type opaque struct{ dev Device }

func (o opaque) ReadAt(p []byte, off int64) error  { return o.dev.ReadAt(p, off) }
func (o opaque) WriteAt(p []byte, off int64) error { return o.dev.WriteAt(p, off) }
func (o opaque) PunchHole(off, length int64) error { return o.dev.PunchHole(off, length) }
func (o opaque) Sync() error                       { return o.dev.Sync() }
func (o opaque) Size() int64                       { return o.dev.Size() }
func (o opaque) Allocated() int64                  { return o.dev.Allocated() }
func (o opaque) Close() error                      { return o.dev.Close() }

// noPunch is a device whose filesystem cannot punch holes.
type noPunch struct{ *Memory }

func (noPunch) PunchHole(off, length int64) error { return ErrPunchUnsupported }

func TestTablespaceNeedsPunchHole(t *testing.T) {
	_, err := Create(noPunch{mustMemory(t)}, Options{Compression: "zlib"})
	require.ErrorIs(t, err, ErrPunchUnsupported)
	require.Contains(t, err.Error(), "needs hole punching")
	require.Contains(t, err.Error(), "silently")

	// Without compression the device is fine.
	_, err = Create(noPunch{mustMemory(t)}, Options{})
	require.NoError(t, err)

	// A TPC space copied to such a device cannot be opened.
	mem := closedSpace(t, Options{Compression: "zlib"})
	_, err = Open(noPunch{mem})
	require.ErrorIs(t, err, ErrPunchUnsupported)
}

func TestTablespaceArgumentErrors(t *testing.T) {
	ts, err := Create(mustMemory(t), Options{ZipSize: 8192})
	require.NoError(t, err)
	buf := make([]byte, 8192)
	for _, err := range []error{ts.WritePage(0, buf), ts.ReadPage(0, buf)} {
		require.ErrorIs(t, err, ErrPageOutOfRange)
		require.ErrorContains(t, err, "page 0 is the tablespace header")
	}
	for _, err := range []error{ts.WritePage(page.FilNull, buf), ts.ReadPage(page.FilNull, buf)} {
		require.ErrorIs(t, err, ErrPageOutOfRange)
		require.ErrorContains(t, err, "storage: page number out of range: ")
		require.ErrorContains(t, err, "page 4294967295: it is FIL_NULL")
	}
	require.ErrorContains(t, ts.WritePage(1, make([]byte, 16384)), "buffer of 16384 bytes, want the physical page size 8192")
	require.ErrorContains(t, ts.ReadPage(1, make([]byte, 100)), "want the physical page size 8192")
	err = ts.ReadPage(1, buf)
	require.ErrorIs(t, err, ErrPageOutOfRange)
	require.ErrorContains(t, err, "beyond the end of the space (1 pages")

	// Writing page 5 extends the space; pages 1..4 read as zeros.
	p := stamp(pattern(8192, 5), 0, 5, page.TypeIndex, 1)
	require.NoError(t, ts.WritePage(5, p))
	require.Equal(t, uint32(6), ts.Pages())
	require.NoError(t, ts.ReadPage(3, buf))
	require.Equal(t, make([]byte, 8192), buf)
	require.NoError(t, page.Verify(buf), "a never-written page is valid")
	require.NoError(t, ts.ReadPage(5, buf))
	require.Equal(t, p, buf)

	require.NoError(t, ts.Close())
	require.ErrorIs(t, ts.ReadPage(5, buf), ErrClosed)
	require.ErrorIs(t, ts.WritePage(5, buf), ErrClosed)
	require.ErrorIs(t, ts.Sync(), ErrClosed)
	require.Equal(t, uint32(6), ts.Pages())
}

func TestTablespaceStatsAndUsage(t *testing.T) {
	ts, err := Create(mustMemory(t), Options{PageSize: 8192, ZipSize: 2048})
	require.NoError(t, err)
	s0 := ts.Stats()
	buf := make([]byte, 2048)
	for p := uint32(1); p <= 3; p++ {
		require.NoError(t, ts.WritePage(p, stamp(pattern(2048, uint64(p)), 0, p, page.TypeIndex, 1)))
	}
	require.NoError(t, ts.ReadPage(2, buf))
	require.NoError(t, ts.Sync())
	d := ts.Stats().Sub(s0)
	require.Equal(t, IOStats{Reads: 1, Writes: 3, BytesRead: 2048, BytesWritten: 3 * 2048, Syncs: 1}, d)
	require.Equal(t, Usage{Pages: 4, LogicalBytes: 4 * 8192, ApparentBytes: 4 * 2048, AllocatedBytes: 8192}, ts.Usage())
}

func TestTablespaceConcurrent(t *testing.T) {
	for _, o := range []Options{{}, {Compression: "zlib:1"}} {
		t.Run(configName(o), func(t *testing.T) {
			mem := mustMemory(t)
			ts, err := Create(mem, o)
			require.NoError(t, err)
			const workers, per, rounds = 4, 8, 5
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					buf := make([]byte, 16384)
					for r := range rounds {
						for i := range per {
							p := uint32(1 + w*per + i)
							var img []byte
							if (r+i)%3 == 0 {
								img = randomPage(16384, 0, p, uint64(r))
							} else {
								img = sbPage(16384, 0, p, uint64(r*100+int(p)))
							}
							if err := ts.WritePage(p, img); err != nil {
								errs <- err
								return
							}
							if err := ts.ReadPage(p, buf); err != nil {
								errs <- err
								return
							}
							if err := page.Verify(buf); err != nil {
								errs <- err
								return
							}
							if string(buf) != string(img) {
								errs <- fmt.Errorf("page %d round %d differs", p, r)
								return
							}
							if i == 0 { // Sync writes the header as the space grows
								if err := ts.Sync(); err != nil {
									errs <- err
									return
								}
							}
							_ = ts.Stats()
							_ = ts.Usage()
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			require.Equal(t, uint32(workers*per+1), ts.Pages())
			require.NoError(t, ts.Close())
			ts, err = Open(mem.Reopen())
			require.NoError(t, err)
			require.Equal(t, uint32(workers*per+1), ts.Pages())
			require.NoError(t, ts.Close())
		})
	}
}

// TestTablespaceMaxPage: the largest page number, FilNull−1, works and
// survives a restart; FilNull is not a page. 64 KiB blocks keep the Memory's
// chunk table small at the far end of a 64 TiB device.
func TestTablespaceMaxPage(t *testing.T) {
	const last = page.FilNull - 1
	mem := mustMemoryBS(t, 65536)
	ts, err := Create(mem, Options{})
	require.NoError(t, err)
	p := stamp(pattern(16384, 1), 0, last, page.TypeIndex, 1)
	require.NoError(t, ts.WritePage(last, p))
	require.Equal(t, uint32(page.FilNull), ts.Pages())
	require.ErrorIs(t, ts.WritePage(page.FilNull, p), ErrPageOutOfRange)
	require.Equal(t, uint32(page.FilNull), ts.Pages(), "a refused write leaves the size")
	buf := make([]byte, 16384)
	require.ErrorIs(t, ts.ReadPage(page.FilNull, buf), ErrPageOutOfRange)
	require.NoError(t, ts.ReadPage(last, buf))
	require.Equal(t, p, buf)
	require.NoError(t, ts.ReadPage(last/2, buf))
	require.Equal(t, make([]byte, 16384), buf)
	require.Equal(t, int64(MaxMemorySize-16384), mem.Size())
	require.Equal(t, int64(page.FilNull)*16384, ts.Usage().LogicalBytes)
	require.NoError(t, ts.Close())

	ts, err = Open(mem.Reopen())
	require.NoError(t, err)
	require.Equal(t, uint32(page.FilNull), ts.Pages())
	require.NoError(t, ts.ReadPage(last, buf))
	require.Equal(t, p, buf)
	require.NoError(t, ts.Close())

	// A device with a slot past FilNull−1 cannot be a tablespace: the
	// header cannot count 2^32 slots.
	require.NoError(t, mem.Reopen().WriteAt([]byte{1}, MaxMemorySize-1))
	_, err = Open(mem)
	require.ErrorContains(t, err, "more than the 4294967295 slots of 16384 bytes")
}

// TestTransparentMaxPage: the largest page number stored compressed. The
// space is not reopened: Open would scan 2^32 slot headers.
func TestTransparentMaxPage(t *testing.T) {
	const last = page.FilNull - 1
	mem := mustMemoryBS(t, 8192)
	ts, err := Create(mem, Options{Compression: "zlib"})
	require.NoError(t, err)
	p := sbPage(16384, 0, last, 1)
	require.NoError(t, ts.WritePage(last, p))
	require.Equal(t, uint32(page.FilNull), ts.Pages())
	require.Equal(t, int64(1), ts.Usage().Holes)
	require.Less(t, mem.Size(), int64(MaxMemorySize-16384), "the last slot is short")
	require.ErrorIs(t, ts.WritePage(page.FilNull, p), ErrPageOutOfRange)
	buf := make([]byte, 16384)
	require.NoError(t, ts.ReadPage(last, buf))
	require.Equal(t, p, buf)
	require.Equal(t, uint64(1), ts.Stats().Decompressions)
}

// A plain space does not depend on the block size: it opens on a device
// whose blocks are ones zipsim could not round to.
func TestPlainSpaceIgnoresBlockSize(t *testing.T) {
	mem := mustMemoryBS(t, 1<<17)
	ts, err := Create(mem, Options{})
	require.NoError(t, err)
	require.NoError(t, ts.WritePage(1, sbPage(16384, 0, 1, 1)))
	require.NoError(t, ts.Close())
	ts, err = Open(mem.Reopen())
	require.NoError(t, err)
	require.Zero(t, ts.Options().FSBlockSize)
	require.NoError(t, ts.Close())
}
