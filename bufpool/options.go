package bufpool

import (
	"fmt"
	"time"

	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/internal/latch"
	"github.com/zipsim/zipsim/lru"
	"github.com/zipsim/zipsim/page"
)

// Locking selects which mutexes guard the pool's lists, to compare the
// designs whose contention the seeds measured.
type Locking uint8

const (
	// Split models MySQL 8.0 / Percona's split buffer pool mutexes
	// (WL#8423): each instance has its own LRU_list_mutex, free_list_mutex,
	// zip_free_mutex and zip_mutex. The zero value.
	Split Locking = iota
	// Legacy models the InnoDB plugin in 5.1 as XtraDB ran it in seed 000:
	// one LRU_list_mutex for the whole pool, held across victim scans and
	// every list update, one buf_pool_zip_mutex shared by every
	// compressed-only page, and the ordered zip_clean insertion that walks
	// the LRU under the mutex whenever a frame is evicted (MySQL Bug
	// #61341). Page hash latches stay per instance, as in XtraDB.
	Legacy
	// Global models the builtin InnoDB of MySQL 5.1 (seed 003): Legacy's
	// pool-wide mutexes, and the one buffer pool mutex, buf_pool->mutex,
	// here the LRU mutex it also was, taken by every page fix around the
	// page hash lookup and the pin [buf_page_get_gen, 5.1 builtin], so
	// that even fixes of cached pages queue on it.
	Global
)

// String returns "split", "legacy" or "global", the names benchmarks use.
func (l Locking) String() string {
	switch l {
	case Split:
		return "split"
	case Legacy:
		return "legacy"
	case Global:
		return "global"
	}
	return fmt.Sprintf("Locking(%d)", uint8(l))
}

// Latching is how latches and mutexes are implemented (latch.Impl).
type Latching uint8

const (
	// GoLatches are Go's sync.Mutex and sync.RWMutex: atomic fast paths,
	// then parking the goroutine. The zero value.
	GoLatches Latching = iota
	// BuiltinLatches are the builtin InnoDB of MySQL 5.0 and 5.1 (seed
	// 003's builtin), without atomic instructions: rw-locks whose state
	// changes under a mutex of their own, so that readers of one hot
	// latch serialize on it, and test-and-set mutexes that spin 20 short
	// rounds, then sleep in one sync array shared by all [sync0rw.c,
	// sync0sync.c, sync0arr.c]. With Global locking, the builtin engine.
	BuiltinLatches
	// PluginLatches are the InnoDB plugin 1.0.4 to MySQL 5.6 with atomic
	// builtins (seed 003's plugin): rw-locks of one atomic lock word
	// (INNODB_RW_LOCKS_USE_ATOMICS), the same mutexes and sync array,
	// spinning 30 rounds with PAUSE.
	PluginLatches
)

// String returns "go", "builtin" or "plugin".
func (l Latching) String() string {
	if l > PluginLatches {
		return fmt.Sprintf("Latching(%d)", uint8(l))
	}
	return l.impl().String()
}

func (l Latching) impl() latch.Impl {
	switch l {
	case BuiltinLatches:
		return latch.Builtin
	case PluginLatches:
		return latch.Plugin
	}
	return latch.Go
}

// Defaults, InnoDB's.
const (
	DefaultBytes        = 128 << 20 // innodb_buffer_pool_size
	DefaultLRUScanDepth = 1024      // innodb_lru_scan_depth
	MaxInstances        = 64        // innodb_buffer_pool_instances
	// MinFramesPerInstance bounds how small an instance may be: a fix may
	// need a frame for the page and one carved into zip blocks, and a few
	// more must be free for eviction to make progress.
	MinFramesPerInstance = 8
	// MaxInstanceBytes bounds an instance: a zip block is found by its
	// 1 KiB unit in the instance's arena, an int32.
	MaxInstanceBytes = (1<<31 - 1) * buddyUnit
)

// Options configure a Pool. The zero value is a 128 MiB pool of 16 KiB
// pages with InnoDB's defaults. The device is not an option: each
// tablespace given to AddSpace brings its own (storage.Device), so one pool
// can serve spaces on a memory device, a file and a latency model at once,
// as one InnoDB buffer pool serves tablespaces on different disks.
type Options struct {
	// Bytes is the memory for page frames, innodb_buffer_pool_size. 0
	// means 128 MiB. Descriptors and bookkeeping come on top (about 1%).
	Bytes int64
	// PageSize is the logical page size of every space: 4096, 8192 or
	// 16384. 0 means 16384.
	PageSize int
	// Instances is innodb_buffer_pool_instances: 0 means 8 when Bytes is at
	// least 1 GiB, else 1, like InnoDB 5.6+. At most 64.
	Instances int
	// Locking picks split (8.0), legacy (5.1 plugin under XtraDB) or
	// global (5.1 builtin) mutexes.
	Locking Locking
	// Latching picks how every latch and mutex of the pool, and of the
	// indexes on it, is implemented: Go's sync locks (the zero value),
	// or InnoDB's own of the builtin engine or of the plugin.
	Latching Latching
	// Frames picks where frame memory comes from: one arena allocated up
	// front (the zero value, InnoDB's buf_chunk_init) or a fresh Go
	// allocation per frame taken from the free list (research/targets.md
	// T9's per-miss mode, a cache that allocates on read and frees on
	// eviction).
	Frames Frames
	// OldPct is innodb_old_blocks_pct (5..95); 0 means 37.
	OldPct int
	// OldBlocksTime is innodb_old_blocks_time; 0 means 1s (5.6+), a
	// negative value means none (5.1/5.5).
	OldBlocksTime time.Duration
	// LRUScanDepth bounds the first scan of unzip_LRU for a victim,
	// innodb_lru_scan_depth; 0 means 1024. With PageCleaner it is also
	// the number of frames the cleaner keeps free in each instance.
	LRUScanDepth int
	// PageCleaner starts InnoDB 5.6+'s page cleaner: a goroutine that
	// wakes every second, and whenever a fixer finds a free list empty,
	// and frees pages from each instance's LRU tail, with four writers
	// for the dirty ones, until LRUScanDepth frames are free or the LRU
	// is down to 256 pages (BUF_LRU_MIN_LEN; an instance of fewer than
	// LRUScanDepth + 256 frames is cleaned down to that floor every
	// second). Off, every fixer that needs a frame frees, and if need be
	// writes, its victim itself, holding whatever latches it holds. Close
	// stops it; a pool never closed keeps its goroutines.
	PageCleaner bool
	// Policy builds the replacement policy of each instance for its number
	// of frames. nil means InnoDB's midpoint LRU with OldPct and
	// OldBlocksTime.
	Policy func(frames int) (lru.Policy[*Page], error)
	// Clock is the time source for LRU aging and the one-second windows of
	// the eviction heuristic. nil means time.Now.
	Clock func() time.Time
	// Latches receives the pool's instrumented locks. nil means a registry
	// of the pool's own (see Pool.Latches).
	Latches *latch.Registry
	// CMP receives the INNODB_CMP counters of decompressions done by the
	// pool. nil means counters of the pool's own (see Pool.CMP).
	CMP *compress.Stats
}

// withDefaults validates o and fills in defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Bytes == 0 {
		o.Bytes = DefaultBytes
	}
	if o.PageSize == 0 {
		o.PageSize = page.DefaultPageSize
	}
	if err := page.CheckPageSize(o.PageSize); err != nil {
		return o, fmt.Errorf("bufpool: %w", err)
	}
	if o.Bytes < 0 {
		return o, fmt.Errorf("bufpool: Bytes %d is negative", o.Bytes)
	}
	if o.Instances == 0 {
		o.Instances = 1
		if o.Bytes >= 1<<30 {
			o.Instances = 8
		}
	}
	if o.Instances < 1 || o.Instances > MaxInstances {
		return o, fmt.Errorf("bufpool: %d instances: use 1..%d (or 0 for InnoDB's default)", o.Instances, MaxInstances)
	}
	frames := o.Bytes / int64(o.PageSize)
	if per := frames / int64(o.Instances); per < MinFramesPerInstance {
		return o, fmt.Errorf("bufpool: %d bytes give %d frames of %d bytes over %d instances, %d each; each instance needs at least %d: give the pool at least %d bytes or fewer instances",
			o.Bytes, frames, o.PageSize, o.Instances, per, MinFramesPerInstance, int64(MinFramesPerInstance*o.Instances*o.PageSize))
	}
	if per := o.Bytes / int64(o.Instances); per > MaxInstanceBytes {
		return o, fmt.Errorf("bufpool: %d bytes over %d instances give %d bytes an instance; an instance holds at most %d (2 TiB): use more instances",
			o.Bytes, o.Instances, per, int64(MaxInstanceBytes))
	}
	if o.Locking > Global {
		return o, fmt.Errorf("bufpool: unknown locking %d: use Split, Legacy or Global", o.Locking)
	}
	if o.Latching > PluginLatches {
		return o, fmt.Errorf("bufpool: unknown latching %d: use GoLatches, BuiltinLatches or PluginLatches", o.Latching)
	}
	if o.Latches != nil && o.Latches.Impl() != o.Latching.impl() {
		return o, fmt.Errorf("bufpool: Latching is %v but the Latches registry's locks are %v: make them agree, or leave Latches nil", o.Latching, o.Latches.Impl())
	}
	if o.Frames != Arena && o.Frames != PerMiss {
		return o, fmt.Errorf("bufpool: unknown frames mode %d: use Arena or PerMiss", o.Frames)
	}
	if o.OldPct == 0 {
		o.OldPct = 37
	}
	if o.OldBlocksTime == 0 {
		o.OldBlocksTime = time.Second
	}
	if o.LRUScanDepth == 0 {
		o.LRUScanDepth = DefaultLRUScanDepth
	}
	if o.LRUScanDepth < 1 {
		return o, fmt.Errorf("bufpool: LRUScanDepth %d: use 1 or more (or 0 for 1024)", o.LRUScanDepth)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o, nil
}
