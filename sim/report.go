package sim

import (
	"cmp"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/internal/table"
)

// Report is what Run measured (research/targets.md §3). It prints as text
// (WriteText), JSON (WriteJSON, which decodes back into a Report) and CSV
// (WriteCSV), and plots with PlotThroughput, PlotLatency and PlotSweep.
type Report struct {
	Header Header `json:"header"`
	// Load is the Prepare that filled the store, when RunOptions.Load
	// gave it.
	Load *LoadResult `json:"load,omitempty"`
	// Intervals are the report intervals in order; their events, ops and
	// metrics add up to the run's.
	Intervals []Interval `json:"intervals"`
	// PerOp is the latency of each operation over the run, in
	// Workload.Ops order, merged across goroutines.
	PerOp []OpLatency `json:"per_op"`
	// Event is the latency of whole events (transactions, requests).
	Event  Latency `json:"event"`
	Totals Totals  `json:"totals"`
	// Memory covers the run: gauges at its end, counters over it, and the
	// peaks sampled at interval ends.
	Memory Memory `json:"memory"`
	// Metrics is the store's activity over the measurement (Metrics.Sub):
	// counters are differences, sizes and shapes are at its end.
	Metrics zipsim.Metrics `json:"metrics"`
	// Space is each table's space after the run, with RunOptions.SpaceAfter.
	Space []TableSpace `json:"space,omitempty"`
}

// Header describes the run: the configuration and the machine.
type Header struct {
	// Config is the validated configuration: every knob, defaults filled in.
	Config `json:"config"`
	// ConfigHash is ConfigHash(Config), to join the runs of a sweep.
	ConfigHash string   `json:"config_hash"`
	Ops        []string `json:"ops"` // Workload.Ops
	GOMAXPROCS int      `json:"gomaxprocs"`
	NumCPU     int      `json:"num_cpu"`
	GoVersion  string   `json:"go_version"`
	GOOS       string   `json:"goos"`
	GOARCH     string   `json:"goarch"`
	CZlib      string   `json:"czlib"` // compress.CZlibImplementation: the port, or C zlib with the zipsim_czlib_c tag
	// Start is when Run started, warm-up included.
	Start time.Time `json:"start"`
	// Rows is Workload.LoadRows; DataBytes is Workload.DataBytes, the
	// uncompressed ("u") data.
	Rows      int64 `json:"rows"`
	DataBytes int64 `json:"data_bytes"`
	// DiskBytes is what the tablespaces allocate on their devices at the
	// start (storage.Usage.AllocatedBytes, du's figure), the "c" bytes of
	// a compressed run. It is exact after a flush, as Prepare leaves it.
	DiskBytes int64 `json:"disk_bytes"`
	// PoolSize is the buffer pool: frames × page size.
	PoolSize      int64   `json:"pool_size"`
	PoolDataRatio float64 `json:"pool_data_ratio"` // PoolSize / DataBytes
	PoolDiskRatio float64 `json:"pool_disk_ratio"` // PoolSize / DiskBytes
}

// Latency summarises a histogram. Percentiles have 3 significant digits
// (HDR histogram, 1 µs..60 s); Mean and Max are exact.
type Latency struct {
	Count int64         `json:"count"`
	Mean  time.Duration `json:"mean_ns"`
	P50   time.Duration `json:"p50_ns"`
	P95   time.Duration `json:"p95_ns"`
	P99   time.Duration `json:"p99_ns"`
	Max   time.Duration `json:"max_ns"`
}

// OpLatency is the latency of one operation.
type OpLatency struct {
	Op string `json:"op"`
	Latency
}

// Totals are the run's throughput and CPU.
type Totals struct {
	Wall    time.Duration `json:"wall_ns"` // measured: warm-up and the wait for events in flight excluded
	Events  int64         `json:"events"`
	Ops     int64         `json:"ops"`
	TPS     float64       `json:"tps"` // events per second
	QPS     float64       `json:"qps"` // operations per second
	CPU     time.Duration `json:"cpu_ns"`
	CPUUtil float64       `json:"cpu_util"` // CPU / (Wall × GOMAXPROCS); 0 where CPU time is unknown
}

// Interval is one report interval.
type Interval struct {
	Index int `json:"index"`
	// Start and End are since the measurement began.
	Start  time.Duration `json:"start_ns"`
	End    time.Duration `json:"end_ns"`
	Events int64         `json:"events"`
	Ops    int64         `json:"ops"`
	TPS    float64       `json:"tps"`
	QPS    float64       `json:"qps"`
	Event  Latency       `json:"event"`
	PerOp  []OpLatency   `json:"per_op"`
	// CPU is the process's CPU time in the interval; CPUUtil is CPU /
	// (wall × GOMAXPROCS).
	CPU     time.Duration  `json:"cpu_ns"`
	CPUUtil float64        `json:"cpu_util"`
	Memory  Memory         `json:"memory"`
	Metrics zipsim.Metrics `json:"metrics"`
}

// Memory is the Go runtime's memory over a span: gauges at its end
// (runtime.MemStats), counters over it.
type Memory struct {
	HeapAlloc    uint64 `json:"heap_alloc"`
	HeapInuse    uint64 `json:"heap_inuse"`
	HeapIdle     uint64 `json:"heap_idle"`
	HeapReleased uint64 `json:"heap_released"`
	Sys          uint64 `json:"sys"`
	// RSS is the resident set from /proc/self/statm, 0 where there is none.
	RSS uint64 `json:"rss"`
	// PeakRSS and PeakSys are the largest readings at interval ends
	// (Report.Memory only).
	PeakRSS uint64 `json:"peak_rss,omitempty"`
	PeakSys uint64 `json:"peak_sys,omitempty"`
	NumGC   uint32 `json:"num_gc"` // collections in the span
	// GCCPUFraction is GC CPU time / (wall × GOMAXPROCS) over the span
	// (runtime/metrics /cpu/classes/gc/total:cpu-seconds).
	GCCPUFraction  float64 `json:"gc_cpu_fraction"`
	Mallocs        uint64  `json:"mallocs"`     // heap objects allocated in the span
	AllocBytes     uint64  `json:"alloc_bytes"` // bytes allocated in the span
	AllocsPerEvent float64 `json:"allocs_per_event"`
	BytesPerEvent  float64 `json:"bytes_per_event"`
}

// ConfigHash returns a stable hash of c's JSON: the first 16 hex digits
// of its SHA-256. Pass a validated Config, so that a default and its
// explicit value hash alike. Adding a knob to Config changes every hash.
func ConfigHash(c Config) string {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // a Config always marshals
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// WriteJSON writes r as indented JSON; json.Unmarshal reads it back.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// us formats d in microseconds.
func us(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e3, 'f', 1, 64) }

// sec formats d in seconds.
func sec(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
func f4(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
func pct(v float64) string {
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}
func u64(v uint64) string { return strconv.FormatUint(v, 10) }
func i64(v int64) string  { return strconv.FormatInt(v, 10) }

// bytesStr formats n bytes with a binary unit.
func bytesStr[T int64 | uint64](n T) string {
	v := float64(n)
	for _, u := range []string{"B", "KiB", "MiB", "GiB"} {
		if v < 1024 || u == "GiB" {
			if u == "B" {
				return strconv.FormatFloat(v, 'f', 0, 64) + " B"
			}
			return strconv.FormatFloat(v, 'f', 1, 64) + " " + u
		}
		v /= 1024
	}
	return ""
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// knobs lists c's knobs as name=value in declaration order, nested
// workload knobs as workload.knob; old_blocks_time as InnoDB spells it.
func knobs(c Config) []string {
	var out []string
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			fv := v.Field(i)
			if fv.Kind() == reflect.Struct {
				walk(prefix+name+".", fv)
				continue
			}
			s := fmt.Sprint(fv.Interface())
			if name == "old_blocks_time" {
				s = OldBlocksTimeText(time.Duration(fv.Int()))
			}
			if s == "" {
				s = `""`
			}
			out = append(out, prefix+name+"="+s)
		}
	}
	walk("", reflect.ValueOf(c))
	return out
}

// wrap joins words with spaces into lines of at most width characters,
// each starting with indent.
func wrap(words []string, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range words {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	if len(line) > len(indent) {
		b.WriteString(line + "\n")
	}
	return b.String()
}

// busiestLock returns the lock class or group with the most wait time in
// m; instance rows ("x#3") are left to their group's total.
func busiestLock(m zipsim.Metrics) (latch.Stats, bool) {
	var best latch.Stats
	found := false
	for _, r := range m.Pool.Latches.Rows {
		if strings.Contains(r.Name, "#") {
			continue
		}
		if !found || r.Wait > best.Wait {
			best, found = r, true
		}
	}
	return best, found
}

// lockRows returns m's lock classes and groups, most wait first.
func lockRows(m zipsim.Metrics) []latch.Stats {
	var rows []latch.Stats
	for _, r := range m.Pool.Latches.Rows {
		if !strings.Contains(r.Name, "#") && r.Acquisitions+r.ReadAcquisitions > 0 {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b latch.Stats) int {
		if c := cmp.Compare(b.Wait, a.Wait); c != 0 {
			return c
		}
		return cmp.Compare(b.Acquisitions+b.ReadAcquisitions, a.Acquisitions+a.ReadAcquisitions)
	})
	return rows
}

// splits sums the page splits of every index in m.
func splits(m zipsim.Metrics) (leafSpace, leafZip, node uint64) {
	for _, x := range m.Indexes {
		leafSpace += x.BTree.LeafSplitsSpace
		leafZip += x.BTree.LeafSplitsZip
		node += x.BTree.NodeSplitsSpace + x.BTree.NodeSplitsZip
	}
	return
}

// WriteText writes the human report: the run header, load, throughput
// per interval, latency per operation, the key INNODB_CMP, buffer pool,
// lock, B-tree, I/O, space and memory lines, then the whole run's
// metrics tables (zipsim.Metrics.String).
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	h := r.Header
	wall := r.Totals.Wall

	b.WriteString("RUN\n")
	fmt.Fprintf(&b, "  workload %s  config %s  start %s\n", h.Workload, h.ConfigHash, h.Start.Format(time.RFC3339))
	fmt.Fprintf(&b, "  %s %s/%s  GOMAXPROCS %d  NumCPU %d  czlib: %s\n", h.GoVersion, h.GOOS, h.GOARCH, h.GOMAXPROCS, h.NumCPU, h.CZlib)
	fmt.Fprintf(&b, "  rows %d  data (u) %s  disk (c) %s  disk/data %s  pool %s  pool/data %s  pool/disk %s\n",
		h.Rows, bytesStr(h.DataBytes), bytesStr(h.DiskBytes), f2(ratio(float64(h.DiskBytes), float64(h.DataBytes))),
		bytesStr(h.PoolSize), f2(h.PoolDataRatio), f2(h.PoolDiskRatio))
	b.WriteString("  knobs:\n")
	b.WriteString(wrap(knobs(h.Config), "    ", 100))

	if l := r.Load; l != nil {
		b.WriteString("\nLOAD\n")
		c := l.Metrics.Pool.CMP.Total()
		ls, lz, ln := splits(l.Metrics)
		fmt.Fprintf(&b, "  wall %ss  rows %d  rows/s %s  cpu %s  disk %s (%s of data)\n",
			sec(l.Wall), l.Rows, f1(l.RowsPerSec), pct(l.CPUUtil), bytesStr(l.DiskBytes), f2(ratio(float64(l.DiskBytes), float64(l.DataBytes))))
		fmt.Fprintf(&b, "  compress ops %d ok %d (failures %s%%)  uncompress ops %d  splits leaf %d (zip %d) node %d\n",
			c.CompressOps, c.CompressOpsOK, f1(c.FailurePct()), c.UncompressOps, ls, lz, ln)
	}

	b.WriteString("\n")
	rows := make([][]string, 0, len(r.Intervals)+1)
	for _, iv := range r.Intervals {
		c := iv.Metrics.Pool.CMP.Total()
		s1, s2, s3 := splits(iv.Metrics)
		rows = append(rows, []string{strconv.Itoa(iv.Index + 1), sec(iv.Start), sec(iv.End), i64(iv.Events), i64(iv.Ops),
			f1(iv.TPS), f1(iv.QPS), us(iv.Event.P95), pct(iv.CPUUtil), f4(iv.Metrics.Pool.HitRate()),
			u64(c.CompressOps), u64(c.UncompressOps), u64(s1 + s2 + s3)})
	}
	c := r.Metrics.Pool.CMP.Total()
	s1, s2, s3 := splits(r.Metrics)
	rows = append(rows, []string{"all", "0.000", sec(wall), i64(r.Totals.Events), i64(r.Totals.Ops),
		f1(r.Totals.TPS), f1(r.Totals.QPS), us(r.Event.P95), pct(r.Totals.CPUUtil), f4(r.Metrics.Pool.HitRate()),
		u64(c.CompressOps), u64(c.UncompressOps), u64(s1 + s2 + s3)})
	table.Write(&b, "THROUGHPUT (TPS = events/s, QPS = ops/s; CPU = cpu time / (wall × GOMAXPROCS))",
		[]string{"INTERVAL", "START_S", "END_S", "EVENTS", "OPS", "TPS", "QPS", "EVENT_P95_US", "CPU", "HIT_RATE",
			"COMPRESS_OPS", "UNCOMPRESS_OPS", "SPLITS"}, rows)

	b.WriteString("\n")
	rows = rows[:0]
	lat := func(name string, l Latency) []string {
		return []string{name, i64(l.Count), f1(ratio(float64(l.Count), wall.Seconds())), us(l.Mean), us(l.P50), us(l.P95), us(l.P99), us(l.Max)}
	}
	for _, o := range r.PerOp {
		rows = append(rows, lat(o.Op, o.Latency))
	}
	rows = append(rows, lat("(event)", r.Event))
	table.Write(&b, "LATENCY (µs, merged across threads)", []string{"OP", "COUNT", "PER_S", "MEAN", "P50", "P95", "P99", "MAX"}, rows)

	m := r.Metrics
	b.WriteString("\n")
	rows = rows[:0]
	for k, row := range m.Pool.CMP.BySize {
		if row.CompressOps == 0 && row.UncompressOps == 0 {
			continue
		}
		rows = append(rows, []string{strconv.Itoa(1024 << k), u64(row.CompressOps), u64(row.CompressOpsOK), f1(row.FailurePct()),
			f4(row.CompressTime.Seconds()), u64(row.UncompressOps), f4(row.UncompressTime.Seconds())})
	}
	if len(rows) == 0 {
		rows = append(rows, []string{"-", "0", "0", "0.0", "0.0000", "0", "0.0000"})
	}
	table.Write(&b, "COMPRESSION (INNODB_CMP over the run)", []string{"PAGE_SIZE", "COMPRESS_OPS", "COMPRESS_OPS_OK", "FAILURE_PCT",
		"COMPRESS_S", "UNCOMPRESS_OPS", "UNCOMPRESS_S"}, rows)

	b.WriteString("\n")
	p := m.Pool
	table.Write(&b, "BUFFER POOL (over the run; lengths at its end)", []string{"NAME", "VALUE"}, [][]string{
		{"page gets", u64(p.Gets)},
		{"hit rate (frame or zip block)", f4(p.HitRate())},
		{"hits on a frame", u64(p.HitsFrame)},
		{"hits needing decompression", u64(p.HitsUnzip)},
		{"hits on a zip block", u64(p.HitsZip)},
		{"misses (pages read)", u64(p.Reads)},
		{"pages written", u64(p.Writes)},
		{"evicted frame only", u64(p.EvictFrame)},
		{"evicted whole page", u64(p.EvictPage)},
		{"victim scans / mean / max", u64(p.Scans) + " / " + f1(p.ScanMean()) + " / " + strconv.Itoa(p.ScanMax)},
		{"LRU / unzip_LRU / free", strconv.Itoa(p.LRULen) + " / " + strconv.Itoa(p.UnzipLen) + " / " + strconv.Itoa(p.FreeLen)},
		{"compressed-only pages", strconv.Itoa(p.ZipOnly)},
	})

	b.WriteString("\n")
	rows = rows[:0]
	for i, l := range lockRows(m) {
		if i == 10 {
			break
		}
		rows = append(rows, []string{l.Name, u64(l.Acquisitions + l.ReadAcquisitions), f2(l.ContentionPct()), f4(l.Wait.Seconds()),
			pct(l.WaitShare(h.Threads, wall)), f1(float64(l.MaxWait) / 1e3), f1(float64(l.MaxHold) / 1e3)})
	}
	table.Write(&b, fmt.Sprintf("LOCKS (most wait first; wait share = wait / (%d threads × %ss))", h.Threads, sec(wall)),
		[]string{"NAME", "ACQUISITIONS", "CONTENDED_PCT", "WAIT_S", "WAIT_SHARE", "MAX_WAIT_US", "MAX_HOLD_US"}, rows)

	b.WriteString("\n")
	rows = rows[:0]
	for _, x := range m.Indexes {
		s := x.BTree
		rows = append(rows, []string{x.Space, x.Index, strconv.Itoa(s.Height), strconv.Itoa(s.LeafPages()), f1(s.RowsPerLeaf()),
			f1(100 * s.LeafFill()), u64(s.Inserts), u64(s.InsertsPessimistic), u64(s.LeafSplitsSpace), u64(s.LeafSplitsZip),
			u64(s.NodeSplitsSpace + s.NodeSplitsZip), u64(s.Reorganizations), u64(s.LatchMisses), strconv.Itoa(s.Pad)})
	}
	table.Write(&b, "B-TREES (counters over the run; shape at its end; leaf splits by space or by compression failure; latch misses are 0 unless SX misjudged)",
		[]string{"SPACE", "INDEX", "HEIGHT", "LEAVES", "ROWS/LEAF", "FILL_PCT", "INSERTS", "PESSIMISTIC", "SPLITS_SPACE",
			"SPLITS_ZIP", "NODE_SPLITS", "REORGS", "LATCH_MISSES", "PAD"}, rows)

	b.WriteString("\n")
	rows = rows[:0]
	for _, s := range m.Spaces {
		rows = append(rows, []string{s.Name, s.RowFormat.String(), strconv.Itoa(s.ZipSize), s.Compression,
			i64(s.Usage.Pages), bytesStr(s.Usage.LogicalBytes), bytesStr(s.Usage.AllocatedBytes), i64(s.Usage.Holes),
			u64(s.IO.Reads), u64(s.IO.Writes), bytesStr(s.IO.BytesRead), bytesStr(s.IO.BytesWritten)})
	}
	table.Write(&b, "SPACE AND I/O (files at the end; I/O over the run)", []string{"SPACE", "ROW_FORMAT", "ZIP_SIZE",
		"COMPRESSION", "PAGES", "LOGICAL", "ALLOCATED", "HOLES", "READS", "WRITES", "READ", "WRITTEN"}, rows)
	for _, ts := range []struct {
		title  string
		tables []TableSpace
	}{{"TABLE SPACE AFTER LOAD", loadTables(r.Load)}, {"TABLE SPACE AFTER RUN", r.Space}} {
		if len(ts.tables) == 0 {
			continue
		}
		b.WriteString("\n")
		rows = rows[:0]
		for _, t := range ts.tables {
			rows = append(rows, []string{t.Table, strconv.Itoa(t.PageBytes), i64(t.ClusteredPages), i64(t.SecondaryPages),
				i64(t.BlobPages), i64(t.FreePages), bytesStr(t.TotalBytes()), bytesStr(t.File.AllocatedBytes)})
		}
		table.Write(&b, ts.title, []string{"TABLE", "PAGE_BYTES", "CLUSTERED", "SECONDARY", "OFF_PAGE", "FREE", "TOTAL", "ALLOCATED"}, rows)
	}

	b.WriteString("\n")
	mm := r.Memory
	table.Write(&b, "MEMORY (Go runtime at the end; counters over the run)", []string{"NAME", "VALUE"}, [][]string{
		{"HeapAlloc", bytesStr(mm.HeapAlloc)},
		{"HeapInuse", bytesStr(mm.HeapInuse)},
		{"HeapIdle", bytesStr(mm.HeapIdle)},
		{"HeapReleased", bytesStr(mm.HeapReleased)},
		{"Sys / peak", bytesStr(mm.Sys) + " / " + bytesStr(mm.PeakSys)},
		{"RSS / peak", bytesStr(mm.RSS) + " / " + bytesStr(mm.PeakRSS)},
		{"GC count", strconv.FormatUint(uint64(mm.NumGC), 10)},
		{"GC CPU fraction", pct(mm.GCCPUFraction)},
		{"allocations / bytes per event", f1(mm.AllocsPerEvent) + " / " + f1(mm.BytesPerEvent)},
	})

	b.WriteString("\nMETRICS (whole run)\n")
	b.WriteString(m.String())
	_, err := io.WriteString(w, b.String())
	return err
}

func loadTables(l *LoadResult) []TableSpace {
	if l == nil {
		return nil
	}
	return l.Tables
}

// csvFixed are the columns every CSV row has, before the per-interval
// and per-operation ones.
var csvFixed = []string{"config_hash", "workload", "seed", "threads", "row_format", "kbs", "page_size", "codec",
	"pool_size", "partitions", "locking", "io_latency_us", "rows", "data_bytes", "disk_bytes", "load_wall_s", "load_rows_per_s"}

// csvKeys are the measured columns, after the per-interval ones.
var csvKeys = []string{"wall_s", "events", "ops", "tps", "qps", "event_p50_us", "event_p95_us", "event_p99_us", "event_max_us",
	"compress_ops", "compress_ops_ok", "compress_fail_pct", "uncompress_ops", "pool_gets", "pool_hit_rate", "pool_reads",
	"evict_frame", "evict_page", "leaf_splits", "busiest_lock", "busiest_lock_wait_share", "cpu_util", "gc_cpu_fraction",
	"heap_inuse", "rss", "allocs_per_event"}

// csvName turns an operation name into a column prefix.
func csvName(op string) string {
	b := []byte(strings.ToLower(op))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func csvColumns(ops []string, perInterval bool) []string {
	cols := slices.Clone(csvFixed)
	if perInterval {
		cols = append(cols, "interval", "start_s", "end_s")
	}
	cols = append(cols, csvKeys...)
	for _, op := range ops {
		n := csvName(op)
		cols = append(cols, n+"_count", n+"_p50_us", n+"_p95_us", n+"_p99_us")
	}
	return cols
}

// CSVColumns returns the header WriteCSV writes: fixed columns (config
// hash and the main knobs), then with perInterval the interval's index
// and bounds, then the measured figures, then count, p50, p95 and p99
// for each of r's operations in Workload.Ops order. The order is stable
// for a workload.
func (r *Report) CSVColumns(perInterval bool) []string { return csvColumns(r.Header.Ops, perInterval) }

// WriteCSVHeader writes only the header row, for a file that several
// runs of one workload append to with WriteCSVRows (a sweep); reports
// of different workloads go together through WriteSweepCSV.
func (r *Report) WriteCSVHeader(w io.Writer, perInterval bool) error {
	cw := csv.NewWriter(w)
	cw.Write(r.CSVColumns(perInterval))
	cw.Flush()
	return cw.Error()
}

// WriteCSV writes the header and one row for the run, or with
// perInterval one row per interval.
func (r *Report) WriteCSV(w io.Writer, perInterval bool) error {
	if err := r.WriteCSVHeader(w, perInterval); err != nil {
		return err
	}
	return r.WriteCSVRows(w, perInterval)
}

// WriteCSVRows writes the rows WriteCSV writes, without the header.
func (r *Report) WriteCSVRows(w io.Writer, perInterval bool) error {
	cw := csv.NewWriter(w)
	for _, row := range r.csvRows(r.Header.Ops, perInterval) {
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// WriteSweepCSV writes one header and the rows of every report. The
// operation columns are the union of the reports' operations in the
// order first seen; a report without an operation leaves its cells
// empty.
func WriteSweepCSV(w io.Writer, perInterval bool, reports ...*Report) error {
	var ops []string
	for _, r := range reports {
		for _, op := range r.Header.Ops {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	cw := csv.NewWriter(w)
	cw.Write(csvColumns(ops, perInterval))
	for _, r := range reports {
		for _, row := range r.csvRows(ops, perInterval) {
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvRows builds r's rows with operation columns for ops.
func (r *Report) csvRows(ops []string, perInterval bool) [][]string {
	h := r.Header
	fixed := []string{h.ConfigHash, h.Workload, u64(h.Seed), strconv.Itoa(h.Threads), h.RowFormat, strconv.Itoa(h.KBS),
		strconv.Itoa(h.PageSize), h.Codec, i64(h.PoolSize), strconv.Itoa(h.Partitions), h.Locking,
		f1(float64(h.IOLatency) / 1e3), i64(h.Rows), i64(h.DataBytes), i64(h.DiskBytes), "", ""}
	if l := r.Load; l != nil {
		fixed[len(fixed)-2], fixed[len(fixed)-1] = sec(l.Wall), f1(l.RowsPerSec)
	}
	row := func(wall time.Duration, events, nops int64, tps, qps float64, ev Latency, perOp []OpLatency, m zipsim.Metrics,
		cpuUtil float64, mem Memory) []string {
		c := m.Pool.CMP.Total()
		ls, lz, _ := splits(m)
		lockName, share := "", 0.0
		if l, ok := busiestLock(m); ok {
			lockName, share = l.Name, l.WaitShare(h.Threads, wall)
		}
		out := []string{sec(wall), i64(events), i64(nops), f2(tps), f2(qps), us(ev.P50), us(ev.P95), us(ev.P99), us(ev.Max),
			u64(c.CompressOps), u64(c.CompressOpsOK), f2(c.FailurePct()), u64(c.UncompressOps), u64(m.Pool.Gets),
			f4(m.Pool.HitRate()), u64(m.Pool.Reads), u64(m.Pool.EvictFrame), u64(m.Pool.EvictPage), u64(ls + lz),
			lockName, f4(share), f4(cpuUtil), f4(mem.GCCPUFraction), u64(mem.HeapInuse), u64(mem.RSS), f1(mem.AllocsPerEvent)}
		for _, op := range ops {
			i := slices.IndexFunc(perOp, func(o OpLatency) bool { return o.Op == op })
			if i < 0 {
				out = append(out, "", "", "", "")
				continue
			}
			l := perOp[i].Latency
			out = append(out, i64(l.Count), us(l.P50), us(l.P95), us(l.P99))
		}
		return out
	}
	if !perInterval {
		t := r.Totals
		return [][]string{append(slices.Clone(fixed), row(t.Wall, t.Events, t.Ops, t.TPS, t.QPS, r.Event, r.PerOp, r.Metrics, t.CPUUtil, r.Memory)...)}
	}
	var rows [][]string
	for _, iv := range r.Intervals {
		rr := append(slices.Clone(fixed), strconv.Itoa(iv.Index+1), sec(iv.Start), sec(iv.End))
		rr = append(rr, row(iv.End-iv.Start, iv.Events, iv.Ops, iv.TPS, iv.QPS, iv.Event, iv.PerOp, iv.Metrics, iv.CPUUtil, iv.Memory)...)
		rows = append(rows, rr)
	}
	return rows
}
