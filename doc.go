// Package zipsim is the front door of zipsim, a pure-Go model of InnoDB
// table compression that really stores rows: Open a Store, create Tables
// with typed columns, a clustered primary key and secondary indexes, read
// and write rows, take Metrics, Close.
//
// # Basics
//
//	st, err := zipsim.Open(dir, zipsim.Options{Pool: bufpool.Options{Bytes: 64 << 20}})
//	sbtest, err := st.CreateTable(ctx, "sbtest1", zipsim.TableOptions{
//		Columns: []zipsim.Column{
//			{Name: "id", Type: zipsim.TypeInt, Len: 4},
//			{Name: "k", Type: zipsim.TypeInt, Len: 4},
//			{Name: "c", Type: zipsim.TypeChar, Len: 120},
//			{Name: "pad", Type: zipsim.TypeChar, Len: 60},
//		},
//		PrimaryKey:       []string{"id"},
//		SecondaryIndexes: []zipsim.IndexDef{{Name: "k_1", Columns: []string{"k"}}},
//		KeyBlockSize:     8, // ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8
//	})
//	err = sbtest.Insert(ctx, zipsim.Row{zipsim.Int(1), zipsim.Int(42), zipsim.String(c), zipsim.String(pad)})
//	row, ok, err := sbtest.Get(ctx, nil, zipsim.Int(1))
//	err = sbtest.ScanIndex(ctx, "k_1", []zipsim.Value{zipsim.Int(40)}, []zipsim.Value{zipsim.Int(50)}, false, fn)
//	fmt.Print(st.Metrics())
//	err = st.Close()
//
// An empty path makes an in-memory store.
//
// # How the layers are wired
//
// A Store owns one bufpool.Pool. Each table, or each partition of a
// partitioned table, is one tablespace (file-per-table: dir/name.ibd, or
// dir/name#p#pN.ibd) on a storage.File, or a storage.Memory in memory,
// behind a storage.Latency model when Options.Latency is set; it is
// registered with the pool under a space id of its own, with its zip size
// and codec. The clustered index and the secondary indexes of a partition
// are btree.Index trees in its tablespace, sharing one page allocator.
// Every lock (the pool's, each index lock and padding mutex, the row
// locks, the allocators' space latches, the dictionary mutex) is an
// internal/latch lock registered in the pool's registry, and every
// compression and decompression is counted in the pool's INNODB_CMP
// counters, so Metrics sees all of them.
//
// Rows are typed (TypeInt, TypeChar, TypeVarchar) and encoded so that
// bytes.Compare, the B-tree's only order, is the order of the columns:
// integers big-endian with the sign bit flipped, CHARs padded, VARCHARs
// escaped and terminated. The clustered key is the primary key columns;
// its value is the other columns. A secondary entry's key is the index's
// columns followed by the primary key columns it does not name, so
// entries are unique and lead back to the row; its value is empty.
//
// # Row formats and off-page columns
//
// A clustered record too big for its page (half an uncompressed page, or
// on a compressed table page_zip_rec_needs_ext's limit tied to the zip
// size) moves its longest eligible column off-page, then the next, until
// it fits [dtuple_convert_big_rec]. Eligible are VARCHARs outside the
// primary key longer than 40 bytes; DYNAMIC and COMPRESSED also require
// a declared length over 255 (DATA_BIG_COL), and COMPACT moves only values
// longer than the 788 bytes it would keep. COMPACT keeps a 768-byte prefix
// and a 20-byte reference in the record, DYNAMIC and COMPRESSED only the
// reference. The value goes to a chain of BLOB pages (16,330 bytes each on
// 16K pages) on COMPACT and DYNAMIC, or, on COMPRESSED, is deflated as one
// stream cut over ZBLOB pages of the zip size, so its ratio is not held to
// the 2:1 that 8K B-tree pages allow [btr_store_big_rec_extern_fields].
// ZBLOB pages live in the pool compressed-only and are inflated straight
// from the zip block (bufpool.Pool.FixZip, buf_page_get_zip). Chains are
// never shared or changed: an update that changes an off-page value writes
// a new chain and frees the old one, and one that leaves it as it was keeps
// its chain; a delete frees them. Get reads off-page values whole;
// GetColumns and ScanColumns read only the columns asked for, which is
// how a DYNAMIC table's small clustered index pays off (seed 001).
// Table.Space splits a table's pages into clustered index, secondary
// indexes, off-page chains and their unused tails.
//
// # InnoDB counterparts
//
//   - dict/dict0dict.cc, dict0crea.cc and the data dictionary tables: the
//     catalog (catalog.go) with tables, columns, index ids and root pages,
//     and dict_index_build_internal_non_clust for the secondary key layout.
//   - fsp/fsp0fsp.cc: fseg_alloc_free_page and fseg_free_page with the
//     FSP_FREE list and FSP_FREE_LIMIT, for the allocator (alloc.go).
//   - row/row0ins.cc (row_ins_clust_index_entry, row_ins_sec_index_entry)
//     and row/row0upd.cc (row_upd_clust_step, row_upd_sec_step): the order
//     of index changes in Insert, Update and Delete;
//     row_ins_clust_index_entry_by_modify for Rewrite, the re-insert of a
//     key deleted in the same transaction, which writes even an unchanged
//     row.
//   - data/data0data.cc (dtuple_convert_big_rec) and btr/btr0cur.cc
//     (btr_store_big_rec_extern_fields, btr_copy_externally_stored_field,
//     btr_free_externally_stored_field): off-page columns (offpage.go).
//   - row/row0sel.cc: row_sel_get_clust_rec and
//     row_sel_sec_rec_is_for_clust_rec for scans of non-covering secondary
//     indexes; ha_partition's ordered index scan for merged scans of
//     partitioned tables, and partition pruning.
//   - sql/sql_partition.cc get_part_id_key and calculate_key_hash_value
//     (ha_partition.cc in MariaDB): PARTITION BY KEY's hash, which picks a
//     row's partition (keyhash.go).
//   - lock/lock0lock.cc: record locks, modelled by striped row locks held
//     for one call.
//   - trx/trx0purge.cc (trx_purge_attach_undo_recs), srv/srv0srv.cc
//     (purge_coordinator_state::do_purge) and row/row0purge.cc
//     (row_purge_reset_trx_id), MariaDB 10.3+: the purge of DB_TRX_ID and
//     DB_ROLL_PTR with Options.Purge (purge.go), and the PURGE table
//     Metrics prints.
//   - srv/srv0srv.c (srv_conc_enter_innodb, srv_conc_exit_innodb,
//     srv_conc_force_exit_innodb, srv_conc_force_enter_innodb) and
//     handler/ha_innodb.cc (innobase_release_stat_resources), MySQL 5.1
//     and the Plugin: innodb_thread_concurrency's gate with
//     Options.ThreadConcurrency (gate.go) for calls carrying a Session,
//     and the CONCURRENCY table Metrics prints.
//   - INFORMATION_SCHEMA.INNODB_TABLESPACES, INNODB_INDEXES, INNODB_CMP,
//     INNODB_CMP_PER_INDEX, INNODB_CMPMEM, INNODB_BUFFER_POOL_STATS and
//     performance_schema's file_summary_by_instance: the tables Metrics
//     prints.
//
// # Concurrency
//
// Store and Table methods are safe for concurrent use, except Close, which
// must run alone. Each partition's indexes have their own index locks
// (index_lock#table#p#pN.index), so writers to different partitions
// never wait for each other's splits, as with InnoDB's partitioned tables.
// A write locks its row (one of 1024 row locks per table, chosen by the
// primary key's hash) across all its index changes, so two writes
// of one row never interleave; reads take no row lock, so a read that
// runs beside a write of the same row may see its clustered change before
// its secondary ones (no MVCC). A scan's callback may call the table's
// methods. Off-page values are read with the record's leaf page latched
// (btree.Index.View), as row_sel_store_mysql_field does, and a writer
// frees a chain only after it has changed the record under that latch,
// so a reader never follows a reference into freed pages; a scan, whose
// cursor keeps a copy of each leaf, reads a row with off-page columns
// again through its leaf before following them.
//
// With Options.ThreadConcurrency, a call whose context carries a Session
// (WithSession) is a handler call: it enters the gate, or spends one of
// the session's tickets, and the session stays inside until
// Session.Leave (the statement's end, or in 5.1 each row sent to the
// client) or its last ticket; a scan makes one handler call per row and
// runs its callback between two of them, as ha_innobase::general_fetch
// does. A session that waits for a row lock
// leaves the gate while it waits. The gate's counts are kept under its one
// mutex, srv_conc_mutex, which every entry takes; calls without a Session
// pass the gate untouched.
//
// # Caveats
//
//   - No transactions, undo log or MVCC, and of purge only MariaDB 10.3+'s
//     reset of DB_TRX_ID and DB_ROLL_PTR, with Options.Purge (purge.go):
//     with no read views to wait for, purge may reset a record as soon as
//     its write commits. A write that fails halfway
//     (a secondary entry too big, an I/O error, a cancelled context) undoes
//     the index changes it made before returning, from an undo log kept in
//     memory for that one call; if undoing fails too, the error says so and
//     Check reports where the indexes disagree.
//   - No redo log or doublewrite buffer: Close writes the catalog and
//     flushes every page. A crash loses everything since the last Close,
//     and Open refuses the tablespaces it left unclean
//     (storage.ErrNotClean) rather than guess.
//   - No NULLs, no unique secondary indexes, no foreign keys, no ALTER
//     TABLE (DropTable drops), and no SQL. Unsigned integers are stored
//     signed.
//   - Off-page values are written before their record is inserted (InnoDB
//     inserts the record with zeroed references and writes the chains
//     after), so an insert refused as a duplicate has written chains it
//     then frees. References sit after the record's other fields, not
//     inside each field, which changes nothing on compressed pages (their
//     BLOB pointer area holds them either way). Only BLOB/ZBLOB chains of
//     5.6/5.7 are modelled, not 8.0's LOB index pages. Update takes whole
//     rows, not an update vector, so it finds unchanged off-page values by
//     comparing lengths and then contents.
//   - Pages are allocated one at a time, not in InnoDB's 64-page extents,
//     so indexes loaded together interleave in the file.
//   - Schema errors, KEY_BLOCK_SIZE too small for the keys included, are
//     found before any file is made; a CreateTable that fails later (an
//     I/O error while creating the index roots) drops its spaces from the
//     pool (bufpool.Pool.DropSpace) and removes its files. The locks it
//     registered stay in the registry, which cannot forget a lock.
package zipsim
