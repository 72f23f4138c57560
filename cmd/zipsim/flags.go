package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/zipsim/zipsim/sim"
)

// exitError carries the exit status of a failed command: 2 for bad usage
// (a bad flag, an impossible combination of knobs), 1 for everything else
// (a missing or damaged data file, a failed run).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usagef is a bad-usage error: exit status 2.
func usagef(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// usageErr turns err into a bad-usage error.
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: 2, err: err}
}

// exitCode is the status err asks for: 0 for nil, 2 for bad usage, 1
// otherwise.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// parseSize reads a byte count with an optional binary suffix: 512, 16K,
// 64M, 1G, 1.5G, 2T; a trailing B or iB is allowed (64MB, 64MiB) and means
// the same. Suffixes are powers of 1024, as InnoDB's size options.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("size %q: empty", s)
	}
	u := strings.ToUpper(t)
	u = strings.TrimSuffix(u, "IB")
	u = strings.TrimSuffix(u, "B")
	mult := int64(1)
	if n := len(u); n > 0 {
		switch u[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult != 1 {
			u = u[:n-1]
		}
	}
	if u == "" {
		return 0, fmt.Errorf("size %q: no number", s)
	}
	if n, err := strconv.ParseInt(u, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("size %q cannot be negative", s)
		}
		if n > math.MaxInt64/mult {
			return 0, fmt.Errorf("size %q is too large", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(u, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("size %q: use a number with an optional K, M, G or T suffix (64M, 1G)", s)
	}
	if f < 0 {
		return 0, fmt.Errorf("size %q cannot be negative", s)
	}
	v := f * float64(mult)
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}

// formatSize prints a byte count with the largest binary suffix that
// divides it, or as a decimal with one digit after the point.
func formatSize(n int64) string {
	for _, u := range []struct {
		s string
		v int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return fmt.Sprintf("%d%s", n/u.v, u.s)
		}
	}
	return strconv.FormatInt(n, 10)
}

// humanBytes prints a byte count for people: 1.5 MiB.
func humanBytes(n int64) string {
	f := float64(n)
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if math.Abs(f) < 1024 || u == "TiB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.1f %s", f, u)
		}
		f /= 1024
	}
	return fmt.Sprint(n)
}

// sizeValue is a flag holding a byte count with suffixes.
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string {
	if v.p == nil || *v.p == 0 {
		return "0"
	}
	return formatSize(*v.p)
}

func (v sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// intSizeValue is a sizeValue for an int field.
type intSizeValue struct{ p *int }

func (v intSizeValue) String() string {
	if v.p == nil || *v.p == 0 {
		return "0"
	}
	return formatSize(int64(*v.p))
}

func (v intSizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("size %q is too large", s)
	}
	*v.p = int(n)
	return nil
}

// kbsValue is KEY_BLOCK_SIZE in KiB: "8", or with a suffix "8K" or "8192B"
// read as bytes; 0 means none.
type kbsValue struct{ p *int }

func (v kbsValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v kbsValue) Set(s string) error {
	t := strings.TrimSpace(s)
	if n, err := strconv.Atoi(t); err == nil {
		if n < 0 {
			return fmt.Errorf("KEY_BLOCK_SIZE %q cannot be negative", s)
		}
		*v.p = n
		return nil
	}
	n, err := parseSize(t)
	if err != nil || n%1024 != 0 {
		return fmt.Errorf("KEY_BLOCK_SIZE %q: use 1, 2, 4, 8 or 16 (KiB), or 0 for none", s)
	}
	*v.p = int(n / 1024)
	return nil
}

// oldBlocksTimeValue is innodb_old_blocks_time as InnoDB spells it: 0 is
// none, which sim.Config holds as a negative duration because its zero
// value is the 1s default.
type oldBlocksTimeValue struct{ p *time.Duration }

func (v oldBlocksTimeValue) String() string {
	if v.p == nil {
		return sim.OldBlocksTimeText(0)
	}
	return sim.OldBlocksTimeText(*v.p)
}

func (v oldBlocksTimeValue) Set(s string) error {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("old-blocks-time %q: use a duration (1s, 500ms), or 0 for none", s)
	case d < 0:
		return fmt.Errorf("old-blocks-time %q cannot be negative: use 0 for none", s)
	case d == 0:
		*v.p = -1
	default:
		*v.p = d
	}
	return nil
}

// knob is one flag bound to a field of sim.Config.
type knob struct {
	name  string
	data  bool // it decides what the prepared data is (run --data checks it)
	usage string
	// workload is the workload the knob belongs to, "" for all.
	workload string
	// field returns a pointer to the knob's field in c.
	field func(c *sim.Config) any
	// value makes the flag.Value of the field; nil means the flag
	// package's own for the field's type.
	value func(c *sim.Config) flag.Value
}

// knobs are the Config's flags, in the order usage prints them.
var knobs = []knob{
	{name: "workload", data: true, usage: "sysbench, linkbench or document", field: func(c *sim.Config) any { return &c.Workload }},
	{name: "seed", data: true, usage: "seed of the data and of the operation choices", field: func(c *sim.Config) any { return &c.Seed }},
	{workload: "sysbench", name: "tables", data: true, usage: "sysbench: tables sbtest1..N (default 1)", field: func(c *sim.Config) any { return &c.Sysbench.Tables }},
	{workload: "sysbench", name: "rows", data: true, usage: "sysbench: rows per table (default 10000)", field: func(c *sim.Config) any { return &c.Sysbench.Rows }},
	{workload: "sysbench", name: "data-style", data: true, usage: "sysbench: sb10 (random digits, pages compress about 2:1) or legacy04 (sysbench 0.4's constant rows)", field: func(c *sim.Config) any { return &c.Sysbench.DataStyle }},
	{workload: "linkbench", name: "maxid1", data: true, usage: "linkbench: node ids 1..maxid1-1 (default 100000)", field: func(c *sim.Config) any { return &c.Linkbench.MaxID1 }},
	{workload: "document", name: "docs", data: true, usage: "document: documents to load (default 2000)", field: func(c *sim.Config) any { return &c.Document.Docs }},
	{workload: "document", name: "small-docs", data: true, usage: "document: share of small documents, 0..1", field: func(c *sim.Config) any { return &c.Document.SmallDocs }},
	{name: "page-size", data: true, usage: "innodb_page_size: 4K, 8K or 16K (default 16K)", field: func(c *sim.Config) any { return &c.PageSize },
		value: func(c *sim.Config) flag.Value { return intSizeValue{&c.PageSize} }},
	{name: "row-format", data: true, usage: "compact, dynamic, compressed or transparent (default dynamic, compressed with --kbs)", field: func(c *sim.Config) any { return &c.RowFormat }},
	{name: "kbs", data: true, usage: "KEY_BLOCK_SIZE in KiB: 1, 2, 4, 8 or 16; 0 for none", field: func(c *sim.Config) any { return &c.KBS },
		value: func(c *sim.Config) flag.Value { return kbsValue{&c.KBS} }},
	{name: "codec", data: true, usage: "page codec of compressed tables, or transparent compression's: zlib:1..9, zstd, s2, none (default zlib:6)", field: func(c *sim.Config) any { return &c.Codec }},
	{name: "partitions", data: true, usage: "hash partitions per table (0 for none)", field: func(c *sim.Config) any { return &c.Partitions }},
	{name: "merge-threshold", data: true, usage: "MERGE_THRESHOLD of every table (MySQL 5.7): a page whose data falls below this percent of the page merges with a neighbour, 1..50 (default 50)", field: func(c *sim.Config) any { return &c.MergeThreshold }},
	{workload: "linkbench", name: "loaders", usage: "linkbench: link loaders (default --threads)", field: func(c *sim.Config) any { return &c.Linkbench.Loaders }},

	{name: "threads", usage: "goroutines issuing operations", field: func(c *sim.Config) any { return &c.Threads }},
	{name: "duration", usage: "how long to measure (default 10s unless --events)", field: func(c *sim.Config) any { return &c.Duration }},
	{name: "events", usage: "or how many events (transactions) to measure in all", field: func(c *sim.Config) any { return &c.Events }},
	{name: "warmup", usage: "run this long before measuring", field: func(c *sim.Config) any { return &c.Warmup }},
	{name: "interval", usage: "report interval (default duration/10, at least 1s)", field: func(c *sim.Config) any { return &c.ReportInterval }},
	{workload: "sysbench", name: "event", usage: "sysbench: oltp_read_only, oltp_read_write, oltp_write_only or oltp_point_select", field: func(c *sim.Config) any { return &c.Sysbench.Event }},
	{workload: "sysbench", name: "dist", usage: "sysbench: key distribution uniform, gaussian, special, pareto or zipfian", field: func(c *sim.Config) any { return &c.Sysbench.Dist }},
	{workload: "sysbench", name: "range-size", usage: "sysbench: rows per range read (default 100)", field: func(c *sim.Config) any { return &c.Sysbench.RangeSize }},
	{workload: "sysbench", name: "table-per-statement", usage: "sysbench: a new random table per statement group (1.0) instead of per event (0.5)", field: func(c *sim.Config) any { return &c.Sysbench.TablePerStatement }},
	{name: "pool", usage: "buffer pool size (64M, 1G); default --pool-ratio of the data, or 128M", field: func(c *sim.Config) any { return &c.PoolBytes },
		value: func(c *sim.Config) flag.Value { return sizeValue{&c.PoolBytes} }},
	{name: "pool-ratio", usage: "buffer pool as a fraction of the uncompressed data, when --pool is not given", field: func(c *sim.Config) any { return &c.PoolRatio }},
	{name: "instances", usage: "buffer pool instances (default 1, or 8 from 1G)", field: func(c *sim.Config) any { return &c.Instances }},
	{name: "locking", usage: "buffer pool locking: split (8.0, per instance), legacy (5.1 plugin, pool-wide mutexes) or global (5.1 builtin: legacy plus the pool mutex on every page fix)", field: func(c *sim.Config) any { return &c.Locking }},
	{name: "latches", usage: "latch implementation: go (Go's sync locks), builtin (5.1 builtin InnoDB: rw-lock state under a mutex of its own, mutexes that spin 20 rounds and then sleep in one sync array) or plugin (5.1 plugin to 5.6: rw-locks of one atomic word, spinning 30 rounds with PAUSE, then the sync array)", field: func(c *sim.Config) any { return &c.Latches }},
	{name: "io", usage: "simulated read and write latency per page (100us); 0 is the OS cache", field: func(c *sim.Config) any { return &c.IOLatency }},
	{name: "no-timer-pump", usage: "sleep --io latencies with time.Sleep alone: no timer pump, so sub-millisecond sleeps last about 1 ms while the process idles, less when it is busy", field: func(c *sim.Config) any { return &c.NoTimerPump }},
	{name: "no-pad", usage: "turn adaptive padding of compressed pages off", field: func(c *sim.Config) any { return &c.PadDisabled }},
	{name: "frames", usage: "frame memory: arena (preallocated, off the Go heap) or per-miss (an allocation per frame taken)", field: func(c *sim.Config) any { return &c.Frames }},
	{name: "log-compressed-pages", usage: "innodb_log_compressed_pages=ON (MySQL 5.6/5.7): a full modification log does not reorganize the page before the insert", field: func(c *sim.Config) any { return &c.LogCompressedPages }},
	{name: "sx-index-lock", usage: "structure changes take the index lock SX, as MySQL 5.7 and MariaDB 10.2+ do, latching the pages they may change top-down in advance, so searches and optimistic writes go on beside them; without it a split or merge takes the lock exclusively, as 5.6 and earlier did, waiting for the searches in the index to leave and keeping new ones out", field: func(c *sim.Config) any { return &c.SXIndexLock }},
	{name: "no-sibling-insert", usage: "split a full leaf whenever a record does not fit it, as InnoDB up to 5.6; 5.7 and MariaDB first offer a record that belongs at the leaf's end to the next leaf (btr_insert_into_right_sibling)", field: func(c *sim.Config) any { return &c.NoSiblingInsert }},
	{name: "no-zlib-reuse", usage: "build codec state afresh per page compression and decompression (zlib_reuse=off)", field: func(c *sim.Config) any { return &c.NoZlibReuse }},
	{name: "page-cleaner", usage: "run InnoDB's page cleaner: a goroutine that keeps --lru-scan-depth frames free per instance, writing dirty pages from the LRU tail, so fixers seldom write their victims", field: func(c *sim.Config) any { return &c.PageCleaner }},
	{name: "old-blocks-time", usage: "innodb_old_blocks_time: how long a page read into the old sublist must stay before an access makes it young; 0 is none, 5.1 and 5.5's default, and 1s 5.6's", field: func(c *sim.Config) any { return &c.OldBlocksTime },
		value: func(c *sim.Config) flag.Value { return oldBlocksTimeValue{&c.OldBlocksTime} }},
	{name: "compressed-leaf-reserve", usage: "keep 1/16 of compressed clustered leaves free for updates on ordered inserts, as uncompressed ones: InnoDB's rule up to 5.6.10, before MySQL Bug #69140's fix", field: func(c *sim.Config) any { return &c.CompressedLeafReserve }},
	{name: "lru-scan-depth", usage: "innodb_lru_scan_depth: the first victim scan of unzip_LRU, and the free frames the page cleaner keeps per instance (default 1024)", field: func(c *sim.Config) any { return &c.LRUScanDepth }},
	{name: "statement-cpu", usage: "CPU each operation spends after the engine, as a MySQL server's SQL layer does (T1, T4 and T5 use 9us: MariaDB's server CPU per cached point select on this project's machine, less zipsim's engine's); 0 for none", field: func(c *sim.Config) any { return &c.StatementCPU }},
	{name: "row-cpu", usage: "CPU per row a range or multiget reads, as a server's handler and protocol do (T1 and T5 use 300ns, derived from MariaDB's read-only transaction on this project's machine); 0 for none", field: func(c *sim.Config) any { return &c.RowCPU }},
	{name: "load-row-cpu", usage: "CPU per row a load inserts, as a server's multi-row INSERT and the engine's transaction, undo and redo work zipsim does not model (T2 uses 3.9us and T7 4.5us: MariaDB's load CPU a row in their shapes on this project's machine, less zipsim's engine's); 0 for none", field: func(c *sim.Config) any { return &c.LoadRowCPU }},
	{name: "change-buffering", usage: "innodb_change_buffering=all (MySQL 5.5-8.0's default): inserts into and deletes from secondary-index leaves that are not in the pool wait in the change buffer until the leaf is read, instead of reading it", field: func(c *sim.Config) any { return &c.ChangeBuffering }},
	{name: "purge", usage: "stamp each written record's DB_TRX_ID and DB_ROLL_PTR and run MariaDB 10.3+'s purge: four purge threads later reset them, rewriting the record's leaf and reading it again if it left the pool; without it both stay zero", field: func(c *sim.Config) any { return &c.Purge }},
	{name: "thread-concurrency", usage: "innodb_thread_concurrency: at most this many workers inside the engine at once, the others sleeping 10ms once and then queueing; each statement enters the gate under one mutex, with 500 tickets for its later handler calls, and sysbench's simple range leaves it for each row it sends, as 5.1's server did (5.1's builtin InnoDB had 8; 0, the default, is no gate, as in the Plugin and from 5.4)", field: func(c *sim.Config) any { return &c.ThreadConcurrency }},
	{name: "ahi-parts", usage: "innodb_adaptive_hash_index_parts with --ahi, 1..512 (default 8, as 5.7; 1 is 5.6 and earlier's one btr_search_latch)", field: func(c *sim.Config) any { return &c.AdaptiveHashParts }},
	{name: "ahi", usage: "innodb_adaptive_hash_index=ON: point reads by primary key that the adaptive hash index knows skip the descent and the index lock", field: func(c *sim.Config) any { return &c.AdaptiveHash }},
}

// knobByName returns the knob called name.
func knobByName(name string) (knob, bool) {
	for _, k := range knobs {
		if k.name == name {
			return k, true
		}
	}
	return knob{}, false
}

// configFlags binds knobs to a Config on a FlagSet.
type configFlags struct {
	fs  *flag.FlagSet
	cfg sim.Config
}

// addConfigFlags registers every knob on fs, bound to the returned
// configFlags' cfg, which starts from def.
func addConfigFlags(fs *flag.FlagSet, def sim.Config) *configFlags {
	cf := &configFlags{fs: fs, cfg: def}
	for _, k := range knobs {
		if k.value != nil {
			fs.Var(k.value(&cf.cfg), k.name, k.usage)
			continue
		}
		switch p := k.field(&cf.cfg).(type) {
		case *string:
			fs.StringVar(p, k.name, *p, k.usage)
		case *int:
			fs.IntVar(p, k.name, *p, k.usage)
		case *int64:
			fs.Int64Var(p, k.name, *p, k.usage)
		case *uint64:
			fs.Uint64Var(p, k.name, *p, k.usage)
		case *float64:
			fs.Float64Var(p, k.name, *p, k.usage)
		case *bool:
			fs.BoolVar(p, k.name, *p, k.usage)
		case *time.Duration:
			fs.DurationVar(p, k.name, *p, k.usage)
		default:
			panic(fmt.Sprintf("knob %s: unhandled field type %T", k.name, p))
		}
	}
	return cf
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// check validates the Config as the command line gave it, before and
// after sim's Validate, with messages naming the flags. It returns the
// validated Config.
func (cf *configFlags) check() (sim.Config, error) {
	c := cf.cfg
	set := setFlags(cf.fs)
	for _, name := range []string{"threads", "tables", "rows", "maxid1", "docs", "range-size", "loaders"} {
		if !set[name] {
			continue
		}
		k, _ := knobByName(name)
		if n := reflect.ValueOf(k.field(&c)).Elem().Int(); n < 1 {
			return c, usagef("--%s %d: must be at least 1", name, n)
		}
	}
	if set["instances"] && c.Instances < 1 {
		return c, usagef("--instances %d: use 1..64", c.Instances)
	}
	if c.Instances > 64 {
		return c, usagef("--instances %d: use 1..64", c.Instances)
	}
	if set["duration"] && c.Duration <= 0 && c.Events == 0 {
		return c, usagef("--duration %v: must be positive (or give --events)", c.Duration)
	}
	if set["interval"] && c.ReportInterval <= 0 {
		return c, usagef("--interval %v: must be positive", c.ReportInterval)
	}
	if c.PageSize != 0 && c.PageSize != 4096 && c.PageSize != 8192 && c.PageSize != 16384 {
		return c, usagef("--page-size %s: use 4K, 8K or 16K", formatSize(int64(c.PageSize)))
	}
	page := c.PageSize
	if page == 0 {
		page = 16384
	}
	switch c.KBS {
	case 0, 1, 2, 4, 8, 16:
	default:
		return c, usagef("--kbs %d: KEY_BLOCK_SIZE is 1, 2, 4, 8 or 16 (KiB), or 0 for none", c.KBS)
	}
	if c.KBS*1024 > page {
		return c, usagef("--kbs %d is larger than the %dK page (--page-size %s): KEY_BLOCK_SIZE must be at most the page size", c.KBS, page/1024, formatSize(int64(page)))
	}
	if set["pool"] && c.PoolBytes == 0 {
		return c, usagef("--pool 0: give a size such as 64M, or leave --pool out for the default")
	}
	if c.PoolRatio < 0 || math.IsNaN(c.PoolRatio) || math.IsInf(c.PoolRatio, 0) {
		return c, usagef("--pool-ratio %v: must be a positive fraction", c.PoolRatio)
	}
	v, err := c.Validate()
	if err != nil {
		return c, usagef("%v", err)
	}
	for _, k := range knobs {
		if k.workload != "" && set[k.name] && k.workload != v.Workload {
			return v, usagef("--%s is a %s knob, and the workload is %s", k.name, k.workload, v.Workload)
		}
	}
	if v.PoolBytes > 0 {
		// A pool given in bytes can be checked before any data exists.
		if _, err := v.StoreOptions(0); err != nil {
			return v, usagef("--pool %s: %v", formatSize(v.PoolBytes), err)
		}
	}
	if v.RowFormat == "transparent" && v.Codec != "" && strings.HasPrefix(v.Codec, "none") {
		return v, usagef("--row-format transparent --codec %s: transparent compression needs a codec (zlib, zstd, s2)", v.Codec)
	}
	return v, nil
}

// newFlagSet makes a FlagSet that reports errors instead of exiting and
// prints nothing by itself.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseArgs parses args with fs, allowing flags after positional
// arguments (zipsim prepare DIR --rows 5000), and returns the positional
// ones. A bad flag is a bad-usage error naming the command; -h and --help
// are flag.ErrHelp.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s: %s (see zipsim %s -h)", fs.Name(), flagError(err), fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse stops at the first non-flag argument, or after "--".
		// After "--" everything is positional; the flag package hides
		// whether it saw one, so look at what preceded the rest.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError rewords the flag package's errors with the double-dash
// spelling the usage text shows.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "flag --" + name + " needs a value"
	}
	if i := strings.Index(msg, " for flag -"); i >= 0 && strings.HasPrefix(msg, "invalid value ") {
		return msg[:i] + " for --" + msg[i+len(" for flag -"):]
	}
	return msg
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// printFlags writes fs's flags as usage lines, "  --name value  usage
// (default x)": first those named in order, then the rest by name.
func printFlags(w io.Writer, fs *flag.FlagSet, order ...string) {
	done := map[string]bool{}
	line := func(f *flag.Flag) {
		if f == nil || done[f.Name] {
			return
		}
		done[f.Name] = true
		name, usage := flag.UnquoteUsage(f)
		switch f.Value.(type) {
		case sizeValue, intSizeValue:
			name = "size"
		case kbsValue:
			name = "KiB"
		}
		arg := "--" + f.Name
		if name != "" {
			arg += " " + name
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "-1" && f.DefValue != "false" && f.DefValue != "0s" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %-28s %s%s\n", arg, usage, def)
	}
	for _, n := range order {
		line(fs.Lookup(n))
	}
	fs.VisitAll(line)
}

// knobNames lists the knobs' flag names in their usage order.
func knobNames() []string {
	var out []string
	for _, k := range knobs {
		out = append(out, k.name)
	}
	return out
}
