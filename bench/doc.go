// Package bench compares zipsim with bbolt (go.etcd.io/bbolt) on the same
// sysbench rows. It is a module of its own, so that the root module does
// not depend on bbolt and its go vet and go test ./... do not reach it.
//
// One process loads 1,000,000 rows of sbtest1 (id INT, k INT, c CHAR(120),
// pad CHAR(60); sim.SysbenchTable without the k index unless -kindex, since
// bbolt stores no secondary index) into five stores in a temporary
// directory, each once:
//
//   - zipsim-u: an uncompressed (DYNAMIC) zipsim table;
//   - zipsim-u-ahi: the same with the adaptive hash index on
//     (zipsim.Options.AdaptiveHashIndex, innodb_adaptive_hash_index=ON);
//   - zipsim-kbs8: ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
//   - zipsim-kbs8-ahi: the same with the adaptive hash index on;
//   - bbolt: one bucket, key the id as 4 big-endian bytes, value k (4
//     big-endian bytes), c and pad, the same bytes zipsim stores.
//
// Both zipsim stores get a buffer pool that holds the whole table (rows ×
// 640 bytes + 64 MiB) and Options.NoSync; the load inserts in id order and
// ends with Store.Flush, so the file holds every page. bbolt is opened
// with NoSync and loaded in id order, 10,000 rows per write transaction
// (-batch), with Bucket.FillPercent = 1.0 because the keys arrive in
// ascending order. Each store is then read once at every 8th id, outside
// any timing, to check the data and warm the pool or the mapping (and, on
// the -ahi stores, to hash the leaves: about 9 reads a leaf pass InnoDB's
// build limits).
//
// BenchmarkStores reports, per store, op=load (ns/op per row, load-s,
// file-bytes, used-bytes), op=get (random ids, one goroutine) and
// op=get-parallel (b.RunParallel), with allocs/op, and on zipsim
// misses/op (page reads and decompressions: 0 when cached), fixes/op
// (pages fixed per read: the tree's height, 1 for a hash hit) and, with
// the adaptive hash index, ahi-hit-rate. zipsim reads with
// Table.Get into a reused Row, which allocates nothing; bbolt's op=get
// takes one db.View per read, as zipsim's Get takes its own latches per
// call, and op=get-longtx reads inside one read transaction per
// goroutine. bbolt's value is copied into a reused buffer, as zipsim
// copies c and pad into the Row. Run it with
//
//	go test -run '^$' -bench . -benchtime 2000000x -count 3
//
// -rows scales the table down. go test alone runs TestStores, a check of
// the loaders and readers on 3,000 rows, in about a second.
package bench
