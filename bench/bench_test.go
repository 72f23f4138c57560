package bench

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/internal/sbdata"
	"github.com/zipsim/zipsim/sim"
	bolt "go.etcd.io/bbolt"
)

var (
	flagRows   = flag.Int("rows", 1_000_000, "sbtest rows loaded into each store")
	flagKIndex = flag.Bool("kindex", false, "give the zipsim tables sysbench's secondary index k_1 (bbolt has none)")
	flagBatch  = flag.Int("batch", 10_000, "rows per bbolt write transaction during the load")
)

// Row layout in the shared buffer and in bbolt values: k (4 bytes,
// big-endian), c (120 bytes), pad (60 bytes).
const (
	kLen    = 4
	valLen  = kLen + sbdata.CLen + sbdata.PadLen
	seed    = 1
	tblName = "sbtest1"
)

var bucketName = []byte(tblName)

// rowData holds every row's k|c|pad, generated once so that every store
// loads the same bytes and no load pays for generating them.
type rowData struct {
	rows int
	vals []byte // rows × valLen; row id (1-based) at (id-1)*valLen
}

func (d *rowData) val(id int) []byte { return d.vals[(id-1)*valLen : id*valLen] }

func (d *rowData) k(id int) int64 { return int64(binary.BigEndian.Uint32(d.val(id))) }

// genRows generates n rows as sysbench 1.0's prepare does (sim's sb10
// data): k uniform over [1, n], c and pad from internal/sbdata.
func genRows(n int) *rowData {
	r := sbdata.Rand(seed)
	vals := make([]byte, 0, n*valLen)
	for range n {
		vals = binary.BigEndian.AppendUint32(vals, uint32(1+r.IntN(n)))
		vals = sbdata.C(vals, r)
		vals = sbdata.Pad(vals, r)
	}
	return &rowData{rows: n, vals: vals}
}

// store is one store loaded with a suite's rows: a zipsim table or a
// bbolt bucket.
type store struct {
	name string
	kbs  int  // zipsim only: 0 uncompressed, else KEY_BLOCK_SIZE
	ahi  bool // zipsim only: innodb_adaptive_hash_index=ON
	root string
	data func() *rowData

	once     sync.Once
	err      error
	dir      string
	load     time.Duration
	fileSize int64
	usedSize int64 // pages in use: bbolt's Tx.Size; zipsim's index and off-page pages × their size in the file

	zs *zipsim.Store
	zt *zipsim.Table
	db *bolt.DB
}

// newStores returns the stores, each loaded on first use with the
// rows data returns, in a directory under root.
func newStores(root string, data func() *rowData) []*store {
	return []*store{
		{name: "zipsim-u", root: root, data: data},
		{name: "zipsim-u-ahi", ahi: true, root: root, data: data},
		{name: "zipsim-kbs8", kbs: 8, root: root, data: data},
		{name: "zipsim-kbs8-ahi", kbs: 8, ahi: true, root: root, data: data},
		{name: "bbolt", root: root, data: data},
	}
}

// The benchmarks' rows and stores, made once per process.
var (
	benchData = sync.OnceValue(func() *rowData { return genRows(*flagRows) })
	stores    []*store
)

var tmpRoot string

func TestMain(m *testing.M) {
	flag.Parse()
	var err error
	if tmpRoot, err = os.MkdirTemp("", "zipsim-bench-*"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stores = newStores(tmpRoot, benchData)
	code := m.Run()
	for _, s := range stores {
		s.close()
	}
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

func (s *store) close() {
	if s.zs != nil {
		s.zs.Close()
		s.zs = nil
	}
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
}

// get loads the store on first use (once per process) and returns it.
func (s *store) get(tb testing.TB) *store {
	s.once.Do(func() {
		d := s.data()
		s.dir = filepath.Join(s.root, s.name)
		if s.err = os.MkdirAll(s.dir, 0o755); s.err != nil {
			return
		}
		start := time.Now()
		if s.name == "bbolt" {
			s.err = s.loadBolt(d)
		} else {
			s.err = s.loadZipsim(d)
		}
		s.load = time.Since(start)
		if s.err == nil {
			s.err = s.warm(d)
		}
	})
	if s.err != nil {
		tb.Fatalf("%s: load: %v", s.name, s.err)
	}
	return s
}

// zipsimPool is a buffer pool that holds the whole table: an 8K table
// keeps a zip block and an uncompressed frame for each page.
func zipsimPool(rows int) int64 { return int64(rows)*640 + 64<<20 }

func (s *store) loadZipsim(d *rowData) error {
	ctx := context.Background()
	st, err := zipsim.Open(s.dir, zipsim.Options{Pool: bufpool.Options{Bytes: zipsimPool(d.rows)}, NoSync: true, AdaptiveHashIndex: s.ahi})
	if err != nil {
		return err
	}
	s.zs = st
	o := sim.SysbenchTable(1)
	if !*flagKIndex {
		o.SecondaryIndexes = nil
	}
	if s.kbs != 0 {
		o.RowFormat, o.KeyBlockSize = zipsim.Compressed, s.kbs
	}
	t, err := st.CreateTable(ctx, tblName, o)
	if err != nil {
		return err
	}
	s.zt = t
	row := make(zipsim.Row, 4)
	for id := 1; id <= d.rows; id++ {
		v := d.val(id)
		row[0] = zipsim.Int(int64(id))
		row[1] = zipsim.Int(d.k(id))
		row[2] = zipsim.Bytes(v[kLen : kLen+sbdata.CLen])
		row[3] = zipsim.Bytes(v[kLen+sbdata.CLen:])
		if err := t.Insert(ctx, row); err != nil {
			return fmt.Errorf("insert %d: %w", id, err)
		}
	}
	// Write every page to the file, as bbolt's commits do.
	if err := st.Flush(); err != nil {
		return err
	}
	fi, err := os.Stat(filepath.Join(s.dir, tblName+".ibd"))
	if err != nil {
		return err
	}
	s.fileSize = fi.Size()
	u, err := t.Space(ctx)
	if err != nil {
		return err
	}
	s.usedSize = u.ClusteredBytes() + u.SecondaryBytes() + u.BlobBytes()
	return nil
}

func boltKey(dst *[4]byte, id int) []byte {
	binary.BigEndian.PutUint32(dst[:], uint32(id))
	return dst[:]
}

// loadBolt puts the rows in id order, flag batch rows per write
// transaction, with FillPercent 1.0: keys come in ascending order, so
// bbolt's splits can fill pages completely (its default 0.5 leaves
// sequentially loaded pages half empty).
func (s *store) loadBolt(d *rowData) error {
	db, err := bolt.Open(filepath.Join(s.dir, "sbtest1.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		return err
	}
	s.db = db
	var kb [4]byte
	for lo := 1; lo <= d.rows; lo += *flagBatch {
		hi := min(lo+*flagBatch-1, d.rows)
		err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(bucketName)
			if err != nil {
				return err
			}
			b.FillPercent = 1.0
			for id := lo; id <= hi; id++ {
				// Put keeps the key slice until commit: give it its own.
				if err := b.Put(append([]byte(nil), boltKey(&kb, id)...), d.val(id)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("rows %d..%d: %w", lo, hi, err)
		}
	}
	fi, err := os.Stat(db.Path())
	if err != nil {
		return err
	}
	s.fileSize = fi.Size()
	return db.View(func(tx *bolt.Tx) error { s.usedSize = tx.Size(); return nil })
}

// warm reads every 8th row once, outside any timing, so that every page
// is in the pool (zipsim, with its uncompressed frame on an 8K table) or
// mapped (bbolt), and checks what it reads.
func (s *store) warm(d *rowData) error {
	ctx := context.Background()
	var row zipsim.Row
	var kb [4]byte
	return s.view(func(tx *bolt.Tx) error {
		for id := 1; id <= d.rows; id += 8 {
			want := d.val(id)
			if s.db != nil {
				v := tx.Bucket(bucketName).Get(boltKey(&kb, id))
				if string(v) != string(want) {
					return fmt.Errorf("bbolt: row %d reads back wrong", id)
				}
				continue
			}
			var ok bool
			var err error
			if row, ok, err = s.zt.Get(ctx, row, zipsim.Int(int64(id))); err != nil || !ok {
				return fmt.Errorf("zipsim: get %d: %v, found %v", id, err, ok)
			}
			if row[1].Int() != d.k(id) || string(row[2].Bytes()) != string(want[kLen:kLen+sbdata.CLen]) || string(row[3].Bytes()) != string(want[kLen+sbdata.CLen:]) {
				return fmt.Errorf("zipsim: row %d reads back wrong", id)
			}
		}
		return nil
	})
}

// view runs fn in a bbolt read transaction, or with a nil one on zipsim.
func (s *store) view(fn func(*bolt.Tx) error) error {
	if s.db != nil {
		return s.db.View(fn)
	}
	return fn(nil)
}

// reader returns a function that reads one row per call, given a random
// id: zipsim's Get into a reused Row, or bbolt's Get copied into a reused
// buffer (its result is only valid inside the transaction). A non-nil tx
// makes bbolt read inside it instead of one db.View per call.
func (s *store) reader(tx *bolt.Tx) func(id int) {
	ctx := context.Background()
	if s.db == nil {
		var row zipsim.Row
		return func(id int) {
			var ok bool
			var err error
			if row, ok, err = s.zt.Get(ctx, row, zipsim.Int(int64(id))); err != nil || !ok {
				panic(fmt.Sprintf("zipsim: get %d: %v, found %v", id, err, ok))
			}
		}
	}
	var kb [4]byte
	buf := make([]byte, 0, valLen)
	if tx != nil {
		b := tx.Bucket(bucketName)
		return func(id int) {
			v := b.Get(boltKey(&kb, id))
			if v == nil {
				panic(fmt.Sprintf("bbolt: get %d: not found", id))
			}
			buf = append(buf[:0], v...)
		}
	}
	var id int
	get := func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketName).Get(boltKey(&kb, id))
		if v == nil {
			return fmt.Errorf("bbolt: get %d: not found", id)
		}
		buf = append(buf[:0], v...)
		return nil
	}
	return func(i int) {
		id = i
		if err := s.db.View(get); err != nil {
			panic(err)
		}
	}
}

// newRand gives goroutine g of a benchmark its own generator.
func newRand(g uint64) *rand.Rand { return rand.New(rand.NewPCG(0x7a6970, g)) }

func (s *store) benchGet(b *testing.B, longTx bool) {
	n := s.get(b).data().rows
	var tx *bolt.Tx
	if longTx {
		var err error
		if tx, err = s.db.Begin(false); err != nil {
			b.Fatal(err)
		}
		defer tx.Rollback()
	}
	read := s.reader(tx)
	r := newRand(0)
	m0 := s.metrics()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		read(1 + r.IntN(n))
	}
	b.StopTimer()
	s.reportMisses(b, m0)
}

// metrics snapshots a zipsim store's counters; bbolt has none.
func (s *store) metrics() zipsim.Metrics {
	if s.zs == nil {
		return zipsim.Metrics{}
	}
	return s.zs.Metrics()
}

// reportMisses reports, on zipsim, the reads that found no uncompressed
// frame since m0 (page reads from the file and decompressions) per op, 0
// when the pool caches the table, the pages fixed per op (the tree's
// height, or 1 for a read the adaptive hash index answered) and the
// share of reads the adaptive hash index answered.
func (s *store) reportMisses(b *testing.B, m0 zipsim.Metrics) {
	if s.zs == nil {
		return
	}
	m := s.zs.Metrics().Sub(m0)
	d := m.Pool
	b.ReportMetric(float64(d.Reads+d.HitsUnzip)/float64(b.N), "misses/op")
	b.ReportMetric(float64(d.Gets)/float64(b.N), "fixes/op")
	if s.ahi {
		b.ReportMetric(m.AdaptiveHash.HitRate(), "ahi-hit-rate")
	}
}

func (s *store) benchGetParallel(b *testing.B, longTx bool) {
	n := s.get(b).data().rows
	var g atomic.Uint64
	m0 := s.metrics()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var tx *bolt.Tx
		if longTx {
			var err error
			if tx, err = s.db.Begin(false); err != nil {
				panic(err)
			}
			defer tx.Rollback()
		}
		read := s.reader(tx)
		r := newRand(g.Add(1))
		for pb.Next() {
			read(1 + r.IntN(n))
		}
	})
	b.StopTimer()
	s.reportMisses(b, m0)
}

// BenchmarkStores compares zipsim (uncompressed and KEY_BLOCK_SIZE=8, in a
// pool that caches the table) with bbolt on the same sysbench rows.
//
// op=load reports the one load of the process: ns/op is per row, load-s
// the whole load, file-bytes the file it left. op=get and op=get-parallel
// read random ids; on bbolt they take one db.View per read, as zipsim's
// Get takes its own latches per call, and op=get-longtx and
// op=get-longtx-parallel read inside one read transaction per goroutine.
// zipsim's reads also report misses/op, the reads that found no
// uncompressed frame in the pool (0 when it caches the table), and
// fixes/op, the pages each read fixed.
func BenchmarkStores(b *testing.B) {
	for _, s := range stores {
		b.Run("store="+s.name, func(b *testing.B) {
			b.Run("op=load", func(b *testing.B) {
				s.get(b)
				for range b.N {
				}
				b.ReportMetric(float64(s.load.Nanoseconds())/float64(s.data().rows), "ns/op")
				b.ReportMetric(s.load.Seconds(), "load-s")
				b.ReportMetric(float64(s.fileSize), "file-bytes")
				b.ReportMetric(float64(s.usedSize), "used-bytes")
			})
			b.Run("op=get", func(b *testing.B) { s.benchGet(b, false) })
			b.Run("op=get-parallel", func(b *testing.B) { s.benchGetParallel(b, false) })
			if s.name == "bbolt" {
				b.Run("op=get-longtx", func(b *testing.B) { s.benchGet(b, true) })
				b.Run("op=get-longtx-parallel", func(b *testing.B) { s.benchGetParallel(b, true) })
			}
		})
	}
}

// TestStores loads a few thousand rows into each store, checks every 8th
// row (warm) and reads some back through the benchmarks' readers: go test
// runs this, not the benchmarks.
func TestStores(t *testing.T) {
	d := genRows(3000)
	for _, s := range newStores(t.TempDir(), func() *rowData { return d }) {
		t.Run(s.name, func(t *testing.T) {
			defer s.close()
			s.get(t)
			if s.fileSize == 0 || s.usedSize == 0 {
				t.Fatalf("file %d bytes, %d used", s.fileSize, s.usedSize)
			}
			read := s.reader(nil)
			for id := 1; id <= d.rows; id += 7 {
				read(id)
			}
		})
	}
}
