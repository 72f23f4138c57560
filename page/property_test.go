package page

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/compress"
)

// propModel is what the page should hold: records by key.
type propModel map[string]Record

func cloneRecord(r Record) Record {
	return Record{Key: slices.Clone(r.Key), Value: slices.Clone(r.Value), Sys: slices.Clone(r.Sys), NExt: r.NExt, Child: r.Child, DeleteMarked: r.DeleteMarked}
}

// propCase runs a random operation stream against one page and its zip
// image, mirroring every change as the B-tree will, and after every step
// checks that the image decompresses to the page byte for byte, that the
// page is valid and holds the model's records, and that Available agrees
// with what really fits.
type propCase struct {
	t        testing.TB
	r        *rand.Rand
	kind     Kind
	p        IndexPage
	z        *Zip
	env      Env
	model    propModel
	scratch  []byte
	stats    struct{ logged, recompressed, failed, exactOnly, refused int }
	pageSize int
}

func (c *propCase) randBytes(n int) []byte {
	b := make([]byte, n)
	switch c.r.IntN(3) {
	case 0: // incompressible
		for i := range b {
			b[i] = byte(c.r.Uint32())
		}
	case 1: // text-like: few symbols
		for i := range b {
			b[i] = "abcdefghij -"[c.r.IntN(12)]
		}
	default: // digits, like sysbench
		for i := range b {
			b[i] = byte('0' + c.r.IntN(10))
		}
	}
	return b
}

func (c *propCase) newRecord(key []byte) Record {
	r := Record{Key: key, DeleteMarked: c.r.IntN(8) == 0}
	switch c.kind {
	case ClusteredLeaf:
		r.Sys = c.randBytes(TrxRollLen)
		if c.r.IntN(4) == 0 {
			r.NExt = 1 + c.r.IntN(3)
		}
		r.Value = c.randBytes(ExternRefSize*r.NExt + c.r.IntN(c.pageSize/40))
	case SecondaryLeaf:
		if c.r.IntN(2) == 0 {
			r.Value = c.randBytes(c.r.IntN(60))
		}
	case NodePage:
		r.Child = c.r.Uint32()
	}
	return r
}

func (c *propCase) newKey() []byte {
	for {
		var k []byte
		if c.kind == ClusteredLeaf {
			k = binary.BigEndian.AppendUint32(nil, c.r.Uint32N(1<<16))
		} else {
			k = c.randBytes(1 + c.r.IntN(24))
		}
		if _, ok := c.model[string(k)]; !ok {
			return k
		}
	}
}

func (c *propCase) slotOf(key []byte) int {
	i, found := c.p.Search(key, bytes.Compare)
	require.True(c.t, found, "key %x not on the page", key)
	return i
}

func (c *propCase) randomKey() []byte {
	keys := make([]string, 0, len(c.model))
	for k := range c.model {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return []byte(keys[c.r.IntN(len(keys))])
}

// recompress is the slow path after a change that was not logged: compress
// the page; on failure restore it from the old image. It reports success.
func (c *propCase) recompress() bool {
	err := c.z.Compress(c.p, c.env)
	if err == nil {
		c.stats.recompressed++
		return true
	}
	require.ErrorIs(c.t, err, ErrDoesNotFit)
	require.NoError(c.t, c.z.Decompress(c.p, c.env))
	c.stats.failed++
	return false
}

// checkSlack verifies InnoDB's estimate against the exact need of the write
// entry for the record in slot i, and returns the log bytes and trailer
// growth the write must produce.
func (c *propCase) checkSlack(i, size int, create, newHeap bool) (logBytes, trailerGrowth int) {
	o := c.p.Offset(i)
	r := c.p.layout(o)
	hn := c.p.heapNo(o)
	hnLen := 1
	if hn-1 >= 64 {
		hnLen = 2
	}
	t := c.kind.TrailerLen()
	logBytes = logEntryLen(hn, c.kind, r)
	estimate := size - 3
	want := 2 - hnLen + t + ExternRefSize*r.nExt // update
	if create {
		estimate += 2
		trailerGrowth = ExternRefSize * r.nExt
		if newHeap {
			trailerGrowth += dirSlotSize + t
			want = 2 - hnLen
		} else {
			want = 4 - hnLen + t
		}
	}
	require.Equal(c.t, want, estimate-logBytes-trailerGrowth, "page_zip_available overestimate for heap %d, create %v, new heap %v", hn, create, newHeap)
	return logBytes, trailerGrowth
}

// logOrRecompress mirrors a change to slot i. Available decides, as in
// InnoDB; sometimes the log write is tried even when Available said no, to
// check that the writer's own space check refuses exactly what does not fit.
// A write that succeeds must use exactly the log bytes and trailer space
// that checkSlack computed.
func (c *propCase) logOrRecompress(avail bool, size, i int, create, newHeap bool, write func() error) bool {
	logBytes, growth := c.checkSlack(i, size, create, newHeap)
	if avail || c.r.IntN(2) == 0 {
		before := slices.Clone(c.z.data)
		m, trailer := c.z.mEnd, c.z.trailerLen()
		err := write()
		if err == nil {
			require.Equal(c.t, m+logBytes, c.z.mEnd, "log bytes written")
			require.Equal(c.t, trailer+growth, c.z.trailerLen(), "trailer growth")
			require.Zero(c.t, c.z.data[c.z.mEnd], "log end marker")
			require.LessOrEqual(c.t, c.z.mEnd+1, len(c.z.data)-c.z.trailerLen())
			c.stats.logged++
			if !avail {
				c.stats.exactOnly++
			}
			return true
		}
		require.False(c.t, avail, "Available said the change fits but the log write failed: %v", err)
		require.ErrorIs(c.t, err, ErrLogFull)
		require.Equal(c.t, before, c.z.data, "a refused log write changed the image")
		require.Equal(c.t, m, c.z.mEnd)
		require.Greater(c.t, m+logBytes+1, len(c.z.data)-trailer-growth, "the log write was refused though it fits")
		c.stats.refused++
	}
	return c.recompress()
}

func (c *propCase) insert() {
	key := c.newKey()
	i, _ := c.p.Search(key, bytes.Compare)
	c.insertAt(i, c.newRecord(key))
}

// insertAt inserts rec into slot i and mirrors it, as
// page_cur_insert_rec_zip does: log it when Available allows, else
// recompress.
func (c *propCase) insertAt(i int, rec Record) {
	size := RecordSize(c.kind, len(rec.Key), len(rec.Value))
	avail := c.z.Available(size, true)
	heapBefore := c.p.NHeap()
	if _, err := c.p.Insert(i, rec); err != nil {
		require.ErrorIs(c.t, err, ErrNoSpace)
		return
	}
	if c.logOrRecompress(avail, size, i, true, c.p.NHeap() > heapBefore, func() error { return c.z.LogInsert(c.p, i) }) {
		c.model[string(rec.Key)] = cloneRecord(rec)
	}
}

func (c *propCase) delete() {
	key := c.randomKey()
	i := c.slotOf(key)
	_, err := c.p.Delete(i)
	require.NoError(c.t, err)
	require.NoError(c.t, c.z.LogDelete(c.p, i))
	delete(c.model, string(key))
}

func (c *propCase) update() {
	key := c.randomKey()
	i := c.slotOf(key)
	old := c.model[string(key)]
	rec := cloneRecord(old)
	switch c.kind {
	case ClusteredLeaf:
		rec.Sys = c.randBytes(TrxRollLen)
		copy(rec.Value, c.randBytes(len(rec.Value)))
	case SecondaryLeaf:
		rec.Value = c.randBytes(len(rec.Value))
	case NodePage:
		rec.Child = c.r.Uint32()
	}
	require.NoError(c.t, c.p.UpdateInPlace(i, rec))
	size := RecordSize(c.kind, len(rec.Key), len(rec.Value))
	if c.logOrRecompress(c.z.Available(size, false), size, i, false, false, func() error { return c.z.LogUpdate(c.p, i) }) {
		c.model[string(key)] = rec
	}
}

// resize updates a record to a different size the way InnoDB's optimistic
// update does on a compressed page: delete, mirror, insert, mirror.
func (c *propCase) resize() {
	if c.kind == NodePage {
		return
	}
	key := c.randomKey()
	i := c.slotOf(key)
	rec := c.newRecord(key)
	_, err := c.p.Delete(i)
	require.NoError(c.t, err)
	require.NoError(c.t, c.z.LogDelete(c.p, i))
	delete(c.model, string(key))
	c.insertAt(i, rec)
}

func (c *propCase) inPlace() {
	key := c.randomKey()
	i := c.slotOf(key)
	rec := c.model[string(key)]
	switch c.r.IntN(3) {
	case 0:
		rec.DeleteMarked = !rec.DeleteMarked
		require.NoError(c.t, c.p.SetDeleteMark(i, rec.DeleteMarked))
		require.NoError(c.t, c.z.WriteDeleteMark(c.p, i))
	case 1:
		switch c.kind {
		case ClusteredLeaf:
			rec.Sys = c.randBytes(TrxRollLen)
			require.NoError(c.t, c.p.SetSys(i, rec.Sys))
			require.NoError(c.t, c.z.WriteSys(c.p, i))
		case NodePage:
			rec.Child = c.r.Uint32()
			require.NoError(c.t, c.p.SetChild(i, rec.Child))
			require.NoError(c.t, c.z.WriteChild(c.p, i))
		}
	default:
		if rec.NExt > 0 {
			j := c.r.IntN(rec.NExt)
			ref := c.randBytes(ExternRefSize)
			rec.Value = slices.Clone(rec.Value)
			copy(rec.Value[len(rec.Value)-ExternRefSize*(rec.NExt-j):], ref)
			require.NoError(c.t, c.p.SetExtRef(i, j, ref))
			require.NoError(c.t, c.z.WriteExtRef(c.p, i, j))
		}
	}
	c.model[string(key)] = rec
}

func (c *propCase) reorganize() {
	err := c.z.Reorganize(c.p, c.env, c.scratch)
	if err != nil {
		require.ErrorIs(c.t, err, ErrDoesNotFit)
		c.stats.failed++
	}
}

func (c *propCase) verify(step int, op string) {
	t := c.t
	dst := make([]byte, len(c.p))
	require.NoError(t, c.z.Decompress(dst, c.env), "step %d (%s)", step, op)
	if i := mismatch(dst[FilPageNo:], c.p[FilPageNo:]); i >= 0 {
		t.Fatalf("step %d (%s): decompressed page differs at byte %d", step, op, i+FilPageNo)
	}
	require.Empty(t, c.p.Check(bytes.Compare), "step %d (%s)", step, op)
	require.NoError(t, c.z.Validate(c.p, c.env, c.scratch))
	require.Equal(t, len(c.model), c.p.NRecs(), "step %d (%s)", step, op)
	for i := 0; i < c.p.NRecs(); i++ {
		got := c.p.Record(i)
		want, ok := c.model[string(got.Key)]
		require.True(t, ok, "step %d: unexpected key %x", step, got.Key)
		require.True(t, bytes.Equal(want.Value, got.Value), "step %d: value of %x", step, got.Key)
		require.Equal(t, want.Child, got.Child)
		require.Equal(t, want.NExt, got.NExt)
		if want.Sys != nil {
			require.Equal(t, want.Sys, got.Sys)
		}
		require.Equal(t, want.DeleteMarked, got.DeleteMarked)
		require.Equal(t, want.DeleteMarked, c.p.DeleteMarked(i))
	}
}

func newPropCase(t testing.TB, kind Kind, pageSize, zipSize int, setting compress.Setting, seed uint64) *propCase {
	codec, err := compress.New(setting, compress.Options{})
	require.NoError(t, err)
	level := 0
	if kind == NodePage {
		level = 1
	}
	p, err := CreateIndex(make([]byte, pageSize), IndexOptions{PageNo: 7, IndexID: 9, Level: level, Clustered: kind == ClusteredLeaf})
	require.NoError(t, err)
	z, err := NewZip(make([]byte, zipSize))
	require.NoError(t, err)
	c := &propCase{t: t, r: rand.New(rand.NewPCG(seed, 1)), kind: kind, p: p, z: z, model: propModel{},
		env: Env{Codec: codec, Stats: compress.NewStats()}, scratch: make([]byte, pageSize), pageSize: pageSize}
	require.NoError(t, z.Compress(p, c.env))
	return c
}

// step applies one random operation and returns its name.
func (c *propCase) step() string {
	switch n := c.r.IntN(100); {
	case n < 50 || len(c.model) < 3:
		c.insert()
		return "insert"
	case n < 65:
		c.delete()
		return "delete"
	case n < 72:
		c.update()
		return "update"
	case n < 80:
		c.resize()
		return "resize"
	case n < 95:
		c.inPlace()
		return "in-place"
	default:
		c.reorganize()
		return "reorganize"
	}
}

func runPropCase(t *testing.T, kind Kind, pageSize, zipSize int, setting compress.Setting, seed uint64, steps int) {
	c := newPropCase(t, kind, pageSize, zipSize, setting, seed)
	for step := 0; step < steps; step++ {
		c.verify(step, c.step())
	}
	snap := c.env.Stats.Snapshot().Size(zipSize)
	t.Logf("records %d, logged %d (%d only by the exact check), refused %d, recompressed %d, failed %d; CMP ops %d ok %d, uncompress %d",
		len(c.model), c.stats.logged, c.stats.exactOnly, c.stats.refused, c.stats.recompressed, c.stats.failed, snap.CompressOps, snap.CompressOpsOK, snap.UncompressOps)
	require.Positive(t, c.stats.logged)
}

func TestPropertyZipMirrorsPage(t *testing.T) {
	zlib6 := compress.Setting{Algorithm: compress.Zlib, Level: 6}
	cases := []struct {
		kind     Kind
		page, zs int
		setting  compress.Setting
	}{
		{ClusteredLeaf, 16384, 8192, zlib6},
		{ClusteredLeaf, 16384, 4096, zlib6},
		{ClusteredLeaf, 16384, 16384, zlib6},
		{ClusteredLeaf, 8192, 2048, zlib6},
		{ClusteredLeaf, 4096, 1024, zlib6},
		{SecondaryLeaf, 16384, 8192, zlib6},
		{SecondaryLeaf, 16384, 2048, zlib6},
		{SecondaryLeaf, 4096, 4096, zlib6},
		{NodePage, 16384, 8192, zlib6},
		{NodePage, 8192, 1024, zlib6},
		{ClusteredLeaf, 16384, 8192, compress.Setting{Algorithm: compress.Zstd}},
		{SecondaryLeaf, 8192, 4096, compress.Setting{Algorithm: compress.S2}},
		{NodePage, 16384, 4096, compress.Setting{Algorithm: compress.Deflate, Level: 1}},
		{ClusteredLeaf, 4096, 2048, compress.Setting{Algorithm: compress.None}},
	}
	for i, tc := range cases {
		name := fmt.Sprintf("kind=%s/page=%d/zip=%d/codec=%s", tc.kind, tc.page, tc.zs, tc.setting)
		t.Run(name, func(t *testing.T) {
			runPropCase(t, tc.kind, tc.page, tc.zs, tc.setting, uint64(i+1), 600)
		})
	}
}
