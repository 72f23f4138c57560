package zipsim_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
)

func TestMetrics(t *testing.T) {
	st := openMem(t)
	u, err := st.CreateTable(ctx, "sbtest_u", sysbench())
	require.NoError(t, err)
	o := sysbench()
	o.KeyBlockSize = 8
	c, err := st.CreateTable(ctx, "sbtest_c", o)
	require.NoError(t, err)
	load := func(from, to int) {
		for id := from; id < to; id++ {
			row := sbRow(int64(id), int64(id%13), fmt.Sprintf("%0120d", id*7919), fmt.Sprintf("%060d", id))
			require.NoError(t, u.Insert(ctx, row))
			require.NoError(t, c.Insert(ctx, row))
		}
	}
	load(0, 2000)
	m1 := st.Metrics()
	s := m1.String()
	for _, name := range []string{"INNODB_TABLESPACES", "FILE_SUMMARY_BY_INSTANCE", "INNODB_INDEXES", "BTREE",
		"INNODB_BUFFER_POOL_STATS", "INNODB_CMPMEM", "INNODB_CMP", "INNODB_CMP_PER_INDEX", "LOCKS",
		"sbtest_u.PRIMARY", "sbtest_c.k_1", "sbtest_c.ibd", "COMPRESSED", "DYNAMIC",
		"index_lock", "row_lock", "fil_space_latch", "zip_pad_mutex", "dict_sys_mutex", "LRU_list_mutex"} {
		require.Contains(t, s, name)
	}
	require.Len(t, m1.Spaces, 2)
	require.Len(t, m1.Indexes, 4)
	require.Equal(t, "sbtest_c", m1.Spaces[0].Table, "tables in name order")
	require.Equal(t, 8192, m1.Spaces[0].ZipSize)
	require.Zero(t, m1.Spaces[1].ZipSize)
	cmp := m1.Pool.CMP.Size(8192)
	require.Positive(t, cmp.CompressOps)
	for _, x := range m1.Indexes {
		require.Equal(t, int64(2000), x.BTree.Rows, x.Space+"."+x.Index)
		_, ok := m1.Pool.CMP.PerIndex[x.ID]
		require.Equal(t, x.Table == "sbtest_c", ok, "CMP_PER_INDEX has the compressed indexes: %s", x.Index)
	}
	require.Less(t, m1.Spaces[0].Usage.LogicalBytes, m1.Spaces[1].Usage.LogicalBytes*3/2)
	require.Positive(t, m1.Spaces[0].Usage.Pages)

	load(2000, 2100)
	d := st.Metrics().Sub(m1)
	for _, x := range d.Indexes {
		require.Equal(t, uint64(100), x.BTree.Inserts, x.Table+"."+x.Index)
		require.Equal(t, int64(2100), x.BTree.Rows, "shapes are the later snapshot's")
	}
	require.Positive(t, d.Pool.Gets)
	require.Less(t, d.Pool.CMP.Size(8192).CompressOps, cmp.CompressOps)
	require.NotEmpty(t, d.Pool.Latches.Rows)
	require.Contains(t, d.String(), "BTREE")
}

// TestFlushSpace checks that Flush puts the data on the devices, so that
// Usage shows it: transparent page compression punches holes.
func TestFlushSpace(t *testing.T) {
	st := openMem(t)
	o := sysbench()
	o.Compression = "zlib"
	tb, err := st.CreateTable(ctx, "tpc", o)
	require.NoError(t, err)
	for id := range int64(3000) {
		require.NoError(t, tb.Insert(ctx, sbRow(id, id%13, fmt.Sprintf("%0120d", id), "pad")))
	}
	require.Zero(t, st.Metrics().Spaces[0].Usage.Holes, "nothing written yet")
	require.NoError(t, st.Flush())
	s := st.Metrics().Spaces[0]
	require.Equal(t, "zlib:6", s.Compression)
	require.Positive(t, s.Usage.Holes)
	require.Less(t, s.Usage.AllocatedBytes, s.Usage.LogicalBytes/2, "these pages compress more than 2:1")
	require.Positive(t, s.IO.PagesCompressed)
	require.NoError(t, st.Close())
	require.ErrorIs(t, st.Flush(), zipsim.ErrClosed)
}
