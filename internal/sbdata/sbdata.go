// Package sbdata generates sysbench-style row values for tests and
// benchmarks: the c and pad strings of sysbench 1.0's oltp_common.lua
// (groups of 11 random decimal digits joined by '-'), space-padded to their
// CHAR(120) and CHAR(60) widths, and a raw page-like byte image of such rows
// for codec benchmarks that must not depend on the page format.
package sbdata

import (
	"encoding/binary"
	"math/rand/v2"
)

// Column widths of sbtest's CHAR columns.
const (
	CLen   = 120
	PadLen = 60
)

// digitGroups appends n groups of 11 random digits joined by '-' and pads the
// result with spaces to width bytes.
func digitGroups(dst []byte, r *rand.Rand, n, width int) []byte {
	start := len(dst)
	for g := 0; g < n; g++ {
		if g > 0 {
			dst = append(dst, '-')
		}
		for i := 0; i < 11; i++ {
			dst = append(dst, byte('0'+r.IntN(10)))
		}
	}
	for len(dst)-start < width {
		dst = append(dst, ' ')
	}
	return dst
}

// C appends a sysbench c value: 10 digit groups (119 characters) padded to 120.
func C(dst []byte, r *rand.Rand) []byte { return digitGroups(dst, r, 10, CLen) }

// Pad appends a sysbench pad value: 5 digit groups (59 characters) padded to 60.
func Pad(dst []byte, r *rand.Rand) []byte { return digitGroups(dst, r, 5, PadLen) }

// Rand returns a deterministic generator for a seed.
func Rand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// PageImage returns size bytes shaped like an InnoDB leaf full of sbtest
// rows: a 120-byte zero header, then records of 9 header bytes, id, a 13-byte
// DB_TRX_ID+DB_ROLL_PTR, k, c and pad until the page is 15/16 full, then zero
// free space and a 2-byte-per-record directory. It is only a realistic input
// for codecs; the page package builds real pages.
func PageImage(size int, seed uint64) []byte {
	r := Rand(seed)
	b := make([]byte, 120, size)
	const rec = 9 + 4 + 13 + 4 + CLen + PadLen
	n := 0
	for len(b)+rec+2*(n+1) <= size*15/16 {
		id := uint32(seed*1000) + uint32(n) + 1
		b = append(b, 0x7f, 0, 4, 0, 0, byte(n>>5), byte(n<<3), 0, rec)
		b = binary.BigEndian.AppendUint32(b, id|0x80000000)
		b = append(b, 0, 0, 0, 0, 0x0a, byte(n), 0x80, 0, 0, 0, 0x11, 0x01, 0x10)
		b = binary.BigEndian.AppendUint32(b, uint32(r.IntN(1_000_000))|0x80000000)
		b = C(b, r)
		b = Pad(b, r)
		n++
	}
	dir := size - 2*n
	for len(b) < dir {
		b = append(b, 0)
	}
	for i := n - 1; i >= 0; i-- {
		b = binary.BigEndian.AppendUint16(b, uint16(120+9+i*rec))
	}
	return b
}

// Key encodes an INT primary key as InnoDB stores it: big-endian with the
// sign bit flipped, so byte order is numeric order.
func Key(id uint32) []byte { return binary.BigEndian.AppendUint32(nil, id^0x80000000) }

// Row returns an sbtest row for a clustered index record: the key, a
// DB_TRX_ID+DB_ROLL_PTR such as a bulk load leaves (few, increasing
// transaction ids), and the value k, c, pad.
func Row(r *rand.Rand, id uint32) (key, sys, value []byte) {
	value = binary.BigEndian.AppendUint32(nil, uint32(r.IntN(1_000_000))^0x80000000)
	value = C(value, r)
	value = Pad(value, r)
	sys = make([]byte, 13)
	binary.BigEndian.PutUint32(sys[2:], 0x1000+id/64)
	sys[6] = 0x80 // insert undo record
	binary.BigEndian.PutUint32(sys[9:], id)
	return Key(id), sys, value
}
