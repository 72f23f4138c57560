package zipsim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
)

// compressionKinds are the two ways to compress sbtest that seed 004
// compares: MySQL 5.7's transparent page compression on a DYNAMIC table,
// and ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8.
var compressionKinds = []struct {
	name string
	set  func(o *zipsim.TableOptions)
}{
	{"transparent", func(o *zipsim.TableOptions) { o.Compression = "zlib" }},
	{"kbs8", func(o *zipsim.TableOptions) { o.KeyBlockSize = 8 }},
}

// loadSbtest inserts rows 1..n of sbtest in id order.
func loadSbtest(tb testing.TB, t *zipsim.Table, n int) {
	tb.Helper()
	r := sbdata.Rand(11)
	var c, pad []byte
	for id := 1; id <= n; id++ {
		c, pad = sbdata.C(c[:0], r), sbdata.Pad(pad[:0], r)
		row := zipsim.Row{zipsim.Int(int64(id)), zipsim.Int(int64(r.IntN(n) + 1)), zipsim.Bytes(c), zipsim.Bytes(pad)}
		if err := t.Insert(ctx, row); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestTransparentVersusTable loads the same sysbench rows into a
// transparently compressed table and a KEY_BLOCK_SIZE=8 table in a store on
// disk. Transparent compression works below the pool: the B-tree makes no
// compression attempt, so it has no modification log, no compression
// failure and no split caused by one, and every page written is
// compressed by the tablespace; table compression recompresses, fails
// and splits. Both save space against the 16 KiB pages written.
func TestTransparentVersusTable(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 5000
	}
	st, err := zipsim.Open(t.TempDir(), zipsim.Options{Pool: bufpool.Options{Bytes: 64 << 20}, NoSync: true})
	require.NoError(t, err)
	defer st.Close()
	for _, k := range compressionKinds {
		o := sysbench()
		k.set(&o)
		tb, err := st.CreateTable(ctx, k.name, o)
		require.NoError(t, err)
		loadSbtest(t, tb, n)
	}
	require.NoError(t, st.Flush())
	m := st.Metrics()
	cmp := m.Pool.CMP
	for _, x := range m.Indexes {
		b := x.BTree
		row := cmp.PerIndex[x.ID]
		t.Logf("%s.%s: %d leaves, %d compressions (%d ok), splits %d space + %d zip, recompressions %d",
			x.Table, x.Index, b.LeafPages(), row.CompressOps, row.CompressOpsOK, b.LeafSplitsSpace+b.NodeSplitsSpace,
			b.LeafSplitsZip+b.NodeSplitsZip, b.Recompressions)
		switch x.Table {
		case "transparent":
			require.Zero(t, row.CompressOps, "the B-tree never compresses")
			require.Zero(t, b.Recompressions+b.Reorganizations+b.Restores, "no modification log to fill")
			require.Zero(t, b.LeafSplitsZip+b.NodeSplitsZip, "no split from a compression failure")
		case "kbs8":
			if x.Index == "PRIMARY" {
				require.Greater(t, row.CompressOps, row.CompressOpsOK, "table compression fails sometimes")
				require.Positive(t, b.Recompressions, "a full modification log recompresses")
			}
		}
	}
	for _, s := range m.Spaces {
		u := s.Usage
		t.Logf("%s: %d pages, logical %d KiB, file %d KiB, allocated %d KiB, %d holes; %d pages written compressed, %d no saving",
			s.Name, u.Pages, u.LogicalBytes>>10, u.ApparentBytes>>10, u.AllocatedBytes>>10, u.Holes, s.IO.PagesCompressed, s.IO.PagesNoSaving)
		require.Less(t, u.AllocatedBytes, u.LogicalBytes*3/4, "%s saves at least a quarter of its pages' bytes", s.Name)
		if s.Name == "transparent" {
			require.Positive(t, s.IO.PagesCompressed)
			require.Positive(t, u.Holes)
		}
	}
}

// BenchmarkCompressionKind compares the two kinds on sysbench rows (seed
// 004): the load in id order (ns per row, on disk) and point reads by
// primary key through a pool a quarter of the table, where transparent
// compression inflates every page read from the file and table
// compression reads the smaller block and inflates it in the pool.
func BenchmarkCompressionKind(b *testing.B) {
	const n = 20000
	for _, k := range compressionKinds {
		o := sysbench()
		k.set(&o)
		b.Run("kind="+k.name+"/op=load", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				st, err := zipsim.Open(b.TempDir(), zipsim.Options{Pool: bufpool.Options{Bytes: 64 << 20}, NoSync: true})
				require.NoError(b, err)
				tb, err := st.CreateTable(ctx, "t", o)
				require.NoError(b, err)
				b.StartTimer()
				loadSbtest(b, tb, n)
				require.NoError(b, st.Flush())
				b.StopTimer()
				m := st.Metrics()
				b.ReportMetric(float64(m.Spaces[0].Usage.AllocatedBytes)/float64(n), "bytes/row")
				require.NoError(b, st.Close())
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
		})
		b.Run("kind="+k.name+"/op=get", func(b *testing.B) {
			dir := b.TempDir()
			st, err := zipsim.Open(dir, zipsim.Options{Pool: bufpool.Options{Bytes: 64 << 20}, NoSync: true})
			require.NoError(b, err)
			tb, err := st.CreateTable(ctx, "t", o)
			require.NoError(b, err)
			loadSbtest(b, tb, n)
			require.NoError(b, st.Close())
			// Reopen with a pool of a quarter of the table's 16 KiB pages.
			st, err = zipsim.Open(dir, zipsim.Options{Pool: bufpool.Options{Bytes: 2 << 20}, NoSync: true})
			require.NoError(b, err)
			defer st.Close()
			tb = st.Table("t")
			r := rand.New(rand.NewPCG(1, 2))
			var row zipsim.Row
			before := st.Metrics()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var found bool
				row, found, err = tb.Get(ctx, row, zipsim.Int(int64(r.IntN(n)+1)))
				if err != nil || !found {
					b.Fatal(err, found)
				}
			}
			b.StopTimer()
			d := st.Metrics().Sub(before)
			reads := 0.0
			inflates := float64(d.Pool.CMP.Total().UncompressOps)
			for _, s := range d.Spaces {
				reads += float64(s.IO.Reads)
				inflates += float64(s.IO.Decompressions)
			}
			b.ReportMetric(reads/float64(b.N), "reads/op")
			b.ReportMetric(inflates/float64(b.N), "inflates/op")
		})
	}
}
