// Package docgen generates the values of the "document" workload
// (research/targets.md §2.5), which models seed 001's table
// document_queries: an INT primary key, an indexed word_document_id, an
// html MEDIUMTEXT, a short_html TEXT, two datetimes and a counter. Its
// HTML is what made that table shrink 12x (60 GB to 5 GB) under
// ROW_FORMAT=COMPRESSED: off-page values deflated one stream each (T3).
//
// # Lengths
//
// HTMLLen draws html lengths from a lognormal distribution with median
// Options.HTMLMedian (64 KiB) and sigma Options.Sigma (0.5): the log of a
// length is normal, and the middle 68% of lengths lie within a factor
// e^0.5 of the median (39-106 KiB). With Options.SmallDocs = s, a share s
// of the draws uses Options.SmallMedian (2 KiB) instead: the workload's
// "small-doc mode" (20% in §2.5). ShortLen draws short_html lengths with
// median Options.ShortMedian (2 KiB) and the same sigma. Every length is at
// least 1 and at most Options.MaxLen (16 MiB - 1, MEDIUMTEXT); short_html
// lengths also at most 65,535 (TEXT).
//
// # Text
//
// Text writes exactly n bytes of wiki-flavoured HTML: a page with head,
// body and footer for n >= 4 KiB, a <div> fragment for shorter values (as
// short_html). Markup comes from a pool of about 200 snippets (<p
// class="lead">, <a href="/wiki/..." title="...">, <div id="...">, <li>,
// </td>, navbox and infobox rows, ...), some with holes for words,
// numbers and ids; words come from a 5,000-word vocabulary, drawn with
// Zipf(s=1.0) (rank 1 about 11% of draws). The words are built from
// syllables ("slast", "spoust", "whondmom"), so they read like words and
// compress like words. Within a value, phrases and link targets recur and
// boilerplate blocks (navboxes, infoboxes, sidebars, notice boxes) repeat
// verbatim, and phrases are wrapped in a word-processor-style <span
// style=...>: see block in text.go for how the mix was tuned.
//
// Measured deflate ratios (compressed/original, Go compress/flate level 6,
// 300 values of each size from each of seeds 1-7; 1,000 of 2 KiB): 64 KiB values 0.098 on average, p1 0.085,
// p99 0.111, inside the 0.08-0.12 target of §2.5 (klauspost/compress/flate
// level 6: 0.101). 2 KiB values compress worse, 0.32 on average (p1 0.21,
// p99 0.44), since little repeats within 2 KiB; 16 KiB values 0.17;
// 256 KiB values 0.081.
//
// # Determinism and cost
//
// A Generator draws everything from one PCG stream seeded by New's seed:
// one seed, one Options and one sequence of calls give the same lengths and
// bytes on every run and platform. The vocabulary, its Zipf alias table and
// the snippets are built once per process from a fixed seed and shared, so
// New is cheap. A Generator is not safe for concurrent use; give each
// goroutine its own. Text allocates nothing when dst has room for n more
// bytes (it grows dst once otherwise).
package docgen
