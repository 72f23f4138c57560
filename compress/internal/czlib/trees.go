package czlib

import "encoding/binary"

// Constants of trees.c / deflate.h.
const (
	lengthCodes = 29                         // LENGTH_CODES
	literals    = 256                        // LITERALS
	lCodes      = literals + 1 + lengthCodes // L_CODES
	dCodes      = 30                         // D_CODES
	blCodes     = 19                         // BL_CODES
	heapSize    = 2*lCodes + 1               // HEAP_SIZE
	maxBits     = 15                         // MAX_BITS
	maxBLBits   = 7                          // MAX_BL_BITS
	endBlock    = 256                        // END_BLOCK
	rep3_6      = 16                         // REP_3_6
	repz3_10    = 17                         // REPZ_3_10
	repz11_138  = 18                         // REPZ_11_138

	storedBlock = 0
	staticTrees = 1
	dynTrees    = 2
)

var extraLBits = [lengthCodes]int{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}

var extraDBits = [dCodes]int{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}

var extraBLBits = [blCodes]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7}

// blOrder is the order in which the bit length code lengths are sent.
var blOrder = [blCodes]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// ctData is zlib's ct_data: fc is Freq while counting and Code once the
// codes are generated; dl is Dad while building the tree and Len after.
// The overlap is kept because build_tree relies on it.
type ctData struct {
	fc uint16
	dl uint16
}

// Static tables built by tr_static_init.
var (
	staticLTree [lCodes + 2]ctData
	staticDTree [dCodes]ctData
	distCode    [512]uint8 // _dist_code
	lengthCode  [maxMatch - minMatch + 1]uint8
	baseLength  [lengthCodes]int
	baseDist    [dCodes]int
)

func init() { trStaticInit() }

// trStaticInit is tr_static_init.
func trStaticInit() {
	length := 0
	code := 0
	for code = 0; code < lengthCodes-1; code++ {
		baseLength[code] = length
		for n := 0; n < 1<<extraLBits[code]; n++ {
			lengthCode[length] = uint8(code)
			length++
		}
	}
	// Length 258 (index 255) gets its own code 28, overwriting code 27's
	// last slot.
	lengthCode[length-1] = uint8(code)

	dist := 0
	for code = 0; code < 16; code++ {
		baseDist[code] = dist
		for n := 0; n < 1<<extraDBits[code]; n++ {
			distCode[dist] = uint8(code)
			dist++
		}
	}
	dist >>= 7 // from now on, all distances are divided by 128
	for ; code < dCodes; code++ {
		baseDist[code] = dist << 7
		for n := 0; n < 1<<(extraDBits[code]-7); n++ {
			distCode[256+dist] = uint8(code)
			dist++
		}
	}

	var blCount [maxBits + 1]uint16
	n := 0
	for n <= 143 {
		staticLTree[n].dl = 8
		n++
		blCount[8]++
	}
	for n <= 255 {
		staticLTree[n].dl = 9
		n++
		blCount[9]++
	}
	for n <= 279 {
		staticLTree[n].dl = 7
		n++
		blCount[7]++
	}
	for n <= 287 {
		staticLTree[n].dl = 8
		n++
		blCount[8]++
	}
	genCodes(staticLTree[:], lCodes+1, &blCount)
	for n := 0; n < dCodes; n++ {
		staticDTree[n].dl = 5
		staticDTree[n].fc = uint16(biReverse(uint(n), 5))
	}
}

// dCode is d_code: the distance code of dist-1.
func dCode(dist int) int {
	if dist < 256 {
		return int(distCode[dist])
	}
	return int(distCode[256+dist>>7])
}

// staticTreeDesc is static_tree_desc.
type staticTreeDesc struct {
	staticTree []ctData // nil for the bit length tree
	extraBits  []int
	extraBase  int
	elems      int
	maxLength  int
}

var (
	staticLDesc  = staticTreeDesc{staticLTree[:], extraLBits[:], literals + 1, lCodes, maxBits}
	staticDDesc  = staticTreeDesc{staticDTree[:], extraDBits[:], 0, dCodes, maxBits}
	staticBLDesc = staticTreeDesc{nil, extraBLBits[:], 0, blCodes, maxBLBits}
)

// treeDesc is tree_desc.
type treeDesc struct {
	dynTree []ctData
	maxCode int
	stat    *staticTreeDesc
}

// trees is the trees.c part of deflate_state.
type trees struct {
	dynLTree [heapSize]ctData
	dynDTree [2*dCodes + 1]ctData
	blTree   [2*blCodes + 1]ctData

	lDesc, dDesc, blDesc treeDesc

	blCount [maxBits + 1]uint16

	heap    [2*lCodes + 1]int
	heapLen int
	heapMax int
	depth   [2*lCodes + 1]uint8

	optLen    uint64 // ulg: may wrap transiently, as in zlib
	staticLen uint64
	matches   int
}

// init is _tr_init without the block reset.
func (t *trees) init() {
	t.lDesc = treeDesc{dynTree: t.dynLTree[:], stat: &staticLDesc}
	t.dDesc = treeDesc{dynTree: t.dynDTree[:], stat: &staticDDesc}
	t.blDesc = treeDesc{dynTree: t.blTree[:], stat: &staticBLDesc}
}

// initBlock is init_block: clear the frequencies for a new block.
func (t *trees) initBlock(w *Writer) {
	for n := 0; n < lCodes; n++ {
		t.dynLTree[n].fc = 0
	}
	for n := 0; n < dCodes; n++ {
		t.dynDTree[n].fc = 0
	}
	for n := 0; n < blCodes; n++ {
		t.blTree[n].fc = 0
	}
	t.dynLTree[endBlock].fc = 1
	t.optLen, t.staticLen = 0, 0
	t.matches = 0
	w.symNext = 0
}

// tallyLit is _tr_tally_lit: record a literal; true when the block is full.
func (w *Writer) tallyLit(c byte) bool {
	w.syms[w.symNext] = uint32(c)
	w.symNext++
	w.trees.dynLTree[c].fc++
	return w.symNext == w.symEnd
}

// tallyDist is _tr_tally_dist: record a match of distance dist and length
// lc+MIN_MATCH; true when the block is full.
func (w *Writer) tallyDist(dist, lc int) bool {
	w.syms[w.symNext] = uint32(dist)<<8 | uint32(lc)
	w.symNext++
	t := &w.trees
	t.matches++
	dist--
	t.dynLTree[int(lengthCode[lc])+literals+1].fc++
	t.dynDTree[dCode(dist)].fc++
	return w.symNext == w.symEnd
}

// smaller compares two nodes by frequency, then by depth (the tie breaker
// zlib uses to keep trees shallow).
func smaller(tree []ctData, n, m int, depth *[2*lCodes + 1]uint8) bool {
	return tree[n].fc < tree[m].fc || (tree[n].fc == tree[m].fc && depth[n] <= depth[m])
}

// pqdownheap restores the heap property by moving down the tree from k.
func (t *trees) pqdownheap(tree []ctData, k int) {
	v := t.heap[k]
	j := k << 1
	for j <= t.heapLen {
		if j < t.heapLen && smaller(tree, t.heap[j+1], t.heap[j], &t.depth) {
			j++
		}
		if smaller(tree, v, t.heap[j], &t.depth) {
			break
		}
		t.heap[k] = t.heap[j]
		k = j
		j <<= 1
	}
	t.heap[k] = v
}

// genBitlen is gen_bitlen: compute the code lengths from the tree, limit
// them to max_length (rebalancing as zlib does), and add the block's cost
// under these and the static codes to optLen and staticLen.
func (t *trees) genBitlen(desc *treeDesc) {
	tree := desc.dynTree
	maxCode := desc.maxCode
	stree := desc.stat.staticTree
	extra := desc.stat.extraBits
	base := desc.stat.extraBase
	maxLength := desc.stat.maxLength
	overflow := 0

	for b := range t.blCount {
		t.blCount[b] = 0
	}

	// Optimal lengths first, which may overflow for the bit length tree.
	tree[t.heap[t.heapMax]].dl = 0 // root of the heap
	h := t.heapMax + 1
	for ; h < heapSize; h++ {
		n := t.heap[h]
		bits := int(tree[tree[n].dl].dl) + 1
		if bits > maxLength {
			bits = maxLength
			overflow++
		}
		tree[n].dl = uint16(bits) // overwrites Dad, no longer needed
		if n > maxCode {
			continue // not a leaf
		}
		t.blCount[bits]++
		xbits := 0
		if n >= base {
			xbits = extra[n-base]
		}
		f := uint64(tree[n].fc)
		t.optLen += f * uint64(bits+xbits)
		if stree != nil {
			t.staticLen += f * uint64(int(stree[n].dl)+xbits)
		}
	}
	if overflow == 0 {
		return
	}

	// Find the first bit length which could increase.
	for {
		bits := maxLength - 1
		for t.blCount[bits] == 0 {
			bits--
		}
		t.blCount[bits]--      // move one leaf down the tree
		t.blCount[bits+1] += 2 // move one overflow item as its brother
		t.blCount[maxLength]--
		overflow -= 2
		if overflow <= 0 {
			break
		}
	}

	// Recompute all lengths in increasing frequency order (h is HEAP_SIZE).
	for bits := maxLength; bits != 0; bits-- {
		n := int(t.blCount[bits])
		for n != 0 {
			h--
			m := t.heap[h]
			if m > maxCode {
				continue
			}
			if int(tree[m].dl) != bits {
				t.optLen += (uint64(bits) - uint64(tree[m].dl)) * uint64(tree[m].fc)
				tree[m].dl = uint16(bits)
			}
			n--
		}
	}
}

// genCodes is gen_codes: assign canonical codes (bit-reversed for LSB-first
// output) to the codes 0..maxCode from their lengths.
func genCodes(tree []ctData, maxCode int, blCount *[maxBits + 1]uint16) {
	var nextCode [maxBits + 1]uint16
	code := uint(0)
	for bits := 1; bits <= maxBits; bits++ {
		code = (code + uint(blCount[bits-1])) << 1
		nextCode[bits] = uint16(code)
	}
	for n := 0; n <= maxCode; n++ {
		l := int(tree[n].dl)
		if l == 0 {
			continue
		}
		tree[n].fc = uint16(biReverse(uint(nextCode[l]), l))
		nextCode[l]++
	}
}

// biReverse is bi_reverse: the first len bits of code, reversed.
func biReverse(code uint, length int) uint {
	res := uint(0)
	for {
		res |= code & 1
		code >>= 1
		res <<= 1
		length--
		if length <= 0 {
			break
		}
	}
	return res >> 1
}

// buildTree is build_tree: the Huffman tree of one descriptor, its code
// lengths (genBitlen) and codes (genCodes).
func (t *trees) buildTree(desc *treeDesc) {
	tree := desc.dynTree
	stree := desc.stat.staticTree
	elems := desc.stat.elems
	maxCode := -1

	// Heap of the leaves with non-zero frequency; heap[0] is unused.
	t.heapLen = 0
	t.heapMax = heapSize
	for n := 0; n < elems; n++ {
		if tree[n].fc != 0 {
			t.heapLen++
			t.heap[t.heapLen] = n
			maxCode = n
			t.depth[n] = 0
		} else {
			tree[n].dl = 0
		}
	}

	// Force at least two codes of non-zero frequency, as the format needs
	// at least one distance code and one bit per code.
	for t.heapLen < 2 {
		node := 0
		if maxCode < 2 {
			maxCode++
			node = maxCode
		}
		t.heapLen++
		t.heap[t.heapLen] = node
		tree[node].fc = 1
		t.depth[node] = 0
		t.optLen--
		if stree != nil {
			t.staticLen -= uint64(stree[node].dl)
		}
	}
	desc.maxCode = maxCode

	for n := t.heapLen / 2; n >= 1; n-- {
		t.pqdownheap(tree, n)
	}

	// Combine the two least frequent nodes until one is left.
	node := elems
	for {
		n := t.heap[1] // pqremove
		t.heap[1] = t.heap[t.heapLen]
		t.heapLen--
		t.pqdownheap(tree, 1)
		m := t.heap[1]

		t.heapMax--
		t.heap[t.heapMax] = n // keep the nodes sorted by frequency
		t.heapMax--
		t.heap[t.heapMax] = m

		tree[node].fc = tree[n].fc + tree[m].fc
		dn, dm := t.depth[n], t.depth[m]
		if dn >= dm {
			t.depth[node] = dn + 1
		} else {
			t.depth[node] = dm + 1
		}
		tree[n].dl = uint16(node)
		tree[m].dl = uint16(node)
		t.heap[1] = node
		node++
		t.pqdownheap(tree, 1)
		if t.heapLen < 2 {
			break
		}
	}
	t.heapMax--
	t.heap[t.heapMax] = t.heap[1]

	t.genBitlen(desc)
	genCodes(tree, maxCode, &t.blCount)
}

// scanTree is scan_tree: count the bit length codes (with their run-length
// codes) that send_tree will use for one tree.
func (t *trees) scanTree(tree []ctData, maxCode int) {
	prevlen := -1
	nextlen := int(tree[0].dl)
	count := 0
	maxCount, minCount := 7, 4
	if nextlen == 0 {
		maxCount, minCount = 138, 3
	}
	tree[maxCode+1].dl = 0xffff // guard

	for n := 0; n <= maxCode; n++ {
		curlen := nextlen
		nextlen = int(tree[n+1].dl)
		count++
		if count < maxCount && curlen == nextlen {
			continue
		} else if count < minCount {
			t.blTree[curlen].fc += uint16(count)
		} else if curlen != 0 {
			if curlen != prevlen {
				t.blTree[curlen].fc++
			}
			t.blTree[rep3_6].fc++
		} else if count <= 10 {
			t.blTree[repz3_10].fc++
		} else {
			t.blTree[repz11_138].fc++
		}
		count = 0
		prevlen = curlen
		if nextlen == 0 {
			maxCount, minCount = 138, 3
		} else if curlen == nextlen {
			maxCount, minCount = 6, 3
		} else {
			maxCount, minCount = 7, 4
		}
	}
}

// sendTree is send_tree: send one tree's code lengths in bit length codes
// (scan_tree left its guard in place).
func (w *Writer) sendTree(tree []ctData, maxCode int) {
	bl := &w.trees.blTree
	prevlen := -1
	nextlen := int(tree[0].dl)
	count := 0
	maxCount, minCount := 7, 4
	if nextlen == 0 {
		maxCount, minCount = 138, 3
	}
	for n := 0; n <= maxCode; n++ {
		curlen := nextlen
		nextlen = int(tree[n+1].dl)
		count++
		if count < maxCount && curlen == nextlen {
			continue
		} else if count < minCount {
			for {
				w.sendBits(uint64(bl[curlen].fc), uint(bl[curlen].dl))
				count--
				if count == 0 {
					break
				}
			}
		} else if curlen != 0 {
			if curlen != prevlen {
				w.sendBits(uint64(bl[curlen].fc), uint(bl[curlen].dl))
				count--
			}
			w.sendBits(uint64(bl[rep3_6].fc), uint(bl[rep3_6].dl))
			w.sendBits(uint64(count-3), 2)
		} else if count <= 10 {
			w.sendBits(uint64(bl[repz3_10].fc), uint(bl[repz3_10].dl))
			w.sendBits(uint64(count-3), 3)
		} else {
			w.sendBits(uint64(bl[repz11_138].fc), uint(bl[repz11_138].dl))
			w.sendBits(uint64(count-11), 7)
		}
		count = 0
		prevlen = curlen
		if nextlen == 0 {
			maxCount, minCount = 138, 3
		} else if curlen == nextlen {
			maxCount, minCount = 6, 3
		} else {
			maxCount, minCount = 7, 4
		}
	}
}

// buildBLTree is build_bl_tree: the tree for the code lengths of the other
// two; returns the index in blOrder of the last code length code sent.
func (t *trees) buildBLTree() int {
	t.scanTree(t.dynLTree[:], t.lDesc.maxCode)
	t.scanTree(t.dynDTree[:], t.dDesc.maxCode)
	t.buildTree(&t.blDesc)

	// At least 4 code length codes are sent (blcodes-4 takes 4 bits).
	maxBLIndex := blCodes - 1
	for ; maxBLIndex >= 3; maxBLIndex-- {
		if t.blTree[blOrder[maxBLIndex]].dl != 0 {
			break
		}
	}
	// Add the 3 bits per code length code and the 5+5+4 bit counts.
	t.optLen += 3*(uint64(maxBLIndex)+1) + 5 + 5 + 4
	return maxBLIndex
}

// sendAllTrees is send_all_trees: the dynamic block header.
func (w *Writer) sendAllTrees(lcodes, dcodes, blcodes int) {
	w.sendBits(uint64(lcodes-257), 5)
	w.sendBits(uint64(dcodes-1), 5)
	w.sendBits(uint64(blcodes-4), 4)
	for rank := 0; rank < blcodes; rank++ {
		w.sendBits(uint64(w.trees.blTree[blOrder[rank]].dl), 3)
	}
	w.sendTree(w.trees.dynLTree[:], lcodes-1)
	w.sendTree(w.trees.dynDTree[:], dcodes-1)
}

// flushBlock is _tr_flush_block: choose the cheapest of a stored block
// (only if buf is still available), the static trees and dynamic trees,
// emit the block and start a new one.
func (t *trees) flushBlock(w *Writer, buf []byte, storedLen int, last bool) {
	lastBit := uint64(0)
	if last {
		lastBit = 1
	}

	t.buildTree(&t.lDesc)
	t.buildTree(&t.dDesc)
	maxBLIndex := t.buildBLTree()

	// Block lengths in bytes, including the 3-bit block header.
	optLenb := (t.optLen + 3 + 7) >> 3
	staticLenb := (t.staticLen + 3 + 7) >> 3
	if staticLenb <= optLenb {
		optLenb = staticLenb
	}

	switch {
	case uint64(storedLen)+4 <= optLenb && buf != nil:
		// 4: the two length words of a stored block.
		w.storedBlock(buf, last)
	case staticLenb == optLenb:
		w.sendBits(staticTrees<<1+lastBit, 3)
		w.compressBlock(staticLTree[:], staticDTree[:])
	default:
		w.sendBits(dynTrees<<1+lastBit, 3)
		w.sendAllTrees(t.lDesc.maxCode+1, t.dDesc.maxCode+1, maxBLIndex+1)
		w.compressBlock(t.dynLTree[:], t.dynDTree[:])
	}
	t.initBlock(w)
	if last {
		w.biWindup()
	}
}

// storedBlock is _tr_stored_block.
func (w *Writer) storedBlock(buf []byte, last bool) {
	lastBit := uint64(0)
	if last {
		lastBit = 1
	}
	w.sendBits(storedBlock<<1+lastBit, 3)
	w.biWindup()
	if !w.room(4 + len(buf)) {
		return
	}
	n := uint16(len(buf))
	w.out = append(w.out, byte(n), byte(n>>8), byte(^n), byte(^n>>8))
	w.out = append(w.out, buf...)
}

// room reports whether n more bytes fit under outMax; once they do not,
// the stream is over its limit and nothing more is written, so dst never
// grows past the limit (page_zip_compress's avail_out).
func (w *Writer) room(n int) bool {
	if w.over || len(w.out)+n > w.outMax {
		w.over = true
		return false
	}
	return true
}

// compressBlock is compress_block: send the tallied symbols with the given
// trees, then END_BLOCK. It stops early once the output reached its limit.
func (w *Writer) compressBlock(ltree, dtree []ctData) {
	ltree = ltree[:lCodes]
	dtree = dtree[:dCodes]
	for _, sym := range w.syms[:w.symNext] {
		lc := int(sym & 0xff)
		dist := int(sym >> 8)
		if dist == 0 {
			w.sendBits(uint64(ltree[lc].fc), uint(ltree[lc].dl))
		} else {
			// lc is the match length - MIN_MATCH.
			code := int(lengthCode[lc])
			lt := ltree[code+literals+1]
			bits := uint64(lt.fc)
			n := uint(lt.dl)
			if extra := extraLBits[code]; extra != 0 {
				bits |= uint64(lc-baseLength[code]) << n
				n += uint(extra)
			}
			w.sendBits(bits, n)
			dist-- // now the match distance - 1
			code = dCode(dist)
			dt := dtree[code]
			bits = uint64(dt.fc)
			n = uint(dt.dl)
			if extra := extraDBits[code]; extra != 0 {
				bits |= uint64(dist-baseDist[code]) << n
				n += uint(extra)
			}
			w.sendBits(bits, n)
		}
		if w.over {
			return
		}
	}
	w.sendBits(uint64(ltree[endBlock].fc), uint(ltree[endBlock].dl))
}

// sendBits is send_bits: append the low length bits of value, LSB first.
// length is at most 28 (a distance code and its extra bits), so with fewer
// than 32 bits pending the 64-bit buffer cannot overflow.
func (w *Writer) sendBits(value uint64, length uint) {
	w.bitBuf |= value << w.bitCount
	w.bitCount += length
	if w.bitCount >= 32 {
		w.flushBits()
	}
}

// flushBits writes 32 complete bits.
func (w *Writer) flushBits() {
	if w.room(4) {
		w.out = binary.LittleEndian.AppendUint32(w.out, uint32(w.bitBuf))
	}
	w.bitBuf >>= 32
	w.bitCount -= 32
}

// biWindup is bi_windup: write out the remaining bits, padding the last
// byte with zeros.
func (w *Writer) biWindup() {
	for w.bitCount > 0 {
		if w.room(1) {
			w.out = append(w.out, byte(w.bitBuf))
		}
		w.bitBuf >>= 8
		if w.bitCount < 8 {
			w.bitCount = 0
		} else {
			w.bitCount -= 8
		}
	}
	w.bitBuf = 0
}
