package compress

import (
	"bytes"
	stdflate "compress/flate"
	stdzlib "compress/zlib"
	"errors"
	"io"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/compress/internal/czlib"
)

func TestRoundTrip(t *testing.T) {
	ins := inputs()
	for _, s := range allSettings() {
		for _, noReuse := range []bool{false, true} {
			c, err := New(s, Options{NoReuse: noReuse})
			require.NoError(t, err)
			for _, in := range ins {
				if noReuse && len(in.data) > 1<<20 {
					continue // same code path as reuse, just slower
				}
				comp, err := c.Compress(nil, in.data)
				require.NoError(t, err, "%s %s", s, in.name)
				got, err := c.Decompress(nil, comp)
				require.NoError(t, err, "%s %s", s, in.name)
				require.True(t, bytes.Equal(in.data, got), "%s %s: round trip differs", s, in.name)

				if len(in.data) > 1<<20 {
					continue // the checks below do not depend on size
				}
				// Both directions append after what dst already holds.
				prefix := []byte("prefix")
				comp2, err := c.Compress(bytes.Clone(prefix), in.data)
				require.NoError(t, err)
				require.Equal(t, prefix, comp2[:len(prefix)])
				require.True(t, bytes.Equal(comp, comp2[len(prefix):]), "%s %s: output is deterministic", s, in.name)
				got2, err := c.Decompress(bytes.Clone(prefix), comp)
				require.NoError(t, err)
				require.Equal(t, prefix, got2[:len(prefix)])
				require.True(t, bytes.Equal(in.data, got2[len(prefix):]))
			}
		}
	}
}

// TestZlibFraming proves InnoDB-compatible framing: the zlib setting writes
// a zlib header and the standard library's inflater, a second
// implementation, reads every level's output; raw deflate likewise.
func TestZlibFraming(t *testing.T) {
	for _, in := range inputs() {
		for l := 1; l <= 9; l++ {
			if len(in.data) > 1<<20 && l != 6 {
				continue // the big value once, at InnoDB's default level
			}
			zc := newCodec(t, Setting{Algorithm: Zlib, Level: l})
			comp, err := zc.Compress(nil, in.data)
			require.NoError(t, err)
			require.Equal(t, byte(0x78), comp[0], "CM=8 deflate, CINFO=7")
			require.Zero(t, (uint16(comp[0])<<8|uint16(comp[1]))%31, "FCHECK")
			require.Zero(t, comp[1]&0x20, "no preset dictionary")
			r, err := stdzlib.NewReader(bytes.NewReader(comp))
			require.NoError(t, err)
			got, err := io.ReadAll(r)
			require.NoError(t, err, "zlib:%d %s", l, in.name)
			require.True(t, bytes.Equal(in.data, got))

			dc := newCodec(t, Setting{Algorithm: Deflate, Level: l})
			comp, err = dc.Compress(nil, in.data)
			require.NoError(t, err)
			got, err = io.ReadAll(stdflate.NewReader(bytes.NewReader(comp)))
			require.NoError(t, err, "deflate:%d %s", l, in.name)
			require.True(t, bytes.Equal(in.data, got))
		}
	}
}

// TestDecompressStdlibZlib reads streams written by the standard library,
// including InnoDB's 16 KiB window header (0x68) at a window it allows.
func TestDecompressStdlibZlib(t *testing.T) {
	page := sbPage()
	var buf bytes.Buffer
	w, err := stdzlib.NewWriterLevel(&buf, 6)
	require.NoError(t, err)
	_, err = w.Write(page)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	c := newCodec(t, DefaultSetting)
	got, err := c.Decompress(nil, buf.Bytes())
	require.NoError(t, err)
	require.True(t, bytes.Equal(page, got))

	// Rewrite the header to CINFO=6 (windowBits 14, page_zip_compress's
	// UNIV_PAGE_SIZE_SHIFT); a 16 KiB page never refers further back.
	comp := bytes.Clone(buf.Bytes())
	comp[0] = 0x68
	comp[1] = comp[1]&0xe0 | byte(31-(uint16(0x68)<<8|uint16(comp[1]&0xe0))%31)
	got, err = c.Decompress(nil, comp)
	require.NoError(t, err)
	require.True(t, bytes.Equal(page, got))
}

func TestCompressLimit(t *testing.T) {
	page, random := sbPage(), randomBytes(16384, 2)
	for _, s := range allSettings() {
		c := newCodec(t, s)
		for _, in := range []input{{"sysbench-page", page}, {"random-16k", random}, {"empty", nil}} {
			full, err := c.Compress(nil, in.data)
			require.NoError(t, err)

			// Exactly at the boundary it fits and matches Compress.
			dst := []byte("hdr")
			got, err := c.CompressLimit(dst, in.data, len(full))
			require.NoError(t, err, "%s %s", s, in.name)
			require.Equal(t, append([]byte("hdr"), full...), got)

			// One byte short it fails, leaving dst and its spare room alone.
			dst = make([]byte, 3, 64<<10)
			copy(dst, "hdr")
			for i := 3; i < cap(dst); i++ {
				dst[:cap(dst)][i] = 0xaa
			}
			got, err = c.CompressLimit(dst, in.data, len(full)-1)
			if len(full) == 0 {
				require.Error(t, err) // negative limit
				continue
			}
			require.ErrorIs(t, err, ErrDoesNotFit, "%s %s", s, in.name)
			require.Equal(t, 3, len(got))
			require.Equal(t, &dst[:1][0], &got[:1][0], "same slice returned")
			for i, b := range dst[3:cap(dst)] {
				require.Equal(t, byte(0xaa), b, "%s: spare byte %d written on failure", s, i)
			}
		}

		// The InnoDB case: a random page does not fit an 8K block.
		got, err := c.CompressLimit(nil, random, 8192)
		require.ErrorIs(t, err, ErrDoesNotFit, s.String())
		require.Empty(t, got)
	}
}

func TestNegativeLimits(t *testing.T) {
	c := newCodec(t, DefaultSetting)
	_, err := c.CompressLimit(nil, []byte("x"), -1)
	require.ErrorContains(t, err, "negative")
	require.NotErrorIs(t, err, ErrDoesNotFit)
	_, err = c.DecompressLimit(nil, []byte("x"), -1)
	require.ErrorContains(t, err, "negative")
}

func TestDecompressLimit(t *testing.T) {
	page := sbPage()
	for _, s := range allSettings() {
		c := newCodec(t, s)
		comp, err := c.Compress(nil, page)
		require.NoError(t, err)

		got, err := c.DecompressLimit(nil, comp, len(page))
		require.NoError(t, err, s)
		require.True(t, bytes.Equal(page, got))

		for _, limit := range []int{0, 1, 4096, len(page) - 1} {
			dst := []byte("hdr")
			got, err = c.DecompressLimit(dst, comp, limit)
			require.ErrorIs(t, err, ErrTooLarge, "%s limit %d", s, limit)
			require.Equal(t, []byte("hdr"), got)
		}

		// Exactly full dst: no growth needed, and the stream end is found.
		dst := make([]byte, 0, len(page))
		got, err = c.DecompressLimit(dst, comp, len(page))
		require.NoError(t, err)
		require.Equal(t, &dst[:1][0], &got[0], "%s decoded in place", s)

		// The largest limit, and spare room beyond a limit that is met.
		got, err = c.DecompressLimit(nil, comp, math.MaxInt)
		require.NoError(t, err, "%s limit MaxInt", s)
		require.True(t, bytes.Equal(page, got), "%s limit MaxInt", s)
		got, err = c.DecompressLimit(make([]byte, 3, 2*len(page)), comp, len(page))
		require.NoError(t, err, "%s spare room past the limit", s)
		require.True(t, bytes.Equal(page, got[3:]), "%s spare room past the limit", s)
	}
}

// checkBad asserts a failed decode reports a documented error and leaves
// dst alone. A decode of altered input may succeed only for a format
// without a checksum (raw deflate, s2, none), or when it yields the
// original bytes (the change hit bits the decoder ignores).
func checkBad(t *testing.T, c *Codec, src, want []byte, what string) {
	t.Helper()
	dst := []byte("hdr")
	got, err := c.DecompressLimit(dst, src, 1<<20)
	if err != nil {
		require.True(t, errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTooLarge), "%s %s: %v", c.Setting(), what, err)
		require.Equal(t, []byte("hdr"), got)
		return
	}
	switch c.Setting().Algorithm {
	case Zlib, Zstd:
		require.True(t, want != nil && bytes.Equal(got[3:], want), "%s %s: a checksummed format decoded altered input to different bytes", c.Setting(), what)
	}
}

func TestDecompressCorrupt(t *testing.T) {
	page := sbPage()
	for _, s := range allSettings() {
		c := newCodec(t, s)
		comp, err := c.Compress(nil, page)
		require.NoError(t, err)

		for n := 0; n < len(comp); n += max(1, len(comp)/97) {
			checkBad(t, c, comp[:n], nil, "truncated")
			if s.Algorithm != None {
				_, err := c.Decompress(nil, comp[:n])
				require.Error(t, err, "%s truncated to %d", s, n)
			}
		}
		for i := 0; i < len(comp); i += max(1, len(comp)/131) {
			bad := bytes.Clone(comp)
			bad[i] ^= 0x5a
			checkBad(t, c, bad, page, "flipped")
		}
		checkBad(t, c, randomBytes(300, 9), nil, "garbage")
		checkBad(t, c, bytes.Repeat([]byte{0xff}, 64), nil, "ones")

		switch s.Algorithm {
		case Zlib, Deflate, Zstd, S2, CZlib:
			_, err = c.Decompress(nil, append(bytes.Clone(comp), 0))
			require.ErrorIs(t, err, ErrCorrupt, "%s trailing byte", s)
			_, err = c.Decompress(nil, nil)
			require.ErrorIs(t, err, ErrCorrupt, "%s empty input", s)
		}
		if s.Algorithm == Zlib || s.Algorithm == Zstd || s.Algorithm == CZlib {
			// Checksummed formats catch a changed payload byte.
			bad := bytes.Clone(comp)
			bad[len(bad)/2] ^= 0x01
			_, err = c.Decompress(nil, bad)
			require.ErrorIs(t, err, ErrCorrupt, "%s checksum", s)
		}
	}
}

// TestDecompressHugeClaims feeds headers that claim more output than the
// limit; they must fail before anything of that size is allocated.
func TestDecompressHugeClaims(t *testing.T) {
	zs := newCodec(t, Setting{Algorithm: Zstd})
	big, err := zs.Compress(nil, make([]byte, 2<<20))
	require.NoError(t, err)
	_, err = zs.DecompressLimit(nil, big, 1<<20)
	require.ErrorIs(t, err, ErrTooLarge)

	s2c := newCodec(t, Setting{Algorithm: S2})
	// varint 0xffffffff: a 4 GiB block in a few bytes.
	_, err = s2c.DecompressLimit(nil, []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0}, 1<<20)
	require.ErrorIs(t, err, ErrTooLarge)

	// Highly compressible input beyond the limit, streamed by deflate.
	zc := newCodec(t, DefaultSetting)
	bomb, err := zc.Compress(nil, make([]byte, 8<<20))
	require.NoError(t, err)
	_, err = zc.DecompressLimit(nil, bomb, 1<<20)
	require.ErrorIs(t, err, ErrTooLarge)
	got, err := zc.Decompress(nil, bomb)
	require.NoError(t, err)
	require.Len(t, got, 8<<20)
}

// An explicit limit may exceed MaxDecompressed: a 4 GiB LONGBLOB is read
// with its reference's length as the limit.
func TestLimitAboveMaxDecompressed(t *testing.T) {
	big := bytes.Repeat([]byte("<p>zipsim</p>"), (MaxDecompressed+1<<20)/13)
	for _, s := range []Setting{{Algorithm: None}, {Algorithm: Zlib, Level: 1}, {Algorithm: Zstd}, {Algorithm: S2}, {Algorithm: CZlib, Level: 1}} {
		c := newCodec(t, s)
		z, err := c.Compress(nil, big)
		require.NoError(t, err)
		_, err = c.Decompress(nil, z)
		require.ErrorIs(t, err, ErrTooLarge, "%v: Decompress keeps its MaxDecompressed bound", s)
		got, err := c.DecompressLimit(nil, z, len(big))
		require.NoError(t, err, "%v", s)
		require.True(t, bytes.Equal(big, got), "%v", s)
	}
}

func TestConcurrentUse(t *testing.T) {
	page := sbPage()
	for _, s := range []Setting{DefaultSetting, {Algorithm: Zstd}, {Algorithm: S2, Level: 2}, {Algorithm: CZlib, Level: 6}} {
		c := newCodec(t, s)
		want, err := c.Compress(nil, page)
		require.NoError(t, err)
		errs := make(chan error, 8)
		for g := 0; g < 8; g++ {
			go func() {
				var cbuf, dbuf []byte
				for i := 0; i < 50; i++ {
					var err error
					if cbuf, err = c.Compress(cbuf[:0], page); err != nil || !bytes.Equal(cbuf, want) {
						errs <- errors.Join(err, errors.New("compress output differs"))
						return
					}
					if dbuf, err = c.Decompress(dbuf[:0], cbuf); err != nil || !bytes.Equal(dbuf, page) {
						errs <- errors.Join(err, errors.New("decompress output differs"))
						return
					}
				}
				errs <- nil
			}()
		}
		for g := 0; g < 8; g++ {
			assert.NoError(t, <-errs, s)
		}
	}
}

func TestZlibBound(t *testing.T) {
	assert.Equal(t, 13, ZlibBound(0))
	assert.Equal(t, 16384+4+1+13, ZlibBound(16384))
	assert.Equal(t, 13, ZlibBound(-5))
	c := newCodec(t, Setting{Algorithm: Deflate, Level: 9})
	for _, n := range []int{0, 1, 100, 16384, 1 << 20} {
		comp, err := c.Compress(nil, randomBytes(n, uint64(n)))
		require.NoError(t, err)
		assert.LessOrEqual(t, len(comp), ZlibBound(n), n)
	}
}

// TestCompressValue checks that czlib deflates an off-page value with
// InnoDB's BLOB parameters (windowBits 15: the zlib header's CMF is 0x78,
// and repeats 20 KiB apart are found, which a page stream's 16 KiB window
// misses), and that every other codec compresses a value as a page.
func TestCompressValue(t *testing.T) {
	part := randomBytes(20<<10, 7)
	value := append(append(append([]byte{}, part...), part...), part...)
	for _, s := range allSettings() {
		c := newCodec(t, s)
		v, err := c.CompressValue(nil, value)
		require.NoError(t, err, "%s", s)
		out, err := c.Decompress(nil, v)
		require.NoError(t, err, "%s", s)
		require.Equal(t, value, out, "%s: round trip", s)
		p, err := c.Compress(nil, value)
		require.NoError(t, err, "%s", s)
		if s.Algorithm != CZlib {
			require.Equal(t, p, v, "%s: a value compresses as a page", s)
			continue
		}
		require.Equal(t, byte(0x68), p[0], "%s: page streams use windowBits 14", s)
		require.Equal(t, byte(0x78), v[0], "%s: value streams use windowBits 15", s)
		require.Less(t, len(v), len(p)*2/3, "%s: the 32 KiB window finds the repeats", s)
	}
}

// Transparent page compression's streams: czlib deflates them with
// compress2's parameters (windowBits 15, memLevel 8), byte for byte the
// port's writer with those (whose bytes TestGolden checks against C
// zlib), under the limit rules of CompressLimit; other codecs use
// CompressLimit itself.
func TestCompressFileLimit(t *testing.T) {
	in := inputs()
	for _, s := range allSettings() {
		c := newCodec(t, s)
		for _, x := range in {
			page, err := c.CompressLimit(nil, x.data, ZlibBound(len(x.data)))
			require.NoError(t, err, "%s %s", s, x.name)
			file, err := c.CompressFileLimit(nil, x.data, ZlibBound(len(x.data)))
			require.NoError(t, err, "%s %s", s, x.name)
			out, err := c.Decompress(nil, file)
			require.NoError(t, err, "%s %s", s, x.name)
			require.True(t, bytes.Equal(x.data, out), "%s %s: round trip", s, x.name)
			if s.Algorithm != CZlib {
				require.Equal(t, page, file, "%s %s: a file page compresses as a B-tree page", s, x.name)
				continue
			}
			w, err := czlib.NewWriter(s.Level, 15, 8)
			require.NoError(t, err)
			require.Equal(t, w.Compress(nil, x.data), file, "%s %s: compress2's stream", s, x.name)
			if len(x.data) > 0 {
				require.Equal(t, byte(0x78), file[0], "%s %s: windowBits 15", s, x.name)
			}

			dst := append(make([]byte, 0, len(file)+64), 1, 2, 3)
			got, err := c.CompressFileLimit(dst, x.data, len(file))
			require.NoError(t, err, "%s %s: a limit it meets", s, x.name)
			require.Equal(t, file, got[3:], "%s %s: appended to dst", s, x.name)
			spare := slices.Clone(dst[:cap(dst)])
			got, err = c.CompressFileLimit(dst, x.data, len(file)-1)
			require.ErrorIs(t, err, ErrDoesNotFit, "%s %s: one byte short", s, x.name)
			require.Equal(t, dst, got, "%s %s: dst unchanged", s, x.name)
			require.Equal(t, spare, dst[:cap(dst)], "%s %s: its spare capacity untouched", s, x.name)
		}
		_, err := c.CompressFileLimit(nil, []byte("x"), -1)
		require.Error(t, err, "%s: a negative limit", s)
	}
}
