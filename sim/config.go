package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/compress"
)

// minReportInterval keeps interval bookkeeping (a metrics snapshot and a
// stop-the-world memory read each) from becoming the workload.
const minReportInterval = 10 * time.Millisecond

// Config holds every knob of a run: the workload's, the store's and the
// runner's (research/targets.md §2, common knobs). The zero value of each
// field means its default; Validate fills them in and says what is wrong.
type Config struct {
	// Workload is "sysbench", "linkbench" or "document".
	Workload string `json:"workload"`
	// Seed makes data and operation choices reproducible.
	Seed uint64 `json:"seed"`

	// Runner.
	Threads        int           `json:"threads"`         // goroutines issuing operations; 0 means 1
	Duration       time.Duration `json:"duration"`        // how long to measure; 0 with Events 0 means 10s
	Events         int64         `json:"events"`          // or how many events (transactions) in all; 0 means by Duration
	Warmup         time.Duration `json:"warmup"`          // run before measuring, not reported
	ReportInterval time.Duration `json:"report_interval"` // 0 means Duration/10 (at least 1s) or, by Events, one interval

	// Store.
	PageSize           int           `json:"page_size"`            // 4096, 8192 or 16384; 0 means 16384
	RowFormat          string        `json:"row_format"`           // compact, dynamic, compressed or transparent; "" means dynamic (compressed when KBS is set)
	KBS                int           `json:"kbs"`                  // KEY_BLOCK_SIZE in KiB: 1, 2, 4, 8, 16; 0 means none (or page/2 for compressed)
	Codec              string        `json:"codec"`                // page codec of compressed tables, or transparent compression's; "" means zlib:6
	PoolBytes          int64         `json:"pool_bytes"`           // buffer pool size; 0 means PoolRatio of the uncompressed data, or 128 MiB
	PoolRatio          float64       `json:"pool_ratio"`           // pool as a fraction of the uncompressed data size, used when PoolBytes is 0
	Instances          int           `json:"instances"`            // buffer pool instances; 0 means the pool's default
	Locking            string        `json:"locking"`              // "split" (8.0) or "legacy" (5.1); "" means split
	Latches            string        `json:"latches"`              // latch implementation: "go" (Go's sync locks), "builtin" (5.0/5.1 builtin: rw-lock state under a mutex, spin then sync array) or "plugin" (5.1 plugin to 5.6: atomic lock words, spin then sync array); "" means go
	Partitions         int           `json:"partitions"`           // hash partitions per table; 0 means none
	MergeThreshold     int           `json:"merge_threshold"`      // MERGE_THRESHOLD of every table, 1..50 (page-full percent under which a page merges); 0 means 50
	IOLatency          time.Duration `json:"io_latency"`           // simulated read latency per page; 0 means the OS cache (no model)
	NoTimerPump        bool          `json:"no_timer_pump"`        // sleep the IO latency with time.Sleep alone, without storage's timer pump
	PadDisabled        bool          `json:"pad_disabled"`         // turn adaptive padding off
	Frames             string        `json:"frames"`               // "arena" (preallocated, the default) or "per-miss" (a Go allocation per frame taken)
	LogCompressedPages bool          `json:"log_compressed_pages"` // innodb_log_compressed_pages=ON (5.6/5.7's default); off is MariaDB's insert path
	NoSiblingInsert    bool          `json:"no_sibling_insert"`    // split a full leaf without offering the record to the next leaf first (InnoDB up to 5.6)
	SXIndexLock        bool          `json:"sx_index_lock"`        // structure changes take the index lock SX and latch their pages in advance, as 5.7 and MariaDB 10.2+ (zipsim.Options.SXIndexLock); off is 5.6's exclusive lock
	NoZlibReuse        bool          `json:"no_zlib_reuse"`        // build codec state per page (de)compression (zlib_reuse=off)
	AdaptiveHash       bool          `json:"adaptive_hash"`        // innodb_adaptive_hash_index=ON: point reads by primary key skip the descent when hashed
	AdaptiveHashParts  int           `json:"adaptive_hash_parts"`  // innodb_adaptive_hash_index_parts, 1..512, with AdaptiveHash; 0 means 8 (5.7's default; 5.6 and earlier had one latch)
	ChangeBuffering    bool          `json:"change_buffering"`     // innodb_change_buffering=all: secondary-index inserts and deletes on leaves not in the pool wait in the change buffer
	Purge              bool          `json:"purge"`                // MariaDB 10.3+'s purge: purge threads later reset each written record's DB_TRX_ID and DB_ROLL_PTR (zipsim.Options.Purge)
	ThreadConcurrency  int           `json:"thread_concurrency"`   // innodb_thread_concurrency, 1..1000: at most that many workers inside the engine at once, each statement entering the gate and sysbench's simple range leaving it for each row sent (zipsim.Options.ThreadConcurrency); 0 means no gate
	PageCleaner        bool          `json:"page_cleaner"`         // a background page cleaner keeps LRUScanDepth frames free per instance
	LRUScanDepth       int           `json:"lru_scan_depth"`       // innodb_lru_scan_depth; 0 means 1024
	OldBlocksTime      time.Duration `json:"old_blocks_time"`      // innodb_old_blocks_time; 0 means 1s (5.6+), negative means none (5.1 and 5.5's 0)
	// CompressedLeafReserve keeps 1/16 of compressed clustered leaves free
	// on ordered inserts, as InnoDB did up to 5.6.10 (MySQL Bug #69140).
	CompressedLeafReserve bool `json:"compressed_leaf_reserve"`

	// Server.
	StatementCPU time.Duration `json:"statement_cpu"` // CPU spent after each operation outside the engine (a MySQL server's SQL layer); 0 means none
	RowCPU       time.Duration `json:"row_cpu"`       // and per row a range or multiget reads (handler calls, sending); 0 means none
	// LoadRowCPU is spent after each row a load inserts: a multi-row
	// INSERT's parsing and handler calls [ha_innobase::write_row's
	// callers], and InnoDB's work a row that zipsim's engine does not
	// model: the transaction, the undo record on an undo page
	// [trx_undo_report_row_operation] and the redo it logs [mtr_commit,
	// log_write_low]. zipsim's undo is an in-memory statement log
	// (undo.go). 0 means none.
	LoadRowCPU time.Duration `json:"load_row_cpu"`

	// Workloads.
	Sysbench  SysbenchConfig  `json:"sysbench"`
	Linkbench LinkbenchConfig `json:"linkbench"`
	Document  DocumentConfig  `json:"document"`
}

// SysbenchConfig configures the sysbench workload (§2.1, §2.2).
type SysbenchConfig struct {
	Tables    int    `json:"tables"`     // sbtest1..N; 0 means 1
	Rows      int    `json:"rows"`       // rows per table; 0 means 10,000
	DataStyle string `json:"data_style"` // "sb10" (default) or "legacy04"
	Event     string `json:"event"`      // oltp_read_only (default), oltp_read_write, oltp_write_only, oltp_point_select
	Dist      string `json:"dist"`       // uniform (default), gaussian, special, pareto, zipfian
	RangeSize int    `json:"range_size"` // 0 means 100
	// TablePerStatement picks a new random table for each statement group
	// (sysbench 1.0) instead of one per event (0.5).
	TablePerStatement bool `json:"table_per_statement"`
}

// LinkbenchConfig configures the LinkBench-like workload (§2.3, §2.4).
type LinkbenchConfig struct {
	MaxID1  int `json:"maxid1"`  // node ids 1..MaxID1-1; 0 means 100,000
	Loaders int `json:"loaders"` // link loaders; 0 means Threads
}

// DocumentConfig configures the document workload (§2.5).
type DocumentConfig struct {
	Docs      int     `json:"docs"`       // 0 means 2,000
	SmallDocs float64 `json:"small_docs"` // share of small documents, 0..1
}

// OldBlocksTimeText writes an OldBlocksTime as InnoDB spells
// innodb_old_blocks_time: the zero value is the 1s default, a negative one
// is 0 (none).
func OldBlocksTimeText(d time.Duration) string {
	switch {
	case d == 0:
		return "1s"
	case d < 0:
		return "0"
	}
	return d.String()
}

// Validate checks c and returns it with its defaults filled in. Errors
// name the knob and what it allows.
func (c Config) Validate() (Config, error) {
	switch c.Workload {
	case "sysbench", "linkbench", "document":
	case "":
		c.Workload = "sysbench"
	default:
		return c, fmt.Errorf("workload %q: use sysbench, linkbench or document", c.Workload)
	}
	if c.Threads == 0 {
		c.Threads = 1
	}
	if c.Threads < 1 || c.Threads > 4096 {
		return c, fmt.Errorf("threads %d: use 1..4096", c.Threads)
	}
	if c.Duration < 0 || c.Events < 0 || c.Warmup < 0 || c.ReportInterval < 0 {
		return c, fmt.Errorf("duration, events, warmup and report interval cannot be negative")
	}
	if c.Duration == 0 && c.Events == 0 {
		c.Duration = 10 * time.Second
	}
	if c.ReportInterval == 0 && c.Duration > 0 {
		c.ReportInterval = max(c.Duration/10, time.Second)
	}
	if c.ReportInterval != 0 && c.ReportInterval < minReportInterval {
		return c, fmt.Errorf("report interval %v: use at least %v", c.ReportInterval, minReportInterval)
	}
	if c.PoolBytes < 0 || c.PoolRatio < 0 {
		return c, fmt.Errorf("pool size and ratio cannot be negative")
	}
	if c.PoolBytes > 0 && c.PoolRatio > 0 {
		return c, fmt.Errorf("pool %d bytes and pool ratio %v: give one of them", c.PoolBytes, c.PoolRatio)
	}
	switch c.PageSize {
	case 0:
		c.PageSize = 16384
	case 4096, 8192, 16384:
	default:
		return c, fmt.Errorf("page size %d: use 4096, 8192 or 16384", c.PageSize)
	}
	if c.Instances < 0 || c.Instances > 64 {
		return c, fmt.Errorf("instances %d: use 1..64, or 0 for the pool's default", c.Instances)
	}
	if c.IOLatency < 0 {
		return c, fmt.Errorf("io latency %v cannot be negative", c.IOLatency)
	}
	switch c.Locking {
	case "":
		c.Locking = "split"
	case "split", "legacy", "global":
	default:
		return c, fmt.Errorf("locking %q: use split, legacy or global", c.Locking)
	}
	if c.AdaptiveHashParts < 0 || c.AdaptiveHashParts > 512 {
		return c, fmt.Errorf("ahi parts %d: use 1..512, or 0 for 8", c.AdaptiveHashParts)
	}
	if c.AdaptiveHashParts != 0 && !c.AdaptiveHash {
		return c, fmt.Errorf("ahi parts %d without the adaptive hash index: add --ahi", c.AdaptiveHashParts)
	}
	if c.ThreadConcurrency < 0 || c.ThreadConcurrency > 1000 {
		return c, fmt.Errorf("thread_concurrency %d: use 1..1000, or 0 for no gate", c.ThreadConcurrency)
	}
	switch c.Latches {
	case "":
		c.Latches = "go"
	case "go", "builtin", "plugin":
	default:
		return c, fmt.Errorf("latches %q: use go, builtin or plugin", c.Latches)
	}
	switch c.Frames {
	case "":
		c.Frames = "arena"
	case "arena", "per-miss":
	default:
		return c, fmt.Errorf("frames %q: use arena or per-miss", c.Frames)
	}
	if c.LRUScanDepth < 0 {
		return c, fmt.Errorf("lru_scan_depth %d: use 1 or more, or 0 for 1024", c.LRUScanDepth)
	}
	switch c.RowFormat {
	case "":
		c.RowFormat = "dynamic"
		if c.KBS != 0 {
			c.RowFormat = "compressed"
		}
	case "compact", "dynamic", "compressed", "transparent":
	default:
		return c, fmt.Errorf("row format %q: use compact, dynamic, compressed or transparent", c.RowFormat)
	}
	if c.KBS != 0 && c.RowFormat != "compressed" {
		return c, fmt.Errorf("kbs %d needs row format compressed, not %s", c.KBS, c.RowFormat)
	}
	switch c.KBS {
	case 0, 1, 2, 4, 8, 16:
	default:
		return c, fmt.Errorf("kbs %d: use 1, 2, 4, 8 or 16", c.KBS)
	}
	if c.KBS*1024 > c.PageSize {
		return c, fmt.Errorf("kbs %d is larger than the %d-byte page: use at most %d", c.KBS, c.PageSize, c.PageSize/1024)
	}
	if c.RowFormat == "compressed" && c.KBS == 0 {
		c.KBS = c.PageSize / 2 / 1024
	}
	switch {
	case c.RowFormat == "compressed" || c.RowFormat == "transparent":
		set := compress.DefaultSetting
		if c.Codec == "" && c.RowFormat == "transparent" {
			c.Codec = "zlib"
		}
		if c.Codec != "" {
			var err error
			if set, err = compress.ParseSetting(c.Codec); err != nil {
				return c, fmt.Errorf("codec: %w", err)
			}
		}
		c.Codec = set.String()
	case c.Codec != "":
		return c, fmt.Errorf("codec %q: only compressed and transparent row formats compress", c.Codec)
	}
	if c.Partitions < 0 || c.Partitions > zipsim.MaxPartitions {
		return c, fmt.Errorf("partitions %d: use 0..%d", c.Partitions, zipsim.MaxPartitions)
	}
	if c.StatementCPU < 0 || c.StatementCPU > time.Second {
		return c, fmt.Errorf("statement_cpu %v: use 0 (none) up to 1s", c.StatementCPU)
	}
	if c.RowCPU < 0 || c.RowCPU > time.Millisecond {
		return c, fmt.Errorf("row_cpu %v: use 0 (none) up to 1ms", c.RowCPU)
	}
	if c.LoadRowCPU < 0 || c.LoadRowCPU > time.Millisecond {
		return c, fmt.Errorf("load_row_cpu %v: use 0 (none) up to 1ms", c.LoadRowCPU)
	}
	if c.MergeThreshold < 0 || c.MergeThreshold > 50 {
		return c, fmt.Errorf("merge_threshold %d: use 1..50, or 0 for 50", c.MergeThreshold)
	}
	var err error
	if c.Sysbench, err = c.Sysbench.validate(); err != nil {
		return c, err
	}
	if c.Linkbench, err = c.Linkbench.validate(c.Threads); err != nil {
		return c, err
	}
	if c.Document, err = c.Document.validate(); err != nil {
		return c, err
	}
	return c, nil
}

func (s SysbenchConfig) validate() (SysbenchConfig, error) {
	if s.Tables == 0 {
		s.Tables = 1
	}
	if s.Rows == 0 {
		s.Rows = 10_000
	}
	if s.RangeSize == 0 {
		s.RangeSize = 100
	}
	if s.Tables < 1 || s.Tables > 64 || s.Rows < 1 || s.Rows > math.MaxInt32 || s.RangeSize < 1 {
		return s, fmt.Errorf("sysbench: tables %d, rows %d, range size %d: use 1..64 tables and positive rows and range size", s.Tables, s.Rows, s.RangeSize)
	}
	switch s.DataStyle {
	case "", "sb05":
		s.DataStyle = "sb10" // sysbench 0.5 and 1.0 write the same values
	case "sb10", "legacy04":
	default:
		return s, fmt.Errorf("sysbench: data style %q: use sb10 or legacy04", s.DataStyle)
	}
	switch s.Event {
	case "":
		s.Event = "oltp_read_only"
	case "oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_point_select":
	default:
		return s, fmt.Errorf("sysbench: event %q: use oltp_read_only, oltp_read_write, oltp_write_only or oltp_point_select", s.Event)
	}
	switch s.Dist {
	case "":
		// sysbench 1.0's default; 0.4 and 0.5 (legacy04 data) used special.
		s.Dist = "uniform"
		if s.DataStyle == "legacy04" {
			s.Dist = "special"
		}
	case "uniform", "gaussian", "special", "pareto", "zipfian":
	default:
		return s, fmt.Errorf("sysbench: distribution %q: use uniform, gaussian, special, pareto or zipfian", s.Dist)
	}
	return s, nil
}

func (l LinkbenchConfig) validate(threads int) (LinkbenchConfig, error) {
	if l.MaxID1 == 0 {
		l.MaxID1 = 100_000
	}
	if l.Loaders == 0 {
		l.Loaders = threads
	}
	if l.MaxID1 < 2 || l.Loaders < 1 {
		return l, fmt.Errorf("linkbench: maxid1 %d, loaders %d: use maxid1 of 2 or more and at least one loader", l.MaxID1, l.Loaders)
	}
	return l, nil
}

func (d DocumentConfig) validate() (DocumentConfig, error) {
	if d.Docs == 0 {
		d.Docs = 2_000
	}
	if d.Docs < 1 || d.SmallDocs < 0 || d.SmallDocs > 1 {
		return d, fmt.Errorf("document: docs %d, small docs %v: use at least one document and a share in 0..1", d.Docs, d.SmallDocs)
	}
	return d, nil
}
