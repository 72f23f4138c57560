// Package bufpool is zipsim's buffer pool: InnoDB's buf0buf.cc, buf0lru.cc
// and buf0buddy.cc for pages of compressed and uncompressed tables, with the
// locks whose contention the seeds measured made real and instrumented.
//
// # Mechanism
//
// A Pool is split into instances [buf_pool_t]; a page maps to one by
// hashing (space, page_no >> 6) with xxhash, so that a 64-page extent stays
// in one instance [buf_pool_get]. Each instance allocates its frames up
// front in one arena [buf_chunk_init], mapped outside the Go heap on Linux
// so that the collector neither scans it nor lets a pool's worth of
// garbage pile up beside it (Options.Frames = PerMiss instead gives a frame
// fresh heap memory each time it leaves the free list, the allocate-on-read
// cache of research/targets.md T9), and keeps:
//
//   - a page hash of 16 partitions, each under its own page_hash_latch
//     [buf_page_hash_get_low, buf_page_hash_lock_get];
//   - the common LRU, an lru.Policy (InnoDB's midpoint LRU by default);
//   - unzip_LRU, the pages of compressed tables that have both copies;
//   - the free list of frames and a buddy allocator that carves 1K..8K zip
//     blocks out of frames [buf_buddy_alloc, buf_buddy_free_low,
//     buf_buddy_relocate], with InnoDB's rule of not merging while a size
//     class has fewer than 16 free blocks.
//
// A page of a compressed table is compressed-only (its zip block, in the
// LRU but not in unzip_LRU) or has both copies (zip block and frame, in the
// LRU and unzip_LRU); a page of an uncompressed table has a frame only.
//
// Fix [buf_page_get_gen] looks the page up under its page hash latch in
// shared mode, pins it (buf_fix_count) and latches its frame (block->lock)
// in the guard's mode. A page with a frame costs no list lock unless the
// policy asks to move it [buf_page_make_young_if_needed]. A compressed-only
// page gets a frame, joins unzip_LRU and is decompressed with the frame
// latched exclusively, so that concurrent fixers wait; that is one
// UNCOMPRESS_OPS. A miss reads the page [buf_read_page, buf_page_init_for_read]
// into a new descriptor at the LRU midpoint, zip block first on compressed
// tables, and decompresses it in the same fix. Create makes a page without a
// read [buf_page_create], at the LRU head.
// Peek [buf_page_get_known_nowait, BUF_PEEK_IF_IN_POOL] fixes a page only
// when it is in the pool with a frame: no read, no decompression. The
// B-tree's adaptive hash index checks its guesses with it, using the word
// Guard.HashInfo keeps with each frame [buf_block_t::n_hash_helps].
//
// Off-page columns of compressed tables live in ZBLOB pages, written once
// and never changed, which InnoDB keeps compressed-only. FixZip
// [buf_page_get_zip] pins a page of a compressed table and returns its zip
// block, with no frame and no latch; a miss reads only the block, into a
// compressed-only page at the LRU midpoint. The B-tree also counts a
// compressed index's leaves through it when it opens the index, from the
// page headers a zip block keeps uncompressed. A fixer that finds a page
// whose read is in flight waits on the page's io mutex, which the reader
// holds [io_fix = BUF_IO_READ]; if the read fails the page leaves the pool
// and the waiters look it up again. CreateZip makes such a page as the BLOB
// writer leaves it [buf_page_create, btr_blob_free]: its block filled
// before it is published, then dirty and compressed-only at the LRU head;
// a page of that number still in the pool (freed, now reused) is
// discarded unwritten, as DropSpace discards. Giving a compressed-only page
// a frame decompresses only index pages: ALLOCATED, FSP_HDR, ZBLOB and
// ZBLOB2 blocks are copied to the start of the frame, the rest zeroed,
// with no UNCOMPRESS_OPS, and any other type is corrupt
// [buf_zip_decompress]. So a fixed ZBLOB page shows its block, and a freed
// one can become a B-tree page.
//
// A frame comes from the free list or from eviction [buf_LRU_get_free_block,
// buf_LRU_scan_and_free_block]. When unzip_LRU holds more than 10% of the
// LRU and the load looks I/O-bound (over the last 50 one-second intervals
// decompressions are at most 50 times the I/Os, or nothing has been evicted
// yet) [buf_LRU_evict_from_unzip_LRU], the victim is the uncompressed frame
// of a page from the unzip_LRU tail, scanned up to LRUScanDepth, and the page
// stays compressed-only. Otherwise a clean, unpinned page leaves the pool
// whole from the LRU tail, scanning 100 pages on the first try and the
// whole list after [buf_LRU_free_from_common_LRU_list]. When nothing clean
// can go, one dirty page from the tail is written first
// [buf_flush_single_page_from_LRU]. With Options.PageCleaner a goroutine
// does this ahead of the fixers [buf_flush_page_cleaner_coordinator,
// buf_flush_LRU_list_batch]: every second, and whenever a fixer finds a
// free list empty, it frees and writes pages from each instance's LRU tail
// until LRUScanDepth frames are free, so that fixers, which may hold other
// latches (an index lock during a split), seldom write a victim
// themselves. Without it, as in InnoDB before 5.6, they always do. Dirty
// pages go to storage as their zip image on compressed tables, their
// frame otherwise. DropSpace removes a
// dropped table's pages without writing them [buf_LRU_flush_or_remove_pages,
// BUF_REMOVE_ALL_NO_WRITE]. EvictAll empties the pool of clean unpinned
// pages and restarts the frame-or-page eviction statistics
// [buf_LRU_stat_t], as a restart leaves InnoDB's pool: zipsim.Open calls
// it after the walks that verify a reopened store. Evict takes one clean
// unpinned page out [buf_LRU_free_page]: those walks drop each page after
// its visit, so that under Legacy locking, where each compressed read
// walks the LRU, they take time linear in the store.
//
// # Concurrency
//
// Guards and ZipGuards are the only way to touch page bytes; a pinned
// page is never evicted, relocated or detached from its frame. Within an
// instance the lock order is: LRU mutex, then a page hash latch, then the
// zip mutex, then the free list mutex or the zip free mutex. Frame latches
// are taken with none of these held, except by a fixer that has just
// attached a frame under them and latches it before anyone can find it.
// Buddy relocation holds the zip free mutex and therefore only tries the
// page hash latch and zip mutex above it, giving up on the merge when they
// are busy. A page's io mutex is waited for with none of them held.
//
// Locking chooses which mutexes exist:
//
//   - Split (MySQL 8.0, Percona's split buffer pool mutex): every instance
//     has its own LRU_list_mutex, free_list_mutex, zip_free_mutex and
//     zip_mutex.
//   - Legacy (InnoDB plugin 5.1 under XtraDB, seed 000): one LRU_list_mutex,
//     free_list_mutex and zip_free_mutex for the whole pool, one
//     buf_pool_zip_mutex taken on every fix, scan step, free and relocation
//     of a compressed-only page, and the zip_clean list kept in LRU order by
//     walking the LRU under the LRU mutex each time a page becomes clean and
//     compressed-only [buf_LRU_insert_zip_clean, MySQL Bug #61341]: when a
//     frame is evicted, and when a compressed page is read, which 5.1 did
//     compressed-only from the LRU midpoint [buf_page_init_for_read], so
//     that the walk passes every page with a frame in the old sublist up
//     to the first compressed-only one. The bug's fix (5.1.58, 5.5) kept
//     zip_clean only in debug builds.
//   - Global (the builtin InnoDB of MySQL 5.1, seed 003): Legacy's mutexes,
//     and the pool mutex (the LRU mutex) taken by every Fix around its
//     page hash lookup and pin, as buf_page_get_gen held buf_pool->mutex,
//     so that hits on cached pages serialize too. FixZip does not take it.
//
// All three are correct under the race detector; they differ only in how often
// threads wait. Every lock is a latch.Mutex or latch.RWMutex registered by
// InnoDB's name, so Stats().Latches and Latches() show waits per lock.
//
// Latching chooses how each of those locks works, for the pool and for
// every index on it (they share the pool's registry): Go's sync locks (the
// zero value), or InnoDB's own of the builtin engine of 5.0/5.1
// (BuiltinLatches: rw-lock state under a mutex of its own, test-and-set
// mutexes that spin and then sleep in one sync array) or of the plugin
// through 5.6 (PluginLatches: rw-locks of one atomic word, the same
// mutexes and sync array); see the latch package. Global with
// BuiltinLatches is seed 003's builtin engine, Split with PluginLatches
// stands for its plugin (research/targets.md T5).
//
// # Statistics
//
// Stats is a value snapshot (Sub gives the activity between two) of page
// gets, hits on a frame, hits that decompressed, hits served by a zip
// block without decompressing (FixZip, ZBLOB copies), reads, writes,
// evictions of a frame or of a whole page, victim writes by fixers and by
// the page cleaner, victim scan lengths, list lengths,
// made-young counters, INNODB_CMPMEM per size and instance, lock statistics
// and INNODB_CMP. Its String prints tables named after InnoDB's. Hot
// counters are striped per P. Check returns every violated invariant.
//
// # Caveats
//
//   - There is no flush list and no read-ahead: dirty pages are written by
//     Flush, Close, the fixer that needs their frame or, with PageCleaner,
//     the page cleaner. The cleaner restarts its scan from the LRU tail for
//     each victim and prefers clean pages within 100 of it, where InnoDB's
//     batch walks the tail once, queueing dirty pages as it meets them.
//   - The eviction heuristic's one-second intervals are rotated by the
//     fixers that consult it, not by a master thread.
//   - When no frame can be freed after 30 tries in a row, Fix returns
//     ErrNoFreeFrame; InnoDB would keep waiting.
//   - Page 0 of a space is the tablespace header, which storage manages;
//     the pool rejects it (and FIL_NULL).
//   - Legacy with several instances shares one set of mutexes across the
//     instances' lists: the 5.1 contention over 5.6's sharded lists.
//   - Descriptors are allocated in slabs on the Go heap, as InnoDB mallocs
//     buf_page_t for compressed-only pages; frames never are.
package bufpool
