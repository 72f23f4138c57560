package page

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/compress"
)

// memStore is a BlobStore over a map, with pages of one size.
type memStore struct {
	size  int
	pages map[uint32][]byte
	next  uint32
}

func newMemStore(size int) *memStore {
	return &memStore{size: size, pages: map[uint32][]byte{}, next: 1}
}

func (m *memStore) AllocPage() (uint32, error) {
	m.next++
	return m.next, nil
}

func (m *memStore) WritePage(no uint32, fill func([]byte) error) error {
	b := make([]byte, m.size)
	if err := fill(b); err != nil {
		return err
	}
	m.pages[no] = b
	return nil
}

func (m *memStore) ReadPage(no uint32, use func([]byte) error) error {
	b, ok := m.pages[no]
	if !ok {
		return fmt.Errorf("page %d not stored", no)
	}
	return use(b)
}

// htmlish returns compressible text of n bytes, like seed 001's HTML.
func htmlish(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	words := []string{"<div class=\"row\">", "<p>", "</p>", "the", "document", "of", "<a href=\"/doc/", "\">", "</a>", "and", "</div>", "\n", "value", "word"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
		if r.IntN(10) == 0 {
			fmt.Fprintf(&b, "%d", r.IntN(100000))
		}
	}
	return b.Bytes()[:n]
}

func TestBlobRoundTrip(t *testing.T) {
	sizes := []int{0, 1, 40, 768, 16329, 16330, 16331, 100_000, 1 << 20, 4 << 20}
	formats := []BlobFormat{{PageSize: 16384}, {PageSize: 8192}, {PageSize: 4096}}
	for _, zs := range ZipSizes {
		formats = append(formats, BlobFormat{PageSize: 16384, ZipSize: zs})
	}
	formats = append(formats, BlobFormat{PageSize: 16384, ZipSize: 8192, Env: Env{Codec: mustCodec(t, "zstd")}})
	for _, f := range formats {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("page=%d/zip=%d/codec=%v/len=%d", f.PageSize, f.ZipSize, codecName(f.Env), n), func(t *testing.T) {
				size := f.PageSize
				if f.ZipSize != 0 {
					size = f.ZipSize
				}
				st := newMemStore(size)
				f.SpaceID = 5
				value := htmlish(n, uint64(n))
				ref, err := WriteBlob(st, f, value)
				require.NoError(t, err)
				require.Equal(t, uint32(n), ref.Length)
				require.Equal(t, f.ZipSize != 0, ref.Compressed())

				var enc [ExternRefSize]byte
				ref.Encode(enc[:])
				dec, err := DecodeExternRef(enc[:])
				require.NoError(t, err)
				require.Equal(t, ref, dec)

				got, err := ReadBlob(st, f, dec, []byte("prefix"))
				require.NoError(t, err)
				require.Equal(t, "prefix", string(got[:6]))
				require.True(t, bytes.Equal(value, got[6:]))

				pages, _, err := BlobPages(st, f, ref)
				require.NoError(t, err)
				require.Len(t, pages, len(st.pages), "every written page is on the chain once")
				if f.ZipSize == 0 {
					require.Equal(t, max(1, (n+BlobPayload(f.PageSize)-1)/BlobPayload(f.PageSize)), len(pages))
				}
			})
		}
	}
}

// TestZBlobBeatsPageCompression shows why seed 001's table shrank 12x: an
// off-page value is one stream over zip-size pages, so its ratio is the
// data's, not capped at 16K/KEY_BLOCK_SIZE as B-tree pages are.
func TestZBlobBeatsPageCompression(t *testing.T) {
	value := htmlish(200_000, 7)
	plain := newMemStore(16384)
	_, err := WriteBlob(plain, BlobFormat{}, value)
	require.NoError(t, err)
	for _, zs := range []int{1024, 4096, 8192, 16384} {
		st := newMemStore(zs)
		_, err := WriteBlob(st, BlobFormat{ZipSize: zs}, value)
		require.NoError(t, err)
		ratio := float64(len(st.pages)*zs) / float64(len(plain.pages)*16384)
		t.Logf("zip %5d: %3d ZBLOB pages vs %d BLOB pages: %.3f of the uncompressed space", zs, len(st.pages), len(plain.pages), ratio)
		require.Less(t, ratio, 0.3, "off-page compression must beat the 2:1 of page compression")
	}
}

func TestBlobChainCorruption(t *testing.T) {
	for _, f := range []BlobFormat{{}, {ZipSize: 2048}} {
		size := 16384
		if f.ZipSize != 0 {
			size = f.ZipSize
		}
		fresh := func() (*memStore, ExternRef) {
			st := newMemStore(size)
			ref, err := WriteBlob(st, f, htmlish(100_000, 3))
			require.NoError(t, err)
			return st, ref
		}
		var ce *CorruptError

		st, ref := fresh()
		pages, _, err := BlobPages(st, f, ref)
		require.NoError(t, err)
		last := pages[len(pages)-1]
		Fil(st.pages[last]).SetNext(pages[0]) // a loop
		if f.ZipSize == 0 {
			setBlobNext(st.pages[last], pages[0])
		}
		_, err = ReadBlob(st, f, ref, nil)
		require.Error(t, err)

		st, ref = fresh()
		Fil(st.pages[pages[1]]).SetType(TypeIndex)
		_, err = ReadBlob(st, f, ref, nil)
		require.True(t, errors.As(err, &ce), "%v", err)
		require.Equal(t, pages[1], ce.PageNo)

		st, ref = fresh()
		bad := ref
		bad.Length++
		_, err = ReadBlob(st, f, bad, nil)
		require.True(t, errors.As(err, &ce), "%v", err)

		st, ref = fresh()
		wrong := ref
		if f.ZipSize == 0 {
			wrong.Offset = FilNext
		} else {
			wrong.Offset = FilHeaderSize
		}
		_, err = ReadBlob(st, f, wrong, nil)
		require.Error(t, err)
	}
}

func setBlobNext(b []byte, next uint32) {
	b[blobNext], b[blobNext+1], b[blobNext+2], b[blobNext+3] = byte(next>>24), byte(next>>16), byte(next>>8), byte(next)
}

func TestDecodeExternRefErrors(t *testing.T) {
	_, err := DecodeExternRef(make([]byte, 20))
	require.ErrorContains(t, err, "zero")
	_, err = DecodeExternRef(make([]byte, 10))
	require.ErrorContains(t, err, "20")
	good := ExternRef{SpaceID: 1, PageNo: 9, Offset: FilHeaderSize, Length: 77, NotOwner: true, Inherited: true}
	var b [20]byte
	good.Encode(b[:])
	got, err := DecodeExternRef(b[:])
	require.NoError(t, err)
	require.Equal(t, good, got)
	b2 := b
	b2[13] = 1 // length beyond 32 bits
	_, err = DecodeExternRef(b2[:])
	require.ErrorContains(t, err, "32 bits")
	b3 := b
	b3[11] = 99 // offset
	_, err = DecodeExternRef(b3[:])
	require.ErrorContains(t, err, "offset")
	b4 := b
	b4[4], b4[5], b4[6], b4[7] = 0, 0, 0, 0
	_, err = DecodeExternRef(b4[:])
	require.ErrorContains(t, err, "page 0")
}

func mustCodec(t testing.TB, s string) *compress.Codec {
	set, err := compress.ParseSetting(s)
	require.NoError(t, err)
	c, err := compress.New(set, compress.Options{})
	require.NoError(t, err)
	return c
}

func codecName(e Env) string {
	if e.Codec == nil {
		return "default"
	}
	return e.Codec.Setting().String()
}

// A damaged chain that loops is caught at the first repeated page, however
// long its reference claims the value is.
func TestBlobChainLoopIsCaughtAtOnce(t *testing.T) {
	for _, f := range []BlobFormat{{PageSize: 4096}, {PageSize: 4096, ZipSize: 1024}} {
		size := 4096
		if f.ZipSize != 0 {
			size = 1024
		}
		st := newMemStore(size)
		ref, err := WriteBlob(st, f, htmlish(50_000, 9))
		require.NoError(t, err)
		pages, _, err := BlobPages(st, f, ref)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(pages), 3)
		// Point the third page back at the second.
		third := st.pages[pages[2]]
		if f.ZipSize != 0 {
			Fil(third).SetNext(pages[1])
		} else {
			setBlobNext(third, pages[1])
		}
		reads := 0
		counting := &countingStore{memStore: st, reads: &reads}
		ref.Length = 1 << 31
		_, err = ReadBlob(counting, f, ref, nil)
		var ce *CorruptError
		require.ErrorAs(t, err, &ce)
		require.Contains(t, err.Error(), "comes back")
		require.Equal(t, pages[1], ce.PageNo)
		require.Equal(t, 3, reads, "one read per distinct page")
	}
}

type countingStore struct {
	*memStore
	reads *int
}

func (c *countingStore) ReadPage(no uint32, use func([]byte) error) error {
	*c.reads++
	return c.memStore.ReadPage(no, use)
}

// Compressed values larger than compress.MaxDecompressed read back: the
// reference's length bounds the inflate, not the codec's default cap.
func TestZBlobLargerThanDecompressCap(t *testing.T) {
	block := htmlish(1<<20, 11)
	value := bytes.Repeat(block, (compress.MaxDecompressed>>20)+1)
	f := BlobFormat{ZipSize: 16384, Env: Env{Codec: mustCodec(t, "zlib:1")}}
	st := newMemStore(16384)
	ref, err := WriteBlob(st, f, value)
	require.NoError(t, err)
	got, err := ReadBlob(st, f, ref, nil)
	require.NoError(t, err)
	require.True(t, bytes.Equal(value, got))
}

func TestParseBlobPageErrors(t *testing.T) {
	b := make([]byte, 4096)
	require.NoError(t, FormatBlobPage(b, 9, 1, []byte("part"), FilNull))
	part, next, err := ParseBlobPage(b)
	require.NoError(t, err)
	require.Equal(t, "part", string(part))
	require.Equal(t, uint32(FilNull), next)
	require.Error(t, FormatBlobPage(b, 9, 1, make([]byte, BlobPayload(4096)+1), FilNull))
	setBlobPartLen(b, uint32(BlobPayload(4096)+1))
	_, _, err = ParseBlobPage(b)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, uint32(9), ce.PageNo)
	_, _, err = ParseBlobPage(make([]byte, 1000))
	require.Error(t, err)
	z := make([]byte, 1024)
	require.NoError(t, FormatZBlobPage(z, 4, 1, true, []byte("zz"), 5))
	_, _, err = ParseZBlobPage(z, false)
	require.ErrorContains(t, err, "ZBLOB2 was expected")
	chunk, next, err := ParseZBlobPage(z, true)
	require.NoError(t, err)
	require.Equal(t, "zz", string(chunk))
	require.Equal(t, uint32(5), next)
	require.Equal(t, 16330, BlobPayload(16384), "InnoDB's payload of a 16K BLOB page")
	require.Equal(t, 8192-38, ZBlobPayload(8192))
}

func setBlobPartLen(b []byte, n uint32) {
	b[blobPartLen], b[blobPartLen+1], b[blobPartLen+2], b[blobPartLen+3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
}
