package zipsim_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
)

// columnsRows loads rows 0..n-1 of blobTable into tb: every third one with
// a body long enough to go off-page in any format, the others short.
func columnsRows(t *testing.T, tb *zipsim.Table, n int) map[int]blobRow {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	model := map[int]blobRow{}
	for id := range n {
		size := 100
		if id%3 == 0 {
			size = 40000
		}
		b := blobRow{body: blobValue(r, size, id%2 == 0), note: blobValue(r, 50+id, true)}
		require.NoError(t, tb.Insert(ctx, b.row(id)))
		model[id] = b
	}
	return model
}

// requireProjected checks that row holds b's values in the columns of
// want (by position) and the zero Value elsewhere, the key always filled.
func requireProjected(t *testing.T, id int, b blobRow, row zipsim.Row, want [4]bool) {
	t.Helper()
	require.Len(t, row, 4)
	require.Equal(t, int64(id), row[0].Int(), "the primary key is always filled")
	full := b.row(id)
	for c := 1; c < 4; c++ {
		if want[c] {
			require.True(t, bytes.Equal(full[c].Bytes(), row[c].Bytes()), "row %d column %d: %d bytes, want %d", id, c, len(row[c].Bytes()), len(full[c].Bytes()))
			require.NotNil(t, row[c].Bytes(), "row %d column %d is a byte string", id, c)
		} else {
			require.Equal(t, zipsim.Value{}, row[c], "row %d column %d was not asked for", id, c)
			require.Equal(t, "<no value>", row[c].String())
		}
	}
}

// TestColumnsProjection checks GetColumns and ScanColumns in every format:
// only the asked columns are filled (names in any case, the key always),
// a reused dst keeps nothing of the previous row in the columns left out,
// the zero Columns is every column, and bad projections are refused.
func TestColumnsProjection(t *testing.T) {
	for _, f := range []struct {
		name string
		set  func(*zipsim.TableOptions)
	}{blobFormats[0], blobFormats[1], blobFormats[3], blobFormats[5]} {
		t.Run(f.name, func(t *testing.T) {
			st := openMem(t)
			o := blobTable()
			f.set(&o)
			tb, err := st.CreateTable(ctx, "docs", o)
			require.NoError(t, err)
			const n = 30
			model := columnsRows(t, tb, n)
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			require.Positive(t, u.BlobValues, "some bodies are off-page")

			projections := []struct {
				names []string
				want  [4]bool
			}{
				{nil, [4]bool{true}},
				{[]string{"id"}, [4]bool{true}},
				{[]string{"NOTE"}, [4]bool{true, false, true, false}},
				{[]string{"Body"}, [4]bool{true, true, false, false}},
				{[]string{"tag", "note"}, [4]bool{true, false, true, true}},
				{[]string{"body", "body", "tag"}, [4]bool{true, true, false, true}},
				{[]string{"id", "body", "note", "tag"}, [4]bool{true, true, true, true}},
			}
			for _, p := range projections {
				cols, err := tb.Columns(p.names...)
				require.NoError(t, err, "%v", p.names)
				var row zipsim.Row
				for id := range n {
					// A full read first, so that dst holds every column.
					row, _, err = tb.Get(ctx, row, zipsim.Int(int64(id)))
					require.NoError(t, err)
					var ok bool
					row, ok, err = tb.GetColumns(ctx, row, cols, zipsim.Int(int64(id)))
					require.NoError(t, err)
					require.True(t, ok)
					requireProjected(t, id, model[id], row, p.want)
				}
				_, ok, err := tb.GetColumns(ctx, nil, cols, zipsim.Int(n+5))
				require.NoError(t, err)
				require.False(t, ok)
				for _, reverse := range []bool{false, true} {
					seen := 0
					require.NoError(t, tb.ScanColumns(ctx, cols, nil, nil, reverse, func(r zipsim.Row) bool {
						requireProjected(t, int(r[0].Int()), model[int(r[0].Int())], r, p.want)
						seen++
						return true
					}))
					require.Equal(t, n, seen)
				}
				// Bounds work as Scan's.
				var ids []int64
				require.NoError(t, tb.ScanColumns(ctx, cols, vals(zipsim.Int(3)), vals(zipsim.Int(9)), false, func(r zipsim.Row) bool {
					requireProjected(t, int(r[0].Int()), model[int(r[0].Int())], r, p.want)
					ids = append(ids, r[0].Int())
					return true
				}))
				require.Equal(t, []int64{3, 4, 5, 6, 7, 8}, ids)
			}

			// The zero Columns selects every column.
			row, ok, err := tb.GetColumns(ctx, nil, zipsim.Columns{}, zipsim.Int(0))
			require.NoError(t, err)
			require.True(t, ok)
			requireProjected(t, 0, model[0], row, [4]bool{true, true, true, true})
			seen := 0
			require.NoError(t, tb.ScanColumns(ctx, zipsim.Columns{}, nil, nil, false, func(r zipsim.Row) bool {
				requireProjected(t, int(r[0].Int()), model[int(r[0].Int())], r, [4]bool{true, true, true, true})
				seen++
				return true
			}))
			require.Equal(t, n, seen)

			// Unknown columns are named.
			_, err = tb.Columns("note", "nosuchcol")
			require.ErrorContains(t, err, `"nosuchcol"`)
			_, err = tb.Columns("")
			require.Error(t, err)
			_, err = tb.Columns("PRIMARY")
			require.ErrorContains(t, err, `"PRIMARY"`, "an index name is no column")

			// A projection of another table, even one with the same
			// columns and name in another store, is refused.
			other, err := st.CreateTable(ctx, "docs2", o)
			require.NoError(t, err)
			foreign, err := other.Columns("body")
			require.NoError(t, err)
			st2 := openMem(t)
			same, err := st2.CreateTable(ctx, "docs", o)
			require.NoError(t, err)
			twin, err := same.Columns("body")
			require.NoError(t, err)
			for _, c := range []zipsim.Columns{foreign, twin} {
				_, _, err = tb.GetColumns(ctx, nil, c, zipsim.Int(0))
				require.Error(t, err)
				called := false
				err = tb.ScanColumns(ctx, c, nil, nil, false, func(zipsim.Row) bool { called = true; return true })
				require.Error(t, err)
				require.False(t, called)
			}
			require.ErrorContains(t, func() error { _, _, err := tb.GetColumns(ctx, nil, foreign, zipsim.Int(0)); return err }(), "docs2")

			// Bad keys are still refused with a projection.
			cols, err := tb.Columns("body")
			require.NoError(t, err)
			_, _, err = tb.GetColumns(ctx, nil, cols, zipsim.String("x"))
			require.Error(t, err)
			_, _, err = tb.GetColumns(ctx, nil, cols)
			require.Error(t, err)
			require.Empty(t, tb.Check(ctx))
		})
	}
}

// TestColumnsPartitioned checks ScanColumns over the merge of several
// partitions and with pruning, and GetColumns on each partition.
func TestColumnsPartitioned(t *testing.T) {
	st := openMem(t)
	o := blobTable()
	o.Partitions = 4
	tb, err := st.CreateTable(ctx, "docs", o)
	require.NoError(t, err)
	const n = 24
	model := columnsRows(t, tb, n)
	cols, err := tb.Columns("tag")
	require.NoError(t, err)
	want := [4]bool{true, false, false, true}
	for _, reverse := range []bool{false, true} {
		var ids []int64
		require.NoError(t, tb.ScanColumns(ctx, cols, nil, nil, reverse, func(r zipsim.Row) bool {
			requireProjected(t, int(r[0].Int()), model[int(r[0].Int())], r, want)
			ids = append(ids, r[0].Int())
			return true
		}))
		require.Len(t, ids, n)
		for i := 1; i < n; i++ {
			require.Equal(t, reverse, ids[i] < ids[i-1], "merged in key order")
		}
	}
	// A one-key range prunes to one partition.
	seen := 0
	require.NoError(t, tb.ScanColumns(ctx, cols, vals(zipsim.Int(6)), vals(zipsim.Int(6)), false, func(zipsim.Row) bool { seen++; return true }))
	require.Zero(t, seen, "[6, 6) is empty")
	for id := range n {
		row, ok, err := tb.GetColumns(ctx, nil, cols, zipsim.Int(int64(id)))
		require.NoError(t, err)
		require.True(t, ok)
		requireProjected(t, id, model[id], row, want)
	}
}

// TestColumnsSkipOffPage measures that a column left out costs no page
// reads: a row with a 1 MiB body is read through a pool smaller than the
// body after a reopen. GetColumns without the body reads at most the
// clustered index's height in pages; a full Get reads every BLOB page.
func TestColumnsSkipOffPage(t *testing.T) {
	for _, f := range []struct {
		name string
		set  func(*zipsim.TableOptions)
	}{blobFormats[1], blobFormats[5]} {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			st := openDir(t, dir, 1<<20)
			o := blobTable()
			f.set(&o)
			tb, err := st.CreateTable(ctx, "docs", o)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(9, 10))
			big := blobValue(r, 1<<20, false) // random: as many pages compressed
			require.NoError(t, tb.Insert(ctx, blobRow{body: big, note: []byte("big")}.row(0)))
			const n = 200 // enough short rows for a tree of two levels
			for id := 1; id <= n; id++ {
				require.NoError(t, tb.Insert(ctx, blobRow{body: blobValue(r, 500, true), note: []byte("short")}.row(id)))
			}
			u, err := tb.Space(ctx)
			require.NoError(t, err)
			require.EqualValues(t, 1, u.BlobValues)
			blobPages := u.BlobPages
			require.Greater(t, blobPages*int64(u.PageBytes), int64(1<<20), "the chain is as big as the value")
			require.NoError(t, st.Close())

			st = openDir(t, dir, 1<<20)
			defer st.Close()
			tb = st.Table("docs")
			require.NotNil(t, tb)
			height := 0
			for _, x := range st.Metrics().Indexes {
				if x.Table == "docs" && x.Index == zipsim.PrimaryIndexName {
					height = x.BTree.Height
				}
			}
			require.Positive(t, height)
			reads := func() uint64 {
				for _, s := range st.Metrics().Spaces {
					if s.Name == "docs" {
						return s.IO.Reads
					}
				}
				t.Fatal("no space docs")
				return 0
			}
			cols, err := tb.Columns("note", "tag")
			require.NoError(t, err)
			projectedRead := func() uint64 {
				t.Helper()
				before := reads()
				row, ok, err := tb.GetColumns(ctx, nil, cols, zipsim.Int(0))
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, "big", row[2].String())
				require.Equal(t, "t", row[3].String())
				require.Equal(t, zipsim.Value{}, row[1])
				n := reads() - before
				require.LessOrEqual(t, n, uint64(height), "GetColumns without the body reads the path to the leaf only")
				return n
			}
			// Open walked the indexes, so they are cached: nothing to read.
			warm := projectedRead()

			before := reads()
			row, ok, err := tb.Get(ctx, nil, zipsim.Int(0))
			require.NoError(t, err)
			require.True(t, ok)
			require.True(t, bytes.Equal(big, row[1].Bytes()))
			full := reads() - before
			require.GreaterOrEqual(t, full, uint64(blobPages), "Get reads the whole chain")

			// The chain went through a pool smaller than itself and
			// evicted the index pages: now the path is read again, the
			// chain still not.
			cold := projectedRead()

			// A scan without the body reads no BLOB page either.
			before = reads()
			seen := 0
			require.NoError(t, tb.ScanColumns(ctx, cols, nil, nil, false, func(r zipsim.Row) bool {
				require.Equal(t, zipsim.Value{}, r[1])
				seen++
				return true
			}))
			require.Equal(t, n+1, seen)
			scanned := reads() - before
			var leaves int
			for _, x := range st.Metrics().Indexes {
				if x.Table == "docs" && x.Index == zipsim.PrimaryIndexName {
					leaves = x.BTree.PagesPerLevel[0]
				}
			}
			require.LessOrEqual(t, scanned, uint64(height+leaves), "ScanColumns without the body reads no chain")
			t.Logf("height %d, %d leaves, %d BLOB pages: GetColumns read %d pages warm and %d cold, ScanColumns %d, Get %d",
				height, leaves, blobPages, warm, cold, scanned, full)
			require.Empty(t, tb.Check(ctx))
		})
	}
}
