package zipsim_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/sim"
)

// kIDs returns the ids of the rows whose k is k, read through k_1.
func kIDs(t *testing.T, tb *zipsim.Table, k int64) []int64 {
	t.Helper()
	rows := scanAll(t, func(fn func(zipsim.Row) bool) error {
		return tb.ScanIndex(ctx, "k_1", vals(zipsim.Int(k)), vals(zipsim.Int(k+1)), false, fn)
	})
	for _, r := range rows {
		require.Equal(t, k, r[1].Int(), "a non-covering scan returns whole rows")
		require.Len(t, r[2].Bytes(), 120)
	}
	return ints(rows, 0)
}

func TestSecondaryMaintenance(t *testing.T) {
	for _, kbs := range []int{0, 8} {
		t.Run(fmt.Sprintf("kbs=%d", kbs), func(t *testing.T) {
			st := openMem(t)
			tb := createSbtest(t, st, kbs)
			const n = 1000
			for _, id := range rand.Perm(n) {
				require.NoError(t, tb.Insert(ctx, sbRow(int64(id), int64(id%10), fmt.Sprint("c", id), "pad")))
			}
			var want []int64
			for id := 3; id < n; id += 10 {
				want = append(want, int64(id))
			}
			require.Equal(t, want, kIDs(t, tb, 3), "entries in (k, id) order")

			// k=k+1 moves the entry; a change of c alone leaves k_1 alone.
			require.NoError(t, tb.Update(ctx, sbRow(3, 4, "c3", "pad")))
			require.Equal(t, want[1:], kIDs(t, tb, 3))
			require.Contains(t, kIDs(t, tb, 4), int64(3))
			before := st.Metrics()
			require.NoError(t, tb.Update(ctx, sbRow(3, 4, "new c", "pad")))
			require.NoError(t, tb.Update(ctx, sbRow(3, 4, "new c", "pad")), "an update that changes nothing")
			d := st.Metrics().Sub(before)
			for _, x := range d.Indexes {
				switch x.Index {
				case "PRIMARY":
					require.Equal(t, uint64(1), x.BTree.Updates)
				case "k_1":
					require.Zero(t, x.BTree.Inserts+x.BTree.Deletes, "c is not in k_1")
				}
			}
			row, ok, err := tb.Get(ctx, nil, zipsim.Int(3))
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "new c", string(row[2].Bytes()[:5]))

			require.NoError(t, tb.Delete(ctx, zipsim.Int(13)))
			require.Equal(t, want[2:], kIDs(t, tb, 3))
			_, ok, err = tb.Get(ctx, row, zipsim.Int(13))
			require.NoError(t, err)
			require.False(t, ok)

			desc := scanAll(t, func(fn func(zipsim.Row) bool) error {
				return tb.ScanIndex(ctx, "K_1", vals(zipsim.Int(9)), nil, true, fn)
			})
			require.Len(t, desc, n/10)
			require.Equal(t, int64(n-1), desc[0][0].Int(), "reverse: the largest (k, id) first")
			require.Empty(t, st.Check(ctx))
		})
	}
}

func TestCoveringIndex(t *testing.T) {
	st := openMem(t)
	tb, err := st.CreateTable(ctx, "linktable", sim.LinkTable())
	require.NoError(t, err)
	const linkType = 123456789
	for id1 := int64(1); id1 <= 20; id1++ {
		for id2 := int64(0); id2 < id1; id2++ {
			vis := int64(1)
			if id2%3 == 0 {
				vis = 0
			}
			row := zipsim.Row{zipsim.Int(id1), zipsim.Int(id1 + id2), zipsim.Int(linkType), zipsim.Int(vis),
				zipsim.String(fmt.Sprint("data", id2)), zipsim.Int(1000 - id2), zipsim.Int(0)}
			require.NoError(t, tb.Insert(ctx, row))
		}
	}
	// getlinklist: visible links of (id1, link_type), newest first.
	rows := scanAll(t, func(fn func(zipsim.Row) bool) error {
		return tb.ScanIndex(ctx, "id1_type", vals(zipsim.Int(10), zipsim.Int(linkType), zipsim.Int(1)),
			vals(zipsim.Int(10), zipsim.Int(linkType), zipsim.Int(2)), true, fn)
	})
	require.Len(t, rows, 6)
	times := ints(rows, 5)
	require.True(t, slices.IsSortedFunc(times, func(a, b int64) int { return int(b - a) }), "newest first: %v", times)
	for _, r := range rows {
		require.Equal(t, int64(1), r[3].Int())
		require.Equal(t, fmt.Sprint("data", r[1].Int()-10), string(r[4].Bytes()))
	}
	require.Empty(t, tb.Check(ctx))
}

// TestConcurrentWrites runs writers over a small key range so that they
// hit the same rows, with k changing on every update; the row locks keep
// each row's index changes together, so the indexes agree at the end. It
// runs on Go's latches and on InnoDB's builtin and plugin ones, whose
// index-lock and page-latch waits take other paths, and with the SX index
// lock beside the change buffer and the adaptive hash index, whose paths
// meet structure changes that searches no longer wait out.
func TestConcurrentWrites(t *testing.T) {
	sx := zipsim.Options{Pool: bufpool.Options{Latching: bufpool.PluginLatches},
		SXIndexLock: true, ChangeBuffering: true, AdaptiveHashIndex: true}
	for _, o := range []zipsim.Options{{}, {Pool: bufpool.Options{Locking: bufpool.Global, Latching: bufpool.BuiltinLatches}},
		{Pool: bufpool.Options{Latching: bufpool.PluginLatches}}, sx} {
		t.Run(fmt.Sprintf("locking=%v/latching=%v/sx=%v", o.Pool.Locking, o.Pool.Latching, o.SXIndexLock), func(t *testing.T) {
			o.Pool.Bytes = 16 << 20
			st, err := zipsim.Open("", o)
			require.NoError(t, err)
			t.Cleanup(func() { _ = st.Close() })
			concurrentWrites(t, st)
			m := st.Metrics()
			// InnoDB's implementations bring the sync array's mutex.
			_, ok := m.Pool.Latches.Get("sync_array_mutex")
			require.Equal(t, o.Pool.Latching != bufpool.GoLatches, ok)
			var latched uint64
			for _, x := range m.Indexes {
				require.Zero(t, x.BTree.LatchMisses, "index %s.%s: pages latched by a structure change without latching them in advance", x.Space, x.Index)
				latched += x.BTree.TreeLatches
			}
			require.Equal(t, o.SXIndexLock, latched > 0, "pages latched in advance")
		})
	}
}

func concurrentWrites(t *testing.T, st *zipsim.Store) {
	o := sysbench()
	o.KeyBlockSize = 4
	o.Partitions = 3
	tb, err := st.CreateTable(ctx, "sbtest1", o)
	require.NoError(t, err)
	const keys, workers, ops = 300, 4, 1500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			var row zipsim.Row
			for range ops {
				id := int64(r.IntN(keys))
				var err error
				switch r.IntN(5) {
				case 0, 1:
					err = tb.Insert(ctx, sbRow(id, r.Int64N(50), fmt.Sprint("c", r.Int()), "p"))
					if errors.Is(err, zipsim.ErrDuplicate) {
						err = nil
					}
				case 2:
					err = tb.Update(ctx, sbRow(id, r.Int64N(50), fmt.Sprint("u", r.Int()), "p"))
					if errors.Is(err, zipsim.ErrNotFound) {
						err = nil
					}
				case 3:
					err = tb.Delete(ctx, zipsim.Int(id))
					if errors.Is(err, zipsim.ErrNotFound) {
						err = nil
					}
				case 4:
					row, _, err = tb.Get(ctx, row, zipsim.Int(id))
					if err == nil {
						err = tb.ScanIndex(ctx, "k_1", vals(zipsim.Int(r.Int64N(50))), nil, false, func(zipsim.Row) bool { return r.IntN(20) > 0 })
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	require.Empty(t, st.Check(ctx))
}

// TestWorkloadSchemas creates the tables of the three workloads the
// simulator runs and round-trips a row through each.
func TestWorkloadSchemas(t *testing.T) {
	st := openMem(t)
	col := func(name string, typ zipsim.Type, n int) zipsim.Column {
		return zipsim.Column{Name: name, Type: typ, Len: n}
	}
	link := sim.LinkTable()
	link.KeyBlockSize = 8
	link.Partitions = 4
	link.PartitionBy = []string{"id1"}
	schemas := map[string]zipsim.TableOptions{
		"sbtest1":   sysbench(),
		"linktable": link,
		"counttable": {
			Columns: []zipsim.Column{col("id", zipsim.TypeInt, 8), col("link_type", zipsim.TypeInt, 8),
				col("count", zipsim.TypeInt, 8), col("time", zipsim.TypeInt, 8), col("version", zipsim.TypeInt, 8)},
			PrimaryKey:   []string{"id", "link_type"},
			KeyBlockSize: 8,
		},
		"nodetable": {
			Columns: []zipsim.Column{col("id", zipsim.TypeInt, 8), col("type", zipsim.TypeInt, 8),
				col("version", zipsim.TypeInt, 8), col("time", zipsim.TypeInt, 8), col("data", zipsim.TypeVarchar, zipsim.MaxVarcharLen)},
			PrimaryKey: []string{"id"},
		},
		"documents": {
			Columns: []zipsim.Column{col("id", zipsim.TypeInt, 4), col("word_document_id", zipsim.TypeInt, 4),
				col("html", zipsim.TypeVarchar, zipsim.MaxVarcharLen), col("short_html", zipsim.TypeVarchar, 65535),
				col("created_at", zipsim.TypeInt, 8), col("updated_at", zipsim.TypeInt, 8), col("query_count", zipsim.TypeInt, 4)},
			PrimaryKey:       []string{"id"},
			SecondaryIndexes: []zipsim.IndexDef{{Name: "word_document_id", Columns: []string{"word_document_id"}}},
			RowFormat:        zipsim.Compact,
		},
	}
	for name, o := range schemas {
		tb, err := st.CreateTable(ctx, name, o)
		require.NoError(t, err, name)
		row := make(zipsim.Row, len(o.Columns))
		for i, c := range o.Columns {
			if c.Type == zipsim.TypeInt {
				row[i] = zipsim.Int(int64(i + 1))
			} else {
				row[i] = zipsim.String(fmt.Sprint(c.Name, " value"))
			}
		}
		require.NoError(t, tb.Insert(ctx, row), name)
		pk := make([]zipsim.Value, len(o.PrimaryKey))
		for i, k := range o.PrimaryKey {
			pk[i] = row[slices.IndexFunc(o.Columns, func(c zipsim.Column) bool { return c.Name == k })]
		}
		got, ok, err := tb.Get(ctx, nil, pk...)
		require.NoError(t, err)
		require.True(t, ok, name)
		if name == "sbtest1" {
			row[2] = zipsim.String(fmt.Sprintf("%-120s", "c value"))
			row[3] = zipsim.String(fmt.Sprintf("%-60s", "pad value"))
		}
		require.Equal(t, row, got, name)
	}
	require.Len(t, st.Tables(), len(schemas))
	require.Empty(t, st.Check(ctx))
}

// TestRewriteWritesEqualRow: Update skips a row equal to the stored one;
// Rewrite writes it (InnoDB's re-insert over a delete-marked record of its
// key), leaving secondary entries whose columns did not change alone.
func TestRewriteWritesEqualRow(t *testing.T) {
	for _, kbs := range []int{0, 8} {
		t.Run(fmt.Sprintf("kbs=%d", kbs), func(t *testing.T) {
			st := openMem(t)
			tb := createSbtest(t, st, kbs)
			row := sbRow(7, 70, "c7", "pad")
			require.NoError(t, tb.Insert(ctx, row))
			primary := func() (updates, kInserts, kDeletes uint64) {
				for _, x := range st.Metrics().Indexes {
					switch x.Index {
					case "PRIMARY":
						updates = x.BTree.Updates
					case "k_1":
						kInserts, kDeletes = x.BTree.Inserts, x.BTree.Deletes
					}
				}
				return
			}
			u0, i0, d0 := primary()
			require.NoError(t, tb.Update(ctx, row))
			u1, _, _ := primary()
			require.Equal(t, u0, u1, "Update of an equal row writes nothing")
			require.NoError(t, tb.Rewrite(ctx, row))
			require.NoError(t, tb.Rewrite(ctx, row))
			u2, i2, d2 := primary()
			require.Equal(t, u0+2, u2, "each Rewrite writes the clustered record")
			require.Equal(t, [2]uint64{i0, d0}, [2]uint64{i2, d2}, "k_1 is left alone")
			require.NoError(t, tb.Rewrite(ctx, sbRow(7, 71, "c7", "pad")))
			require.Equal(t, []int64{7}, kIDs(t, tb, 71), "a changed k moves its entry")
			require.ErrorIs(t, tb.Rewrite(ctx, sbRow(8, 80, "c8", "pad")), zipsim.ErrNotFound)
			require.Empty(t, st.Check(ctx))
		})
	}
}
