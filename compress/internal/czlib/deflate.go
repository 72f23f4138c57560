package czlib

import (
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"math"
	"math/bits"
)

// Constants of deflate.h / zutil.h.
const (
	minMatch     = 3
	maxMatch     = 258
	minLookahead = maxMatch + minMatch + 1 // MIN_LOOKAHEAD
	winInit      = maxMatch                // WIN_INIT: bytes zeroed past the data
	tooFar       = 4096                    // TOO_FAR: length-3 matches farther than this are dropped
	nilPos       = 0                       // NIL: end of a hash chain
)

// config is one row of deflate.c's configuration_table.
type config struct {
	good  int // good_length: reduce the lazy search above this match length
	lazy  int // max_lazy: no lazy search above this length (deflate_fast: max_insert_length)
	nice  int // nice_length: stop searching above this length
	chain int // max_chain
	fast  bool
}

// configurationTable is zlib's table for levels 0-9; row 0 (deflate_stored)
// is unused because level 0 is refused.
var configurationTable = [10]config{
	{0, 0, 0, 0, false},
	{4, 4, 8, 4, true},
	{4, 5, 16, 8, true},
	{4, 6, 32, 32, true},
	{4, 4, 16, 16, false},
	{8, 16, 32, 32, false},
	{8, 16, 128, 128, false},
	{8, 32, 128, 256, false},
	{32, 128, 258, 1024, false},
	{32, 258, 258, 4096, false},
}

// Writer is the reusable state of one zlib deflate stream (deflate_state):
// window, hash chains, symbol buffer and Huffman trees, all sized once by
// NewWriter from windowBits and memLevel as deflateInit2 sizes them. Each
// Compress call starts a fresh stream (deflateReset), so a Writer can be
// pooled. A Writer is not safe for concurrent use.
type Writer struct {
	level    int
	wBits    int
	memLevel int

	wSize      int // w_size
	wMask      int // w_mask
	windowSize int // window_size = 2*w_size
	maxDist    int // MAX_DIST = w_size - MIN_LOOKAHEAD

	window []byte   // 2*wSize bytes
	prev   []uint16 // wSize links to older strings with the same hash
	head   []uint16 // hashSize chain heads

	hashMask  int
	hashShift uint

	litBufsize int
	symEnd     int      // block is full when symNext reaches this (sym_end/3)
	syms       []uint32 // sym_buf: dist<<8 | lc, one word per symbol
	symNext    int

	// lm_init / deflate state.
	insH           int
	blockStart     int // may go negative when the window slides
	matchLength    int
	prevMatch      int
	matchAvailable bool
	strstart       int
	matchStart     int
	lookahead      int
	prevLength     int
	insert         int
	highWater      int

	maxChainLength int
	maxLazyMatch   int
	goodMatch      int
	niceMatch      int

	in []byte // input not yet read into the window (next_in/avail_in)

	// Output: bits are collected LSB first (bi_buf/bi_valid, but 64 bits
	// wide) and whole words are appended to out.
	out      []byte
	bitBuf   uint64
	bitCount uint
	outMax   int  // len(out) may not exceed this (CompressLimit)
	over     bool // the stream would exceed outMax; nothing more is written

	trees trees
}

// NewWriter returns a Writer that makes the same streams as zlib 1.2.13's
// deflateInit2(level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY).
// level is 1..9 (-1 means 6; 0, store only, is not supported), windowBits
// 9..15 (8 is taken as 9, as zlib does), memLevel 1..9.
func NewWriter(level, windowBits, memLevel int) (*Writer, error) {
	if level == -1 { // Z_DEFAULT_COMPRESSION
		level = 6
	}
	if level == 0 {
		return nil, fmt.Errorf("czlib: level 0 (store only) is not supported; level must be 1..9 or -1")
	}
	if level < 1 || level > 9 {
		return nil, fmt.Errorf("czlib: level %d out of range; level must be 1..9 or -1", level)
	}
	if windowBits < 8 || windowBits > 15 {
		return nil, fmt.Errorf("czlib: windowBits %d out of range; windowBits must be 8..15 (8 is used as 9)", windowBits)
	}
	if memLevel < 1 || memLevel > 9 {
		return nil, fmt.Errorf("czlib: memLevel %d out of range; memLevel must be 1..9", memLevel)
	}
	if windowBits == 8 { // deflateInit2: "until 256-byte window bug fixed"
		windowBits = 9
	}
	w := &Writer{level: level, wBits: windowBits, memLevel: memLevel}
	w.wSize = 1 << windowBits
	w.wMask = w.wSize - 1
	w.windowSize = 2 * w.wSize
	w.maxDist = w.wSize - minLookahead
	hashBits := memLevel + 7
	hashSize := 1 << hashBits
	w.hashMask = hashSize - 1
	w.hashShift = uint((hashBits + minMatch - 1) / minMatch)
	w.window = make([]byte, w.windowSize)
	w.prev = make([]uint16, w.wSize)
	w.head = make([]uint16, hashSize)
	w.litBufsize = 1 << (memLevel + 6)
	w.symEnd = w.litBufsize - 1
	w.syms = make([]uint32, w.litBufsize)
	w.trees.init()
	return w, nil
}

// Compress appends to dst the complete zlib stream (header, deflate data,
// Adler-32 trailer) of src, byte-identical to zlib 1.2.13's single
// deflate(Z_FINISH) over src.
func (w *Writer) Compress(dst, src []byte) []byte {
	out, _ := w.compress(dst, src, math.MaxInt)
	return out
}

// CompressLimit is Compress, except that it gives up and returns
// (dst, false) as soon as the stream would exceed limit bytes, as
// page_zip_compress does when deflate runs out of avail_out. When it
// returns true, the appended bytes are identical to Compress's. It never
// writes more than limit bytes after len(dst), so a dst with that much
// spare capacity never grows; on false those bytes of dst's spare capacity
// may have been overwritten.
func (w *Writer) CompressLimit(dst, src []byte, limit int) ([]byte, bool) {
	if limit < 0 {
		return dst, false
	}
	return w.compress(dst, src, limit)
}

func (w *Writer) compress(dst, src []byte, limit int) ([]byte, bool) {
	start := len(dst)
	w.reset()
	w.in = src
	w.out = dst
	w.outMax = math.MaxInt
	if limit < math.MaxInt-start {
		w.outMax = start + limit
	}

	// zlib header (deflate(), INIT_STATE): CMF with CINFO = w_bits-8, FLG
	// with the level hint and the check bits.
	header := (8 + (w.wBits-8)<<4) << 8
	var levelFlags int
	switch {
	case w.level < 2:
		levelFlags = 0
	case w.level < 6:
		levelFlags = 1
	case w.level == 6:
		levelFlags = 2
	default:
		levelFlags = 3
	}
	header |= levelFlags << 6
	header += 31 - header%31
	if w.room(2) {
		w.out = append(w.out, byte(header>>8), byte(header))
	}

	if configurationTable[w.level].fast {
		w.deflateFast()
	} else {
		w.deflateSlow()
	}
	if w.room(4) {
		w.out = binary.BigEndian.AppendUint32(w.out, adler32.Checksum(src))
	}
	out, ok := w.out, !w.over
	w.out, w.in = nil, nil // do not keep the caller's buffers alive
	if !ok {
		return dst, false
	}
	return out, true
}

// reset is deflateReset (deflateResetKeep + _tr_init + lm_init) plus
// forgetting the high-water mark, so every call behaves like a freshly
// initialized zlib stream whatever the window holds from earlier calls.
func (w *Writer) reset() {
	w.bitBuf, w.bitCount = 0, 0
	w.over = false
	w.trees.initBlock(w)

	// lm_init
	clear(w.head) // CLEAR_HASH
	c := configurationTable[w.level]
	w.maxLazyMatch = c.lazy
	w.goodMatch = c.good
	w.niceMatch = c.nice
	w.maxChainLength = c.chain
	w.strstart = 0
	w.blockStart = 0
	w.lookahead = 0
	w.insert = 0
	w.matchLength = minMatch - 1
	w.prevLength = minMatch - 1
	w.matchAvailable = false
	w.matchStart = 0
	w.prevMatch = 0
	w.insH = 0
	w.highWater = 0
}

// insertString is INSERT_STRING: hash the string at str into the running
// hash, link it into its chain and return the previous chain head.
func (w *Writer) insertString(str int) int {
	w.insH = ((w.insH << w.hashShift) ^ int(w.window[str+minMatch-1])) & w.hashMask
	h := w.head[w.insH]
	w.prev[str&w.wMask] = h
	w.head[w.insH] = uint16(str)
	return int(h)
}

// insertRange is INSERT_STRING for the positions from..to in turn, with
// the state in registers.
func (w *Writer) insertRange(from, to int) {
	h, shift, mask := w.insH, w.hashShift, w.hashMask
	win, head, prev, wmask := w.window, w.head, w.prev, w.wMask
	for str := from; str <= to; str++ {
		h = ((h << shift) ^ int(win[str+minMatch-1])) & mask
		prev[str&wmask] = head[h]
		head[h] = uint16(str)
	}
	w.insH = h
}

// slideHash is slide_hash: rebase chain heads and links after the window
// moved down by wSize; positions that fall off become NIL.
func (w *Writer) slideHash() {
	ws := uint16(w.wSize)
	for i, m := range w.head {
		if m >= ws {
			w.head[i] = m - ws
		} else {
			w.head[i] = nilPos
		}
	}
	for i, m := range w.prev {
		if m >= ws {
			w.prev[i] = m - ws
		} else {
			w.prev[i] = nilPos
		}
	}
}

// fillWindow is fill_window: slide the window when strstart is too close to
// its end, read more input, hash the pending "insert" bytes, and zero the
// bytes just past the data (high_water) so that longest_match never sees
// bytes this stream did not write.
func (w *Writer) fillWindow() {
	wsize := w.wSize
	for {
		more := w.windowSize - w.lookahead - w.strstart

		if w.strstart >= wsize+w.maxDist {
			// zlib 1.2.12+ copies only the live part of the upper half
			// (wsize-more bytes); what lies past it stays as it was, and
			// longest_match may read it at the very end of the input.
			copy(w.window[:wsize-more], w.window[wsize:2*wsize-more])
			w.matchStart -= wsize
			w.strstart -= wsize
			w.blockStart -= wsize
			if w.insert > w.strstart {
				w.insert = w.strstart
			}
			w.slideHash()
			more += wsize
		}
		if len(w.in) == 0 {
			break
		}

		// read_buf (the Adler-32 is taken over all of src at the end).
		p := w.strstart + w.lookahead
		n := copy(w.window[p:p+more], w.in)
		w.in = w.in[n:]
		w.lookahead += n

		// Initialize the hash with the bytes left over from the last call.
		if w.lookahead+w.insert >= minMatch {
			str := w.strstart - w.insert
			w.insH = int(w.window[str])
			w.insH = ((w.insH << w.hashShift) ^ int(w.window[str+1])) & w.hashMask
			for w.insert != 0 {
				w.insH = ((w.insH << w.hashShift) ^ int(w.window[str+minMatch-1])) & w.hashMask
				w.prev[str&w.wMask] = w.head[w.insH]
				w.head[w.insH] = uint16(str)
				str++
				w.insert--
				if w.lookahead+w.insert < minMatch {
					break
				}
			}
		}
		if w.lookahead >= minLookahead || len(w.in) == 0 {
			break
		}
	}

	// High water logic: zero WIN_INIT bytes past the current data, or up to
	// the end of the window, unless that was done already.
	if w.highWater < w.windowSize {
		curr := w.strstart + w.lookahead
		if w.highWater < curr {
			init := min(w.windowSize-curr, winInit)
			clear(w.window[curr : curr+init])
			w.highWater = curr + init
		} else if w.highWater < curr+winInit {
			init := min(curr+winInit-w.highWater, w.windowSize-w.highWater)
			clear(w.window[w.highWater : w.highWater+init])
			w.highWater += init
		}
	}
}

// longestMatch is longest_match: walk the hash chain from curMatch and
// return the length of the longest match longer than prev_length (setting
// matchStart), or prev_length, clipped to lookahead.
func (w *Writer) longestMatch(curMatch int) int {
	chainLength := w.maxChainLength
	win := w.window
	strstart := w.strstart
	bestLen := w.prevLength
	niceMatch := w.niceMatch
	limit := nilPos
	if strstart > w.maxDist {
		limit = strstart - w.maxDist
	}
	prev := w.prev
	wmask := w.wMask

	// Fewer chain steps once a good match is already in hand.
	if w.prevLength >= w.goodMatch {
		chainLength >>= 2
	}
	// Do not look for matches beyond the end of the input.
	if niceMatch > w.lookahead {
		niceMatch = w.lookahead
	}

	// zlib checks bytes best_len-1, best_len, 0 and 1 first (here as two
	// 16-bit loads, like its UNALIGNED_OK variant), then compares bytes
	// 3..258; byte 2 is implied by equal hashes. A mismatch at 258 still
	// gives 258, so bytes 3..257 suffice here.
	_ = win[strstart+maxMatch] // longest_match may look this far
	scanStart := binary.LittleEndian.Uint16(win[strstart:])
	scanEnd := binary.LittleEndian.Uint16(win[strstart+bestLen-1:])
	for {
		if binary.LittleEndian.Uint16(win[curMatch+bestLen-1:]) == scanEnd &&
			binary.LittleEndian.Uint16(win[curMatch:]) == scanStart {
			n := minMatch + commonPrefix(win[strstart+minMatch:strstart+maxMatch], win[curMatch+minMatch:curMatch+maxMatch])
			if n > bestLen {
				w.matchStart = curMatch
				bestLen = n
				if n >= niceMatch {
					break
				}
				scanEnd = binary.LittleEndian.Uint16(win[strstart+bestLen-1:])
			}
		}
		curMatch = int(prev[curMatch&wmask])
		if curMatch <= limit {
			break
		}
		chainLength--
		if chainLength == 0 {
			break
		}
	}
	if bestLen <= w.lookahead {
		return bestLen
	}
	return w.lookahead
}

// commonPrefix returns the length of the common prefix of a and b, which
// have the same length.
func commonPrefix(a, b []byte) int {
	n := 0
	for len(a)-n >= 8 {
		x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:])
		if x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for n < len(a) && a[n] == b[n] {
		n++
	}
	return n
}

// flushBlock is FLUSH_BLOCK: emit the symbols tallied since blockStart as
// one block (the raw bytes are offered for a stored block only while they
// are still in the window). It reports false once the output passed the
// limit.
func (w *Writer) flushBlock(last bool) bool {
	var buf []byte
	storedLen := w.strstart - w.blockStart
	if w.blockStart >= 0 {
		buf = w.window[w.blockStart:w.strstart]
	}
	w.trees.flushBlock(w, buf, storedLen, last)
	w.blockStart = w.strstart
	return !w.over
}

// deflateFast is deflate_fast (levels 1-3): no lazy evaluation; after a
// match, its strings are hashed only if it is at most max_insert_length
// long.
func (w *Writer) deflateFast() {
	maxInsertLength := w.maxLazyMatch
	for {
		// Make sure there is always enough lookahead, except at the end of
		// the input.
		if w.lookahead < minLookahead {
			w.fillWindow()
			if w.lookahead == 0 {
				break
			}
		}

		// Hash the string at strstart (position 0 doubles as NIL, so it is
		// never matched, as in zlib).
		hashHead := nilPos
		if w.lookahead >= minMatch {
			hashHead = w.insertString(w.strstart)
		}
		// Matches at distance 0 or beyond MAX_DIST are not considered.
		if hashHead != nilPos && w.strstart-hashHead <= w.maxDist {
			w.matchLength = w.longestMatch(hashHead)
		}
		var bflush bool
		if w.matchLength >= minMatch {
			bflush = w.tallyDist(w.strstart-w.matchStart, w.matchLength-minMatch)
			w.lookahead -= w.matchLength
			if w.matchLength <= maxInsertLength && w.lookahead >= minMatch {
				// Hash the match's strings but the first, already hashed.
				w.insertRange(w.strstart+1, w.strstart+w.matchLength-1)
				w.strstart += w.matchLength
			} else {
				// Long match: skip hashing it, restart the running hash
				// at its end.
				w.strstart += w.matchLength
				w.insH = int(w.window[w.strstart])
				w.insH = ((w.insH << w.hashShift) ^ int(w.window[w.strstart+1])) & w.hashMask
			}
			w.matchLength = 0
		} else {
			bflush = w.tallyLit(w.window[w.strstart])
			w.lookahead--
			w.strstart++
		}
		if bflush && !w.flushBlock(false) {
			return
		}
	}
	w.insert = min(w.strstart, minMatch-1)
	w.flushBlock(true)
}

// deflateSlow is deflate_slow (levels 4-9): lazy evaluation, a match is
// emitted only if the match starting one byte later is not longer.
func (w *Writer) deflateSlow() {
	for {
		if w.lookahead < minLookahead {
			w.fillWindow()
			if w.lookahead == 0 {
				break
			}
		}

		hashHead := nilPos
		if w.lookahead >= minMatch {
			hashHead = w.insertString(w.strstart)
		}

		w.prevLength, w.prevMatch = w.matchLength, w.matchStart
		w.matchLength = minMatch - 1

		if hashHead != nilPos && w.prevLength < w.maxLazyMatch &&
			w.strstart-hashHead <= w.maxDist {
			w.matchLength = w.longestMatch(hashHead)
			// A far length-3 match costs more than its literals
			// (TOO_FAR; Z_FILTERED is not supported).
			if w.matchLength == minMatch && w.strstart-w.matchStart > tooFar {
				w.matchLength = minMatch - 1
			}
		}

		if w.prevLength >= minMatch && w.matchLength <= w.prevLength {
			// The previous match is at least as good: emit it.
			maxInsert := w.strstart + w.lookahead - minMatch
			bflush := w.tallyDist(w.strstart-1-w.prevMatch, w.prevLength-minMatch)
			// Hash all its strings but the two already hashed, unless
			// they run past the end of the input.
			w.lookahead -= w.prevLength - 1
			w.insertRange(w.strstart+1, min(w.strstart+w.prevLength-2, maxInsert))
			w.strstart += w.prevLength - 1
			w.prevLength = 0
			w.matchAvailable = false
			w.matchLength = minMatch - 1
			if bflush && !w.flushBlock(false) {
				return
			}
		} else if w.matchAvailable {
			// No better match: emit the previous byte as a literal
			// (FLUSH_BLOCK_ONLY: the block ends before strstart moves).
			if w.tallyLit(w.window[w.strstart-1]) && !w.flushBlock(false) {
				return
			}
			w.strstart++
			w.lookahead--
		} else {
			// Wait for the next step to decide.
			w.matchAvailable = true
			w.strstart++
			w.lookahead--
		}
	}
	if w.matchAvailable {
		w.tallyLit(w.window[w.strstart-1])
		w.matchAvailable = false
	}
	w.insert = min(w.strstart, minMatch-1)
	w.flushBlock(true)
}
