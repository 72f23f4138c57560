package zipsim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/zipsim/zipsim/page"
)

// Value is one column's value: an integer for TypeInt columns, bytes for
// TypeChar and TypeVarchar. The zero Value is no value, which no column
// accepts (zipsim has no NULL).
type Value struct {
	b    []byte
	i    int64
	kind valueKind
}

type valueKind uint8

const (
	kindNone valueKind = iota
	kindInt
	kindBytes
)

// Int returns an integer value.
func Int(v int64) Value { return Value{i: v, kind: kindInt} }

// Bytes returns a byte-string value. The row keeps b, not a copy, until
// the call it is passed to returns. A nil b is the empty string.
func Bytes(b []byte) Value { return Value{b: nonNil(b), kind: kindBytes} }

// nonNil returns b, or an empty slice for nil, so that equal byte strings
// are equal Values whichever way they were made.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// String returns a byte-string value holding s.
func String(s string) Value { return Value{b: []byte(s), kind: kindBytes} }

// Int returns the integer; 0 for a byte string.
func (v Value) Int() int64 { return v.i }

// Bytes returns the byte string; nil for an integer.
func (v Value) Bytes() []byte { return v.b }

// String formats an integer in decimal and returns a byte string as is.
func (v Value) String() string {
	switch v.kind {
	case kindInt:
		return strconv.FormatInt(v.i, 10)
	case kindBytes:
		return string(v.b)
	}
	return "<no value>"
}

// Row holds one Value per column, in the order of TableOptions.Columns.
type Row []Value

// Clone returns a copy that shares no bytes with r, for keeping a row
// that a scan hands out only for the duration of its callback.
func (r Row) Clone() Row {
	c := make(Row, len(r))
	for i, v := range r {
		c[i] = v
		if v.b != nil {
			c[i].b = bytes.Clone(v.b)
		}
	}
	return c
}

// errCorrupt means a stored record does not decode under the table's
// schema: the page bytes were damaged, or the catalog does not match them.
var errCorrupt = errors.New("zipsim: record does not match the table's columns")

// checkValue says whether v fits column c.
func checkValue(c *Column, v Value) error {
	switch c.Type {
	case TypeInt:
		if v.kind != kindInt {
			return fmt.Errorf("column %q is INT: give it zipsim.Int", c.Name)
		}
		if c.Len < 8 {
			lim := int64(1) << (8*c.Len - 1)
			if v.i < -lim || v.i >= lim {
				return fmt.Errorf("column %q is a %d-byte INT: %d is outside %d..%d", c.Name, c.Len, v.i, -lim, lim-1)
			}
		}
	default:
		if v.kind != kindBytes {
			return fmt.Errorf("column %q is %v(%d): give it zipsim.Bytes or zipsim.String", c.Name, c.Type, c.Len)
		}
		if len(v.b) > c.Len {
			return fmt.Errorf("column %q is %v(%d): the value has %d bytes", c.Name, c.Type, c.Len, len(v.b))
		}
	}
	return nil
}

// checkRow says whether row fits the table.
func (s *schema) checkRow(row Row) error {
	if len(row) != len(s.cols) {
		return fmt.Errorf("the row has %d values; the table has %d columns", len(row), len(s.cols))
	}
	for i := range s.cols {
		if err := checkValue(&s.cols[i], row[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkPrefix says whether vals fit the leading columns of index x, as a
// key or a scan bound.
func (s *schema) checkPrefix(x *indexSchema, vals []Value) error {
	if len(vals) > len(x.cols) {
		return fmt.Errorf("%d values for index %s of %d columns", len(vals), x.name, len(x.cols))
	}
	for i, v := range vals {
		if err := checkValue(&s.cols[x.cols[i]], v); err != nil {
			return err
		}
	}
	return nil
}

// intBias maps a signed integer of n bytes to an unsigned one with the
// same order: InnoDB flips the sign bit.
func intBias(n int) uint64 { return 1 << (8*n - 1) }

// appendKeyValue appends v in key form: order-preserving and
// self-delimiting, so that bytes.Compare on a concatenation of columns is
// the order of the tuples. Integers are big-endian with the sign bit
// flipped, CHARs padded to their length, VARCHARs escape 0x00 as 0x00 0xFF
// and end with 0x00 0x01.
func appendKeyValue(dst []byte, c *Column, v Value) []byte {
	switch c.Type {
	case TypeInt:
		u := uint64(v.i) + intBias(c.Len)
		for sh := 8 * (c.Len - 1); sh >= 0; sh -= 8 {
			dst = append(dst, byte(u>>sh))
		}
	case TypeChar:
		dst = appendPadded(dst, v.b, c.Len)
	case TypeVarchar:
		for {
			i := bytes.IndexByte(v.b, 0)
			if i < 0 {
				break
			}
			dst = append(dst, v.b[:i+1]...)
			dst = append(dst, 0xFF)
			v.b = v.b[i+1:]
		}
		dst = append(dst, v.b...)
		dst = append(dst, 0, 1)
	}
	return dst
}

// appendPadded appends b padded with spaces to n bytes.
func appendPadded(dst, b []byte, n int) []byte {
	dst = append(dst, b...)
	for range n - len(b) {
		dst = append(dst, ' ')
	}
	return dst
}

// appendFieldValue appends v in record-value form: integers and CHARs as
// in keys, VARCHARs as a uvarint length and the bytes (InnoDB stores 1 or
// 2 length bytes).
func appendFieldValue(dst []byte, c *Column, v Value) []byte {
	if c.Type != TypeVarchar {
		return appendKeyValue(dst, c, v)
	}
	dst = binary.AppendUvarint(dst, uint64(len(v.b)))
	return append(dst, v.b...)
}

// appendKey appends the key of index x for row.
func (s *schema) appendKey(dst []byte, x *indexSchema, row Row) []byte {
	for _, p := range x.cols {
		dst = appendKeyValue(dst, &s.cols[p], row[p])
	}
	return dst
}

// appendPrefix appends the key form of the leading values of index x.
func (s *schema) appendPrefix(dst []byte, x *indexSchema, vals []Value) []byte {
	for i, v := range vals {
		dst = appendKeyValue(dst, &s.cols[x.cols[i]], v)
	}
	return dst
}

// appendValue appends the clustered record's value: every column outside
// the primary key, the columns marked in ext (by position in s.vals; nil
// means none) as their local prefix with the external flag, then the
// references to those columns' off-page values, refs, in column order.
func (s *schema) appendValue(dst []byte, row Row, ext []bool, refs []page.ExternRef) []byte {
	for j, p := range s.vals {
		c := &s.cols[p]
		switch {
		case !s.extCap[p]:
			dst = appendFieldValue(dst, c, row[p])
		case ext != nil && ext[j]:
			n := s.localPrefix()
			dst = binary.AppendUvarint(dst, uint64(n)<<1|1)
			dst = append(dst, row[p].b[:n]...)
		default:
			dst = binary.AppendUvarint(dst, uint64(len(row[p].b))<<1)
			dst = append(dst, row[p].b...)
		}
	}
	for _, r := range refs {
		dst = append(dst, make([]byte, page.ExternRefSize)...)
		r.Encode(dst[len(dst)-page.ExternRefSize:])
	}
	return dst
}

// setBytes stores b in row[p] as a copy, reusing the row's buffer.
func setBytes(row Row, p int, b []byte) {
	row[p] = Value{b: nonNil(append(row[p].b[:0], b...)), kind: kindBytes}
}

// decodeKey fills the columns of index x in row from key, copying bytes
// into the row's own buffers. It returns what follows the key.
func (s *schema) decodeKey(row Row, x *indexSchema, key []byte) ([]byte, error) {
	for _, p := range x.cols {
		c := &s.cols[p]
		switch c.Type {
		case TypeInt, TypeChar:
			if len(key) < c.Len {
				return nil, errCorrupt
			}
			if c.Type == TypeInt {
				row[p] = Value{i: int64(decodeUint(key[:c.Len]) - intBias(c.Len)), kind: kindInt}
			} else {
				setBytes(row, p, key[:c.Len])
			}
			key = key[c.Len:]
		case TypeVarchar:
			b := row[p].b[:0]
			for {
				i := bytes.IndexByte(key, 0)
				if i < 0 || i+1 >= len(key) {
					return nil, errCorrupt
				}
				b = append(b, key[:i]...)
				esc := key[i+1]
				key = key[i+2:]
				if esc == 1 {
					break
				}
				if esc != 0xFF {
					return nil, errCorrupt
				}
				b = append(b, 0)
			}
			if len(b) > c.Len {
				return nil, errCorrupt
			}
			row[p] = Value{b: nonNil(b), kind: kindBytes}
		}
	}
	return key, nil
}

// decodeValue fills the non-key columns of row from a clustered record's
// value. Off-page values are read through ext, whole; need (nil: every
// column) says which columns to fill, and the others get the zero Value,
// so that an off-page column nobody asked for costs no reads.
func (s *schema) decodeValue(row Row, val []byte, ext *blobStore, need []bool) error {
	var refs []byte
	if s.anyExt {
		n, err := s.externRefs(val)
		if err != nil {
			return err
		}
		val, refs = val[:len(val)-n*page.ExternRefSize], val[len(val)-n*page.ExternRefSize:]
	}
	for _, p := range s.vals {
		c := &s.cols[p]
		local, flag, rest, ok := s.field(p, val)
		if !ok {
			return errCorrupt
		}
		val = rest
		switch {
		case need != nil && !need[p]:
			row[p] = Value{}
		case c.Type == TypeInt:
			row[p] = Value{i: int64(decodeUint(local) - intBias(len(local))), kind: kindInt}
		case !flag:
			setBytes(row, p, local)
		case ext == nil:
			return fmt.Errorf("column %q is off-page: %w", c.Name, errCorrupt)
		default:
			ref, err := page.DecodeExternRef(refs)
			if err != nil {
				return err
			}
			b, err := ext.read(append(row[p].b[:0], local...), ref)
			if err == nil && len(b) > c.Len {
				err = fmt.Errorf("%w: column %q holds %d bytes off-page, more than its %d", errCorrupt, c.Name, len(b), c.Len)
			}
			if err != nil {
				return fmt.Errorf("column %q: %w", c.Name, err)
			}
			row[p] = Value{b: nonNil(b), kind: kindBytes}
		}
		if flag {
			refs = refs[page.ExternRefSize:]
		}
	}
	if len(val) != 0 {
		return errCorrupt
	}
	return nil
}

// externRefs returns how many off-page references end a clustered value,
// checking that its fields and references account for every byte; it is
// the btree's Options.ExternRefs.
func (s *schema) externRefs(val []byte) (int, error) {
	n := 0
	for _, p := range s.vals {
		_, flag, rest, ok := s.field(p, val)
		if !ok {
			return 0, errCorrupt
		}
		if flag {
			n++
		}
		val = rest
	}
	if len(val) != n*page.ExternRefSize {
		return 0, errCorrupt
	}
	return n, nil
}

// field reads column p at the start of val: the bytes the record holds
// for it (an off-page column's local prefix), its external flag, and what
// follows. ok is false when val is too short or the length out of range.
func (s *schema) field(p int, val []byte) (local []byte, flag bool, rest []byte, ok bool) {
	c := &s.cols[p]
	l := c.Len
	if c.Type == TypeVarchar {
		u, k := binary.Uvarint(val)
		if s.extCap[p] {
			flag = u&1 != 0
			u >>= 1
		}
		if k <= 0 || u > uint64(c.Len) {
			return nil, false, nil, false
		}
		val, l = val[k:], int(u)
	}
	if len(val) < l {
		return nil, false, nil, false
	}
	return val[:l], flag, val[l:], true
}

// decodeUint reads a big-endian unsigned integer of up to 8 bytes.
func decodeUint(b []byte) uint64 {
	var u uint64
	for _, c := range b {
		u = u<<8 | uint64(c)
	}
	return u
}

// sizeRow makes r hold n values, reusing its array and their buffers.
func sizeRow(r Row, n int) Row {
	if cap(r) < n {
		r = append(r[:cap(r)], make(Row, n-cap(r))...)
	}
	return r[:n]
}
