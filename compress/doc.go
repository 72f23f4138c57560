// Package compress holds zipsim's codecs and its INNODB_CMP-style counters.
//
// # Basics
//
// A Setting names an algorithm and a level: zlib (the zero value, level 6,
// what InnoDB writes), raw deflate, zstd, s2, or none (a copying control).
// Settings print and parse as "zlib:6", "zstd:fastest", "s2:better", and so
// on. New builds a Codec for a Setting; its methods append to a caller's
// buffer, so code that owns a page frame can compress into it or decompress
// out of it without allocating.
//
// Compress always succeeds. CompressLimit models InnoDB's compression
// failure: a page whose compressed form exceeds the zip block (less the
// room InnoDB reserves) fails with ErrDoesNotFit, and the caller
// reorganizes or splits, as btr0cur.cc does after page_zip_compress returns
// false. Decompress and DecompressLimit verify checksums where the format
// has one and bound their output, so a corrupt page image yields ErrCorrupt
// or ErrTooLarge, never a panic or an unbounded allocation.
//
// Stats counts operations the way InnoDB fills INFORMATION_SCHEMA.INNODB_CMP
// (per zip size) and INNODB_CMP_PER_INDEX (per index); the caller times each
// operation and records it, including failed compressions. Snapshot gives a
// value copy with Sub for per-interval deltas (the _RESET tables) and a
// String that prints both tables.
//
// # InnoDB counterpart
//
//   - page/page0zip.cc page_zip_compress and page_zip_decompress: one zlib
//     stream per B-tree page, deflateInit2 at innodb_compression_level
//     (default 6). Setting zlib:N is that stream.
//   - btr/btr0cur.cc btr_store_big_rec_extern_fields: one zlib stream per
//     off-page column (Codec.CompressValue), spread over ZBLOB pages;
//     ZlibBound is the
//     compressBound InnoDB uses to reserve those pages and in
//     page_zip_empty_size.
//   - page0zip.cc page_zip_stat and page_zip_stat_per_index: the counters
//     behind INNODB_CMP and INNODB_CMP_PER_INDEX, mirrored by Stats and CMP.
//   - Facebook's 5.6 branch compressed into a scratch buffer and copied only
//     on success, and cached zlib heaps instead of building them per call;
//     CompressLimit and the pooled state do the same. Options.NoReuse puts
//     the per-call construction back to measure what it cost.
//
// # Concurrency
//
// A Codec is safe for concurrent use. Encoder and decoder state lives in
// per-Codec sync.Pools, one for encoding and one for decoding, so each
// goroutine works on its own state and no lock is shared between calls.
// Stats is safe for concurrent use. Its counters are striped over a power
// of two of cache-line-padded stripes (at least 4×GOMAXPROCS) chosen at
// random per call, so recording is not a shared hot spot: the simulator
// measures lock contention and must not add its own. Snapshot sums the
// stripes without stopping writers.
//
// # Memory
//
// In steady state no call allocates: the state structs hold the klauspost
// writer or reader, a bytes.Reader over the input and scratch buffers that
// grow to the largest output seen. Only dst grows when it lacks capacity.
// sync.Pool may drop idle state at any GC, after which the next call
// rebuilds it; zstd coders are built with concurrency 1, so they start no
// goroutines and need no Close when dropped.
//
// # Caveats
//
//   - The zlib setting's deflate engine is klauspost/compress, not C zlib.
//     Its streams are valid zlib and decode with any inflater, but they are
//     4-7% smaller than C zlib 1.2.13's on sysbench pages (7,266 against
//     7,612 bytes on a 13 KB page at level 6), so pages fit their blocks
//     more often than in InnoDB. The czlib setting is a port of C zlib
//     1.2.13's deflate (internal/czlib) that writes the same bytes as C
//     zlib with InnoDB's parameters for 16 KiB pages (windowBits 14,
//     memLevel 9; 8 and 4 KiB pages use 13 and 12 in InnoDB), at
//     about a third of klauspost's speed; `zipsim calibrate` uses it. Its
//     page streams start 0x68 as InnoDB's do. klauspost's levels
//     are tuned differently: on sysbench pages level 6 compresses worse than
//     level 1 and takes longer (research/limits.md measured 7998 against 7826
//     bytes per 16 KiB page and 2.5 times the time; BenchmarkCompress shows
//     the same order on sbdata's page).
//   - Built with the zipsim_czlib_c tag (cgo and zlib's headers), the
//     czlib setting calls the system's C zlib both ways instead
//     (czlib_c.go): the same bytes as the port at every level
//     (TestCZlibC), at C's speed. On the 16 KiB sysbench page C zlib
//     deflated in 224-266 µs against the port's 302-308 and inflated in
//     30-35 against klauspost's 55-63 (BenchmarkCompressNoReuse,
//     BenchmarkDecompressNoReuse). It measures what the port's speed costs
//     a scenario (BENCHMARKS.md, T8); CI and default builds use the port.
//   - Options.NoReuse: klauspost allocates and clears about 1 MiB of
//     encoder tables per zlib:6 call, which makes a page compress about twice
//     as slowly; czlib builds about 330 KiB, about 13% slower; each inflater
//     built per call costs 6-18 µs (BenchmarkCompressNoReuse,
//     BenchmarkDecompressNoReuse). InnoDB paid about 500 KB of malloc and
//     free per operation before Facebook's heap caches (research/targets.md
//     T9); on this project's machine C zlib's state built per call from a
//     malloc'd heap costs a compression about as much or less
//     (BENCHMARKS.md, "Codecs").
//   - InnoDB deflates B-tree pages with windowBits 14, so its page streams
//     start 0x68; zlib's use a 32 KiB window and start 0x78, as InnoDB's
//     BLOB streams (windowBits 15) do. Decompress accepts both. czlib's
//     CompressValue uses InnoDB's BLOB parameters, windowBits 15 and
//     memLevel 7: on docgen's html the 32 KiB window finds repeats the page
//     stream's 16 KiB misses (10.1:1 against 8.7:1). Its CompressFileLimit,
//     which transparent page compression calls, uses compress2's
//     parameters, windowBits 15 and memLevel 8, as MySQL 5.7's
//     os_file_compress_page and MariaDB's fil_page_compress_low do: on
//     LinkBench's leaves the port deflates 8% faster with them than with
//     the page parameters, to the same size within 0.1%. zipsim reuses that
//     state; compress2 builds it per call.
//   - zstd and s2 are comparison points InnoDB never shipped. zstd frames
//     carry klauspost's default content checksum (xxhash), kept on so
//     decoding costs what a real deployment pays; the s2 block format has
//     no checksum, so Decompress detects only structural damage there.
//   - Raw deflate has no checksum either: a damaged stream can decode to
//     wrong bytes without an error. Callers that need integrity (page
//     images) checksum the page themselves, as InnoDB does.
//   - Stats records every operation per index; InnoDB collects
//     INNODB_CMP_PER_INDEX only with innodb_cmp_per_index_enabled, because
//     its counters sat under one mutex. Times are kept in nanoseconds and
//     printed in seconds with microsecond precision; InnoDB prints whole
//     seconds.
package compress
