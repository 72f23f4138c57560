package page

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/compress"
)

// EmptySize and RecNeedsExt follow page_zip_empty_size and
// page_zip_rec_needs_ext (research/innodb-compression.md 1.2, 1.3).
func TestEmptySizeAndRecNeedsExt(t *testing.T) {
	// zip_size - (94 + 2 + 13 + 1 + 1 - 5) - compressBound(2*(n_fields+1))
	require.Equal(t, 8192-106-compress.ZlibBound(12), EmptySize(5, 8192))
	require.Equal(t, 1024-106-compress.ZlibBound(12), EmptySize(5, 1024))
	require.Zero(t, EmptySize(2000, 1024))

	// Half of an empty 16K page is 8126 bytes.
	require.Equal(t, 8126, FreeSpaceOfEmpty(16384)/2)
	require.False(t, RecNeedsExt(8125, 6, 16384, 0))
	require.True(t, RecNeedsExt(8126, 6, 16384, 0))
	// With KEY_BLOCK_SIZE=1 a record of about 890 bytes already needs
	// external columns.
	limit := EmptySize(6, 1024) + RecHeaderSize - 2 - 1
	require.False(t, RecNeedsExt(limit-1, 6, 16384, 1024))
	require.True(t, RecNeedsExt(limit, 6, 16384, 1024))
	require.InDelta(t, 890, limit, 20)
	require.True(t, RecNeedsExt(16384, 6, 16384, 16384))
}

func TestAvailableAndMaxInsertSize(t *testing.T) {
	p, err := CreateIndex(make([]byte, 16384), IndexOptions{Clustered: true})
	require.NoError(t, err)
	z, err := NewZip(make([]byte, 8192))
	require.NoError(t, err)
	require.False(t, z.Available(100, true), "an unknown descriptor accepts nothing")
	require.NoError(t, z.Compress(p, Env{}))
	// MaxInsertSize is InnoDB's conservative bound: shorter records fit.
	m := z.MaxInsertSize()
	require.True(t, z.Available(m-1, true))
	largest := m
	for z.Available(largest+1, true) {
		largest++
	}
	// page_zip_max_ins_size subtracts a directory slot and the 3 header bytes
	// that page_zip_available gives back, so it is 5 bytes short.
	require.Equal(t, m+RecHeaderSize, largest)
}

func TestCopyFromAndMismatch(t *testing.T) {
	p, _ := sbLeaf(t, 16384, 5)
	z, err := NewZip(make([]byte, 16384))
	require.NoError(t, err)
	require.NoError(t, z.Compress(p, Env{}))
	var c Zip
	require.NoError(t, c.Init(make([]byte, 16384)))
	before := compress.NewStats()
	require.NoError(t, c.CopyFrom(z))
	require.Equal(t, z.Data(), c.Data())
	require.Equal(t, z.MEnd(), c.MEnd())
	require.NoError(t, c.Validate(p, Env{Stats: before}, make([]byte, 16384)))
	require.Zero(t, before.Snapshot().Total().UncompressOps, "Validate does not count")
	var small Zip
	require.NoError(t, small.Init(make([]byte, 8192)))
	require.Error(t, small.CopyFrom(z))

	// A change that is not mirrored is caught by the next mirror call.
	_, err = p.Delete(0)
	require.NoError(t, err)
	require.ErrorIs(t, z.LogUpdate(p, 0), ErrMismatch)
	require.ErrorIs(t, z.WriteDeleteMark(p, 99), ErrSlot)
	require.NoError(t, z.LogDelete(p, 0))
	require.NoError(t, z.Validate(p, Env{}, make([]byte, 16384)))
}

func TestEmptyAndSetLevel(t *testing.T) {
	p, _ := sbLeaf(t, 16384, 6)
	require.Error(t, p.SetLevel(1), "a page with records keeps its level")
	Fil(p).SetPrev(11)
	require.NoError(t, p.Empty(1))
	require.Zero(t, p.NRecs())
	require.Equal(t, 1, p.Level())
	require.Equal(t, uint32(11), Fil(p).Prev(), "the FIL header survives")
	require.Equal(t, uint64(42), p.IndexID())
	require.True(t, p.IsClustered())
	require.Empty(t, p.Check(nil))
	require.NoError(t, p.SetLevel(0))
	require.Equal(t, ClusteredLeaf, p.Kind())
	require.Error(t, p.Empty(-1))
}

func TestWriteHeaderMirrorsHeaderFields(t *testing.T) {
	p, err := CreateIndex(make([]byte, 16384), IndexOptions{PageNo: 5, Clustered: true})
	require.NoError(t, err)
	z, err := NewZip(make([]byte, 4096))
	require.NoError(t, err)
	require.NoError(t, z.Compress(p, Env{}))
	p.SetMaxTrxID(777)
	Fil(p).SetNext(9)
	Fil(p).SetLSN(1234)
	require.Error(t, z.Validate(p, Env{}, make([]byte, 16384)))
	z.WriteHeader(p)
	require.NoError(t, z.Validate(p, Env{}, make([]byte, 16384)))
	dst := make([]byte, 16384)
	require.NoError(t, z.Decompress(dst, Env{}))
	require.Equal(t, uint64(777), IndexPage(dst).MaxTrxID())
	require.Equal(t, uint64(1234), Fil(dst).LSN())
}

// TestUncompressedPageModel runs random inserts, deletes, updates (Update,
// in place or moving) and reorganizations on uncompressed pages against a
// map, checking the page after every step.
func TestUncompressedPageModel(t *testing.T) {
	for _, kind := range []Kind{ClusteredLeaf, SecondaryLeaf} {
		c := newPropCase(t, kind, 8192, 8192, compress.Setting{Algorithm: compress.None}, 21+uint64(kind))
		scratch := make([]byte, 8192)
		moved := 0
		for step := 0; step < 2000; step++ {
			switch n := c.r.IntN(10); {
			case n < 5 || len(c.model) < 3:
				key := c.newKey()
				rec := c.newRecord(key)
				i, _ := c.p.Search(key, bytes.Compare)
				if _, err := c.p.Insert(i, rec); err == nil {
					c.model[string(key)] = cloneRecord(rec)
				} else {
					require.ErrorIs(t, err, ErrNoSpace)
				}
			case n < 7:
				key := c.randomKey()
				_, err := c.p.Delete(c.slotOf(key))
				require.NoError(t, err)
				delete(c.model, string(key))
			case n < 9:
				key := c.randomKey()
				rec := c.newRecord(key)
				before := bytes.Clone(c.p)
				inPlace, err := c.p.Update(c.slotOf(key), rec)
				if err != nil {
					require.ErrorIs(t, err, ErrNoSpace)
					i := c.slotOf(key)
					require.Equal(t, c.model[string(key)].DeleteMarked, c.p.DeleteMarked(i))
					require.Equal(t, before[PageHeader+hdrLastInsert:PageHeader+hdrNRecs], []byte(c.p[PageHeader+hdrLastInsert:PageHeader+hdrNRecs]))
					continue
				}
				if !inPlace {
					moved++
				}
				c.model[string(key)] = cloneRecord(rec)
			default:
				require.NoError(t, c.p.Reorganize(scratch))
			}
			require.Empty(t, c.p.Check(bytes.Compare), "step %d", step)
			require.Equal(t, len(c.model), c.p.NRecs())
			for i := 0; i < c.p.NRecs(); i++ {
				got := c.p.Record(i)
				want := c.model[string(got.Key)]
				require.True(t, bytes.Equal(want.Value, got.Value))
				require.Equal(t, want.DeleteMarked, got.DeleteMarked)
			}
		}
		require.Positive(t, moved, "some updates changed the record size")
	}
}
