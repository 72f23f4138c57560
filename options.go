package zipsim

import (
	"fmt"
	"strings"
	"time"

	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/bufpool"
	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/storage"
)

// Options configure a Store. The zero value works: a 128 MiB buffer pool of
// 16 KiB pages with InnoDB's defaults.
type Options struct {
	// Pool configures the buffer pool: Bytes (innodb_buffer_pool_size),
	// PageSize (innodb_page_size), Instances, Locking and the LRU knobs.
	// Leave Latches and CMP nil: the pool then keeps its own lock registry
	// and INNODB_CMP counters, which every index of the store shares and
	// Metrics reports. PageSize 0 means 16384 for a new store and the
	// stored size when reopening one; any other value must match it.
	Pool bufpool.Options
	// Padding configures adaptive padding of compressed leaves for every
	// index, innodb_compression_failure_threshold_pct (ThresholdPct,
	// 1..100, 0 means 5) and innodb_compression_pad_pct_max (MaxPct, 1..75,
	// 0 means 50). Like InnoDB's, it is a server setting, not stored.
	Padding btree.Padding
	// LogCompressedPages is innodb_log_compressed_pages as MySQL 5.6 and
	// 5.7 ship it (ON): see btree.Options.LogCompressedPages. The zero
	// value behaves as MariaDB 10.3+ and as 5.6/5.7 with the option OFF.
	LogCompressedPages bool
	// NoSiblingInsert splits a full leaf whenever a record does not fit
	// it, as InnoDB up to 5.6 did: see btree.Options.NoSiblingInsert. The
	// zero value tries the next leaf first, as MySQL 5.7 and MariaDB 10.2+
	// do (under the same parent only, btree/doc.go).
	NoSiblingInsert bool
	// SXIndexLock runs every index lock as MySQL 5.7 and MariaDB 10.2+
	// do: a structure change takes it SX and latches the pages it may
	// change in advance, so searches and optimistic writes go on beside it
	// (btree.Options.SXIndexLock). The zero value is 5.6's and earlier's:
	// a structure change takes the lock exclusively and keeps every other
	// descent out of the index.
	SXIndexLock bool
	// CompressedLeafReserve keeps 1/16 of compressed clustered leaves free
	// for updates when inserts run in order, as uncompressed ones, which
	// InnoDB did up to 5.6.10 (btree.Options.CompressedLeafReserve). The
	// zero value is 5.6.11 and later.
	CompressedLeafReserve bool
	// Latency, when not nil, makes every tablespace's device take the time
	// the model says (storage.WithLatency): the simulated disk.
	Latency *storage.LatencyModel
	// NoSync skips fsync on files (innodb_flush_method=nosync), for
	// experiments where durability does not matter.
	NoSync bool
	// NoCodecReuse gives each compressed table a codec that builds its
	// zlib (or zstd, s2) state afresh on every page compression and
	// decompression (compress.Options.NoReuse), as InnoDB did before
	// Facebook cached its zlib heaps (research/targets.md T7 zlib_reuse,
	// T9). For measuring that cost only. Transparent compression keeps its
	// shared codec.
	NoCodecReuse bool
	// AdaptiveHashIndex is innodb_adaptive_hash_index: point reads whose
	// key the adaptive hash index knows skip the descent from the root
	// and the index lock (btree.AdaptiveHash). Off by default, as in
	// MariaDB 10.5+ and MySQL 8.4; MySQL 5.6 and 5.7 had it on.
	AdaptiveHashIndex bool
	// AdaptiveHashParts is innodb_adaptive_hash_index_parts, 1..512; 0
	// means 8. Only with AdaptiveHashIndex.
	AdaptiveHashParts int
	// ChangeBuffering is innodb_change_buffering=all: inserts into and
	// deletes from secondary-index leaves that are not in the pool wait in
	// the change buffer until the leaf is read (btree.ChangeBuffer). Off
	// by default, as in MySQL 8.4 and MariaDB 10.5+; MySQL 5.5 to 8.0 had
	// it on.
	ChangeBuffering bool
	// ChangeBufferMaxPct is innodb_change_buffer_max_size, 1..50; 0 means
	// 25. Only with ChangeBuffering.
	ChangeBufferMaxPct int
	// Purge stamps each write's clustered record with its DB_TRX_ID and
	// DB_ROLL_PTR and runs MariaDB 10.3+'s purge of them: purge threads
	// later reset both, rewriting the record's leaf and reading it again
	// if it left the pool (purge.go). Off, both stay zero, nearly as
	// MariaDB's purge leaves them, and no write is purged later; MySQL
	// keeps each writer's there. zipsim does the rest of purge, removing
	// delete-marked records, at once either way. Close purges what is
	// left and, after closing, returns the first error purge met.
	Purge bool
	// PurgeThreads is innodb_purge_threads, 1..32; 0 means 4. Only with
	// Purge.
	PurgeThreads int
	// ThreadConcurrency is innodb_thread_concurrency, 1..1000: at most
	// that many sessions are inside the engine at once, the others sleep
	// and queue (gate.go). Only calls whose context carries a Session
	// pass the gate. 0 is no gate, the default from MySQL 5.4 and in the
	// InnoDB Plugin; MySQL 5.1's builtin InnoDB had 8.
	ThreadConcurrency int
	// ConcurrencyTickets is innodb_concurrency_tickets, 1..1<<30: the
	// handler calls a session makes after entering the gate before it has
	// to enter again; 0 means 500. Only with ThreadConcurrency.
	ConcurrencyTickets int
	// ThreadSleepDelay is innodb_thread_sleep_delay, up to 1s: how long a
	// session that finds the gate full sleeps before it queues; 0 means
	// 10ms, negative means no sleep. Only with ThreadConcurrency.
	ThreadSleepDelay time.Duration
}

// validate checks what Open does not leave to the layers below.
func (o Options) validate() error {
	p := o.Padding
	if p.ThresholdPct < 0 || p.ThresholdPct > 100 {
		return fmt.Errorf("zipsim: Options.Padding.ThresholdPct is %d: use 1..100, 0 for 5 (set Disabled to turn padding off)", p.ThresholdPct)
	}
	if p.MaxPct < 0 || p.MaxPct > 75 {
		return fmt.Errorf("zipsim: Options.Padding.MaxPct is %d: use 1..75, 0 for 50", p.MaxPct)
	}
	if o.AdaptiveHashParts < 0 || o.AdaptiveHashParts > 512 {
		return fmt.Errorf("zipsim: Options.AdaptiveHashParts is %d: use 1..512, 0 for 8", o.AdaptiveHashParts)
	}
	if o.AdaptiveHashParts != 0 && !o.AdaptiveHashIndex {
		return fmt.Errorf("zipsim: Options.AdaptiveHashParts is %d but AdaptiveHashIndex is off: set AdaptiveHashIndex too, or leave the parts 0", o.AdaptiveHashParts)
	}
	if o.ChangeBufferMaxPct < 0 || o.ChangeBufferMaxPct > 50 {
		return fmt.Errorf("zipsim: Options.ChangeBufferMaxPct is %d: use 1..50, 0 for 25", o.ChangeBufferMaxPct)
	}
	if o.PurgeThreads < 0 || o.PurgeThreads > 32 {
		return fmt.Errorf("zipsim: Options.PurgeThreads is %d: use 1..32, 0 for 4", o.PurgeThreads)
	}
	if o.PurgeThreads != 0 && !o.Purge {
		return fmt.Errorf("zipsim: Options.PurgeThreads is %d but Purge is off: set Purge too, or leave it 0", o.PurgeThreads)
	}
	if o.ThreadConcurrency < 0 || o.ThreadConcurrency > 1000 {
		return fmt.Errorf("zipsim: Options.ThreadConcurrency is %d: use 1..1000, 0 for no gate", o.ThreadConcurrency)
	}
	if o.ConcurrencyTickets < 0 || o.ConcurrencyTickets > 1<<30 {
		return fmt.Errorf("zipsim: Options.ConcurrencyTickets is %d: use 1..%d, 0 for 500", o.ConcurrencyTickets, 1<<30)
	}
	if o.ThreadSleepDelay > time.Second {
		return fmt.Errorf("zipsim: Options.ThreadSleepDelay is %v: use up to 1s, 0 for 10ms, negative for none", o.ThreadSleepDelay)
	}
	if o.ThreadConcurrency == 0 && (o.ConcurrencyTickets != 0 || o.ThreadSleepDelay != 0) {
		return fmt.Errorf("zipsim: Options.ConcurrencyTickets and ThreadSleepDelay need ThreadConcurrency: set it too, or leave them 0")
	}
	if o.ChangeBufferMaxPct != 0 && !o.ChangeBuffering {
		return fmt.Errorf("zipsim: Options.ChangeBufferMaxPct is %d but ChangeBuffering is off: set ChangeBuffering too, or leave it 0", o.ChangeBufferMaxPct)
	}
	return nil
}

// RowFormat is a table's ROW_FORMAT.
type RowFormat uint8

// Row formats. COMPACT and DYNAMIC differ only in how they store long
// columns off-page, which zipsim does not do yet, so for now they store
// rows alike; COMPRESSED keeps every page compressed in KEY_BLOCK_SIZE.
const (
	Dynamic RowFormat = iota // the zero value, InnoDB's default since 5.7
	Compact
	Compressed
)

var rowFormatNames = [...]string{Dynamic: "DYNAMIC", Compact: "COMPACT", Compressed: "COMPRESSED"}

// String returns DYNAMIC, COMPACT or COMPRESSED.
func (f RowFormat) String() string {
	if int(f) < len(rowFormatNames) {
		return rowFormatNames[f]
	}
	return fmt.Sprintf("RowFormat(%d)", uint8(f))
}

// MarshalText writes the name String returns, for the catalog.
func (f RowFormat) MarshalText() ([]byte, error) {
	if int(f) >= len(rowFormatNames) {
		return nil, fmt.Errorf("zipsim: unknown row format %d", uint8(f))
	}
	return []byte(f.String()), nil
}

// UnmarshalText reads DYNAMIC, COMPACT or COMPRESSED, in any case.
func (f *RowFormat) UnmarshalText(b []byte) error {
	for i, n := range rowFormatNames {
		if strings.EqualFold(string(b), n) {
			*f = RowFormat(i)
			return nil
		}
	}
	return fmt.Errorf("zipsim: unknown row format %q: use DYNAMIC, COMPACT or COMPRESSED", b)
}

// TableOptions describe a table: CREATE TABLE's columns, keys and table
// options. Table.Options returns them with defaults filled in, which is
// also what the catalog stores.
type TableOptions struct {
	Columns []Column
	// PrimaryKey names the clustered index's columns, in key order.
	PrimaryKey []string
	// SecondaryIndexes are non-unique secondary indexes, kept up to date
	// on every write.
	SecondaryIndexes []IndexDef
	// RowFormat is ROW_FORMAT. A KeyBlockSize given with the zero value
	// (Dynamic) makes the table Compressed, as KEY_BLOCK_SIZE alone does;
	// with Compact it is an error, as in InnoDB's strict mode.
	RowFormat RowFormat
	// KeyBlockSize is KEY_BLOCK_SIZE in KiB: 1, 2, 4, 8 or 16, at most the
	// page size. 0 on a Compressed table means half the page size.
	KeyBlockSize int
	// Codec compresses a Compressed table's pages, as compress.ParseSetting
	// reads it: "zlib:6", "zlib:1", "zstd", "s2", ... "" means zlib:6
	// (innodb_compression_level=6). Only Compressed tables take one.
	Codec string
	// Compression is MySQL 5.7's transparent page compression
	// (COMPRESSION=), done by the tablespace on write with hole punching:
	// a compress setting such as "zlib" or "zstd", "" or "none" for off.
	// It cannot be combined with ROW_FORMAT=COMPRESSED.
	Compression string
	// Partitions splits the table into that many partitions (PARTITION BY
	// KEY ... PARTITIONS n), each a tablespace with its own indexes and
	// index locks; 0 and 1 mean none. At most MaxPartitions.
	Partitions int
	// PartitionBy names the columns whose hash picks a row's partition,
	// MySQL's and MariaDB's KEY partitioning hash (keyhash.go); they must
	// be primary key columns. Empty means the whole primary key. Naming
	// fewer, such as linkbench's id1, keeps rows that share them in one
	// partition, so scans bounded on them read one partition.
	PartitionBy []string
	// MergeThresholdPct is MERGE_THRESHOLD: a page whose data falls below
	// this share after a delete is merged with a neighbour. 1..50; 0
	// means 50.
	MergeThresholdPct int
}

// withDefaults validates the table options other than the schema (which
// compile checks) for a store of pageSize pages and fills in defaults.
func (o TableOptions) withDefaults(pageSize int) (TableOptions, error) {
	if int(o.RowFormat) >= len(rowFormatNames) {
		return o, fmt.Errorf("row format %d: use Dynamic, Compact or Compressed", uint8(o.RowFormat))
	}
	switch o.KeyBlockSize {
	case 0, 1, 2, 4, 8, 16:
	default:
		return o, fmt.Errorf("KEY_BLOCK_SIZE=%d: use 1, 2, 4, 8 or 16 (KiB), or 0", o.KeyBlockSize)
	}
	if o.KeyBlockSize*1024 > pageSize {
		return o, fmt.Errorf("KEY_BLOCK_SIZE=%d is larger than the %d-byte pages: use at most %d", o.KeyBlockSize, pageSize, pageSize/1024)
	}
	if o.KeyBlockSize != 0 {
		if o.RowFormat == Compact {
			return o, fmt.Errorf("KEY_BLOCK_SIZE=%d needs ROW_FORMAT=COMPRESSED, not COMPACT", o.KeyBlockSize)
		}
		o.RowFormat = Compressed
	}
	if o.RowFormat == Compressed {
		if o.KeyBlockSize == 0 {
			o.KeyBlockSize = pageSize / 2 / 1024
		}
		set := compress.DefaultSetting
		if o.Codec != "" {
			var err error
			if set, err = compress.ParseSetting(o.Codec); err != nil {
				return o, fmt.Errorf("Codec: %w", err)
			}
		}
		o.Codec = set.String()
	} else if o.Codec != "" {
		return o, fmt.Errorf("Codec %q: only ROW_FORMAT=COMPRESSED tables compress pages; use Compression for transparent page compression", o.Codec)
	}
	if c := strings.TrimSpace(o.Compression); c == "" || strings.EqualFold(c, "none") {
		o.Compression = ""
	} else {
		if o.RowFormat == Compressed {
			return o, fmt.Errorf("Compression %q cannot be combined with ROW_FORMAT=COMPRESSED", o.Compression)
		}
		set, err := compress.ParseSetting(c)
		if err != nil {
			return o, fmt.Errorf("Compression: %w", err)
		}
		o.Compression = set.String()
	}
	if o.Partitions == 0 {
		o.Partitions = 1
	}
	if o.Partitions < 1 || o.Partitions > MaxPartitions {
		return o, fmt.Errorf("%d partitions: use 1..%d (0 means 1)", o.Partitions, MaxPartitions)
	}
	if o.MergeThresholdPct == 0 {
		o.MergeThresholdPct = 50
	}
	if o.MergeThresholdPct < 1 || o.MergeThresholdPct > 50 {
		return o, fmt.Errorf("MergeThresholdPct is %d: use 1..50 (0 means 50)", o.MergeThresholdPct)
	}
	return o, nil
}

// zipSize is the compressed page size in bytes, 0 when uncompressed.
func (o TableOptions) zipSize() int {
	if o.RowFormat != Compressed {
		return 0
	}
	return o.KeyBlockSize * 1024
}
