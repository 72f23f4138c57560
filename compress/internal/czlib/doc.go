// Package czlib is a pure-Go port of the compressor of C zlib 1.2.13
// (deflate.c and trees.c, by Jean-loup Gailly and Mark Adler), written so
// that a single-shot compression produces exactly the bytes that
//
//	deflateInit2(&strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
//	deflate(&strm, Z_FINISH);
//
// produces: the same zlib header, the same sequence of stored, fixed and
// dynamic blocks with the same matches and Huffman codes, and the same
// Adler-32 trailer.
//
// It exists because InnoDB compresses B-tree pages with zlib
// (page_zip_compress: deflateInit2(level, windowBits, memLevel)) and whether
// a page fits its 1K/2K/4K/8K block depends on the exact compressed size.
// Go's compress/flate and klauspost/compress make streams several percent
// smaller than zlib's on the same pages, so a simulator using them would fit
// more rows per page than a real server.
//
// Only what that use needs is ported: deflate_fast (levels 1-3),
// deflate_slow (levels 4-9), longest_match, fill_window, the hash chains,
// and all of trees.c's block construction. Level 0 (deflate_stored, whose
// block boundaries depend on the caller's output buffer sizes), the gzip and
// raw wrappers, strategies other than Z_DEFAULT_STRATEGY, preset
// dictionaries and streaming are not supported.
//
// This package is an altered version of zlib's source (a port to Go); it is
// not the original software. zlib is distributed under the following
// license, which applies to this port:
//
//	Copyright (C) 1995-2022 Jean-loup Gailly and Mark Adler
//
//	This software is provided 'as-is', without any express or implied
//	warranty.  In no event will the authors be held liable for any damages
//	arising from the use of this software.
//
//	Permission is granted to anyone to use this software for any purpose,
//	including commercial applications, and to alter it and redistribute it
//	freely, subject to the following restrictions:
//
//	1. The origin of this software must not be misrepresented; you must not
//	   claim that you wrote the original software. If you use this software
//	   in a product, an acknowledgment in the product documentation would be
//	   appreciated but is not required.
//	2. Altered source versions must be plainly marked as such, and must not be
//	   misrepresented as being the original software.
//	3. This notice may not be removed or altered from any source distribution.
//
//	Jean-loup Gailly        Mark Adler
//	jloup@gzip.org          madler@alumni.caltech.edu
package czlib
