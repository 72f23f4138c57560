package bufpool

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/table"
)

// Striped counters of an instance.
const (
	cHitFrame = iota
	cHitUnzip
	cHitZip
	cReads
	cWrites
	cCreates
	cEvictFrame
	cEvictPage
	cScans
	cScanned
	cZipCleanInserts
	cZipCleanSteps
	cZipCleanReadInserts
	cZipCleanReadSteps
	cSingleFlush
	cBatchFlush
	cBatchEvict
	nStats
)

// Stats is a value snapshot of the pool's counters and list lengths,
// summed over instances, with the CMPMEM rows per instance, the lock
// statistics and the CMP counters [INFORMATION_SCHEMA.INNODB_BUFFER_POOL_STATS,
// INNODB_CMPMEM, SHOW ENGINE INNODB STATUS]. Counters subtract with Sub;
// lengths are the later snapshot's.
type Stats struct {
	At time.Time

	Gets      uint64 // fixes that returned a guard: HitsFrame + HitsUnzip + HitsZip + Reads
	HitsFrame uint64 // fixes served by a frame already there
	HitsUnzip uint64 // fixes of compressed-only pages, which decompressed them
	// HitsZip counts fixes served by a compressed copy already there
	// without decompressing it: FixZip hits, and fixes that gave a
	// compressed-only page of another type than index (a ZBLOB page) a
	// frame by copying it [buf_zip_decompress].
	HitsZip    uint64
	Reads      uint64 // pages read from storage (misses)
	Writes     uint64 // pages written to storage
	Creates    uint64 // pages created without a read
	EvictFrame uint64 // frames freed from unzip_LRU, the page kept compressed-only
	EvictPage  uint64 // whole pages freed from the common LRU
	Scans      uint64 // victim searches
	Scanned    uint64 // pages examined by them
	ScanMax    int    // longest single search since the pool started; Sub keeps it
	// ZipCleanInserts counts Legacy's ordered zip_clean insertions, each a
	// walk along the LRU under the pool-wide mutex.
	ZipCleanInserts uint64
	ZipCleanSteps   uint64 // LRU nodes those walks visited
	// ZipCleanReadInserts and ZipCleanReadSteps are the part of those for
	// pages just read, whose walks start at the LRU midpoint.
	ZipCleanReadInserts uint64
	ZipCleanReadSteps   uint64
	// SingleFlushes counts dirty victims a fixer wrote itself, holding
	// whatever latches it held [buf_flush_single_page_from_LRU];
	// BatchFlushes the pages the page cleaner wrote
	// [buffer_LRU_batch_flush_total_pages], BatchEvicts the frames and
	// pages it freed, unzip_LRU frames and pages it had just written
	// included (InnoDB's buffer_LRU_batch_evict_total_pages counts clean
	// pages only). Scans, Scanned and ScanMax count the cleaner's victim
	// searches with the fixers'.
	SingleFlushes, BatchFlushes, BatchEvicts uint64

	MadeYoung, NotMadeYoung uint64

	Frames                            int // 16K frames in the arenas, the pool size
	LRULen, OldLen, UnzipLen, FreeLen int
	ZipOnly                           int // pages held compressed-only
	Pages                             int // pages in the pool

	CMPMEM  []CMPMEM
	Latches latch.Snapshot
	CMP     compress.Snapshot
}

// CMPMEM is one row of INFORMATION_SCHEMA.INNODB_CMPMEM: the buddy
// allocator of one instance for one block size.
type CMPMEM struct {
	PageSize       int
	Instance       int
	Used           uint64 // PAGES_USED
	Free           uint64 // PAGES_FREE
	RelocationOps  uint64
	RelocationTime time.Duration
}

// Stats takes a snapshot. It briefly takes each instance's LRU and buddy
// mutexes to read list lengths.
func (p *Pool) Stats() Stats {
	s := Stats{At: p.opts.Clock()}
	sums := make([]uint64, nStats)
	for _, in := range p.inst {
		in.stats.SumAll(sums)
		s.Gets += sums[cHitFrame] + sums[cHitUnzip] + sums[cHitZip] + sums[cReads]
		s.HitsFrame += sums[cHitFrame]
		s.HitsUnzip += sums[cHitUnzip]
		s.HitsZip += sums[cHitZip]
		s.Reads += sums[cReads]
		s.Writes += sums[cWrites]
		s.Creates += sums[cCreates]
		s.EvictFrame += sums[cEvictFrame]
		s.EvictPage += sums[cEvictPage]
		s.Scans += sums[cScans]
		s.Scanned += sums[cScanned]
		s.ZipCleanInserts += sums[cZipCleanInserts]
		s.ZipCleanSteps += sums[cZipCleanSteps]
		s.ZipCleanReadInserts += sums[cZipCleanReadInserts]
		s.ZipCleanReadSteps += sums[cZipCleanReadSteps]
		s.SingleFlushes += sums[cSingleFlush]
		s.BatchFlushes += sums[cBatchFlush]
		s.BatchEvicts += sums[cBatchEvict]

		in.lruMu.Lock()
		ls := in.lru.Stats()
		s.LRULen += ls.Len
		s.OldLen += ls.OldLen
		s.MadeYoung += ls.MadeYoung
		s.NotMadeYoung += ls.NotMadeYoung
		s.UnzipLen += in.unzip.Len()
		s.ScanMax = max(s.ScanMax, in.scanMax)
		in.lruMu.Unlock()
		for i := range in.hash {
			hp := &in.hash[i]
			hp.mu.RLock()
			s.Pages += hp.t.n
			for _, pg := range hp.t.all() {
				if pg.state == stateZipOnly {
					s.ZipOnly++
				}
			}
			hp.mu.RUnlock()
		}
		s.Frames += len(in.frames)
		in.freeMu.Lock()
		s.FreeLen += len(in.free)
		in.freeMu.Unlock()
		in.zipFreeMu.Lock()
		b := &in.buddy
		for c := 0; c <= b.classes; c++ {
			row := CMPMEM{PageSize: buddyUnit << c, Instance: in.id, Used: b.used[c], RelocationOps: b.relocated[c], RelocationTime: time.Duration(b.relocNanos[c])}
			if c < b.classes {
				row.Free = uint64(b.count[c])
			}
			s.CMPMEM = append(s.CMPMEM, row)
		}
		in.zipFreeMu.Unlock()
	}
	s.Latches = p.latches.Snapshot()
	s.CMP = p.cmp.Snapshot()
	return s
}

// Sub returns the activity since prev.
func (s Stats) Sub(prev Stats) Stats {
	d := s
	d.Gets -= prev.Gets
	d.HitsFrame -= prev.HitsFrame
	d.HitsUnzip -= prev.HitsUnzip
	d.HitsZip -= prev.HitsZip
	d.Reads -= prev.Reads
	d.Writes -= prev.Writes
	d.Creates -= prev.Creates
	d.EvictFrame -= prev.EvictFrame
	d.EvictPage -= prev.EvictPage
	d.Scans -= prev.Scans
	d.Scanned -= prev.Scanned
	d.ZipCleanInserts -= prev.ZipCleanInserts
	d.ZipCleanSteps -= prev.ZipCleanSteps
	d.ZipCleanReadInserts -= prev.ZipCleanReadInserts
	d.ZipCleanReadSteps -= prev.ZipCleanReadSteps
	d.SingleFlushes -= prev.SingleFlushes
	d.BatchFlushes -= prev.BatchFlushes
	d.BatchEvicts -= prev.BatchEvicts
	d.MadeYoung -= prev.MadeYoung
	d.NotMadeYoung -= prev.NotMadeYoung
	d.CMPMEM = make([]CMPMEM, len(s.CMPMEM))
	for i, r := range s.CMPMEM {
		if i < len(prev.CMPMEM) && prev.CMPMEM[i].PageSize == r.PageSize && prev.CMPMEM[i].Instance == r.Instance {
			r.RelocationOps -= prev.CMPMEM[i].RelocationOps
			r.RelocationTime -= prev.CMPMEM[i].RelocationTime
		}
		d.CMPMEM[i] = r
	}
	d.Latches = s.Latches.Sub(prev.Latches)
	d.CMP = s.CMP.Sub(prev.CMP)
	return d
}

// HitRate is the share of fixes served by a copy already in the pool
// without decompressing: a frame, or for HitsZip the compressed copy.
func (s Stats) HitRate() float64 { return ratio(s.HitsFrame+s.HitsZip, s.Gets) }

// ScanMean is the mean number of pages a victim search examined.
func (s Stats) ScanMean() float64 { return ratio(s.Scanned, s.Scans) }

// ZipCleanWalkMean is the mean number of LRU nodes a zip_clean insertion
// walked (Legacy only): the O(N) of MySQL Bug #61341.
func (s Stats) ZipCleanWalkMean() float64 { return ratio(s.ZipCleanSteps, s.ZipCleanInserts) }

// ZipCleanReadWalkMean is ZipCleanWalkMean for pages just read: from the
// LRU midpoint past the old sublist's pages with frames.
func (s Stats) ZipCleanReadWalkMean() float64 {
	return ratio(s.ZipCleanReadSteps, s.ZipCleanReadInserts)
}

// ratio is a/b, 0 when b is.
func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// String prints the snapshot as tables named after InnoDB's.
func (s Stats) String() string {
	var b strings.Builder
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	i := func(v int) string { return strconv.Itoa(v) }
	table.Write(&b, "INNODB_BUFFER_POOL_STATS", []string{"NAME", "VALUE"}, [][]string{
		{"POOL_SIZE_PAGES", i(s.Frames)}, {"PAGES", i(s.Pages)}, {"FREE_BUFFERS", i(s.FreeLen)},
		{"LRU_LEN", i(s.LRULen)}, {"OLD_DATABASE_PAGES", i(s.OldLen)}, {"UNZIP_LRU_LEN", i(s.UnzipLen)}, {"ZIP_ONLY_PAGES", i(s.ZipOnly)},
		{"PAGE_GETS", u(s.Gets)}, {"HITS_ON_FRAME", u(s.HitsFrame)}, {"HITS_NEEDING_DECOMPRESSION", u(s.HitsUnzip)},
		{"HITS_ON_ZIP_BLOCK", u(s.HitsZip)},
		{"HIT_RATE", fmt.Sprintf("%.4f", s.HitRate())},
		{"PAGES_READ", u(s.Reads)}, {"PAGES_WRITTEN", u(s.Writes)}, {"PAGES_CREATED", u(s.Creates)},
		{"EVICTED_FRAME_ONLY", u(s.EvictFrame)}, {"EVICTED_WHOLE_PAGE", u(s.EvictPage)},
		{"LRU_SINGLE_FLUSHES", u(s.SingleFlushes)}, {"LRU_BATCH_FLUSHES", u(s.BatchFlushes)}, {"LRU_BATCH_EVICTS", u(s.BatchEvicts)},
		{"VICTIM_SCANS", u(s.Scans)}, {"VICTIM_SCAN_MEAN", fmt.Sprintf("%.1f", s.ScanMean())}, {"VICTIM_SCAN_MAX", i(s.ScanMax)},
		{"ZIP_CLEAN_INSERTS", u(s.ZipCleanInserts)}, {"ZIP_CLEAN_WALK_MEAN", fmt.Sprintf("%.1f", s.ZipCleanWalkMean())},
		{"ZIP_CLEAN_READ_INSERTS", u(s.ZipCleanReadInserts)}, {"ZIP_CLEAN_READ_WALK_MEAN", fmt.Sprintf("%.1f", s.ZipCleanReadWalkMean())},
		{"PAGES_MADE_YOUNG", u(s.MadeYoung)}, {"PAGES_NOT_MADE_YOUNG", u(s.NotMadeYoung)},
	})
	b.WriteByte('\n')
	var rows [][]string
	for _, r := range s.CMPMEM {
		if r.Used == 0 && r.Free == 0 && r.RelocationOps == 0 {
			continue
		}
		rows = append(rows, []string{i(r.PageSize), i(r.Instance), u(r.Used), u(r.Free), u(r.RelocationOps), fmt.Sprintf("%.6f", r.RelocationTime.Seconds())})
	}
	table.Write(&b, "INNODB_CMPMEM", []string{"PAGE_SIZE", "BUFFER_POOL_INSTANCE", "PAGES_USED", "PAGES_FREE", "RELOCATION_OPS", "RELOCATION_TIME"}, rows)
	b.WriteByte('\n')
	b.WriteString(s.CMP.String())
	b.WriteByte('\n')
	b.WriteString(s.Latches.String())
	return b.String()
}
