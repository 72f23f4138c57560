package page

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func newLeaf(t *testing.T, size int, clustered bool) IndexPage {
	t.Helper()
	p, err := CreateIndex(make([]byte, size), IndexOptions{PageNo: 4, SpaceID: 2, IndexID: 8, Clustered: clustered})
	require.NoError(t, err)
	require.Empty(t, p.Check(bytes.Compare))
	return p
}

func TestCreateIndexRejectsBadSizes(t *testing.T) {
	for _, n := range []int{0, 1024, 2048, 12288, 32768, 65536} {
		_, err := CreateIndex(make([]byte, n), IndexOptions{})
		require.Error(t, err, "size %d", n)
		require.Contains(t, err.Error(), "4096, 8192 or 16384")
	}
	_, err := CreateIndex(make([]byte, 4096), IndexOptions{Level: -1})
	require.Error(t, err)
}

func TestCheckZipSize(t *testing.T) {
	require.NoError(t, CheckZipSize(16384, 8192))
	require.NoError(t, CheckZipSize(4096, 4096))
	require.ErrorContains(t, CheckZipSize(4096, 8192), "larger than the page size")
	require.ErrorContains(t, CheckZipSize(16384, 3000), "1024, 2048, 4096, 8192 or 16384")
	require.ErrorContains(t, CheckZipSize(32768, 8192), "4096, 8192 or 16384")
	require.Equal(t, 4, ZipSSize(8192))
	require.Equal(t, 0, ZipSSize(512))
}

func TestSearchIsLowerBound(t *testing.T) {
	p := newLeaf(t, 4096, false)
	for i, k := range []string{"b", "d", "f"} {
		_, err := p.Insert(i, Record{Key: []byte(k)})
		require.NoError(t, err)
	}
	for _, c := range []struct {
		key   string
		slot  int
		found bool
	}{{"a", 0, false}, {"b", 0, true}, {"c", 1, false}, {"d", 1, true}, {"f", 2, true}, {"g", 3, false}} {
		slot, found := p.Search([]byte(c.key), bytes.Compare)
		require.Equal(t, c.slot, slot, c.key)
		require.Equal(t, c.found, found, c.key)
	}
}

func TestInsertDeleteReuseAndGarbage(t *testing.T) {
	p := newLeaf(t, 4096, true)
	rec := func(k string, n int) Record {
		return Record{Key: []byte(k), Value: bytes.Repeat([]byte{'v'}, n), Sys: make([]byte, TrxRollLen)}
	}
	_, err := p.Insert(0, rec("a", 100))
	require.NoError(t, err)
	_, err = p.Insert(1, rec("c", 100))
	require.NoError(t, err)
	size := p.RecSize(0)
	require.Equal(t, RecordSize(ClusteredLeaf, 1, 100), size)
	require.Equal(t, 2*size, p.DataSize())

	off, err := p.Delete(0)
	require.NoError(t, err)
	require.Equal(t, off, p.FreeHead())
	require.Equal(t, size, p.Garbage())
	require.Zero(t, p.LastInsert(), "a delete resets PAGE_LAST_INSERT")
	require.Empty(t, p.Check(bytes.Compare))

	// A record that fits the deleted one's space reuses it and its heap number.
	heap := p.NHeap()
	got, err := p.Insert(0, rec("b", 60))
	require.NoError(t, err)
	require.Equal(t, off, got)
	require.Equal(t, heap, p.NHeap())
	require.Equal(t, size-RecordSize(ClusteredLeaf, 1, 60), p.Garbage(), "the slack stays garbage")
	require.Empty(t, p.Check(bytes.Compare))

	// A larger one goes to the heap top.
	_, err = p.Delete(0)
	require.NoError(t, err)
	got, err = p.Insert(0, rec("b", 200))
	require.NoError(t, err)
	require.NotEqual(t, off, got)
	require.Equal(t, heap+1, p.NHeap())
	require.Empty(t, p.Check(bytes.Compare))

	before := p.MaxInsertSizeAfterReorganize()
	require.NoError(t, p.Reorganize(make([]byte, 4096)))
	require.Zero(t, p.Garbage())
	require.Zero(t, p.FreeHead())
	require.Equal(t, before, p.MaxInsertSize())
	require.Empty(t, p.Check(bytes.Compare))
}

func TestInsertUntilFull(t *testing.T) {
	p := newLeaf(t, 4096, false)
	n := 0
	for ; ; n++ {
		_, err := p.Insert(n, Record{Key: []byte{byte(n >> 8), byte(n)}, Value: make([]byte, 50)})
		if err != nil {
			require.ErrorIs(t, err, ErrNoSpace)
			break
		}
	}
	require.Less(t, p.MaxInsertSize(), RecordSize(SecondaryLeaf, 2, 50))
	require.Equal(t, n, p.NRecs())
	require.Empty(t, p.Check(bytes.Compare))
}

func TestInsertRejectsBadRecords(t *testing.T) {
	leaf := newLeaf(t, 4096, true)
	_, err := leaf.Insert(0, Record{Key: []byte("k"), Sys: []byte{1, 2}})
	require.ErrorIs(t, err, ErrRecord)
	_, err = leaf.Insert(0, Record{Key: []byte("k"), Value: make([]byte, 30), NExt: 2})
	require.ErrorIs(t, err, ErrRecord)
	_, err = leaf.Insert(5, Record{Key: []byte("k")})
	require.Error(t, err)
	node, err := CreateIndex(make([]byte, 4096), IndexOptions{Level: 1})
	require.NoError(t, err)
	_, err = node.Insert(0, Record{Key: []byte("k"), Value: []byte("v")})
	require.ErrorIs(t, err, ErrRecord)
	require.Equal(t, 0, leaf.NRecs())
}

func TestUpdateInPlace(t *testing.T) {
	p := newLeaf(t, 4096, true)
	_, err := p.Insert(0, Record{Key: []byte("k"), Value: []byte("old!"), Sys: make([]byte, 13)})
	require.NoError(t, err)
	sys := bytes.Repeat([]byte{7}, 13)
	require.NoError(t, p.UpdateInPlace(0, Record{Key: []byte("k"), Value: []byte("new!"), Sys: sys}))
	require.Equal(t, "new!", string(p.Value(0)))
	require.Equal(t, sys, p.Sys(0))
	err = p.UpdateInPlace(0, Record{Key: []byte("k"), Value: []byte("longer")})
	require.True(t, errors.Is(err, ErrShapeChanged))
	err = p.UpdateInPlace(0, Record{Key: []byte("x"), Value: []byte("new!")})
	require.True(t, errors.Is(err, ErrShapeChanged))
}

func TestInsertDirection(t *testing.T) {
	p := newLeaf(t, 16384, false)
	for i := 0; i < 5; i++ {
		_, err := p.Insert(i, Record{Key: []byte{byte(i)}})
		require.NoError(t, err)
	}
	dir, n := p.Direction()
	require.Equal(t, DirRight, dir)
	require.Equal(t, 4, n, "the first insert sets no direction; each later one adds one")
	_, err := p.Insert(0, Record{Key: []byte{0xff, 0}})
	require.NoError(t, err)
	dir, n = p.Direction()
	require.Equal(t, DirNoDirection, dir)
	require.Zero(t, n)
}

func TestChecksumAndVerify(t *testing.T) {
	p, _ := sbLeaf(t, 16384, 3)
	SetChecksum(p)
	require.NoError(t, Verify(p))
	p[5000] ^= 1
	err := Verify(p)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, uint32(3), ce.PageNo)
	require.Contains(t, err.Error(), "page 3")
	require.NoError(t, Verify(make([]byte, 4096)), "a slot never written is valid")
	require.Error(t, Verify(make([]byte, 10)))
}

func TestCheckFindsDamage(t *testing.T) {
	p, _ := sbLeaf(t, 4096, 1)
	good := bytes.Clone(p)
	cases := map[string]func(IndexPage){
		"garbage field":  func(p IndexPage) { p.set16(hdrGarbage, 7) },
		"directory slot": func(p IndexPage) { p.put16(p.slotPos(1), p.Offset(0)) },
		"heap top":       func(p IndexPage) { p.set16(hdrHeapTop, len(p)) },
		"free space":     func(p IndexPage) { p[p.HeapTop()] = 1 },
		"next pointer":   func(p IndexPage) { p.setNext(p.Offset(0), Supremum) },
		"key order":      func(p IndexPage) { p.Key(1)[0] = 0 },
	}
	for name, damage := range cases {
		q := IndexPage(bytes.Clone(good))
		damage(q)
		require.NotEmpty(t, q.Check(bytes.Compare), name)
	}
}

func TestUpdateMovesWhenTheSizeChanges(t *testing.T) {
	p := newLeaf(t, 4096, true)
	sys := bytes.Repeat([]byte{3}, TrxRollLen)
	for i, k := range []string{"a", "b", "c"} {
		_, err := p.Insert(i, Record{Key: []byte(k), Value: []byte("12345"), Sys: sys})
		require.NoError(t, err)
	}
	inPlace, err := p.Update(1, Record{Key: []byte("b"), Value: []byte("abcde"), Sys: sys})
	require.NoError(t, err)
	require.True(t, inPlace)
	inPlace, err = p.Update(1, Record{Key: []byte("b"), Value: bytes.Repeat([]byte("x"), 300), Sys: sys})
	require.NoError(t, err)
	require.False(t, inPlace)
	require.Equal(t, 300, len(p.Value(1)))
	require.Positive(t, p.Garbage())
	require.Empty(t, p.Check(bytes.Compare))

	// Too big: the old record comes back, delete mark and insert-direction
	// fields included.
	require.NoError(t, p.SetDeleteMark(1, true))
	hdr := bytes.Clone(p[PageHeader : PageHeader+hdrNRecs])
	_, err = p.Update(1, Record{Key: []byte("b"), Value: make([]byte, 4000), Sys: sys, DeleteMarked: true})
	require.ErrorIs(t, err, ErrNoSpace)
	require.Equal(t, bytes.Repeat([]byte("x"), 300), p.Value(1))
	require.Equal(t, sys, p.Sys(1))
	require.True(t, p.DeleteMarked(1))
	require.Equal(t, hdr[hdrLastInsert:], []byte(p[PageHeader+hdrLastInsert:PageHeader+hdrNRecs]))
	require.Empty(t, p.Check(bytes.Compare))

	// A moving update takes the mark from the new record, as in place does.
	_, err = p.Update(1, Record{Key: []byte("b"), Value: []byte("short"), Sys: sys, DeleteMarked: true})
	require.NoError(t, err)
	require.True(t, p.DeleteMarked(1))
	_, err = p.Update(1, Record{Key: []byte("b"), Value: []byte("shrt"), Sys: sys})
	require.NoError(t, err)
	require.False(t, p.DeleteMarked(1))

	_, err = p.Update(1, Record{Key: []byte("z"), Value: []byte("v")})
	require.ErrorIs(t, err, ErrShapeChanged)
}
