package btree

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/storage"
)

// benchZips are the sub-benchmarks' zip sizes: 0 is an uncompressed table.
var benchZips = []int{0, 1024, 2048, 4096, 8192, 16384}

func zipName(zip int) string { return fmt.Sprintf("zip=%dK", zip/1024) }

// benchRows is how many sysbench rows the read benchmarks' tree holds.
const benchRows = 20000

// cachedIndex returns an index of zip size zip holding sysbench rows
// 1..rows, built by BulkLoad on a pool that holds it whole, every page
// fixed once so that each has its frame: a cached tree.
func cachedIndex(b testing.TB, zip, rows int) (*Index, *bufpool.Pool) {
	b.Helper()
	e, ix := newIndexT(b, zip, 64<<20)
	r := sbdata.Rand(4)
	id := 0
	require.NoError(b, ix.BulkLoad(ctx, func() ([]byte, []byte, bool, error) {
		if id == rows {
			return nil, nil, false, nil
		}
		id++
		k, v := sbRow(r, uint32(id))
		return k, v, true, nil
	}))
	var dst []byte
	for id := 1; id <= rows; id++ {
		var found bool
		var err error
		dst, found, err = ix.Get(ctx, sbdata.Key(uint32(id)), dst[:0])
		require.NoError(b, err)
		require.True(b, found)
	}
	return ix, e.pool
}

// benchKeys returns the keys of rows 1..rows in a random order.
func benchKeys(rows int) [][]byte {
	keys := make([][]byte, rows)
	for i, id := range rand.New(rand.NewPCG(5, 6)).Perm(rows) {
		keys[i] = sbdata.Key(uint32(id + 1))
	}
	return keys
}

// BenchmarkGet is a point get by primary key on a cached tree of 20k
// sysbench rows [row_search_mvcc on the clustered index]: the index lock
// shared, a descent of page guards, a binary search. It must not allocate:
// the value is appended to a reused buffer.
func BenchmarkGet(b *testing.B) {
	for _, zip := range benchZips {
		b.Run(zipName(zip), func(b *testing.B) {
			ix, pool := cachedIndex(b, zip, benchRows)
			keys := benchKeys(benchRows)
			dst := make([]byte, 0, 256)
			before := pool.Stats()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var found bool
				var err error
				dst, found, err = ix.Get(ctx, keys[i%len(keys)], dst[:0])
				if err != nil || !found {
					b.Fatal(err, found)
				}
			}
			b.StopTimer()
			d := pool.Stats().Sub(before)
			b.ReportMetric(float64(d.HitsUnzip+d.Reads)/float64(b.N), "uncompress/op")
		})
	}
}

// BenchmarkAdaptiveHash is BenchmarkGet from parallel goroutines with the
// adaptive hash index off and on, on 300,000 rows in a pool that caches
// them: 180-byte values, where the default table (a cell per 256 bytes
// of pool) has a cell for every row, and 20-byte values, where it has a
// cell for one row in three. It reports the hash's hit rate and its cell
// writes per read (page builds and rewrites, each under the part latch
// held exclusively).
func BenchmarkAdaptiveHash(b *testing.B) {
	const rows = 300_000
	for _, c := range []struct {
		value int
		pool  int64
	}{{180, 96 << 20}, {20, 24 << 20}} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("value=%d/ahi=%v", c.value, on), func(b *testing.B) {
				e := newEnv(b, 0, c.pool)
				o := e.options(1, true)
				var h *AdaptiveHash
				if on {
					var err error
					h, err = NewAdaptiveHash(AdaptiveHashOptions{Pool: e.pool})
					require.NoError(b, err)
					o.AdaptiveHash = h
				}
				ix, err := Create(ctx, o)
				require.NoError(b, err)
				v, i := make([]byte, c.value), 0
				require.NoError(b, ix.BulkLoad(ctx, func() ([]byte, []byte, bool, error) {
					if i == rows {
						return nil, nil, false, nil
					}
					i++
					return key8(uint64(i)), v, true, nil
				}))
				var dst []byte
				for range 3 {
					for _, id := range rand.New(rand.NewPCG(5, 6)).Perm(rows) {
						var found bool
						dst, found, err = ix.Get(ctx, key8(uint64(id+1)), dst[:0])
						require.NoError(b, err)
						require.True(b, found)
					}
				}
				var before AdaptiveHashStats
				if h != nil {
					before = h.Stats()
				}
				var seq atomic.Int64
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					r := rand.New(rand.NewPCG(uint64(seq.Add(1)), 7))
					var dst []byte
					key := make([]byte, 8)
					for pb.Next() {
						binary.BigEndian.PutUint64(key, uint64(1+r.IntN(rows)))
						dst, _, _ = ix.Get(ctx, key, dst[:0])
					}
				})
				b.StopTimer()
				if h != nil {
					d := h.Stats().Sub(before)
					b.ReportMetric(d.HitRate(), "hit-rate")
					b.ReportMetric(float64(d.RowsAdded+d.RowsUpdated)/float64(b.N), "cell-writes/op")
				}
			})
		}
	}
}

// BenchmarkScan100 reads 100 rows in key order from a random start on the
// same cached tree, sysbench's simple range.
func BenchmarkScan100(b *testing.B) {
	for _, zip := range benchZips {
		b.Run(zipName(zip), func(b *testing.B) {
			ix, _ := cachedIndex(b, zip, benchRows)
			keys := benchKeys(benchRows - 100)
			b.ReportAllocs()
			b.SetBytes(100 * (4 + 4 + sbdata.CLen + sbdata.PadLen))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				n := 0
				err := ix.Scan(ctx, keys[i%len(keys)], nil, false, func(k, v []byte) bool {
					n++
					return n < 100
				})
				if err != nil || n != 100 {
					b.Fatal(err, n)
				}
			}
		})
	}
}

// insertBench holds what an insert benchmark reports per operation.
type insertBench struct {
	ix   *Index
	pool *bufpool.Pool
	vals [][]byte
	s0   Stats
	p0   bufpool.Stats
}

// newInsertBench makes an empty index on a pool that will hold all b.N
// rows (a cached load, as T2's), and a ring of sysbench values.
func newInsertBench(b *testing.B, zip int) *insertBench {
	e, ix := newIndexT(b, zip, min(max(int64(b.N)*500, 16<<20), 512<<20))
	r := sbdata.Rand(7)
	ib := &insertBench{ix: ix, pool: e.pool}
	for id := range 1024 {
		_, v := sbRow(r, uint32(id))
		ib.vals = append(ib.vals, v)
	}
	b.SetBytes(int64(4 + len(ib.vals[0])))
	return ib
}

func (ib *insertBench) start(b *testing.B) {
	ib.s0, ib.p0 = ib.ix.Stats(), ib.pool.Stats()
	b.ReportAllocs()
	b.ResetTimer()
}

// report gives the operations' compress attempts, failed attempts, splits
// and decompressions per insert, the costs T2 and T6 are about.
func (ib *insertBench) report(b *testing.B, zip int) {
	b.StopTimer()
	s := ib.ix.Stats().Sub(ib.s0)
	cmp := ib.pool.Stats().Sub(ib.p0).CMP.Size(zip)
	if zip == 0 {
		cmp = ib.pool.Stats().Sub(ib.p0).CMP.Total()
	}
	n := float64(b.N)
	b.ReportMetric(float64(cmp.CompressOps)/n, "compress/op")
	b.ReportMetric(float64(cmp.CompressOps-cmp.CompressOpsOK)/n, "failures/op")
	b.ReportMetric(float64(s.Splits())/n, "splits/op")
	b.ReportMetric(float64(cmp.UncompressOps)/n, "uncompress/op")
}

// BenchmarkInsertSeq inserts sysbench rows in id order (auto-increment
// INSERTs, T2's load) into an index that starts empty.
func BenchmarkInsertSeq(b *testing.B) {
	benchInsert(b, func(i int) uint32 { return uint32(i+1) ^ 0x80000000 })
}

// BenchmarkInsertRandom inserts sysbench rows at uniformly scattered keys
// (ids multiplied by an odd constant, a bijection of uint32), so that
// inserts land inside full leaves as T6's query phase does.
func BenchmarkInsertRandom(b *testing.B) {
	benchInsert(b, func(i int) uint32 { return uint32(i+1) * 0x9e3779b1 })
}

// benchInsert inserts b.N rows, the i-th under key keyOf(i), at every
// zip size.
func benchInsert(b *testing.B, keyOf func(i int) uint32) {
	for _, zip := range benchZips {
		b.Run(zipName(zip), func(b *testing.B) {
			ib := newInsertBench(b, zip)
			key := make([]byte, 4)
			ib.start(b)
			for i := 0; i < b.N; i++ {
				binary.BigEndian.PutUint32(key, keyOf(i))
				if err := ib.ix.Insert(ctx, key, ib.vals[i%len(ib.vals)]); err != nil {
					b.Fatal(err)
				}
			}
			ib.report(b, zip)
		})
	}
}

// BenchmarkBulkLoad builds an index of b.N sysbench rows bottom-up
// [btr0bulk.cc]; ns/op is per row.
func BenchmarkBulkLoad(b *testing.B) {
	for _, zip := range benchZips {
		b.Run(zipName(zip), func(b *testing.B) {
			ib := newInsertBench(b, zip)
			key := make([]byte, 4)
			i := 0
			ib.start(b)
			err := ib.ix.BulkLoad(ctx, func() ([]byte, []byte, bool, error) {
				if i == b.N {
					return nil, nil, false, nil
				}
				binary.BigEndian.PutUint32(key, uint32(i+1)^0x80000000)
				v := ib.vals[i%len(ib.vals)]
				i++
				return key, v, true, nil
			})
			if err != nil {
				b.Fatal(err)
			}
			ib.report(b, zip)
		})
	}
}

// BenchmarkChangeBuffer replaces entries of a secondary index four times
// the pool's size, on storage that sleeps 100 µs a page read or write: each
// op inserts a new entry at a scattered key and deletes an old one, as a
// LinkBench update moves an id1_type entry. With ibuf=on the change
// buffer takes the writes whose leaf is not in the pool
// [ibuf_insert], so reads/op falls and the op waits less; merges/op is the
// leaves read later with changes waiting.
func BenchmarkChangeBuffer(b *testing.B) {
	for _, zip := range []int{0, 8192} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/ibuf=%v", zipName(zip), on), func(b *testing.B) {
				pool, err := bufpool.New(bufpool.Options{Bytes: 1 << 20})
				require.NoError(b, err)
				mem, err := storage.NewMemory(storage.MemoryOptions{})
				require.NoError(b, err)
				dev := storage.WithLatency(mem, storage.LatencyModel{Read: 100 * time.Microsecond, Write: 100 * time.Microsecond})
				ts, err := storage.Create(dev, storage.Options{ZipSize: zip, SpaceID: 1})
				require.NoError(b, err)
				require.NoError(b, pool.AddSpace(1, ts, nil))
				e := &testEnv{pool: pool, alloc: &memAlloc{}, zip: zip}
				o := e.options(1, false)
				var cb *ChangeBuffer
				if on {
					cb, err = NewChangeBuffer(ChangeBufferOptions{Pool: pool})
					require.NoError(b, err)
					o.ChangeBuffer = cb
				}
				ix, err := Create(ctx, o)
				require.NoError(b, err)
				const rows = 40000 // about 4 MiB of entries
				for id := range uint64(rows) {
					require.NoError(b, ix.Insert(ctx, secKey(id), nil))
				}
				p0 := pool.Stats()
				var c0 ChangeBufferStats
				if cb != nil {
					c0 = cb.Stats()
				}
				var key []byte
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					key = appendSecKey(key[:0], uint64(rows+i))
					if err := ix.Insert(ctx, key, nil); err != nil {
						b.Fatal(err)
					}
					key = appendSecKey(key[:0], uint64(i))
					if err := ix.Delete(ctx, key); err != nil {
						b.Fatal(err)
					}
				}
				n := float64(b.N)
				b.ReportMetric(float64(pool.Stats().Sub(p0).Reads)/n, "reads/op")
				if cb != nil {
					d := cb.Stats().Sub(c0)
					b.ReportMetric(float64(d.Inserts+d.Deletes)/(2*n), "buffered-share")
					b.ReportMetric(float64(d.Merges)/n, "merges/op")
				}
			})
		}
	}
}
