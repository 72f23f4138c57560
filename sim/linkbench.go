package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zipsim/zipsim"
)

// lbRequestCPU is what a LinkBench request costs a server outside the
// engine, spent once per operation (Config.StatementCPU) by T6 and T8:
// MariaDB's CPU a request on u in T8's shape on this machine (145–159
// µs, mean 150.0, MariaDBT8Figures) less zipsim's engine's (40–48 µs,
// mean 43.9, with none; 2026-12-01): 106, taken as 105. Fitted on u
// alone, at 10.11's default innodb_lru_scan_depth; other modes and
// shapes are predictions (in T6's, zipsim's QPS and c/u came out near
// MariaDB's: BENCHMARKS.md, T6). It includes MariaDB's purge threads'
// CPU, about 14 µs an operation (u with purge held back spends 135.5 on
// average).
const lbRequestCPU = 105 * time.Microsecond

// The LinkBench-like workload (research/targets.md §2.3, §2.4): a social
// graph of nodes and typed links, loaded by parallel link loaders and one
// node loader, then queried with LinkBench's request mix.
//
// Tables ([LinkBench README's DDL]):
//
//	linktable  (id1 BIGINT, id2 BIGINT, link_type BIGINT, visibility TINYINT,
//	            data VARCHAR(255), time BIGINT, version INT,
//	            PRIMARY KEY (link_type, id1, id2),
//	            KEY id1_type (id1, link_type, visibility, time, id2, version, data))
//	counttable (id BIGINT, link_type BIGINT, count INT, time BIGINT, version BIGINT,
//	            PRIMARY KEY (id, link_type))
//	nodetable  (id BIGINT PRIMARY KEY, type INT, version BIGINT, time INT, data MEDIUMTEXT)
//
// The Config's row format, KEY_BLOCK_SIZE, codec and partitions apply to
// linktable and counttable; partitions are by hash of id1 (counttable's
// id). nodetable is always DYNAMIC and unpartitioned, as in seed 004,
// which compressed link and count tables and left the node table alone:
// its payload compresses less than 2:1.
//
// Load: node ids are 1..maxid1−1. Each id1 gets an out-degree from the
// distribution of linkdegree.go (capped at 10,000), assigned through a
// shuffled order of ids, and split over the two link types (the first
// type takes the odd link; LinkBench's ID2Chooser.calcLinkCount gives
// the first type one more than half and so loads about 1.5× the degree,
// which is not copied). The links of (id1, type) have id2 = id1 + j for
// j = 0..n−1, visibility 1, version 0, a time drawn over the 2^32 ms (≈50
// days) before the load's end, and a motif payload. Loaders link loaders
// take chunks of 2,048 consecutive id1, handed out from the highest ids
// down, and insert each chunk's links in ascending id1 (an insert that
// finds the link updates it, as INSERT … ON DUPLICATE KEY UPDATE);
// counttable rows, one per (id1, type) with links, are buffered and
// inserted 1,024 at a time. Every chunk draws from its own generator
// seeded by (Seed, chunk), so the loaded data does not depend on the
// number of loaders or their interleaving. One node loader inserts ids
// 1..maxid1−1 in order. Progress is reported per 1,024 rows.
//
// Requests: one event is one of LinkBench's ten operations, drawn with
// FBWorkload.properties' percentages (linkbenchOps). Ids are chosen as
// LinkBench chooses them: link reads by Zipf(0.8) ranks, 99.5% shuffled
// over ids by one permutation ("uncorrelated") and 0.5% mapped to the id
// of that degree rank (rank 0 the id with the most links: correlated with
// out-degree); link writes by Zipf(0.741), 95% uncorrelated; node reads
// and node updates by Zipf(0.625) and Zipf(0.606) over one node
// permutation; node deletes uniformly over the loaded ids. The link type
// is either of the two. id2 follows ID2Chooser: id1 + a uniform offset
// below ⌈n/p⌉, n being the links (id1, type) was loaded with and p the
// wanted chance that the link exists: 0.05 for addlink, 0.9 for
// updatelink and deletelink, 0.5 for getlink. The link writes of one
// (id1, type) are serialized by a striped lock, which stands in for the
// row locks of LinkBench's transaction (SELECT … FOR UPDATE), so that
// counttable's counts stay exact under any number of threads.
type linkbench struct {
	c       Config
	n       int64 // loaded node ids: 1..n
	loaders int

	degPerm  permutation // id1−1 → degree rank (0 = most links)
	linkPerm permutation // uncorrelated link accesses: Zipf rank → id1−1
	nodePerm permutation // node reads and updates: Zipf rank → id−1

	zLinkRead, zLinkWrite, zNodeRead, zNodeUpdate *zipfian

	linkData, nodeData *motifGen

	nextNode atomic.Int64 // addnode's next id

	totalsOnce  sync.Once
	links, cnts int64 // rows Load inserts into linktable and counttable

	byRankOnce sync.Once
	byRank     []int32 // degree rank → id1−1, for correlated accesses

	locks [1024]sync.Mutex // link writes, by (id1, link_type)
}

// LinkBench constants [LinkStore, FBWorkload.properties, LinkBenchLoad].
const (
	lbLinkType0  = 123456789 // LinkStore.DEFAULT_LINK_TYPE; the second is one more
	lbLinkTypes  = 2
	lbNodeType   = 2048 // LinkStore.DEFAULT_NODE_TYPE
	lbLoadChunk  = 2048 // id1 per load chunk
	lbLoadBatch  = 1024 // rows per load batch
	lbListLimit  = 10_000
	lbHistoryPct = 0.3 // getlinklist_history
	lbTailCache  = 1024
	lbMultigetP  = 0.382
	lbMultigetN  = 128
	// lbLoadEndMs is the end of the load's time window (ms since 1970):
	// link times are drawn over the 2^32 ms before it, request times
	// count up from it.
	lbLoadEndMs = 1_400_000_000_000

	lbLinkReadTheta   = 0.8
	lbLinkReadUncorr  = 99.5 // percent
	lbLinkWriteTheta  = 0.741
	lbLinkWriteUncorr = 95.0
	lbNodeReadTheta   = 0.625
	lbNodeUpdateTheta = 0.606

	// Chances that a chosen (id1, type, id2) already exists
	// [ID2Chooser.P_*_EXIST].
	lbPGetExist    = 0.5
	lbPUpdateExist = 0.9
	lbPDeleteExist = 0.9
	lbPAddExist    = 0.05
)

// Payloads (§2.4's table, FBWorkload.properties): lognormal lengths and
// motif generators.
const (
	lbLinkDataMedian = 8
	lbLinkDataCap    = 255
	lbLinkStart      = 32
	lbLinkEnd        = 100
	lbLinkUnique     = 0.225
	lbNodeDataMedian = 128
	lbNodeDataCap    = 1 << 20
	lbNodeStart      = 50
	lbNodeEnd        = 220
	lbNodeUnique     = 0.63
	lbDataSigma      = 1.0
)

// Seed salts, so that each generator has a stream of its own.
const (
	saltLBDegree uint64 = 0x6c62646567726565 + iota
	saltLBLink
	saltLBNode
	saltLBLinkMotif
	saltLBNodeMotif
	saltLBChunk
	saltLBNodeLoad
	saltLBWorker
)

// The operations, in the order of Ops.
const (
	lbGetLinkList = iota
	lbGetNode
	lbCountLink
	lbGetLink
	lbAddLink
	lbUpdateLink
	lbDeleteLink
	lbAddNode
	lbUpdateNode
	lbDeleteNode
)

// linkbenchOps are the operations and their shares in percent, from
// FBWorkload.properties (they sum to 100).
var linkbenchOps = [...]struct {
	name string
	pct  float64
}{
	lbGetLinkList: {"getlinklist", 50.7119145},
	lbGetNode:     {"getnode", 12.9326683},
	lbCountLink:   {"countlink", 4.8863567},
	lbGetLink:     {"getlink", 0.5261142},
	lbAddLink:     {"addlink", 8.9886601},
	lbUpdateLink:  {"updatelink", 8.0122125},
	lbDeleteLink:  {"deletelink", 2.9907664},
	lbAddNode:     {"addnode", 2.5732789},
	lbUpdateNode:  {"updatenode", 7.366437},
	lbDeleteNode:  {"deletenode", 1.0115914},
}

// linkbenchCum is the running sum of linkbenchOps' shares.
var linkbenchCum = func() (c [len(linkbenchOps)]float64) {
	var s float64
	for i, o := range linkbenchOps {
		s += o.pct
		c[i] = s
	}
	return c
}()

// chooseLinkOp draws an operation with linkbenchOps' shares.
func chooseLinkOp(r *rand.Rand) int {
	u := r.Float64() * linkbenchCum[len(linkbenchCum)-1]
	for i, c := range linkbenchCum {
		if u < c {
			return i
		}
	}
	return len(linkbenchCum) - 1
}

func newLinkbench(c Config) (Workload, error) {
	lb, err := newLinkbenchWorkload(c)
	if err != nil {
		return nil, err
	}
	return lb, nil
}

func newLinkbenchWorkload(c Config) (*linkbench, error) {
	l, err := c.Linkbench.validate(max(c.Threads, 1))
	if err != nil {
		return nil, err
	}
	if l.MaxID1 > math.MaxInt32 {
		return nil, fmt.Errorf("linkbench: maxid1 %d: use at most %d", l.MaxID1, math.MaxInt32)
	}
	c.Linkbench = l
	lb := &linkbench{c: c, n: int64(l.MaxID1) - 1, loaders: l.Loaders}
	lb.degPerm = newPermutation(lb.n, c.Seed^saltLBDegree)
	lb.linkPerm = newPermutation(lb.n, c.Seed^saltLBLink)
	lb.nodePerm = newPermutation(lb.n, c.Seed^saltLBNode)
	for _, z := range []struct {
		p     **zipfian
		theta float64
	}{{&lb.zLinkRead, lbLinkReadTheta}, {&lb.zLinkWrite, lbLinkWriteTheta}, {&lb.zNodeRead, lbNodeReadTheta}, {&lb.zNodeUpdate, lbNodeUpdateTheta}} {
		if *z.p, err = newZipfian(lb.n, z.theta); err != nil {
			return nil, fmt.Errorf("linkbench: %w", err)
		}
	}
	lb.linkData = newMotifGen(lbLinkStart, lbLinkEnd, lbLinkUnique, c.Seed^saltLBLinkMotif)
	lb.nodeData = newMotifGen(lbNodeStart, lbNodeEnd, lbNodeUnique, c.Seed^saltLBNodeMotif)
	lb.nextNode.Store(lb.n + 1)
	return lb, nil
}

func (lb *linkbench) Name() string { return "linkbench" }

func (lb *linkbench) Ops() []string {
	names := make([]string, len(linkbenchOps))
	for i, o := range linkbenchOps {
		names[i] = o.name
	}
	return names
}

// Table definitions.

func (lb *linkbench) linkOptions() zipsim.TableOptions {
	o := LinkTable()
	lb.c.apply(&o)
	if o.Partitions > 1 {
		o.PartitionBy = []string{"id1"}
	}
	return o
}

// LinkTable is LinkBench's linktable, DYNAMIC: PRIMARY KEY (link_type,
// id1, id2) and the covering index id1_type (research/targets.md §2.3).
func LinkTable() zipsim.TableOptions {
	return zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id1", Type: zipsim.TypeInt},
			{Name: "id2", Type: zipsim.TypeInt},
			{Name: "link_type", Type: zipsim.TypeInt},
			{Name: "visibility", Type: zipsim.TypeInt, Len: 1},
			{Name: "data", Type: zipsim.TypeVarchar, Len: 255},
			{Name: "time", Type: zipsim.TypeInt},
			{Name: "version", Type: zipsim.TypeInt, Len: 4},
		},
		PrimaryKey: []string{"link_type", "id1", "id2"},
		SecondaryIndexes: []zipsim.IndexDef{{Name: "id1_type",
			Columns: []string{"id1", "link_type", "visibility", "time", "id2", "version", "data"}}},
	}
}

func (lb *linkbench) countOptions() zipsim.TableOptions {
	o := zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id", Type: zipsim.TypeInt},
			{Name: "link_type", Type: zipsim.TypeInt},
			{Name: "count", Type: zipsim.TypeInt, Len: 4},
			{Name: "time", Type: zipsim.TypeInt},
			{Name: "version", Type: zipsim.TypeInt},
		},
		PrimaryKey: []string{"id", "link_type"},
	}
	lb.c.apply(&o)
	if o.Partitions > 1 {
		o.PartitionBy = []string{"id"}
	}
	return o
}

// nodeOptions is nodetable: DYNAMIC and unpartitioned whatever the Config
// says, as seed 004 left it; only the merge threshold follows the Config.
func (lb *linkbench) nodeOptions() zipsim.TableOptions {
	return zipsim.TableOptions{
		Columns: []zipsim.Column{
			{Name: "id", Type: zipsim.TypeInt},
			{Name: "type", Type: zipsim.TypeInt, Len: 4},
			{Name: "version", Type: zipsim.TypeInt},
			{Name: "time", Type: zipsim.TypeInt, Len: 4},
			{Name: "data", Type: zipsim.TypeVarchar, Len: zipsim.MaxVarcharLen},
		},
		PrimaryKey:        []string{"id"},
		RowFormat:         zipsim.Dynamic,
		MergeThresholdPct: lb.c.MergeThreshold,
	}
}

func (lb *linkbench) Create(ctx context.Context, st *zipsim.Store) error {
	for _, d := range []struct {
		name string
		o    zipsim.TableOptions
	}{{"linktable", lb.linkOptions()}, {"counttable", lb.countOptions()}, {"nodetable", lb.nodeOptions()}} {
		if _, err := st.CreateTable(ctx, d.name, d.o); err != nil {
			return fmt.Errorf("linkbench: %w", err)
		}
	}
	return nil
}

// lbTables are the workload's tables in one store.
type lbTables struct{ link, count, node *zipsim.Table }

func lbTablesOf(st *zipsim.Store) (lbTables, error) {
	t := lbTables{st.Table("linktable"), st.Table("counttable"), st.Table("nodetable")}
	if t.link == nil || t.count == nil || t.node == nil {
		return t, errors.New("linkbench: the store lacks linktable, counttable or nodetable: run Create first")
	}
	return t, nil
}

// The graph.

// degree returns the number of links id1 is loaded with, over both types.
func (lb *linkbench) degree(id1 int64) int64 {
	if id1 < 1 || id1 > lb.n {
		return 0
	}
	return degreeOfRank(lb.degPerm.at(id1-1), lb.n)
}

// typeLinks returns how many of degree d's links have link type index t
// (0 or 1): the first type takes the odd one.
func typeLinks(d int64, t int) int64 {
	if t == 0 {
		return (d + 1) / 2
	}
	return d / 2
}

// loadedLinks is the number of links (id1, link type index t) is loaded
// with.
func (lb *linkbench) loadedLinks(id1 int64, t int) int64 { return typeLinks(lb.degree(id1), t) }

// totals returns the rows Load inserts into linktable and counttable.
// They depend only on the degree distribution and n, not on the shuffle.
func (lb *linkbench) totals() (links, counts int64) {
	lb.totalsOnce.Do(func() {
		for rank := range lb.n {
			d := degreeOfRank(rank, lb.n)
			if d == 0 {
				break // degrees fall with rank
			}
			lb.links += d
			lb.cnts++
			if d > 1 {
				lb.cnts++
			}
		}
	})
	return lb.links, lb.cnts
}

func (lb *linkbench) LoadRows() int64 {
	links, counts := lb.totals()
	return lb.n + links + counts
}

// Estimated record sizes in bytes, uncompressed: the columns, InnoDB's
// 5-byte record header and 2-byte length bytes, 13 bytes of DB_TRX_ID and
// DB_ROLL_PTR in clustered records, and a 7-byte page directory share
// and page fill overhead rounded in.
const (
	lbLinkRecord  = 24 + 1 + 13 + 8 + 4 + 2 + 5 + 13 + 7 // mean data ≈13 bytes
	lbLinkEntry   = 24 + 1 + 13 + 8 + 4 + 2 + 5 + 7      // id1_type holds every column
	lbCountRecord = 16 + 4 + 8 + 8 + 5 + 13 + 7
	lbNodeRecord  = 8 + 4 + 8 + 4 + 211 + 2 + 5 + 13 + 7 // mean data ≈211 bytes
)

func (lb *linkbench) DataBytes() int64 {
	links, counts := lb.totals()
	return links*(lbLinkRecord+lbLinkEntry) + counts*lbCountRecord + lb.n*lbNodeRecord
}

// Payloads.

// motifGen is LinkBench's MotifDataGenerator: bytes from [start, end],
// written in 128-byte chunks, each either fresh random bytes (with
// probability uniqueness) or a copy of a stretch of a 512-byte motif
// buffer drawn once. Repeats within a value and across values make the
// data compress about as LinkBench's does (link data ≈ 30%, node data
// ≈ 60% by FBWorkload.properties' comments).
type motifGen struct {
	start, span int
	uniqueness  float64
	motif       [motifBufLen]byte
}

const (
	motifChunk  = 128
	motifBufLen = 512
)

func newMotifGen(start, end int, uniqueness float64, seed uint64) *motifGen {
	g := &motifGen{start: start, span: end - start + 1, uniqueness: uniqueness}
	r := rand.New(rand.NewPCG(seed, seed^0x6d6f746966))
	for i := range g.motif {
		g.motif[i] = g.byte(r)
	}
	return g
}

func (g *motifGen) byte(r *rand.Rand) byte { return byte(g.start + r.IntN(g.span)) }

// fill returns dst[:0] holding n bytes of payload.
func (g *motifGen) fill(r *rand.Rand, dst []byte, n int) []byte {
	dst = dst[:0]
	for len(dst) < n {
		c := min(motifChunk, n-len(dst))
		if r.Float64() < g.uniqueness {
			for range c {
				dst = append(dst, g.byte(r))
			}
		} else {
			off := r.IntN(motifBufLen - c + 1)
			dst = append(dst, g.motif[off:off+c]...)
		}
	}
	return dst
}

// lognormalLen draws round(median·e^(σ·Z)) within [0, limit]
// [LogNormalDistribution].
func lognormalLen(r *rand.Rand, median, limit int) int {
	x := float64(median) * math.Exp(lbDataSigma*r.NormFloat64())
	if !(x < float64(limit)) {
		return limit
	}
	return int(math.Round(x))
}

func (lb *linkbench) linkPayload(r *rand.Rand, dst []byte) []byte {
	return lb.linkData.fill(r, dst, lognormalLen(r, lbLinkDataMedian, lbLinkDataCap))
}

func (lb *linkbench) nodePayload(r *rand.Rand, dst []byte) []byte {
	return lb.nodeData.fill(r, dst, lognormalLen(r, lbNodeDataMedian, lbNodeDataCap))
}

// Rows.

func setLinkRow(row zipsim.Row, id1, id2, typ, vis int64, data []byte, tm, version int64) zipsim.Row {
	row = append(row[:0], zipsim.Int(id1), zipsim.Int(id2), zipsim.Int(typ), zipsim.Int(vis),
		zipsim.Bytes(data), zipsim.Int(tm), zipsim.Int(version))
	return row
}

// Columns of linktable rows.
const (
	lcID1 = iota
	lcID2
	lcType
	lcVis
	lcData
	lcTime
	lcVersion
)

// Columns of counttable rows.
const (
	ccID = iota
	ccType
	ccCount
	ccTime
	ccVersion
)

// upsert inserts row or, if its key is taken, updates it (INSERT … ON
// DUPLICATE KEY UPDATE).
func upsert(ctx context.Context, t *zipsim.Table, row zipsim.Row) error {
	err := t.Insert(ctx, row)
	if errors.Is(err, zipsim.ErrDuplicate) {
		err = t.Update(ctx, row)
	}
	return err
}

// Load.

func (lb *linkbench) Load(ctx context.Context, st *zipsim.Store, progress func(rows int64)) error {
	t, err := lbTablesOf(st)
	if err != nil {
		return err
	}
	if progress == nil {
		progress = func(int64) {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	next.Store((lb.n + lbLoadChunk - 1) / lbLoadChunk)
	var wg sync.WaitGroup
	for range lb.loaders {
		wg.Go(func() {
			if err := lb.loadLinks(ctx, t, &next, progress); err != nil {
				cancel(err)
			}
		})
	}
	wg.Go(func() {
		if err := lb.loadNodes(ctx, t.node, progress); err != nil {
			cancel(err)
		}
	})
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("linkbench: load: %w", err)
	}
	return nil
}

// loadLinks is one link loader: it takes chunks from next (counting
// down) until none is left.
func (lb *linkbench) loadLinks(ctx context.Context, t lbTables, next *atomic.Int64, progress func(int64)) error {
	var (
		row     zipsim.Row
		data    []byte
		pending int64
		counts  []zipsim.Row
		nCounts int
		server  = newServerCPU(0, lb.c.LoadRowCPU)
	)
	flushCounts := func() error {
		for _, c := range counts[:nCounts] {
			if err := upsert(ctx, t.count, c); err != nil {
				return err
			}
			server.spendRows(1)
		}
		if nCounts > 0 {
			progress(int64(nCounts))
		}
		nCounts = 0
		return nil
	}
	for {
		c := next.Add(-1)
		if c < 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(lb.c.Seed^saltLBChunk, uint64(c)))
		lo := 1 + c*lbLoadChunk
		hi := min(lo+lbLoadChunk, lb.n+1)
		for id1 := lo; id1 < hi; id1++ {
			d := lb.degree(id1)
			for ti := range lbLinkTypes {
				nl := typeLinks(d, ti)
				if nl == 0 {
					continue
				}
				typ := int64(lbLinkType0 + ti)
				var newest int64
				for j := range nl {
					data = lb.linkPayload(r, data)
					tm := lbLoadEndMs - 1<<32 + r.Int64N(1<<32)
					newest = max(newest, tm)
					row = setLinkRow(row, id1, id1+j, typ, 1, data, tm, 0)
					if err := upsert(ctx, t.link, row); err != nil {
						return err
					}
					server.spendRows(1)
					if pending++; pending == lbLoadBatch {
						progress(pending)
						pending = 0
					}
				}
				if nCounts == len(counts) {
					counts = append(counts, make(zipsim.Row, 5))
				}
				cr := counts[nCounts]
				cr[ccID], cr[ccType], cr[ccCount] = zipsim.Int(id1), zipsim.Int(typ), zipsim.Int(nl)
				cr[ccTime], cr[ccVersion] = zipsim.Int(newest), zipsim.Int(0)
				if nCounts++; nCounts == lbLoadBatch {
					if err := flushCounts(); err != nil {
						return err
					}
				}
			}
		}
	}
	if err := flushCounts(); err != nil {
		return err
	}
	if pending > 0 {
		progress(pending)
	}
	return nil
}

// loadNodes is the node loader: ids 1..n in order.
func (lb *linkbench) loadNodes(ctx context.Context, t *zipsim.Table, progress func(int64)) error {
	r := rand.New(rand.NewPCG(lb.c.Seed^saltLBNodeLoad, 0))
	var (
		row     zipsim.Row
		data    []byte
		pending int64
		server  = newServerCPU(0, lb.c.LoadRowCPU)
	)
	for id := int64(1); id <= lb.n; id++ {
		data = lb.nodePayload(r, data)
		row = append(row[:0], zipsim.Int(id), zipsim.Int(lbNodeType), zipsim.Int(1),
			zipsim.Int(lbLoadEndMs/1000), zipsim.Bytes(data))
		if err := upsert(ctx, t, row); err != nil {
			return err
		}
		server.spendRows(1)
		if pending++; pending == lbLoadBatch {
			progress(pending)
			pending = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if pending > 0 {
		progress(pending)
	}
	return nil
}

// Requests.

// rankIDs returns the table from degree rank to id1−1, built on first
// use: the permutation gives ranks from ids, correlated accesses need the
// inverse. It takes 4 bytes per node.
func (lb *linkbench) rankIDs() []int32 {
	lb.byRankOnce.Do(func() {
		lb.byRank = make([]int32, lb.n)
		for i := range lb.n {
			lb.byRank[lb.degPerm.at(i)] = int32(i)
		}
	})
	return lb.byRank
}

// linkID1 draws an id1 for a link access: a Zipf(θ) rank, shuffled over
// ids (uncorrelated, uncorrPct percent of draws) or taken as a degree
// rank (correlated with out-degree).
func (lb *linkbench) linkID1(r *rand.Rand, z *zipfian, uncorrPct float64) int64 {
	uncorr := r.Float64()*100 < uncorrPct
	rank := z.next(r)
	if uncorr {
		return 1 + lb.linkPerm.at(rank)
	}
	return 1 + int64(lb.rankIDs()[rank])
}

func (lb *linkbench) linkReadID1(r *rand.Rand) int64 {
	return lb.linkID1(r, lb.zLinkRead, lbLinkReadUncorr)
}

func (lb *linkbench) linkWriteID1(r *rand.Rand) int64 {
	return lb.linkID1(r, lb.zLinkWrite, lbLinkWriteUncorr)
}

func (lb *linkbench) nodeReadID(r *rand.Rand) int64 { return 1 + lb.nodePerm.at(lb.zNodeRead.next(r)) }

func (lb *linkbench) nodeUpdateID(r *rand.Rand) int64 {
	return 1 + lb.nodePerm.at(lb.zNodeUpdate.next(r))
}

func (lb *linkbench) nodeDeleteID(r *rand.Rand) int64 { return 1 + r.Int64N(lb.n) }

// id2Range is ID2Chooser.calcID2Range: the id2 offsets to draw from so
// that a link exists with probability about p.
func id2Range(loaded int64, p float64) int64 {
	return max(1, int64(math.Ceil(float64(loaded)/p)))
}

// multigetSize draws getlink's number of id2s: geometric with p = 0.382
// on 1, 2, …, at most 128 (mean ≈2.6).
func multigetSize(r *rand.Rand) int {
	k := 1 + int(math.Log(1-r.Float64())/math.Log(1-lbMultigetP))
	return min(k, lbMultigetN)
}

func (lb *linkbench) lockLinks(id1, typ int64) *sync.Mutex {
	h := splitmix(uint64(id1)*lbLinkTypes + uint64(typ-lbLinkType0))
	m := &lb.locks[h%uint64(len(lb.locks))]
	m.Lock()
	return m
}

// linkWorker runs the requests of one goroutine.
type linkWorker struct {
	lb      *linkbench
	t       lbTables
	r       *rand.Rand
	row     zipsim.Row // rows written, built from data
	rd, old zipsim.Row // rows read
	// cnt holds counttable's rows, all integers, and ver updatenode's
	// read of nodetable's version alone: read into rd they would replace
	// the byte buffer of its data column, which the next node or link read
	// would then allocate again.
	cnt, ver zipsim.Row
	data     []byte
	id2s     []int64
	from, to []zipsim.Value
	version  zipsim.Columns // nodetable's version, for updatenode
	clock    int64          // ms after lbLoadEndMs: one per event
	tails    []listTail     // lists that filled a page, for history pages
	rows     int            // rows the current getlinklist or getlink read
	// listRow is scanList's callback, made once: a closure made per call
	// escapes into ScanIndex and costs an allocation a list read. It
	// counts into listN and keeps the last time in listOldest.
	listRow    func(zipsim.Row) bool
	listN      int
	listOldest int64
}

// listTail is a getlinklist that returned lbListLimit rows: a history page
// reads on from its oldest time [LinkBenchRequest.getLinkListTail].
type listTail struct{ id1, typ, oldest int64 }

func (lb *linkbench) Worker(st *zipsim.Store, id int) (Worker, error) {
	w, err := lb.worker(st, id)
	if err != nil {
		return nil, err
	}
	return w, nil
}

func (lb *linkbench) worker(st *zipsim.Store, id int) (*linkWorker, error) {
	t, err := lbTablesOf(st)
	if err != nil {
		return nil, err
	}
	cols, err := t.node.Columns("version")
	if err != nil {
		return nil, err
	}
	lb.rankIDs()
	w := &linkWorker{
		lb: lb, t: t, version: cols,
		r: rand.New(rand.NewPCG(lb.c.Seed^saltLBWorker, uint64(id))),
	}
	w.listRow = func(row zipsim.Row) bool {
		w.listN++
		w.listOldest = row[lcTime].Int()
		return w.listN < lbListLimit
	}
	return w, nil
}

func (w *linkWorker) Next(ctx context.Context, rec Recorder) error {
	op := chooseLinkOp(w.r)
	w.clock++
	start := time.Now()
	w.rows = 0
	if err := w.do(ctx, op); err != nil {
		return fmt.Errorf("linkbench: %s: %w", linkbenchOps[op].name, err)
	}
	d := time.Since(start)
	if w.rows > 0 {
		rec.Rows(w.rows)
	}
	rec.Op(op, d.Nanoseconds())
	return nil
}

func (w *linkWorker) now() int64 { return lbLoadEndMs + w.clock }

func (w *linkWorker) linkType() int64 { return lbLinkType0 + w.r.Int64N(lbLinkTypes) }

func (w *linkWorker) do(ctx context.Context, op int) error {
	lb, r := w.lb, w.r
	switch op {
	case lbGetLinkList:
		return w.getLinkList(ctx)
	case lbGetNode:
		var err error
		w.rd, _, err = w.t.node.Get(ctx, w.rd, zipsim.Int(lb.nodeReadID(r)))
		return err
	case lbCountLink:
		id1 := lb.linkReadID1(r)
		var err error
		w.cnt, _, err = w.t.count.Get(ctx, w.cnt, zipsim.Int(id1), zipsim.Int(w.linkType()))
		return err
	case lbGetLink:
		return w.getLink(ctx)
	case lbAddLink, lbUpdateLink:
		id1, typ := lb.linkWriteID1(r), w.linkType()
		p := lbPAddExist
		if op == lbUpdateLink {
			p = lbPUpdateExist
		}
		id2 := id1 + r.Int64N(id2Range(lb.loadedLinks(id1, int(typ-lbLinkType0)), p))
		w.data = lb.linkPayload(r, w.data)
		return w.addLink(ctx, id1, typ, id2)
	case lbDeleteLink:
		id1, typ := lb.linkWriteID1(r), w.linkType()
		id2 := id1 + r.Int64N(id2Range(lb.loadedLinks(id1, int(typ-lbLinkType0)), lbPDeleteExist))
		return w.deleteLink(ctx, id1, typ, id2)
	case lbAddNode:
		w.data = lb.nodePayload(r, w.data)
		id := lb.nextNode.Add(1) - 1
		w.row = append(w.row[:0], zipsim.Int(id), zipsim.Int(lbNodeType), zipsim.Int(1),
			zipsim.Int(w.now()/1000), zipsim.Bytes(w.data))
		// A second run on the same store hands out the ids the first run
		// added: the insert then changes nothing, as a lost race does.
		if err := w.t.node.Insert(ctx, w.row); !errors.Is(err, zipsim.ErrDuplicate) {
			return err
		}
		return nil
	case lbUpdateNode:
		return w.updateNode(ctx, lb.nodeUpdateID(r))
	case lbDeleteNode:
		err := w.t.node.Delete(ctx, zipsim.Int(lb.nodeDeleteID(r)))
		if errors.Is(err, zipsim.ErrNotFound) {
			err = nil
		}
		return err
	}
	return fmt.Errorf("unknown operation %d", op)
}

// getLinkList reads up to lbListLimit visible links of (id1, type),
// newest first, through id1_type; 0.3% of calls instead read the next
// page of a list that filled one.
func (w *linkWorker) getLinkList(ctx context.Context) error {
	if len(w.tails) > 0 && w.r.Float64()*100 < lbHistoryPct {
		i := w.r.IntN(len(w.tails))
		tl := w.tails[i]
		n, oldest, err := w.scanList(ctx, tl.id1, tl.typ, tl.oldest)
		if err != nil {
			return err
		}
		if n < lbListLimit {
			w.tails[i] = w.tails[len(w.tails)-1]
			w.tails = w.tails[:len(w.tails)-1]
		} else {
			w.tails[i].oldest = oldest
		}
		return nil
	}
	id1, typ := w.lb.linkReadID1(w.r), w.linkType()
	n, oldest, err := w.scanList(ctx, id1, typ, -1)
	if err == nil && n >= lbListLimit {
		tl := listTail{id1, typ, oldest}
		if len(w.tails) < lbTailCache {
			w.tails = append(w.tails, tl)
		} else {
			w.tails[w.r.IntN(len(w.tails))] = tl
		}
	}
	return err
}

// scanList scans (id1, typ)'s visible links newest first, only those
// older than before when before ≥ 0, and returns how many it read and the
// oldest time among them.
func (w *linkWorker) scanList(ctx context.Context, id1, typ, before int64) (n int, oldest int64, err error) {
	w.from = append(w.from[:0], zipsim.Int(id1), zipsim.Int(typ), zipsim.Int(1))
	if before >= 0 {
		w.to = append(w.to[:0], zipsim.Int(id1), zipsim.Int(typ), zipsim.Int(1), zipsim.Int(before))
	} else {
		w.to = append(w.to[:0], zipsim.Int(id1), zipsim.Int(typ), zipsim.Int(2))
	}
	w.listN, w.listOldest = 0, 0
	err = w.t.link.ScanIndex(ctx, "id1_type", w.from, w.to, true, w.listRow)
	w.rows += w.listN
	return w.listN, w.listOldest, err
}

// getLink looks up 1..128 id2s of one (id1, type) by primary key
// [ID2Chooser.chooseMultipleForOp].
func (w *linkWorker) getLink(ctx context.Context) error {
	lb, r := w.lb, w.r
	id1, typ := lb.linkReadID1(r), w.linkType()
	k := multigetSize(r)
	rng := id2Range(lb.loadedLinks(id1, int(typ-lbLinkType0)), lbPGetExist)
	w.id2s = w.id2s[:0]
	for i := range k {
		if rng <= int64(k) {
			w.id2s = append(w.id2s, id1+int64(i))
			continue
		}
		var id2 int64
		for try := 0; try <= 100; try++ {
			id2 = id1 + r.Int64N(rng)
			if !containsID(w.id2s, id2) {
				break
			}
		}
		w.id2s = append(w.id2s, id2)
	}
	for _, id2 := range w.id2s {
		var err error
		var found bool
		if w.rd, found, err = w.t.link.Get(ctx, w.rd, zipsim.Int(typ), zipsim.Int(id1), zipsim.Int(id2)); err != nil {
			return err
		}
		if found {
			w.rows++
		}
	}
	return nil
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// addLink inserts the link (id1, typ, id2) with payload w.data, or
// updates it if it exists, then adds one to counttable's count when the
// link is new or was hidden [LinkStoreMysql.addLinkImpl]. addlink and
// updatelink both take this path.
func (w *linkWorker) addLink(ctx context.Context, id1, typ, id2 int64) error {
	defer w.lb.lockLinks(id1, typ).Unlock()
	t := w.t.link
	w.row = setLinkRow(w.row, id1, id2, typ, 1, w.data, w.now(), 0)
	err := t.Insert(ctx, w.row)
	if err == nil {
		return w.bumpCount(ctx, id1, typ, 1)
	}
	if !errors.Is(err, zipsim.ErrDuplicate) {
		return err
	}
	old, found, err := t.Get(ctx, w.old, zipsim.Int(typ), zipsim.Int(id1), zipsim.Int(id2))
	w.old = old
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("link (%d, %d, %d) exists and is missing", typ, id1, id2)
	}
	hidden := old[lcVis].Int() != 1
	w.row[lcVersion] = zipsim.Int(old[lcVersion].Int() + 1)
	if err := t.Update(ctx, w.row); err != nil {
		return err
	}
	if hidden {
		return w.bumpCount(ctx, id1, typ, 1)
	}
	return nil
}

// deleteLink hides the link (id1, typ, id2) if it is visible and takes
// one off counttable's count [LinkStoreMysql.deleteLinkImpl without
// expunge]: nothing is ever removed from linktable.
func (w *linkWorker) deleteLink(ctx context.Context, id1, typ, id2 int64) error {
	defer w.lb.lockLinks(id1, typ).Unlock()
	t := w.t.link
	old, found, err := t.Get(ctx, w.old, zipsim.Int(typ), zipsim.Int(id1), zipsim.Int(id2))
	w.old = old
	if err != nil || !found || old[lcVis].Int() != 1 {
		return err
	}
	old[lcVis] = zipsim.Int(0)
	if err := t.Update(ctx, old); err != nil {
		return err
	}
	return w.bumpCount(ctx, id1, typ, -1)
}

// bumpCount adds delta to (id1, typ)'s count, never below 0, with
// version+1 and the current time, inserting the row if it is missing
// (INSERT … ON DUPLICATE KEY UPDATE count = count + delta). The caller
// holds the (id1, typ) lock.
func (w *linkWorker) bumpCount(ctx context.Context, id1, typ, delta int64) error {
	t := w.t.count
	row, found, err := t.Get(ctx, w.cnt, zipsim.Int(id1), zipsim.Int(typ))
	w.cnt = row
	if err != nil {
		return err
	}
	if !found {
		w.cnt = append(w.cnt[:0], zipsim.Int(id1), zipsim.Int(typ), zipsim.Int(max(delta, 0)),
			zipsim.Int(w.now()), zipsim.Int(0))
		return t.Insert(ctx, w.cnt)
	}
	row[ccCount] = zipsim.Int(max(row[ccCount].Int()+delta, 0))
	row[ccVersion] = zipsim.Int(row[ccVersion].Int() + 1)
	row[ccTime] = zipsim.Int(w.now())
	return t.Update(ctx, row)
}

// updateNode gives node id new data and version+1; a deleted node is left
// alone.
func (w *linkWorker) updateNode(ctx context.Context, id int64) error {
	t := w.t.node
	row, found, err := t.GetColumns(ctx, w.ver, w.version, zipsim.Int(id))
	w.ver = row
	if err != nil || !found {
		return err
	}
	version := row[2].Int() + 1
	w.data = w.lb.nodePayload(w.r, w.data)
	w.row = append(w.row[:0], zipsim.Int(id), zipsim.Int(lbNodeType), zipsim.Int(version),
		zipsim.Int(w.now()/1000), zipsim.Bytes(w.data))
	err = t.Update(ctx, w.row)
	if errors.Is(err, zipsim.ErrNotFound) { // deleted meanwhile
		err = nil
	}
	return err
}
