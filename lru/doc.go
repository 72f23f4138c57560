// Package lru holds zipsim's replacement lists: InnoDB's midpoint LRU, the
// plain list InnoDB uses for unzip_LRU, a textbook LRU and CLOCK. They have
// no locks of their own; the buffer pool's LRU mutex guards them, as
// buf_pool->mutex (LRU_list_mutex from 8.0) guards InnoDB's.
//
// # Basics
//
// Lists are intrusive: the buffer pool embeds a Node in each page
// descriptor, one per list the page can be on (the common LRU and
// unzip_LRU), and sets Node.Value to the descriptor. Moving, adding or
// removing a page therefore costs a few pointer writes and no allocation,
// and a list walk leads straight back to the page.
//
// List is a plain doubly linked list (front = most recently used, back =
// the eviction end) with O(1) operations and a Scan from the back. The
// buffer pool uses it directly for unzip_LRU.
//
// Policy is the small interface behind which replacement decisions sit, so
// research code can plug in its own: Add when a page enters the pool, Access
// on every page fix, Promote when Access asks for it, Remove when a page
// leaves, Scan to find eviction candidates, Stats for the counters. Three
// implementations ship:
//
//   - Midpoint: InnoDB's LRU with an old sublist, midpoint insertion and the
//     make-young rules of innodb_old_blocks_pct and innodb_old_blocks_time.
//   - LRU: move to the front on every hit. Simple, and every hit takes the
//     lock; the baseline the others are measured against.
//   - Clock: second chance. A hit sets a reference bit and never takes the
//     lock; the hand clears bits while it looks for a victim.
//
// # InnoDB counterpart
//
// Midpoint follows MySQL 5.7's storage/innobase/buf/buf0lru.cc and
// include/buf0buf.ic function by function:
//
//   - The old sublist: LRU_old_ratio = innodb_old_blocks_pct*1024/100 (378
//     for the default 37). It exists only while the list holds at least
//     BUF_LRU_OLD_MIN_LEN = 512 pages (OldMinLen). buf_LRU_old_init, run
//     when the list reaches 512, marks every page old and lets
//     buf_LRU_old_adjust_len walk LRU_old towards the front; when a removal
//     leaves fewer than 512, buf_LRU_remove_block clears every old flag.
//     buf_LRU_old_adjust_len keeps LRU_old_len within BUF_LRU_OLD_TOLERANCE =
//     20 of min(len*ratio/1024, len-(20+BUF_LRU_NON_OLD_MIN_LEN=5)),
//     moving LRU_old one page at a time. So at 512 pages the old sublist is
//     209 long (target 189, plus the tolerance), and midpoint insertions keep
//     it at the top of its band.
//   - Add is buf_LRU_add_block(bpage, old=TRUE), what buf_page_init_for_read
//     does for every page read from disk: below 512 pages the page goes to
//     the head and is stamped with the freed-page clock; from 512 on it goes
//     right after LRU_old, old, unstamped (its stamp stays 0 from
//     buf_page_init_low). AddYoung is buf_LRU_add_block(bpage, FALSE), what
//     buf_page_create does for a page allocated in the pool.
//   - Access is what buf_page_get_gen does after fixing a page: set the first
//     access time if unset (buf_page_set_accessed), then
//     buf_page_make_young_if_needed, i.e. buf_page_peek_if_too_old. Nothing
//     is promoted while the freed-page clock is 0. With
//     innodb_old_blocks_time on, an old page is promoted only if its first
//     access is at least that long ago, and a refusal counts
//     n_pages_not_made_young. Otherwise the page is promoted unless
//     buf_page_peek_if_young: freed_page_clock < page stamp +
//     curr_size*(1024-ratio)/(1024*4), i.e. unless it was put at the head
//     fewer evictions ago than a quarter of the young sublist.
//   - Promote is buf_page_make_young, i.e. buf_LRU_make_block_young:
//     n_pages_made_young++ if the page was old, then buf_LRU_remove_block and
//     buf_LRU_add_block_low(bpage, FALSE), which re-stamps the clock.
//   - Remove(n, evicted=true) advances buf_pool->freed_page_clock, as
//     buf_LRU_block_remove_hashed does ("buf_pool->freed_page_clock += 1")
//     for every page buf_LRU_free_page or buf_LRU_free_one_page frees. That
//     includes freeing only the uncompressed frame of a compressed page
//     (buf_LRU_free_page with zip=false, an unzip_LRU eviction), where the
//     page stays in the LRU: AdvanceFreedPageClock is for that case.
//   - SetOldPct is buf_LRU_old_ratio_update; Check is
//     buf_LRU_validate_instance.
//   - Scan walks from the tail, as buf_LRU_free_from_common_LRU_list and
//     buf_LRU_free_from_unzip_LRU_list do; the scan depth
//     (BUF_LRU_SEARCH_SCAN_THRESHOLD = 100, innodb_lru_scan_depth) is the
//     caller's max.
//
// The research notes behind this are in the team's
// research/innodb-compression.md, section 3.4.
//
// # Concurrency
//
// Nothing here locks. The caller's lock (one per buffer pool instance) must
// be held for every method that reads or changes a list: List's methods,
// Node.InList, Next and Prev, and every Policy method but Access, including
// Len, Scan, Stats and Check. Midpoint.SetOldBlocksTime and Node.Old are
// also safe without it.
//
// Access runs without the lock, concurrently with everything else, as
// InnoDB's buf_page_peek_if_too_old runs without buf_pool->mutex. It touches
// only atomics:
//
//   - Midpoint: the node's first access time (a compare-and-swap from 0, so
//     the first writer wins), old flag and freed-page-clock stamp (loads);
//     the policy's freed-page clock, old-blocks time and young window
//     (loads); and NotMadeYoung (an add, only on a refusal).
//   - LRU: one load of the published front node.
//   - Clock: the node's reference bit, loaded and stored only when clear, so
//     a hot page's cache line is not written on every hit.
//
// Writers of those atomics (Add, Promote, Remove, Scan) hold the lock. An
// Access racing with them can see a node that is just moving, or no longer
// in the list; it then gives a stale answer, never a corrupt list, and
// Promote re-checks membership under the lock. The page guard of the
// buffer pool (a buffer-fixed page cannot be evicted) makes that rare, as
// in InnoDB.
//
// Fields written on different paths sit on separate cache lines: the list
// (written under the lock), the read-mostly settings Access reads, the
// freed-page clock (written on every eviction, read by every Access) and the
// NotMadeYoung counter.
//
// # Memory
//
// No method allocates in steady state; the ZeroAllocs tests check every
// Policy method and List operation. A Node costs two pointers and a list
// pointer plus 24 bytes of policy state beyond its Value. A List holds a
// sentinel Node, so it must not be copied once used.
//
// # Caveats
//
//   - Access takes the time from the caller. The buffer pool can pass a
//     coarse clock; Midpoint only reads it for a page's first access and for
//     old pages.
//   - InnoDB keeps access_time in 32-bit milliseconds (it wraps after about
//     49.7 days) and freed_page_clock in 31 bits; zipsim keeps nanoseconds
//     and 64-bit counts, so neither wraps. innodb_old_blocks_time is still
//     limited to 2^32-1 ms (MaxOldBlocksTime).
//   - InnoDB's quirk is kept: a page read into the midpoint carries the
//     stamp 0, so with innodb_old_blocks_time=0 it counts as "young" until
//     the freed-page clock passes the young window, and is promoted on its
//     first access after that.
//   - Promote, like buf_page_make_young, does not re-run the make-young
//     rules under the lock: two threads that both saw "promote" both move
//     the page (MadeYoung counts only the first, which found it old).
//   - When InnoDB frees only the uncompressed frame of a page, it
//     re-inserts the compressed descriptor in the old block's place, which
//     can nudge the LRU_old boundary by one page; zipsim leaves the node
//     where it is.
//   - Below OldMinLen pages, buf_LRU_remove_block clears every old flag by
//     walking the whole list on each removal. Midpoint walks only on the
//     first removal after an old sublist existed; later walks could find no
//     flag set (pages added to a short list are young). The flags are the
//     same; the O(N) cost under the LRU mutex, which real pools far above
//     512 pages never pay but zipsim's small test instances would, is gone.
//   - NotMadeYoung is one atomic per pool instance, bumped on refusals
//     without the lock. InnoDB bumps a plain shared counter at the same
//     point, so both share a cache line between scanning threads; zipsim
//     keeps the cost rather than hide it with striping.
//   - Through the Policy interface a visit closure that captures variables
//     escapes to the heap on every Scan call; build visit functions once and
//     keep them (the ZeroAllocs tests do).
//   - The midpoint's old sublist, linear read-ahead and the unzip_LRU choice
//     (buf_LRU_evict_from_unzip_LRU) interact in the buffer pool, not here;
//     this package only keeps the lists.
package lru
