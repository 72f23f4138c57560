package compress

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zipsim/zipsim/internal/stripe"
	"github.com/zipsim/zipsim/internal/table"
)

// CMP is one row of INFORMATION_SCHEMA.INNODB_CMP / INNODB_CMP_PER_INDEX.
type CMP struct {
	CompressOps    uint64        // COMPRESS_OPS: attempts, successes and failures
	CompressOpsOK  uint64        // COMPRESS_OPS_OK
	CompressTime   time.Duration // COMPRESS_TIME, failures included
	UncompressOps  uint64        // UNCOMPRESS_OPS
	UncompressTime time.Duration // UNCOMPRESS_TIME
}

// Add returns the field-wise sum a+b.
func (a CMP) Add(b CMP) CMP {
	return CMP{
		CompressOps:    a.CompressOps + b.CompressOps,
		CompressOpsOK:  a.CompressOpsOK + b.CompressOpsOK,
		CompressTime:   a.CompressTime + b.CompressTime,
		UncompressOps:  a.UncompressOps + b.UncompressOps,
		UncompressTime: a.UncompressTime + b.UncompressTime,
	}
}

// Sub returns the field-wise difference a-b, the activity between two
// readings of monotonic counters. Counts stop at 0 rather than wrap, so
// arguments given in the wrong order show no activity, not 2^64.
func (a CMP) Sub(b CMP) CMP {
	return CMP{
		CompressOps:    a.CompressOps - min(a.CompressOps, b.CompressOps),
		CompressOpsOK:  a.CompressOpsOK - min(a.CompressOpsOK, b.CompressOpsOK),
		CompressTime:   a.CompressTime - b.CompressTime,
		UncompressOps:  a.UncompressOps - min(a.UncompressOps, b.UncompressOps),
		UncompressTime: a.UncompressTime - b.UncompressTime,
	}
}

// FailurePct is the share of compress attempts that failed, in percent:
// 100*(ops-ok)/ops, or 0 when there were no attempts. InnoDB's adaptive
// padding compares this with innodb_compression_failure_threshold_pct.
func (a CMP) FailurePct() float64 {
	if a.CompressOps == 0 {
		return 0
	}
	return 100 * float64(a.CompressOps-a.CompressOpsOK) / float64(a.CompressOps)
}

// ZipSizes are the compressed page sizes of KEY_BLOCK_SIZE 1, 2, 4, 8 and
// 16, the rows of INNODB_CMP.
var ZipSizes = [5]int{1024, 2048, 4096, 8192, 16384}

// sizeIndex returns zipSize's index in ZipSizes, or -1.
func sizeIndex(zipSize int) int {
	for i, z := range ZipSizes {
		if z == zipSize {
			return i
		}
	}
	return -1
}

// Counters of one CMP row, in stripe order. COMPRESS_OPS_OK comes before
// COMPRESS_OPS and is bumped after it: readers sum in index order, so a
// snapshot never shows more successes than attempts.
const (
	cCompressOK = iota
	cCompressOps
	cCompressNanos
	cUncompressOps
	cUncompressNanos
	nCounters
)

// Stats counts compress and decompress operations like InnoDB's
// page_zip_stat (per zip size) and page_zip_stat_per_index (per index).
//
// Counting must not become the contention the simulator measures, so every
// counter is striped (internal/stripe): a Record call adds to one stripe
// picked at random, and Snapshot sums the stripes. Per-index rows live in a
// sync.Map whose entries are created on an index's first use and only read
// afterwards, so steady-state Record calls take no lock and allocate
// nothing. Methods on a nil *Stats do nothing, so callers can pass nil to
// switch counting off.
type Stats struct {
	sizes    *stripe.Counters // INNODB_CMP: nCounters per zip size
	perIndex sync.Map         // uint64 -> *stripe.Counters: INNODB_CMP_PER_INDEX
}

// NewStats returns empty counters.
func NewStats() *Stats { return &Stats{sizes: stripe.New(len(ZipSizes) * nCounters)} }

// nanos converts d for the counters; a negative duration (a clock that
// stepped back) counts as zero.
func nanos(d time.Duration) uint64 { return uint64(max(d, 0)) }

// index returns the per-index counters of id, creating them on first use.
// Two goroutines racing on a new id may both build counters; LoadOrStore
// keeps one.
func (s *Stats) index(id uint64) *stripe.Counters {
	if v, ok := s.perIndex.Load(id); ok {
		return v.(*stripe.Counters)
	}
	v, _ := s.perIndex.LoadOrStore(id, stripe.New(nCounters))
	return v.(*stripe.Counters)
}

func addCompress(st stripe.Stripe, base int, ok bool, ns uint64) {
	st.Add(base+cCompressOps, 1)
	if ok {
		st.Add(base+cCompressOK, 1)
	}
	st.Add(base+cCompressNanos, ns)
}

func addUncompress(st stripe.Stripe, base int, ns uint64) {
	st.Add(base+cUncompressOps, 1)
	st.Add(base+cUncompressNanos, ns)
}

// row reads one CMP row from summed counters.
func row(sums []uint64, base int) CMP {
	return CMP{
		CompressOps:    sums[base+cCompressOps],
		CompressOpsOK:  sums[base+cCompressOK],
		CompressTime:   time.Duration(sums[base+cCompressNanos]),
		UncompressOps:  sums[base+cUncompressOps],
		UncompressTime: time.Duration(sums[base+cUncompressNanos]),
	}
}

// RecordCompress counts one page_zip_compress attempt on a page of
// zipSize bytes in index indexID that succeeded (ok) or failed, taking d.
// A zipSize not in ZipSizes counts only per index.
func (s *Stats) RecordCompress(zipSize int, indexID uint64, ok bool, d time.Duration) {
	if s == nil {
		return
	}
	ns := nanos(d)
	if k := sizeIndex(zipSize); k >= 0 {
		addCompress(s.sizes.Stripe(), k*nCounters, ok, ns)
	}
	addCompress(s.index(indexID).Stripe(), 0, ok, ns)
}

// RecordUncompress counts one successful page_zip_decompress of a page of
// zipSize bytes in index indexID, taking d. A zipSize not in ZipSizes
// counts only per index.
func (s *Stats) RecordUncompress(zipSize int, indexID uint64, d time.Duration) {
	if s == nil {
		return
	}
	ns := nanos(d)
	if k := sizeIndex(zipSize); k >= 0 {
		addUncompress(s.sizes.Stripe(), k*nCounters, ns)
	}
	addUncompress(s.index(indexID).Stripe(), 0, ns)
}

// Snapshot sums the stripes into a value copy. Counters keep moving while
// it reads them, so under load the rows are each exact at some instant
// during the call, not all at the same one. A nil *Stats gives an empty
// Snapshot.
func (s *Stats) Snapshot() Snapshot {
	snap := Snapshot{PerIndex: map[uint64]CMP{}}
	if s == nil {
		return snap
	}
	sums := make([]uint64, len(ZipSizes)*nCounters)
	s.sizes.SumAll(sums)
	for k := range snap.BySize {
		snap.BySize[k] = row(sums, k*nCounters)
	}
	s.perIndex.Range(func(key, value any) bool {
		value.(*stripe.Counters).SumAll(sums[:nCounters])
		snap.PerIndex[key.(uint64)] = row(sums, 0)
		return true
	})
	return snap
}

// Snapshot is a value copy of the counters.
type Snapshot struct {
	BySize   [5]CMP         // indexed like ZipSizes (INNODB_CMP rows)
	PerIndex map[uint64]CMP // INNODB_CMP_PER_INDEX, by index id
}

// Size returns the INNODB_CMP row of zipSize, or a zero CMP for a size not
// in ZipSizes.
func (s Snapshot) Size(zipSize int) CMP {
	if k := sizeIndex(zipSize); k >= 0 {
		return s.BySize[k]
	}
	return CMP{}
}

// Total sums the INNODB_CMP rows. Operations recorded with a zip size not
// in ZipSizes appear only in PerIndex, so they are not in Total.
func (s Snapshot) Total() CMP {
	var t CMP
	for _, row := range s.BySize {
		t = t.Add(row)
	}
	return t
}

// Sub returns the activity since prev, like reading the _RESET tables at
// the end of an interval. Indexes with no activity in the interval are
// left out, so prev.Add(s.Sub(prev)) equals s.
func (s Snapshot) Sub(prev Snapshot) Snapshot {
	d := Snapshot{PerIndex: map[uint64]CMP{}}
	for k := range s.BySize {
		d.BySize[k] = s.BySize[k].Sub(prev.BySize[k])
	}
	for id, row := range s.PerIndex {
		if delta := row.Sub(prev.PerIndex[id]); delta != (CMP{}) {
			d.PerIndex[id] = delta
		}
	}
	return d
}

// Add returns the sum of two snapshots, for example of two Stats.
func (s Snapshot) Add(o Snapshot) Snapshot {
	sum := Snapshot{PerIndex: make(map[uint64]CMP, len(s.PerIndex))}
	for k := range s.BySize {
		sum.BySize[k] = s.BySize[k].Add(o.BySize[k])
	}
	for id, row := range s.PerIndex {
		sum.PerIndex[id] = row
	}
	for id, row := range o.PerIndex {
		sum.PerIndex[id] = sum.PerIndex[id].Add(row)
	}
	return sum
}

// String prints two ASCII tables titled INNODB_CMP and
// INNODB_CMP_PER_INDEX with InnoDB's column names. Times are seconds with
// microsecond precision (InnoDB prints whole seconds). INNODB_CMP shows the
// sizes with any activity, or all five when there is none; per-index rows
// are sorted by index id, which stands in for InnoDB's DATABASE_NAME,
// TABLE_NAME and INDEX_NAME columns.
func (s Snapshot) String() string {
	cols := []string{"COMPRESS_OPS", "COMPRESS_OPS_OK", "COMPRESS_TIME", "UNCOMPRESS_OPS", "UNCOMPRESS_TIME"}
	var sizeRows, allRows [][]string
	for k, row := range s.BySize {
		r := cmpRow(strconv.Itoa(ZipSizes[k]), row)
		allRows = append(allRows, r)
		if row != (CMP{}) {
			sizeRows = append(sizeRows, r)
		}
	}
	if sizeRows == nil {
		sizeRows = allRows
	}
	var b strings.Builder
	table.Write(&b, "INNODB_CMP", append([]string{"PAGE_SIZE"}, cols...), sizeRows)
	b.WriteByte('\n')
	ids := make([]uint64, 0, len(s.PerIndex))
	for id := range s.PerIndex {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	idxRows := make([][]string, 0, len(ids))
	for _, id := range ids {
		idxRows = append(idxRows, cmpRow(strconv.FormatUint(id, 10), s.PerIndex[id]))
	}
	table.Write(&b, "INNODB_CMP_PER_INDEX", append([]string{"INDEX_ID"}, cols...), idxRows)
	return b.String()
}

// cmpRow formats one row's cells after its key cell.
func cmpRow(key string, c CMP) []string {
	return []string{
		key,
		strconv.FormatUint(c.CompressOps, 10),
		strconv.FormatUint(c.CompressOpsOK, 10),
		fmt.Sprintf("%.6f", c.CompressTime.Seconds()),
		strconv.FormatUint(c.UncompressOps, 10),
		fmt.Sprintf("%.6f", c.UncompressTime.Seconds()),
	}
}
