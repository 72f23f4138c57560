// Package btree holds zipsim's B+tree indexes on buffer pool pages, with
// InnoDB's write path for compressed pages: the modification log,
// reorganization and recompression, compression-failure splits and adaptive
// padding. Its code paths are the ones that make compressed tables slow to
// load and slow right after a load (research targets T2, T6, T7), so they
// follow InnoDB's counter for counter.
//
// # Mechanism
//
// An Index is a tree of page.IndexPage frames fixed through bufpool guards.
// Leaves hold the rows (key, value; clustered leaves also DB_TRX_ID and
// DB_ROLL_PTR), node pages hold (key, child page number); slot 0 of every
// node page stands for minus infinity. Pages of a level are linked both
// ways. The root page never moves: the tree grows by moving the root's
// records down (raiseRoot) and shrinks by lifting the root's only child
// back (liftRoot).
//
// A write first tries the optimistic path: a descent with the index lock
// shared, which it lets go once the leaf is latched exclusively. On a
// compressed leaf the change goes to the frame and, when
// page.Zip.Available says the modification log has room, to the log;
// otherwise the page is reorganized (one compression) when that can help,
// the record goes into the frame alone and the page is recompressed (one
// compression), and when that fails the frame is restored from the image
// (one decompression) and the write turns pessimistic: the index lock
// exclusive, the leaf split. Every compression is counted in INNODB_CMP
// and INNODB_CMP_PER_INDEX by the page package, and every leaf compression
// feeds the index's adaptive padding.
//
// With Options.AdaptiveHash, Get and View first ask the adaptive hash
// index (adaptivehash.go) where the key's record lies and, when the page
// confirms it, read it there without the index lock or a descent; leaves
// are hashed whole once reads keep finding keys on them. A guess is taken
// only on a page a descent has reached since it took its frame; pages an
// index frees lose that mark (retire) before the space takes them back,
// so that no guess reads the records a merge copied to a sibling.
//
// With Options.ChangeBuffer, an insert or delete on a secondary index
// whose leaf is not in the pool stops at the leaf's parent and leaves the
// change in the change buffer (changebuffer.go) instead of reading the
// leaf; every fix of a page of such an index (Index.fix) first applies the
// changes waiting for it, with the leaf latched exclusively, so no reader
// sees a leaf without them. A leaf's free space, which decides what may
// wait for it, is recorded when the leaf is first fixed and whenever it
// changes (markDirty).
//
// # InnoDB counterparts
//
//   - btr/btr0cur.cc: btr_cur_search_to_nth_level (descend),
//     btr_cur_optimistic_insert and btr_cur_pessimistic_insert (Insert),
//     btr_cur_update_in_place, btr_cur_optimistic_update,
//     btr_cur_update_alloc_zip and btr_cur_pessimistic_update (Update),
//     btr_cur_optimistic_delete, btr_cur_pessimistic_delete and
//     btr_cur_compress_if_useful (Delete).
//   - page/page0cur.cc: page_cur_insert_rec_zip (pageInsert);
//     page/page0page.cc: page_move_rec_list_end/start, page_copy_rec_list_*
//     and page_zip_copy_recs (moveRecords, copyTrim).
//   - btr/btr0btr.cc: btr_page_split_and_insert with
//     btr_page_get_split_rec_to_right/left, page_get_middle_rec and
//     btr_page_get_split_rec (split.go), btr_root_raise_and_insert,
//     btr_attach_half_pages, btr_compress, btr_discard_page,
//     btr_lift_page_up, btr_validate_index (Check).
//   - dict/dict0dict.cc: dict_index_zip_success/failure,
//     dict_index_zip_pad_update, dict_index_zip_pad_optimal_page_size
//     (padding.go).
//   - btr/btr0bulk.cc: BtrBulk and PageBulk (BulkLoad).
//   - btr/btr0pcur.cc: the persistent cursor (Cursor, Scan).
//   - btr/btr0sea.cc: btr_search_guess_on_hash, btr_search_check_guess,
//     btr_search_info_update, btr_search_build_page_hash_index,
//     btr_search_update_hash_ref (adaptivehash.go).
//   - ibuf/ibuf0ibuf.cc: ibuf_insert, ibuf_insert_low,
//     ibuf_index_page_calc_free_bits/_zip, ibuf_contract,
//     ibuf_merge_or_delete_for_page, ibuf_delete_for_discarded_space
//     (changebuffer.go).
//   - row/row0purge.cc: row_purge_reset_trx_id, MariaDB 10.3+, and
//     page/page0zip.cc: page_zip_write_trx_id_and_roll_ptr (ResetSys,
//     purge.go); row_ins_clust_index_entry (InsertSys) and
//     row_upd_rec_sys_fields (UpdateSys).
//
// # Concurrency
//
// Get, Scan, cursors and optimistic writes take the index lock
// (index_lock#name, an internal/latch RWMutex) shared and latch pages
// top-down, each child before its parent is released; only the leaf is
// latched exclusively, so they never deadlock. Point reads and optimistic
// writes let the index lock go once the leaf is latched (Index.leaf), as
// InnoDB does for BTR_SEARCH_LEAF and BTR_MODIFY_LEAF
// [btr_cur_search_to_nth_level], so a leaf's write or recompression holds
// off no structure change; scans and cursors keep it while they copy a
// leaf. A structure change (split, merge, root raise or lift) takes the
// lock exclusively, which keeps every other descent out of the tree, so
// it may fix pages in any order. Outside a structure change a leaf is
// latched exclusively only after a descent under the shared lock, so once
// a structure change has latched a page, no other thread changes it until
// the lock is let go, and what the change read there stays true. A
// thread holding a leaf without the index lock can stall a structure
// change that wants the leaf, never deadlock it: an optimistic writer then
// waits only for short mutexes (adaptive padding, a change buffer shard,
// the pool's own, whose holders latch pages only by trying or on free
// frames), and View's callback for off-page pages, whose holders take no
// index latch. On an uncompressed index the lock is released as soon as
// the tree is changed and the record is sure to fit its half, as InnoDB
// does; on a compressed one it is held to the end of the split, which
// serializes the index for longer. Cursors copy a leaf's rows, release
// everything, and find their place again by key, so a callback may use the
// index. Adaptive padding has its own mutex (zip_pad_mutex#name), taken on
// every leaf compression.
//
// With Options.SXIndexLock (MySQL 5.7, MariaDB 10.2+; treelatch.go) a
// structure change takes the lock SX instead, which only other structure
// changes wait for, and page latches alone keep searches off it: it
// latches exclusively, before it changes anything, every page it may
// change, top-down — the path from the lowest node page that will neither
// split nor merge, each node page that may with its two siblings, then the
// leaf's left sibling, the leaf and its right sibling — and holds them,
// with the pages it creates, to its end (endTree). Searches couple
// latches top-down and forward cursors couple them left to right along
// the leaves, so no wait of a search can close a cycle with the change's
// waits: the change takes every node page before any page below it, and
// leaves left to right. Reverse cursors never latch a leaf's left sibling
// while holding it: they search the tree for the leaf before
// (Cursor.seekBefore), as InnoDB's cursor restores its position to move
// back a page. Which node pages may split or merge is judged, as
// btr_cur_will_modify_tree judges it, for two node pointers of the
// longest key (a compressed page at the worst compression); a change that
// must latch a page it did not latch in advance counts it in
// Stats.LatchMisses, which the tests require to stay 0.
// A point read answered by the adaptive hash index takes only its part's
// latch (btr_search_latch#i) shared and the leaf's latch shared, as
// InnoDB's does; page builds and cell rewrites take the part's latch
// exclusively, so they stall the reads of every index in that part.
// The change buffer's shard latches (ibuf_mutex) are taken under page
// latches, and their holders take only a page hash latch
// (Pool.Contains), never a page latch: a change is buffered with the
// leaf's parent latched shared, and applied with the leaf latched
// exclusively and the index lock held at least shared, as in an
// optimistic insert's descent.
//
// # Where zipsim differs, and why
//
//   - Keys are byte strings ordered by bytes.Compare; the root package
//     encodes typed columns so that byte order is column order. The empty
//     key is reserved: slot 0 of every node page holds it, where InnoDB
//     keeps a real key and flags only the first pointer of a level's first
//     page as the minimum record. A page whose range grows downward (its
//     left neighbour discarded or merged into it) thus never holds a key
//     above keys routed to it, without InnoDB's rewriting of the
//     grandparent's pointer. Node pages are a few bytes smaller for it.
//   - The SX mode's lock is a mutex beside the rw-lock that searches take
//     shared: nothing takes the rw-lock exclusively in that mode but
//     BulkLoad (which takes both), so the pair behaves as InnoDB's rw-lock
//     with its SX mode. A structure change holds it to the end, where
//     InnoDB may release it once an uncompressed split is sure to fit; it
//     latches the leaf level's siblings and, at node levels that may
//     change, the node page's siblings in advance, where 5.7 latches some
//     of them only when it needs them; and it gives the pages it frees
//     back to the space only when it ends and no longer latches them.
//   - Delete removes the record at once (InnoDB's purge of a delete-marked
//     record): there is no MVCC. ResetSys is the one later rewrite purge
//     makes, MariaDB's reset of DB_TRX_ID and DB_ROLL_PTR.
//   - The adaptive hash index keeps bounded guesses checked against the
//     page instead of InnoDB's chained entries, which
//     btr_search_drop_page_hash_index deletes whenever a page changes,
//     leaves the pool or is freed; only Get and View use it and feed it
//     (InnoDB also positions cursors and BTR_MODIFY_LEAF searches with
//     it), and its SearchesBTree counts point reads only.
//   - The change buffer keeps its entries in Go memory, not in a B-tree in
//     the system tablespace's pool pages; it knows a leaf's free space
//     only once the leaf has been fixed since the buffer was made;
//     a buffered delete stands for InnoDB's delete-mark and purge
//     together; and there are no background merges by a master thread
//     (changebuffer.go).
//   - Pages merge only with siblings under the same parent; InnoDB also
//     merges across parents, rewriting the grandparent's node pointer. An
//     empty page that cannot merge is discarded.
//   - An insert that finds the modification log full reorganizes the page
//     first, as MariaDB 10.11 does (and MySQL 5.6/5.7 with
//     innodb_log_compressed_pages=OFF); Options.LogCompressedPages gives
//     5.6/5.7's default ON, which reorganizes first only when the page's
//     garbage holds the room. MariaDB's INNODB_CMP_PER_INDEX showed the
//     difference (about one compression more per log fill).
//   - The root takes over its only child whenever a merge or discard
//     leaves it with one; InnoDB lifts from btr_compress of that child.
//   - btr_insert_into_right_sibling (MySQL 5.7, MariaDB 10.2+: a record
//     that belongs at the end of a full leaf goes to the start of the next
//     leaf when that takes it) is tried only on a next leaf under the same
//     parent, as merges are, and only at the leaf level; InnoDB also tries
//     it across parents and on node pages, and lets the parent merge after
//     dropping its old pointer (btr_cur_compress_if_useful) where zipsim
//     puts the new one straight in. Options.NoSiblingInsert gives 5.6 and
//     earlier, which always split.
//   - A record that cannot fit an empty page gets ErrTooBig; off-page
//     columns are a later layer.
//   - Sequential-insert detection uses PAGE_LAST_INSERT as InnoDB does;
//     the clustered-leaf reserve of 1/16 page for updates applies only to
//     uncompressed pages, as since MySQL Bug #69140's fix (5.6.11), unless
//     Options.CompressedLeafReserve asks for the older rule.
//
// # Caveats
//
// A failed write (an I/O error from the pool) may leave a split half done;
// there is no undo. Check is exact only while no write runs.
package btree
