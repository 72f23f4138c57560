package zipsim_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/sim"
)

var ctx = context.Background()

// openMem opens an in-memory store with a small pool and closes it when
// the test ends, unless the test closed it.
func openMem(t testing.TB) *zipsim.Store { return openMemPool(t, 16<<20) }

// openMemPool is openMem with a pool of poolBytes.
func openMemPool(t testing.TB, poolBytes int64) *zipsim.Store {
	t.Helper()
	st, err := zipsim.Open("", zipsim.Options{Pool: bufpool.Options{Bytes: poolBytes}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// openDir opens the store in dir with a pool of poolBytes, without sync;
// the caller closes it.
func openDir(t testing.TB, dir string, poolBytes int64) *zipsim.Store {
	t.Helper()
	st, err := zipsim.Open(dir, zipsim.Options{Pool: bufpool.Options{Bytes: poolBytes}, NoSync: true})
	require.NoError(t, err)
	return st
}

// sysbench returns sbtest's definition: id INT PRIMARY KEY, k INT with
// index k_1, c CHAR(120), pad CHAR(60).
func sysbench() zipsim.TableOptions { return sim.SysbenchTable(1) }

// createSbtest creates sbtest1 at KEY_BLOCK_SIZE kbs (0: uncompressed).
func createSbtest(t testing.TB, st *zipsim.Store, kbs int) *zipsim.Table {
	t.Helper()
	o := sysbench()
	o.KeyBlockSize = kbs
	tb, err := st.CreateTable(ctx, "sbtest1", o)
	require.NoError(t, err)
	return tb
}

// sbRow builds a sysbench row.
func sbRow(id, k int64, c, pad string) zipsim.Row {
	return zipsim.Row{zipsim.Int(id), zipsim.Int(k), zipsim.String(c), zipsim.String(pad)}
}

// ints returns the integer column col of rows.
func ints(rows []zipsim.Row, col int) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r[col].Int()
	}
	return out
}

// scanAll collects a scan's rows.
func scanAll(t testing.TB, scan func(fn func(zipsim.Row) bool) error) []zipsim.Row {
	t.Helper()
	var rows []zipsim.Row
	require.NoError(t, scan(func(r zipsim.Row) bool {
		rows = append(rows, r.Clone())
		return true
	}))
	return rows
}

// vals is shorthand for a scan bound.
func vals(v ...zipsim.Value) []zipsim.Value { return v }
