package page

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/fuzzseed"
)

// Every decoder of this package is a fuzz target: corrupt bytes must give an
// error, never a panic or an out-of-range read, and whatever a decoder
// accepts must be a valid structure. Seed corpora live in
// testdata/fuzz/<Target>/seed-*; TestFuzzCorpusUpToDate regenerates them
// from real pages and fails when the files drift.

var fuzzSettings = []compress.Setting{
	{Algorithm: compress.Zlib, Level: 6},
	{Algorithm: compress.Zstd},
	{Algorithm: compress.S2},
	{Algorithm: compress.Deflate, Level: 1},
	{Algorithm: compress.None},
}

func fuzzEnv(t testing.TB, sel byte) Env {
	c, err := compress.New(fuzzSettings[int(sel)%len(fuzzSettings)], compress.Options{})
	require.NoError(t, err)
	return Env{Codec: c}
}

func pageSizeFor(n int) int {
	switch {
	case n >= 16384:
		return 16384
	case n >= 8192:
		return 8192
	}
	return 4096
}

// FuzzIndexPage feeds arbitrary images to Check; an image Check accepts must
// read, reorganize and round-trip through a zip image without trouble.
func FuzzIndexPage(f *testing.F) {
	f.Add(make([]byte, 4096))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := IndexPage(make([]byte, pageSizeFor(len(data))))
		copy(p, data)
		if len(p.Check(nil)) != 0 {
			return
		}
		for i := 0; i < p.NRecs(); i++ {
			r := p.Record(i)
			p.Search(r.Key, bytes.Compare)
			_ = p.DeleteMarked(i)
		}
		z, err := NewZip(make([]byte, len(p)))
		require.NoError(t, err)
		if err := z.Compress(p, Env{}); err == nil {
			dst := make([]byte, len(p))
			require.NoError(t, z.Decompress(dst, Env{}))
			requireSamePage(t, p, dst)
		} else {
			require.ErrorIs(t, err, ErrDoesNotFit)
		}
		scratch := make([]byte, len(p))
		require.NoError(t, p.Reorganize(scratch))
		require.Empty(t, p.Check(nil))
	})
}

// FuzzZipDecompress feeds arbitrary zip blocks to Decompress: an accepted
// image must yield a valid page that validates against the image.
func FuzzZipDecompress(f *testing.F) {
	f.Add(byte(0), make([]byte, 1024))
	f.Fuzz(func(t *testing.T, codec byte, data []byte) {
		zs := MinZipSize
		for zs < len(data) && zs < MaxPageSize {
			zs *= 2
		}
		block := make([]byte, zs)
		copy(block, data)
		env := fuzzEnv(t, codec)
		z, err := NewZip(block)
		require.NoError(t, err)
		dst := make([]byte, MaxPageSize)
		if z.Decompress(dst, env) != nil {
			return
		}
		require.Empty(t, IndexPage(dst).Check(nil))
		require.NoError(t, z.Validate(IndexPage(dst), env, make([]byte, MaxPageSize)))
	})
}

// logBase returns a zip image with a modification log built by a short
// random run for one page kind, the offset where its log starts, and the
// log itself; FuzzModLog replaces the log.
func logBase(t testing.TB, kind byte) (img []byte, mStart, lend int, log []byte) {
	k := Kind(kind % 3)
	c := newPropCase(t, k, 4096, 2048, fuzzSettings[0], 77+uint64(k))
	for c.z.mEnd == c.z.mStart || c.p.NRecs() < 8 {
		c.step()
	}
	img = bytes.Clone(c.z.data)
	return img, c.z.mStart, len(img) - c.z.trailerLen(), bytes.Clone(img[c.z.mStart : c.z.mEnd+1])
}

// FuzzModLog replaces the modification log of a valid image with arbitrary
// bytes: decompression must reject or accept them without panicking, and
// accepted logs must give valid pages.
func FuzzModLog(f *testing.F) {
	bases := make([][3]any, 3)
	for k := byte(0); k < 3; k++ {
		img, ms, le, _ := logBase(f, k)
		bases[k] = [3]any{img, ms, le}
	}
	f.Add(byte(0), []byte{0})
	f.Fuzz(func(t *testing.T, kind byte, log []byte) {
		b := bases[kind%3]
		img := bytes.Clone(b[0].([]byte))
		ms, le := b[1].(int), b[2].(int)
		region := img[ms:le]
		clear(region)
		copy(region, log)
		z, err := NewZip(img)
		require.NoError(t, err)
		dst := make([]byte, 4096)
		if z.Decompress(dst, Env{}) != nil {
			return
		}
		require.Empty(t, IndexPage(dst).Check(nil))
	})
}

// blobFuzzStore serves pages cut from fuzz data, numbered from 1.
func blobFuzzStore(size int, data []byte) *memStore {
	st := newMemStore(size)
	for i := 0; len(data) > 0; i++ {
		b := make([]byte, size)
		data = data[copy(b, data):]
		st.pages[uint32(i+1)] = b
	}
	return st
}

// FuzzBlobChain reads BLOB and ZBLOB chains cut from arbitrary bytes, the
// first four giving the reference's length.
func FuzzBlobChain(f *testing.F) {
	f.Add(false, []byte{0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, compressed bool, data []byte) {
		if len(data) < 4 {
			return
		}
		length := binary.BigEndian.Uint32(data) % (1 << 20)
		format, size, offset := BlobFormat{PageSize: 4096}, 4096, uint32(FilHeaderSize)
		if compressed {
			format.ZipSize, size, offset = 1024, 1024, FilNext
		}
		st := blobFuzzStore(size, data[4:])
		ref := ExternRef{PageNo: 1, Offset: offset, Length: length}
		got, err := ReadBlob(st, format, ref, nil)
		if err == nil {
			require.Len(t, got, int(length))
		}
		_, _, _ = BlobPages(st, format, ref)
	})
}

// FuzzExternRef decodes arbitrary references; accepted ones re-encode to
// the same bytes.
func FuzzExternRef(f *testing.F) {
	f.Add(make([]byte, 20))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeExternRef(data)
		if err != nil {
			return
		}
		var b [ExternRefSize]byte
		r.Encode(b[:])
		require.Equal(t, data[:ExternRefSize], b[:])
	})
}

// generatedSeeds builds the seed corpora from real structures.
func generatedSeeds(t *testing.T) fuzzseed.Seeds {
	seeds := fuzzseed.Seeds{}
	add := seeds.Add
	leaf, _ := sbLeaf(t, 4096, 1)
	add("FuzzIndexPage", "sbtest-leaf-4k", []byte(leaf))
	for _, k := range []Kind{ClusteredLeaf, SecondaryLeaf, NodePage} {
		for _, zs := range []int{1024, 2048, 4096} {
			c := newPropCase(t, k, 4096, zs, fuzzSettings[0], uint64(zs)+uint64(k))
			for i := 0; i < 120; i++ {
				c.step()
			}
			name := fmt.Sprintf("%s-zip%d", strings.ReplaceAll(k.String(), " ", "-"), zs)
			add("FuzzIndexPage", name, []byte(c.p))
			add("FuzzZipDecompress", name, byte(0), bytes.Clone(c.z.data))
		}
	}
	for i, s := range fuzzSettings[1:] {
		c := newPropCase(t, ClusteredLeaf, 16384, 8192, s, 300+uint64(i))
		for j := 0; j < 60; j++ {
			c.step()
		}
		add("FuzzZipDecompress", "clustered-"+strings.ReplaceAll(s.String(), ":", "-"), byte(i+1), bytes.Clone(c.z.data))
	}
	for k := byte(0); k < 3; k++ {
		_, _, _, log := logBase(t, k)
		add("FuzzModLog", strings.ReplaceAll(Kind(k).String(), " ", "-"), k, log)
	}
	for _, compressed := range []bool{false, true} {
		format, size := BlobFormat{PageSize: 4096}, 4096
		if compressed {
			format.ZipSize, size = 1024, 1024
		}
		st := newMemStore(size)
		st.next = 0
		value := htmlish(9000, 5)
		ref, err := WriteBlob(st, format, value)
		require.NoError(t, err)
		data := binary.BigEndian.AppendUint32(nil, ref.Length)
		nos := make([]int, 0, len(st.pages))
		for no := range st.pages {
			nos = append(nos, int(no))
		}
		sort.Ints(nos)
		for _, no := range nos {
			data = append(data, st.pages[uint32(no)]...)
		}
		add("FuzzBlobChain", fmt.Sprintf("chain-compressed-%v", compressed), compressed, data)
	}
	var ref [ExternRefSize]byte
	ExternRef{SpaceID: 3, PageNo: 17, Offset: FilNext, Length: 123456, NotOwner: true}.Encode(ref[:])
	add("FuzzExternRef", "zblob-ref", ref[:])
	return seeds
}

func TestFuzzCorpusUpToDate(t *testing.T) { fuzzseed.Check(t, generatedSeeds(t)) }
