// Package page holds zipsim's page formats: the uncompressed B-tree page,
// its compressed image with the modification log, BLOB and ZBLOB pages, the
// 20-byte external reference, and page checksums. It is the bottom of the
// storage stack: the buffer pool keeps these images in frames, the B-tree
// edits them, storage writes them.
//
// # Basics
//
// Every page starts with a 38-byte FIL header (Fil). An IndexPage is an
// uncompressed B-tree node of 4, 8 or 16 KiB: the FIL header, a 56-byte index
// header, the infimum and supremum records, a heap of records that grows up,
// a directory that grows down and an 8-byte FIL trailer. A record is a
// variable number of extra bytes (its lengths), a 5-byte header (info bits
// and n_owned, heap number and status, next record) and its data: key, then
// DB_TRX_ID+DB_ROLL_PTR and the value on clustered leaves, key and value on
// secondary leaves, key prefix and child page number on node pages.
// Deleted records go to a free list whose space Insert reuses; Reorganize
// packs the heap.
//
// A Zip is the compressed form of an IndexPage in a block of 1, 2, 4, 8 or
// 16 KiB (KEY_BLOCK_SIZE), laid out as InnoDB's: the page header copied as
// is, one compressed stream of the records in heap order without their
// 5-byte headers and without the fields stored uncompressed, the
// modification log, free space, the BLOB reference array, the uncompressed
// trailer (DB_TRX_ID+DB_ROLL_PTR or child page number per record) and the
// dense directory at the end. Changes are made on the IndexPage first and
// then mirrored into the Zip: Available says whether the log can take the
// change, LogInsert, LogUpdate and LogDelete write it, the Write* methods
// update the uncompressed parts in place without log space. When the log is
// full, the caller recompresses (Compress or Reorganize) and, if that fails
// too, restores the page with Decompress and splits: that is the cost the
// simulator reproduces.
//
// Off-page columns are chains of BLOB pages (16330 bytes of payload on a 16K
// page) or, for compressed tables, one compressed stream cut into ZBLOB
// pages of the zip size; WriteBlob, ReadBlob and BlobPages handle chains
// through a BlobStore.
//
// # InnoDB counterparts
//
//   - page/page0page.cc: page_create, page_validate, page_copy_rec_list_*
//     — CreateIndex, IndexPage.Check; btr/btr0btr.cc btr_page_reorganize_low
//     and btr_page_empty — IndexPage.Reorganize and Empty.
//   - page/page0cur.cc: page_cur_insert_rec_low, page_cur_delete_rec,
//     page_cur_search_with_match — Insert, Delete, Search; btr/btr0cur.cc
//     btr_cur_update_in_place and btr_cur_optimistic_update — UpdateInPlace
//     and Update.
//   - include/page0zip.ic, page/page0zip.cc: page_zip_compress,
//     page_zip_decompress, page_zip_apply_log, page_zip_write_rec,
//     page_zip_dir_insert/delete/add_slot, page_zip_clear_rec,
//     page_zip_available, page_zip_empty_size, page_zip_rec_needs_ext,
//     page_zip_validate, page_zip_reorganize — Zip and its methods, EmptySize,
//     RecNeedsExt.
//   - btr/btr0cur.cc: btr_store_big_rec_extern_fields,
//     btr_copy_externally_stored_field, the BTR_EXTERN_* reference layout —
//     WriteBlob, ReadBlob, ExternRef.
//   - fil/fil0fil.cc, buf/buf0buf.cc: the FIL header, buf_page_is_corrupted
//     — Fil, Checksum, Verify.
//
// # Where zipsim differs, and why
//
//   - The directory is dense (one slot per record, in key order) where
//     InnoDB's is sparse (one slot per 4 to 8 records plus a linked list):
//     binary search lands on the record, and the uncompressed page costs
//     about 1.7 bytes more per record: under one of sysbench's 200-byte
//     records per 16K page, but about 9 of LinkBench's 54-byte counttable
//     records. With the extra bytes below, a 16K leaf holds 275 counttable
//     rows where InnoDB's holds 297–298, and full linktable leaves about
//     221 rows (at most 227) against about 235 (at most 243)
//     (BENCHMARKS.md, T8). FreeSpaceOfEmpty keeps InnoDB's value so that
//     rules derived from it do.
//   - Records carry their own lengths in the extra bytes (data length, key
//     length, external reference count) instead of deriving them from a
//     table definition, which the page layer does not have; BLOB references
//     sit at the end of a clustered record's value. A sysbench row takes 4
//     extra bytes where InnoDB's utf8mb4 sbtest takes 2 (one length per
//     CHAR column), so records and log entries are 2 bytes (1%) longer;
//     a row of fixed-length columns takes 3 where InnoDB's takes none.
//     Next-record pointers are absolute offsets. Every live record owns its
//     own directory slot, so n_owned is 1 and the zip directory's owned flag
//     is always set.
//   - The zip image stores its stream length in the two bytes after the
//     header, where InnoDB has its compressed index information (about
//     2 bytes per field, ended by a Z_FULL_FLUSH): zstd and s2 streams cannot
//     find their own end the way zlib's can. A zipsim stream is thus about
//     15 to 20 bytes shorter than InnoDB's for the same records, which
//     matters only at KEY_BLOCK_SIZE 1 and 2 where a page holds few rows;
//     EmptySize keeps InnoDB's formula.
//   - The FIL trailer is stamped (StampTrailer) only when a page goes to
//     storage, as InnoDB does at flush; page and zip comparisons leave it
//     out, as page_zip_validate does.
//   - The checksum is xxhash64 over the whole image after its first 8 bytes,
//     so the FIL header's fields after the checksum sit 4 bytes later than
//     InnoDB's and FIL_PAGE_FILE_FLUSH_LSN shrinks to a 4-byte Aux field
//     (ZBLOB pages keep their piece length in it).
//   - A deleted record's DB_TRX_ID, DB_ROLL_PTR, child page number and BLOB
//     references are zeroed on the page and in the zip trailer. InnoDB leaves
//     them when its log has no room to record the clearing, and its own
//     page_zip_validate then fails in rare cases (page0zip.cc says so); here
//     a zip image always decompresses to exactly its page, which the tests
//     check after every operation.
//   - Insert reuses the first deleted record only when the new record fits
//     inside it with the same origin (InnoDB's rule for compressed pages)
//     on every page, so one layout serves both.
//   - The node pointer's REC_INFO_MIN_REC_FLAG is not used.
//
// # Concurrency
//
// IndexPage, Zip and the BLOB page functions are not safe for concurrent
// use on the same page: the buffer pool's page latch serializes writers and
// excludes readers. Different pages may be worked on concurrently; the zip
// scratch space and codec state come from pools.
//
// # Memory
//
// Pages live in caller-owned buffers; IndexPage is a slice type, so views
// cost nothing. Compress and Decompress take their scratch space from a
// sync.Pool and allocate nothing in steady state. Decoders bound every read
// by the image and every decompression by the page size, so damaged images
// give a *CorruptError naming the page, never a panic; fuzz targets check
// this for every decoder.
package page
