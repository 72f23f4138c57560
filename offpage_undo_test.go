package zipsim

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/page"
)

// offPageUndoFormats are the formats the undo tests run in.
var offPageUndoFormats = []struct {
	name string
	o    TableOptions
}{
	{"COMPACT", TableOptions{RowFormat: Compact}},
	{"DYNAMIC", TableOptions{RowFormat: Dynamic}},
	{"KBS=2", TableOptions{KeyBlockSize: 2}},
	{"KBS=8", TableOptions{KeyBlockSize: 8}},
}

// Column positions of offPageUndoTable.
const (
	ouID = iota
	ouK
	ouBody
	ouExtra
	ouNote
)

// offPageUndoTable makes a table with two long columns and an index k_1
// on k, whose entries the tests add and remove behind the table's back to
// make a write fail halfway, as undo_test.go does.
func offPageUndoTable(t *testing.T, o TableOptions) (*Table, *partition) {
	t.Helper()
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 4 << 20}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	o.Columns = []Column{
		{Name: "id", Type: TypeInt},
		{Name: "k", Type: TypeInt},
		{Name: "body", Type: TypeVarchar, Len: MaxVarcharLen},
		{Name: "extra", Type: TypeVarchar, Len: 1 << 20},
		{Name: "note", Type: TypeVarchar, Len: 300},
	}
	o.PrimaryKey = []string{"id"}
	o.SecondaryIndexes = []IndexDef{{Name: "k_1", Columns: []string{"k"}}}
	tb, err := st.CreateTable(context.Background(), "t", o)
	require.NoError(t, err)
	return tb, tb.parts[0]
}

// ouRow builds a row of offPageUndoTable.
func ouRow(id, k int64, body, extra []byte) Row {
	return Row{Int(id), Int(k), Bytes(body), Bytes(extra), String("n")}
}

// kEntry is the k_1 entry of (id, k).
func kEntry(tb *Table, id, k int64) []byte {
	return tb.sch.appendKey(nil, &tb.sch.indexes[1], Row{Int(id), Int(k), {}, {}, {}})
}

// ouBytes is n random bytes: they compress to as many ZBLOB pages.
func ouBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// usedPages is the set of pages the allocator of p has handed out and not
// got back: the indexes' pages and the chains'.
func usedPages(p *partition) map[uint32]bool {
	next, free := p.alloc.state()
	used := make(map[uint32]bool, next)
	for no := uint32(1); no < next; no++ {
		used[no] = true
	}
	for _, no := range free {
		delete(used, no)
	}
	return used
}

// stored returns the clustered value of row id as stored.
func stored(t *testing.T, tb *Table, p *partition, id int64) []byte {
	t.Helper()
	key := tb.sch.appendPrefix(nil, &tb.sch.indexes[0], []Value{Int(id)})
	val, ok, err := p.indexes[0].Get(context.Background(), key, nil)
	require.NoError(t, err)
	require.True(t, ok, "row %d", id)
	return val
}

// chainOf returns the reference of column c of row id, with ok false when
// c is in the record, and the pages of its chain.
func chainOf(t *testing.T, tb *Table, p *partition, id int64, c int) (page.ExternRef, []uint32, bool) {
	t.Helper()
	_, ref, ok, err := tb.sch.externOf(stored(t, tb, p, id), c)
	require.NoError(t, err)
	if !ok {
		return ref, nil, false
	}
	w := getWork()
	defer putWork(w)
	bs := tb.blobs(context.Background(), w, p)
	pages, _, err := page.BlobPages(bs, bs.format, ref)
	require.NoError(t, err)
	return ref, pages, true
}

// requireRow checks that row id reads back as want, whole and through a
// scan, that Check is clean and that the pages in use are exactly used.
func requireRow(t *testing.T, tb *Table, p *partition, want Row, used map[uint32]bool) {
	t.Helper()
	ctx := context.Background()
	got, ok, err := tb.Get(ctx, nil, want[ouID])
	require.NoError(t, err)
	require.True(t, ok, "row %d", want[ouID].Int())
	require.Equal(t, want[ouK].Int(), got[ouK].Int())
	require.True(t, bytes.Equal(want[ouBody].Bytes(), got[ouBody].Bytes()), "body: %d bytes, want %d", len(got[ouBody].Bytes()), len(want[ouBody].Bytes()))
	require.True(t, bytes.Equal(want[ouExtra].Bytes(), got[ouExtra].Bytes()), "extra: %d bytes, want %d", len(got[ouExtra].Bytes()), len(want[ouExtra].Bytes()))
	n := 0
	require.NoError(t, tb.ScanIndex(ctx, "k_1", nil, nil, false, func(r Row) bool {
		if r[ouID].Int() == want[ouID].Int() {
			require.Equal(t, want[ouK].Int(), r[ouK].Int())
			require.True(t, bytes.Equal(want[ouBody].Bytes(), r[ouBody].Bytes()))
			n++
		}
		return true
	}))
	require.Equal(t, 1, n, "one k_1 entry leads to the row")
	for _, err := range tb.Check(ctx) {
		t.Error(err)
	}
	if used != nil {
		now := usedPages(p)
		require.Equal(t, sortedKeys(used), sortedKeys(now), "the pages in use are the ones before the failed write")
	}
	if t.Failed() {
		t.FailNow()
	}
}

func sortedKeys(m map[uint32]bool) []uint32 {
	return slices.Sorted(maps.Keys(m))
}

// TestOffPageUndoInsert makes inserts with off-page columns fail after
// their chains are written, at the clustered index (a duplicate key) and
// at the last secondary index (a stray entry): the chains go back to the
// free list and Check is clean.
func TestOffPageUndoInsert(t *testing.T) {
	ctx := context.Background()
	for _, f := range offPageUndoFormats {
		t.Run(f.name, func(t *testing.T) {
			tb, p := offPageUndoTable(t, f.o)
			r := rand.New(rand.NewPCG(1, 2))
			keep := ouRow(1, 5, ouBytes(r, 50000), ouBytes(r, 30000))
			require.NoError(t, tb.Insert(ctx, keep))
			_, pages, ok := chainOf(t, tb, p, 1, ouBody)
			require.True(t, ok, "the body is off-page")
			require.Greater(t, len(pages), 1)
			used := usedPages(p)

			// The clustered index refuses a duplicate after the chains
			// are written.
			err := tb.Insert(ctx, ouRow(1, 9, ouBytes(r, 70000), ouBytes(r, 20000)))
			require.ErrorIs(t, err, ErrDuplicate)
			requireRow(t, tb, p, keep, used)

			// The k_1 entry of row 2 is already there.
			require.NoError(t, p.indexes[1].Insert(ctx, kEntry(tb, 2, 6), nil))
			used = usedPages(p)
			for _, sizes := range [][2]int{{60000, 40000}, {60000, 10}, {10, 60000}, {9000, 9000}} {
				err = tb.Insert(ctx, ouRow(2, 6, ouBytes(r, sizes[0]), ouBytes(r, sizes[1])))
				require.ErrorIs(t, err, ErrDuplicate, "sizes %v", sizes)
				require.ErrorContains(t, err, "insert into index k_1")
				_, ok, err := tb.Get(ctx, nil, Int(2))
				require.NoError(t, err)
				require.False(t, ok, "the row is undone")
				require.Equal(t, sortedKeys(used), sortedKeys(usedPages(p)), "sizes %v: the chains written went back", sizes)
			}
			require.NoError(t, p.indexes[1].Delete(ctx, kEntry(tb, 2, 6)))
			requireRow(t, tb, p, keep, used)
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			require.EqualValues(t, 2, u.BlobValues, "row 1's body and extra")
		})
	}
}

// TestOffPageUndoUpdate makes updates fail after the clustered record was
// changed, from and to every placement of the long columns: the old
// value, and the chains it refers to, come back; the chains the update
// wrote go back to the free list.
func TestOffPageUndoUpdate(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	big, big2, small := ouBytes(r, 80000), ouBytes(r, 30000), ouBytes(r, 100)
	cases := []struct {
		name     string
		old, new [2][]byte // body, extra
	}{
		{"off-page to other off-page", [2][]byte{big, big2}, [2][]byte{big2, big}},
		{"in record to off-page", [2][]byte{small, small}, [2][]byte{big, big2}},
		{"off-page to in record", [2][]byte{big, big2}, [2][]byte{small, small}},
		{"body kept, extra changed", [2][]byte{big, big2}, [2][]byte{big, append(bytes.Clone(big2), 'x')}},
		{"both kept", [2][]byte{big, big2}, [2][]byte{big, big2}},
		{"same length, last byte changed", [2][]byte{big, big2}, [2][]byte{flipLast(big), big2}},
		{"same length, first byte changed", [2][]byte{big, big2}, [2][]byte{flipFirst(big), big2}},
	}
	for _, f := range offPageUndoFormats {
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				tb, p := offPageUndoTable(t, f.o)
				old := ouRow(1, 5, c.old[0], c.old[1])
				require.NoError(t, tb.Insert(ctx, old))
				val := bytes.Clone(stored(t, tb, p, 1))
				require.NoError(t, p.indexes[1].Insert(ctx, kEntry(tb, 1, 6), nil))
				used := usedPages(p)
				err := tb.Update(ctx, ouRow(1, 6, c.new[0], c.new[1]))
				require.ErrorIs(t, err, ErrDuplicate)
				require.ErrorContains(t, err, "update of index k_1")
				require.Equal(t, val, stored(t, tb, p, 1), "the clustered record is back as it was, references included")
				require.Equal(t, sortedKeys(used), sortedKeys(usedPages(p)), "the chains the update wrote went back, the old ones stay")
				require.NoError(t, p.indexes[1].Delete(ctx, kEntry(tb, 1, 6)))
				requireRow(t, tb, p, old, nil)

				// Now it goes through.
				require.NoError(t, tb.Update(ctx, ouRow(1, 6, c.new[0], c.new[1])))
				requireRow(t, tb, p, ouRow(1, 6, c.new[0], c.new[1]), nil)
			})
		}
	}
}

func flipLast(b []byte) []byte {
	b = bytes.Clone(b)
	b[len(b)-1] ^= 1
	return b
}

func flipFirst(b []byte) []byte {
	b = bytes.Clone(b)
	b[0] ^= 1
	return b
}

// TestOffPageUndoDelete makes a delete fail after the clustered record
// was removed: the record comes back with its chains, which were not
// freed.
func TestOffPageUndoDelete(t *testing.T) {
	ctx := context.Background()
	for _, f := range offPageUndoFormats {
		t.Run(f.name, func(t *testing.T) {
			tb, p := offPageUndoTable(t, f.o)
			r := rand.New(rand.NewPCG(5, 6))
			row := ouRow(1, 5, ouBytes(r, 100000), ouBytes(r, 40000))
			require.NoError(t, tb.Insert(ctx, row))
			_, bodyPages, ok := chainOf(t, tb, p, 1, ouBody)
			require.True(t, ok)
			val := bytes.Clone(stored(t, tb, p, 1))
			require.NoError(t, p.indexes[1].Delete(ctx, kEntry(tb, 1, 5)))
			used := usedPages(p)
			require.ErrorIs(t, tb.Delete(ctx, Int(1)), ErrNotFound)
			require.Equal(t, val, stored(t, tb, p, 1), "the row is back")
			require.Equal(t, sortedKeys(used), sortedKeys(usedPages(p)), "no chain was freed")
			// Pages of a chain freed while referenced would be handed out
			// again: an insert now must not take them.
			require.NoError(t, tb.Insert(ctx, ouRow(2, 7, ouBytes(r, 100000), nil)))
			_, pages2, ok := chainOf(t, tb, p, 2, ouBody)
			require.True(t, ok)
			for _, no := range pages2 {
				require.NotContains(t, bodyPages, no)
			}
			require.NoError(t, p.indexes[1].Insert(ctx, kEntry(tb, 1, 5), nil))
			requireRow(t, tb, p, row, nil)

			// Now it goes through, and the chains go to the free list.
			_, extraPages, ok := chainOf(t, tb, p, 1, ouExtra)
			require.True(t, ok)
			require.NoError(t, tb.Delete(ctx, Int(1)))
			_, free := p.alloc.state()
			for _, no := range append(bodyPages, extraPages...) {
				require.Contains(t, free, no)
			}
			require.NoError(t, tb.Delete(ctx, Int(2)))
			require.Empty(t, tb.Check(ctx))
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			require.Zero(t, u.BlobPages)
			require.Zero(t, u.BlobValues)
		})
	}
}

// TestOffPageUpdateKeepsChain checks which chains an update keeps: a
// column whose value did not change keeps its chain (same first page);
// one whose value changed, even by one byte at either end, gets a new
// chain and its old pages go to the free list.
func TestOffPageUpdateKeepsChain(t *testing.T) {
	ctx := context.Background()
	for _, f := range offPageUndoFormats {
		t.Run(f.name, func(t *testing.T) {
			tb, p := offPageUndoTable(t, f.o)
			r := rand.New(rand.NewPCG(7, 8))
			body, extra := ouBytes(r, 60000), ouBytes(r, 50000)
			require.NoError(t, tb.Insert(ctx, ouRow(1, 5, body, extra)))
			bodyRef, bodyPages, ok := chainOf(t, tb, p, 1, ouBody)
			require.True(t, ok)
			extraRef, extraPages, ok := chainOf(t, tb, p, 1, ouExtra)
			require.True(t, ok)

			// The same row: nothing changes.
			used := usedPages(p)
			require.NoError(t, tb.Update(ctx, ouRow(1, 5, body, extra)))
			require.Equal(t, sortedKeys(used), sortedKeys(usedPages(p)))

			// Only k changes: both chains kept. A copy of the value, not
			// the same slice, so that the comparison reads the chain.
			require.NoError(t, tb.Update(ctx, ouRow(1, 6, bytes.Clone(body), bytes.Clone(extra))))
			ref, _, ok := chainOf(t, tb, p, 1, ouBody)
			require.True(t, ok)
			require.Equal(t, bodyRef.PageNo, ref.PageNo, "unchanged body keeps its chain")
			ref, _, ok = chainOf(t, tb, p, 1, ouExtra)
			require.True(t, ok)
			require.Equal(t, extraRef.PageNo, ref.PageNo, "unchanged extra keeps its chain")
			require.Equal(t, sortedKeys(used), sortedKeys(usedPages(p)))
			requireRow(t, tb, p, ouRow(1, 6, body, extra), nil)

			// extra changes in its last byte: new chain for it only.
			extra2 := flipLast(extra)
			require.NoError(t, tb.Update(ctx, ouRow(1, 6, body, extra2)))
			ref, _, ok = chainOf(t, tb, p, 1, ouBody)
			require.True(t, ok)
			require.Equal(t, bodyRef.PageNo, ref.PageNo, "unchanged body keeps its chain")
			ref, pages, ok := chainOf(t, tb, p, 1, ouExtra)
			require.True(t, ok)
			require.NotEqual(t, extraRef.PageNo, ref.PageNo, "changed extra gets a new chain")
			_, free := p.alloc.state()
			for _, no := range extraPages {
				require.Contains(t, free, no, "the old chain's pages are free")
				require.NotContains(t, pages, no)
			}
			requireRow(t, tb, p, ouRow(1, 6, body, extra2), nil)

			// body changes in its first byte (within COMPACT's prefix).
			body2 := flipFirst(body)
			require.NoError(t, tb.Update(ctx, ouRow(1, 6, body2, extra2)))
			ref, _, ok = chainOf(t, tb, p, 1, ouBody)
			require.True(t, ok)
			require.NotEqual(t, bodyRef.PageNo, ref.PageNo, "changed body gets a new chain")
			_, free = p.alloc.state()
			for _, no := range bodyPages {
				require.Contains(t, free, no)
			}
			requireRow(t, tb, p, ouRow(1, 6, body2, extra2), nil)

			// A value of the same length and bytes, but at another
			// column: extra takes body's value and body extra's. Both
			// get new chains (a chain belongs to one column).
			bodyRef, _, _ = chainOf(t, tb, p, 1, ouBody)
			extraRef, _, _ = chainOf(t, tb, p, 1, ouExtra)
			body3 := extra2[:50000]
			require.NoError(t, tb.Update(ctx, ouRow(1, 6, body3, body2[:50000])))
			requireRow(t, tb, p, ouRow(1, 6, body3, body2[:50000]), nil)
			for _, c := range []int{ouBody, ouExtra} {
				ref, _, ok := chainOf(t, tb, p, 1, c)
				require.True(t, ok)
				require.NotEqual(t, bodyRef.PageNo, ref.PageNo)
				require.NotEqual(t, extraRef.PageNo, ref.PageNo)
			}

			// body moves into the record: its chain is freed.
			_, bodyPages, _ = chainOf(t, tb, p, 1, ouBody)
			require.NoError(t, tb.Update(ctx, ouRow(1, 6, []byte("short"), body2[:50000])))
			_, _, ok = chainOf(t, tb, p, 1, ouBody)
			require.False(t, ok)
			_, free = p.alloc.state()
			for _, no := range bodyPages {
				require.Contains(t, free, no)
			}
			requireRow(t, tb, p, ouRow(1, 6, []byte("short"), body2[:50000]), nil)
		})
	}
}

// TestOffPageUndoManyRows runs the failures above over many rows in a
// pool smaller than the chains, with splits of the clustered index
// between them, and checks the table against a model.
func TestOffPageUndoManyRows(t *testing.T) {
	ctx := context.Background()
	for _, f := range offPageUndoFormats {
		t.Run(f.name, func(t *testing.T) {
			tb, p := offPageUndoTable(t, f.o)
			r := rand.New(rand.NewPCG(9, 10))
			model := map[int64]Row{}
			size := func() int {
				return []int{10, 300, 800, 5000, 9000, 40000, 100000}[r.IntN(7)]
			}
			for i := range 200 {
				id := int64(r.IntN(40))
				k := int64(i + 100)
				row := ouRow(id, k, ouBytes(r, size()), ouBytes(r, size()))
				stray := r.IntN(3) == 0
				old, exists := model[id]
				var entry []byte
				switch {
				case stray && !exists:
					entry = kEntry(tb, id, k)
					require.NoError(t, p.indexes[1].Insert(ctx, entry, nil))
				case stray:
					entry = kEntry(tb, id, old[ouK].Int())
					require.NoError(t, p.indexes[1].Delete(ctx, entry))
				}
				var err error
				switch {
				case !exists:
					err = tb.Insert(ctx, row)
				case r.IntN(4) == 0:
					err = tb.Delete(ctx, Int(id))
					row = nil
				default:
					err = tb.Update(ctx, row)
				}
				if stray {
					require.Error(t, err, "step %d", i)
					if exists {
						require.NoError(t, p.indexes[1].Insert(ctx, entry, nil))
					} else {
						require.NoError(t, p.indexes[1].Delete(ctx, entry))
					}
				} else {
					require.NoError(t, err, "step %d", i)
					if row == nil {
						delete(model, id)
					} else {
						model[id] = row
					}
				}
				if i%50 == 49 {
					require.Empty(t, tb.Check(ctx), "step %d", i)
				}
			}
			require.Empty(t, tb.Check(ctx))
			for id, row := range model {
				got, ok, err := tb.Get(ctx, nil, Int(id))
				require.NoError(t, err)
				require.True(t, ok, "row %d", id)
				require.Equal(t, row[ouK].Int(), got[ouK].Int())
				require.True(t, bytes.Equal(row[ouBody].Bytes(), got[ouBody].Bytes()), "row %d body", id)
				require.True(t, bytes.Equal(row[ouExtra].Bytes(), got[ouExtra].Bytes()), "row %d extra", id)
				require.NoError(t, tb.Delete(ctx, Int(id)))
			}
			require.Empty(t, tb.Check(ctx))
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			require.Zero(t, u.BlobPages, fmt.Sprint(u))
		})
	}
}

// TestOffPageUndoDeleteFreesNoOtherChain makes a delete of a row without
// off-page values fail halfway right after the insert of another row that
// wrote chains: the delete's undo must free nothing. A call's work space
// comes from a sync.Pool, so the delete likely gets the insert's, and
// rollback frees the chains listed in w.fresh, which only encodeRow
// resets (not Delete, nor putWork): the other row's chains are freed
// while it refers to them.
func TestOffPageUndoDeleteFreesNoOtherChain(t *testing.T) {
	ctx := context.Background()
	for _, f := range offPageUndoFormats {
		t.Run(f.name, func(t *testing.T) {
			tb, p := offPageUndoTable(t, f.o)
			r := rand.New(rand.NewPCG(11, 12))
			require.NoError(t, tb.Insert(ctx, ouRow(1, 5, []byte("short"), nil)))
			require.NoError(t, p.indexes[1].Delete(ctx, kEntry(tb, 1, 5)))
			big := ouRow(2, 6, ouBytes(r, 100000), ouBytes(r, 40000))
			require.NoError(t, tb.Insert(ctx, big))
			used := usedPages(p)
			require.ErrorIs(t, tb.Delete(ctx, Int(1)), ErrNotFound)
			require.Equal(t, sortedKeys(used), sortedKeys(usedPages(p)), "the failed delete of row 1 freed pages")
			require.NoError(t, p.indexes[1].Insert(ctx, kEntry(tb, 1, 5), nil))
			require.Empty(t, tb.Check(ctx))
			requireRow(t, tb, p, big, nil)
		})
	}
}

// TestOffPageCancelledWriteFreesChains cancels the context of a delete
// and of an update whose index pages are cached but whose old chain was
// evicted by a chain bigger than the pool. Whatever the call returns, the
// table must stay sound: either the row is as before, or it changed and
// its old chain went to the free list. Rollback undoes index changes with
// a context that cannot be cancelled; the chains that must be freed after
// the indexes changed need the same, or their pages leak for good.
func TestOffPageCancelledWriteFreesChains(t *testing.T) {
	for _, f := range []struct {
		name string
		o    TableOptions
	}{offPageUndoFormats[0], offPageUndoFormats[1], offPageUndoFormats[3]} {
		t.Run(f.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := Open("", Options{Pool: bufpool.Options{Bytes: 1 << 20}})
			require.NoError(t, err)
			defer st.Close()
			o := f.o
			o.Columns = []Column{{Name: "id", Type: TypeInt}, {Name: "k", Type: TypeInt}, {Name: "body", Type: TypeVarchar, Len: MaxVarcharLen}}
			o.PrimaryKey = []string{"id"}
			o.SecondaryIndexes = []IndexDef{{Name: "k_1", Columns: []string{"k"}}}
			tb, err := st.CreateTable(ctx, "t", o)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(13, 14))
			for id := range int64(2) {
				require.NoError(t, tb.Insert(ctx, Row{Int(id), Int(id), Bytes(ouBytes(r, 2<<20))}))
			}
			// Rows in the record keep the leaf above the merge limit, so
			// that the update below stays optimistic.
			for id := int64(2); id < 30; id++ {
				require.NoError(t, tb.Insert(ctx, Row{Int(id), Int(id), Bytes(ouBytes(r, 400))}))
			}
			// Touch the index pages, so that only chain pages are cold.
			touch := func() {
				for id := range int64(2) {
					_, _, err := tb.GetColumns(ctx, nil, Columns{t: tb, need: []bool{true, true, false}}, Int(id))
					require.NoError(t, err)
					require.NoError(t, tb.ScanIndex(ctx, "k_1", nil, nil, false, func(Row) bool { return false }))
				}
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()

			touch()
			// A value as long in the record as the reference (and
			// COMPACT's prefix) it replaces: the record is updated in
			// place, which the cancelled ctx does not stop.
			inline := 20
			if f.o.RowFormat == Compact {
				inline = 788
			}
			errUpd := tb.Update(cancelled, Row{Int(1), Int(1), Bytes(ouBytes(r, inline))})
			t.Logf("update: %v", errUpd)
			touch()
			errDel := tb.Delete(cancelled, Int(0))
			t.Logf("delete: %v", errDel)
			for _, err := range tb.Check(ctx) {
				t.Error(err)
			}
		})
	}
}

// TestOffPageTooManyExternIsTooBig inserts a row that fits only with more
// columns off-page than a record can refer to (page.MaxExtern): Insert
// must say ErrTooBig, as it does for any row too big for its page, and
// leave no chain behind. (It would be cheaper still to refuse before
// writing any chain.)
func TestOffPageTooManyExternIsTooBig(t *testing.T) {
	ctx := context.Background()
	for _, f := range offPageUndoFormats[1:] {
		t.Run(f.name, func(t *testing.T) {
			st, err := Open("", Options{Pool: bufpool.Options{Bytes: 4 << 20}})
			require.NoError(t, err)
			defer st.Close()
			o := f.o
			o.PrimaryKey = []string{"id"}
			o.Columns = []Column{{Name: "id", Type: TypeInt}}
			row := Row{Int(1)}
			for i := range page.MaxExtern + 45 {
				o.Columns = append(o.Columns, Column{Name: fmt.Sprintf("c%d", i), Type: TypeVarchar, Len: 300})
				row = append(row, Bytes(bytes.Repeat([]byte{byte(i)}, 300)))
			}
			tb, err := st.CreateTable(ctx, "wide", o)
			require.NoError(t, err)
			err = tb.Insert(ctx, row)
			require.ErrorIs(t, err, ErrTooBig)
			require.Empty(t, tb.Check(ctx))
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			require.Zero(t, u.BlobPages)
		})
	}
}
