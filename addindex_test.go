package zipsim

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
)

// Column positions of aiTable.
const (
	aiID = iota
	aiK
	aiC
	aiPad
)

// aiTable is the table the AddIndex tests load: id INT PRIMARY KEY, k INT
// (random, few values, negatives too), c VARCHAR(40) (random, few values,
// of several lengths) and pad CHAR(padLen), with the given indexes
// declared at CREATE TABLE.
func aiTable(kbs, parts, padLen int, idx ...IndexDef) TableOptions {
	return TableOptions{
		Columns: []Column{
			{Name: "id", Type: TypeInt},
			{Name: "k", Type: TypeInt, Len: 4},
			{Name: "c", Type: TypeVarchar, Len: 40},
			{Name: "pad", Type: TypeChar, Len: padLen},
		},
		PrimaryKey:       []string{"id"},
		SecondaryIndexes: idx,
		KeyBlockSize:     kbs,
		Partitions:       parts,
	}
}

// aiModel is what the table should hold, by id.
type aiModel struct {
	rows   map[int64]Row
	padLen int
	r      *rand.Rand
	nextID int64
}

func newAIModel(seed uint64, padLen int) *aiModel {
	return &aiModel{rows: map[int64]Row{}, padLen: padLen, r: rand.New(rand.NewPCG(seed, 99))}
}

// row makes a random row with id id. pad is always padLen bytes, so that
// it reads back as written.
func (m *aiModel) row(id int64) Row {
	r := m.r
	k := int64(r.IntN(50) - 25)
	c := fmt.Sprintf("c%02d", r.IntN(30)) + strings.Repeat("x", r.IntN(3))
	pad := make([]byte, m.padLen)
	for i := range pad {
		pad[i] = byte('a' + (i/8+int(id))%26)
	}
	return Row{Int(id), Int(k), String(c), Bytes(pad)}
}

// load inserts n rows with ids in random order.
func (m *aiModel) load(t testing.TB, tb *Table, n int) {
	t.Helper()
	ctx := context.Background()
	for _, i := range m.r.Perm(n) {
		id := m.nextID + int64(i)
		row := m.row(id)
		require.NoError(t, tb.Insert(ctx, row))
		m.rows[id] = row
	}
	m.nextID += int64(n)
}

// mutate inserts, updates (moving k and c) and deletes rows.
func (m *aiModel) mutate(t testing.TB, tb *Table, inserts, updates, deletes int) {
	t.Helper()
	ctx := context.Background()
	m.load(t, tb, inserts)
	ids := slices.Sorted(maps.Keys(m.rows))
	m.r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	for _, id := range ids[:updates] {
		row := m.row(id)
		if m.r.IntN(4) == 0 {
			row[aiK] = m.rows[id][aiK] // only c moves
		}
		require.NoError(t, tb.Update(ctx, row))
		m.rows[id] = row
	}
	for _, id := range ids[updates : updates+deletes] {
		require.NoError(t, tb.Delete(ctx, Int(id)))
		delete(m.rows, id)
	}
}

// aiCompare orders rows by the columns cols, then by id: the order of an
// index on cols.
func aiCompare(cols []int) func(a, b Row) int {
	return func(a, b Row) int {
		for _, c := range append(slices.Clone(cols), aiID) {
			var d int
			if c == aiID || c == aiK {
				d = cmp.Compare(a[c].Int(), b[c].Int())
			} else {
				d = bytes.Compare(a[c].Bytes(), b[c].Bytes())
			}
			if d != 0 {
				return d
			}
		}
		return 0
	}
}

// expect returns the rows in the order of an index on cols, computed from
// the model alone.
func (m *aiModel) expect(cols []int) []Row {
	rows := make([]Row, 0, len(m.rows))
	for _, r := range m.rows {
		rows = append(rows, r)
	}
	slices.SortFunc(rows, aiCompare(cols))
	return rows
}

// aiScan collects ScanIndex's rows.
func aiScan(t testing.TB, tb *Table, index string, from, to []Value, reverse bool) []Row {
	t.Helper()
	var rows []Row
	require.NoError(t, tb.ScanIndex(context.Background(), index, from, to, reverse, func(r Row) bool {
		rows = append(rows, r.Clone())
		return true
	}))
	return rows
}

func aiIDs(rows []Row) []int64 {
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r[aiID].Int()
	}
	return ids
}

// aiIndex is an index under test: its definition and column positions.
type aiIndex struct {
	def  IndexDef
	cols []int
}

var (
	aiK1 = aiIndex{IndexDef{Name: "k_1", Columns: []string{"k"}}, []int{aiK}}
	aiCK = aiIndex{IndexDef{Name: "ck", Columns: []string{"c", "K"}}, []int{aiC, aiK}}
	aiC1 = aiIndex{IndexDef{Name: "c_1", Columns: []string{"c"}}, []int{aiC}}
	// aiCP has long entries, so that each partition's tree has several
	// pages.
	aiCP = aiIndex{IndexDef{Name: "cp", Columns: []string{"c", "pad"}}, []int{aiC, aiPad}}
)

// aiVerify compares every index of xs with the model: the whole index
// forward and backward, and a range on its first column; then the
// table's and the store's Check.
func aiVerify(t testing.TB, st *Store, tb *Table, m *aiModel, xs ...aiIndex) {
	t.Helper()
	ctx := context.Background()
	for _, x := range xs {
		want := m.expect(x.cols)
		got := aiScan(t, tb, x.def.Name, nil, nil, false)
		require.Equal(t, aiIDs(want), aiIDs(got), "%s: ids in index order", x.def.Name)
		require.Equal(t, want, got, "%s: rows", x.def.Name)
		rev := aiScan(t, tb, x.def.Name, nil, nil, true)
		slices.Reverse(rev)
		require.Equal(t, aiIDs(want), aiIDs(rev), "%s: reverse scan", x.def.Name)
		// A range on the first column: k in [-3, 4), or c in ["c10", "c20").
		var lo, hi Value
		if x.cols[0] == aiK {
			lo, hi = Int(-3), Int(4)
		} else {
			lo, hi = String("c10"), String("c20")
		}
		var wantRange []int64
		for _, r := range want {
			if aiCompare(x.cols[:1])(Row{Int(0), lo, lo, lo}, r) <= 0 && aiCompare(x.cols[:1])(r, Row{Int(0), hi, hi, hi}) < 0 {
				wantRange = append(wantRange, r[aiID].Int())
			}
		}
		require.NotEmpty(t, wantRange)
		require.Equal(t, wantRange, aiIDs(aiScan(t, tb, x.def.Name, []Value{lo}, []Value{hi}, false)), "%s: range scan", x.def.Name)
	}
	// Store.Check checks the pool and runs Table.Check on every table.
	require.Empty(t, st.Check(ctx))
}

// aiRowsPerIndex returns the Rows counter of each index of the table,
// summed over partitions, by name.
func aiRowsPerIndex(st *Store, table string) map[string]int64 {
	out := map[string]int64{}
	for _, x := range st.Metrics().Indexes {
		if x.Table == table {
			out[x.Index] += x.BTree.Rows
		}
	}
	return out
}

func aiOpenDir(t testing.TB, dir string, poolBytes int64) *Store {
	t.Helper()
	st, err := Open(dir, Options{Pool: bufpool.Options{Bytes: poolBytes}, NoSync: true})
	require.NoError(t, err)
	return st
}

// TestAddIndex loads a table, adds indexes with AddIndex, and checks them
// against the model after the build, after writes, and after a reopen,
// in each row format, partitioned, and through a pool smaller than the
// table.
func TestAddIndex(t *testing.T) {
	cases := []struct {
		name      string
		kbs       int
		parts     int
		n         int // rows loaded
		padLen    int
		pool      int64
		existing  []aiIndex // declared at CREATE TABLE
		mut       int       // rows updated per round of writes; half as many inserted and deleted
		wantEvict bool
	}{
		{name: "dynamic", n: 3000, pool: 16 << 20, padLen: 30, mut: 200},
		// Compression under the race detector is slow, and KEY_BLOCK_SIZE=2
		// writes compress most: fewer of them.
		{name: "kbs=8", kbs: 8, n: 2000, pool: 16 << 20, padLen: 30, existing: []aiIndex{aiC1}, mut: 60},
		{name: "kbs=2", kbs: 2, n: 1500, pool: 16 << 20, padLen: 30, mut: 20},
		{name: "partitioned dynamic", parts: 3, n: 2500, pool: 16 << 20, padLen: 30, existing: []aiIndex{aiC1}, mut: 200},
		{name: "partitioned kbs=8", kbs: 8, parts: 2, n: 2000, pool: 16 << 20, padLen: 30, mut: 40},
		{name: "small pool dynamic", n: 2000, pool: 256 << 10, padLen: 200, mut: 100, wantEvict: true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			n := tc.n
			dir := t.TempDir()
			st := aiOpenDir(t, dir, tc.pool)
			defer func() { _ = st.Close() }()
			var defs []IndexDef
			for _, x := range tc.existing {
				defs = append(defs, x.def)
			}
			tb, err := st.CreateTable(ctx, "t", aiTable(tc.kbs, tc.parts, tc.padLen, defs...))
			require.NoError(t, err)
			m := newAIModel(uint64(i), tc.padLen)
			m.load(t, tb, n)

			before := st.Metrics()
			require.NoError(t, tb.AddIndex(ctx, aiK1.def))
			mid := st.Metrics()
			require.NoError(t, tb.AddIndex(ctx, aiCK.def))
			after := st.Metrics()
			if tc.wantEvict {
				d := mid.Pool.Sub(before.Pool)
				require.Positive(t, d.EvictPage+d.EvictFrame, "the pool is smaller than the table: the build evicts")
				require.Positive(t, after.Pool.Sub(mid.Pool).EvictPage+after.Pool.Sub(mid.Pool).EvictFrame)
			}
			added := []aiIndex{aiK1, aiCK}
			all := append(slices.Clone(tc.existing), added...)

			// The definition is the table's, as if declared at CREATE TABLE.
			o := tb.Options()
			require.Len(t, o.SecondaryIndexes, len(all))
			for j, x := range all {
				require.Equal(t, x.def, o.SecondaryIndexes[j])
			}
			require.Len(t, after.Indexes, len(before.Indexes)+2*max(1, tc.parts))
			ids := map[uint64]bool{}
			for _, x := range after.Indexes {
				require.False(t, ids[x.ID], "index id %d given twice", x.ID)
				ids[x.ID] = true
			}
			counts := aiRowsPerIndex(st, "t")
			for _, x := range all {
				require.Equal(t, int64(n), counts[x.def.Name], "%s counts its rows", x.def.Name)
			}
			// Per partition, each new index holds as many entries as PRIMARY.
			for _, p := range tb.parts {
				for j := 1; j < len(p.indexes); j++ {
					require.Equal(t, p.indexes[0].Stats().Rows, p.indexes[j].Stats().Rows, "%s.%s", p.name, tb.sch.indexes[j].name)
				}
			}
			require.Empty(t, tb.Check(ctx))
			aiVerify(t, st, tb, m, all...)

			// Writes maintain the new indexes.
			m.mutate(t, tb, tc.mut/2, tc.mut, tc.mut/2)
			aiVerify(t, st, tb, m, all...)

			// They survive a reopen, and go on being maintained.
			require.NoError(t, st.Close())
			st = aiOpenDir(t, dir, tc.pool)
			tb = st.Table("t")
			require.NotNil(t, tb)
			require.Equal(t, o.SecondaryIndexes, tb.Options().SecondaryIndexes)
			aiVerify(t, st, tb, m, all...)
			m.mutate(t, tb, tc.mut/2, tc.mut, tc.mut/2)
			aiVerify(t, st, tb, m, all...)

			// Another AddIndex after the reopen gets an index id of its own.
			require.NoError(t, tb.AddIndex(ctx, IndexDef{Name: "c_k_2", Columns: []string{"c"}}))
			ids = map[uint64]bool{}
			for _, x := range st.Metrics().Indexes {
				require.False(t, ids[x.ID], "index id %d given twice", x.ID)
				ids[x.ID] = true
			}
			aiVerify(t, st, tb, m, append(all, aiIndex{IndexDef{Name: "c_k_2", Columns: []string{"c"}}, []int{aiC}})...)
		})
	}
}

// TestAddIndexEmptyTable adds an index to an empty table, partitioned so
// that some partitions stay empty, and fills it by inserts.
func TestAddIndexEmptyTable(t *testing.T) {
	ctx := context.Background()
	for _, kbs := range []int{0, 2} {
		t.Run(fmt.Sprint("kbs=", kbs), func(t *testing.T) {
			st, err := Open("", Options{Pool: bufpool.Options{Bytes: 4 << 20}})
			require.NoError(t, err)
			defer st.Close()
			tb, err := st.CreateTable(ctx, "t", aiTable(kbs, 4, 10))
			require.NoError(t, err)
			require.NoError(t, tb.AddIndex(ctx, aiK1.def))
			require.Empty(t, aiScan(t, tb, "k_1", nil, nil, false))
			require.Empty(t, st.Check(ctx))
			m := newAIModel(7, 10)
			m.load(t, tb, 2) // two rows: at least two partitions stay empty
			require.NoError(t, tb.AddIndex(ctx, aiCK.def))
			m.load(t, tb, 500)
			aiVerify(t, st, tb, m, aiK1, aiCK)
		})
	}
}

// TestAddIndexCovering adds an index that holds every column, which scans
// read rows from without the clustered index.
func TestAddIndexCovering(t *testing.T) {
	ctx := context.Background()
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 4 << 20}})
	require.NoError(t, err)
	defer st.Close()
	tb, err := st.CreateTable(ctx, "t", aiTable(8, 2, 12))
	require.NoError(t, err)
	m := newAIModel(3, 12)
	m.load(t, tb, 1500)
	cover := aiIndex{IndexDef{Name: "cover", Columns: []string{"k", "pad", "c"}}, []int{aiK, aiPad, aiC}}
	require.NoError(t, tb.AddIndex(ctx, cover.def))
	require.True(t, tb.sch.indexes[1].covering)
	aiVerify(t, st, tb, m, cover)
	m.mutate(t, tb, 100, 300, 100)
	aiVerify(t, st, tb, m, cover)
}

// TestAddIndexDenser builds the same index twice: declared at CREATE
// TABLE and filled by inserts in random key order, and by AddIndex after
// the load. The sorted build fills its leaves; random inserts leave them
// about 70% full.
func TestAddIndexDenser(t *testing.T) {
	ctx := context.Background()
	for _, kbs := range []int{0, 8} {
		t.Run(fmt.Sprint("kbs=", kbs), func(t *testing.T) {
			const n = 6000
			st, err := Open("", Options{Pool: bufpool.Options{Bytes: 32 << 20}})
			require.NoError(t, err)
			defer st.Close()
			o := TableOptions{
				Columns:      []Column{{Name: "id", Type: TypeInt}, {Name: "c", Type: TypeVarchar, Len: 40}},
				PrimaryKey:   []string{"id"},
				KeyBlockSize: kbs,
			}
			x := IndexDef{Name: "c_1", Columns: []string{"c"}}
			withIdx := o
			withIdx.SecondaryIndexes = []IndexDef{x}
			ins, err := st.CreateTable(ctx, "ins", withIdx)
			require.NoError(t, err)
			bulk, err := st.CreateTable(ctx, "bulk", o)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, 2))
			const hex = "0123456789abcdef"
			for id := range int64(n) {
				c := make([]byte, 24)
				for i := range c {
					c[i] = hex[r.IntN(16)]
				}
				row := Row{Int(id), Bytes(c)}
				require.NoError(t, ins.Insert(ctx, row))
				require.NoError(t, bulk.Insert(ctx, row))
			}
			require.NoError(t, bulk.AddIndex(ctx, x))
			require.Empty(t, st.Check(ctx))
			insStats := ins.parts[0].indexes[1].Stats()
			bulkStats := bulk.parts[0].indexes[1].Stats()
			require.Equal(t, insStats.Rows, bulkStats.Rows)
			require.Equal(t, insStats.LeafDataBytes, bulkStats.LeafDataBytes, "the same entries")
			insLeaves, bulkLeaves := insStats.PagesPerLevel[0], bulkStats.PagesPerLevel[0]
			t.Logf("kbs=%d: leaves by inserts %d, by AddIndex %d; leaf data %d B", kbs, insLeaves, bulkLeaves, bulkStats.LeafDataBytes)
			require.Greater(t, bulkLeaves, 1)
			require.Less(t, bulkLeaves*100, insLeaves*85, "the sorted build leaves clearly fewer leaf pages")
			if kbs == 0 {
				fill := float64(bulkStats.LeafDataBytes) / float64(bulkLeaves*bulk.sch.pageSize)
				require.Greater(t, fill, 0.85, "uncompressed bulk leaves are nearly full")
			}
			// Both indexes answer alike.
			a := aiScan(t, ins, "c_1", nil, nil, false)
			b := aiScan(t, bulk, "c_1", nil, nil, false)
			require.Equal(t, a, b)
		})
	}
}

// TestAddIndexBadDefinition: a definition CREATE TABLE would refuse is
// refused, and the table is as before.
func TestAddIndexBadDefinition(t *testing.T) {
	ctx := context.Background()
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 4 << 20}})
	require.NoError(t, err)
	defer st.Close()
	tb, err := st.CreateTable(ctx, "t", aiTable(8, 2, 10, aiC1.def))
	require.NoError(t, err)
	m := newAIModel(5, 10)
	m.load(t, tb, 800)
	tooMany := make([]string, MaxKeyColumns+1)
	for i := range tooMany {
		tooMany[i] = []string{"id", "k", "c", "pad"}[i%4]
	}
	bad := []struct {
		name string
		def  IndexDef
		want string
	}{
		{"duplicate name", IndexDef{Name: "c_1", Columns: []string{"k"}}, "taken"},
		{"duplicate name in another case", IndexDef{Name: "C_1", Columns: []string{"k"}}, "taken"},
		{"PRIMARY", IndexDef{Name: "PRIMARY", Columns: []string{"k"}}, "taken"},
		{"primary", IndexDef{Name: "primary", Columns: []string{"k"}}, "taken"},
		{"unknown column", IndexDef{Name: "x", Columns: []string{"k", "nope"}}, "nope"},
		{"column twice", IndexDef{Name: "x", Columns: []string{"k", "K"}}, "twice"},
		{"no columns", IndexDef{Name: "x"}, "0 columns"},
		{"too many columns", IndexDef{Name: "x", Columns: tooMany}, "17 columns"},
		{"bad name", IndexDef{Name: "a-b", Columns: []string{"k"}}, "name"},
		{"empty name", IndexDef{Name: "", Columns: []string{"k"}}, "name"},
	}
	opts := tb.Options()
	nIdx := len(st.Metrics().Indexes)
	for _, b := range bad {
		err := tb.AddIndex(ctx, b.def)
		require.Error(t, err, b.name)
		require.ErrorContains(t, err, b.want, b.name)
		require.Equal(t, opts, tb.Options(), b.name)
		require.Len(t, tb.sch.indexes, 2, b.name)
		require.Len(t, st.Metrics().Indexes, nIdx, b.name)
		for _, p := range tb.parts {
			require.Len(t, p.indexes, 2, b.name)
		}
		require.Empty(t, tb.Check(ctx), b.name)
	}
	err = tb.ScanIndex(ctx, "x", nil, nil, false, func(Row) bool { return true })
	require.ErrorContains(t, err, "no secondary index")
	// The caller's definition is not kept: changing it later changes
	// nothing.
	def := IndexDef{Name: "k_1", Columns: []string{"k"}}
	require.NoError(t, tb.AddIndex(ctx, def))
	def.Columns[0] = "pad"
	require.Equal(t, []string{"k"}, tb.Options().SecondaryIndexes[1].Columns)
	aiVerify(t, st, tb, m, aiC1, aiK1)
	m.mutate(t, tb, 50, 100, 50)
	aiVerify(t, st, tb, m, aiC1, aiK1)
}

// TestAddIndexTooMany: the MaxIndexes+1st secondary index is refused.
func TestAddIndexTooMany(t *testing.T) {
	ctx := context.Background()
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 8 << 20}})
	require.NoError(t, err)
	defer st.Close()
	defs := make([]IndexDef, MaxIndexes-1)
	for i := range defs {
		defs[i] = IndexDef{Name: fmt.Sprint("i", i), Columns: []string{"k"}}
	}
	tb, err := st.CreateTable(ctx, "t", aiTable(0, 0, 4, defs...))
	require.NoError(t, err)
	m := newAIModel(11, 4)
	m.load(t, tb, 20)
	require.NoError(t, tb.AddIndex(ctx, aiCK.def))
	err = tb.AddIndex(ctx, aiK1.def)
	require.ErrorContains(t, err, "secondary indexes")
	require.Len(t, tb.Options().SecondaryIndexes, MaxIndexes)
	require.Len(t, tb.parts[0].indexes, MaxIndexes+1)
	require.Empty(t, st.Check(ctx))
	aiVerify(t, st, tb, m, aiCK)
}

// TestAddIndexClosedOrDropped: AddIndex on a closed store or a dropped
// table fails as other calls do.
func TestAddIndexClosedOrDropped(t *testing.T) {
	ctx := context.Background()
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 4 << 20}})
	require.NoError(t, err)
	tb, err := st.CreateTable(ctx, "t", aiTable(0, 0, 4))
	require.NoError(t, err)
	tb2, err := st.CreateTable(ctx, "t2", aiTable(0, 0, 4))
	require.NoError(t, err)
	_, err = st.DropTable(ctx, "t2")
	require.NoError(t, err)
	require.ErrorIs(t, tb2.AddIndex(ctx, aiK1.def), ErrDropped)
	require.NoError(t, st.Close())
	require.ErrorIs(t, tb.AddIndex(ctx, aiK1.def), ErrClosed)
}

// aiCountdown is a context whose Err starts returning context.Canceled
// after left calls, to cancel AddIndex at each point it looks.
type aiCountdown struct {
	context.Context
	left  atomic.Int64
	calls atomic.Int64
}

func (c *aiCountdown) Err() error {
	c.calls.Add(1)
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func newCountdown(left int64) *aiCountdown {
	c := &aiCountdown{Context: context.Background()}
	c.left.Store(left)
	return c
}

// aiRequireUnchanged checks that a failed AddIndex left the table as it
// was: the same definition and trees, and Check clean (no page leaked).
func aiRequireUnchanged(t testing.TB, st *Store, tb *Table, opts TableOptions, nIdx int, msg string) {
	t.Helper()
	ctx := context.Background()
	require.Equal(t, opts, tb.Options(), msg)
	require.Len(t, tb.sch.indexes, nIdx, msg)
	for _, p := range tb.parts {
		require.Len(t, p.indexes, nIdx, msg)
	}
	require.Empty(t, st.Check(ctx), msg) // the pool, and Table.Check of every table
}

// TestAddIndexCancelled cancels AddIndex before it starts and at every
// later point where it looks at its context (its scan, each partition's
// build), in a pool that fits the table and in one that evicts: each
// failure leaves the table as it was, and a later AddIndex works.
func TestAddIndexCancelled(t *testing.T) {
	cases := []struct {
		name   string
		kbs    int
		parts  int
		pool   int64
		padLen int
	}{
		{name: "dynamic", pool: 16 << 20, padLen: 150},
		{name: "partitioned kbs=8", kbs: 8, parts: 3, pool: 16 << 20, padLen: 150},
		{name: "partitioned dynamic", parts: 2, pool: 16 << 20, padLen: 150},
		{name: "small pool partitioned dynamic", parts: 2, pool: 256 << 10, padLen: 150},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, err := Open("", Options{Pool: bufpool.Options{Bytes: tc.pool}})
			require.NoError(t, err)
			defer st.Close()
			tb, err := st.CreateTable(ctx, "t", aiTable(tc.kbs, tc.parts, tc.padLen, aiC1.def))
			require.NoError(t, err)
			m := newAIModel(uint64(100+i), tc.padLen)
			m.load(t, tb, 1500)
			opts := tb.Options()

			// Cancelled before the call.
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			err = tb.AddIndex(cctx, aiCP.def)
			require.ErrorIs(t, err, context.Canceled)
			aiRequireUnchanged(t, st, tb, opts, 2, "cancelled before the call")

			// Cancelled after each of the first looks at ctx, then more
			// sparsely, until a build gets through.
			tries := 0
			for left := int64(0); ; left = max(left+1, left*5/4) {
				require.Less(t, tries, 60, "still cancelled after %d looks", left)
				c := newCountdown(left)
				err := tb.AddIndex(c, aiCP.def)
				if err == nil {
					t.Logf("a whole build looks at ctx %d times", c.calls.Load())
					break
				}
				tries++
				require.ErrorIs(t, err, context.Canceled, "left=%d", left)
				aiRequireUnchanged(t, st, tb, opts, 2, fmt.Sprintf("cancelled after %d looks", left))
			}
			t.Logf("%d cancelled builds", tries)
			aiVerify(t, st, tb, m, aiC1, aiCP)
			m.mutate(t, tb, 100, 200, 100)
			aiVerify(t, st, tb, m, aiC1, aiCP)
		})
	}
}

// TestAddIndexCancelledInSecondPartition cancels the build of the second
// partition's tree after the first partition's tree was built whole
// (with a pool that holds the table, each partition's build looks at ctx
// once, when it finishes, so cancelling at the second look does it):
// every page of the first partition's tree must go back to its free
// list, not only its root.
func TestAddIndexCancelledInSecondPartition(t *testing.T) {
	ctx := context.Background()
	st, err := Open("", Options{Pool: bufpool.Options{Bytes: 16 << 20}})
	require.NoError(t, err)
	defer st.Close()
	tb, err := st.CreateTable(ctx, "t", aiTable(0, 2, 150))
	require.NoError(t, err)
	m := newAIModel(21, 150)
	m.load(t, tb, 1500)
	opts := tb.Options()
	for left := int64(0); ; left++ {
		require.Less(t, left, int64(20))
		type state struct {
			next uint32
			free []uint32
		}
		var before []state
		for _, p := range tb.parts {
			next, free := p.alloc.state()
			before = append(before, state{next, free})
		}
		c := newCountdown(left)
		err = tb.AddIndex(c, aiCP.def)
		if err == nil {
			break
		}
		require.ErrorIs(t, err, context.Canceled)
		for i, p := range tb.parts {
			next, free := p.alloc.state()
			used := 0
			for _, ix := range p.indexes {
				for _, n := range ix.Stats().PagesPerLevel {
					used += n
				}
			}
			require.Equal(t, int(next)-1, used+len(free),
				"cancelled at look %d: %s: pages handed out = pages in its trees + free pages (before the call: next %d, free %v; after: next %d, free %v)",
				left+1, p.name, before[i].next, before[i].free, next, free)
		}
		aiRequireUnchanged(t, st, tb, opts, 1, fmt.Sprintf("cancelled at look %d", left+1))
	}
	aiVerify(t, st, tb, m, aiCP)
}
