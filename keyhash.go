package zipsim

import "encoding/binary"

// PARTITION BY KEY picks a row's partition the way MySQL 5.5+ (ALGORITHM=2,
// the default) and MariaDB do [sql/sql_partition.cc get_part_id_key;
// calculate_key_hash_value in ha_partition.cc (MariaDB) and
// partition_handler.cc (MySQL 5.7, ph_calculate_key_hash_value);
// Field::hash]: each
// partitioning column's stored bytes go through its collation's hash_sort,
// one running hash across the columns, and the partition is the hash's low
// 32 bits modulo the partitions. Integers are stored little-endian and
// hashed with MySQL's numeric character set, whose collation is
// latin1_swedish_ci's; zipsim hashes CHAR and VARCHAR values with
// latin1_swedish_ci too, the one-byte character set its columns stand for
// (a VARBINARY column, which VARCHAR also stands for, would hash with
// my_hash_sort_bin in MySQL: no folding, no space stripping; other
// character sets hash otherwise).
// That hash_sort [strings/ctype-simple.c my_hash_sort_simple] drops
// trailing bytes that weigh as a space and mixes each byte's weight in
// with MY_HASH_ADD. The hash is far from uniform: over BIGINT ids 1 to
// 400,000, 32 partitions get 3,130 to 44,550 ids each, in runs whose
// steps are mostly 1, 32, 4, 2 or 8, which sets how a partition's pages
// fill when ids arrive in order (BENCHMARKS.md, T8). MariaDB 10.11 put 61 rows
// of every integer width, CHAR, VARCHAR and two-column keys where this
// does (keyhash_test.go).

// latin1Weights is latin1_swedish_ci's sort order [strings/ctype-latin1.c
// sort_order_latin1]: letters case-folded, most accented letters weighing
// as their base letter (Ü as Y), Å, Ä, Æ and Ö as the three letters after
// Z, and Ø, ×, ÷, Þ, ß and ÿ as themselves.
var latin1Weights = func() (w [256]byte) {
	for i := range w {
		w[i] = byte(i)
	}
	for c := 'a'; c <= 'z'; c++ {
		w[c] = byte(c - 'a' + 'A')
	}
	const accents = "AAAA\\[\\CEEEEIIIIDNOOOO]\xd7\xd8UUUYY\xde\xdf"
	for i := range len(accents) {
		w[0xc0+i], w[0xe0+i] = accents[i], accents[i]
	}
	w[0xf7], w[0xff] = 0xf7, 0xff // ÷ and ÿ keep their own weight
	return w
}()

// keyHash is the running hash of calculate_key_hash_value: nr1 starts at
// 1 and nr2 at 4.
type keyHash struct{ nr1, nr2 uint64 }

func newKeyHash() keyHash { return keyHash{nr1: 1, nr2: 4} }

// add mixes in one column's stored bytes [my_hash_sort_simple, MY_HASH_ADD].
func (h *keyHash) add(b []byte) {
	for len(b) > 0 && latin1Weights[b[len(b)-1]] == latin1Weights[' '] {
		b = b[:len(b)-1]
	}
	for _, c := range b {
		h.nr1 ^= ((h.nr1&63)+h.nr2)*uint64(latin1Weights[c]) + h.nr1<<8
		h.nr2 += 3
	}
}

// addValue mixes in v as column c stores it.
func (h *keyHash) addValue(c *Column, v Value) {
	if c.Type != TypeInt {
		h.add(v.b)
		return
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v.i))
	n := c.Len
	if n == 0 {
		n = 8
	}
	h.add(b[:n])
}

// partition returns the partition, of n, that the hash picks.
func (h *keyHash) partition(n int) int { return int(uint32(h.nr1) % uint32(n)) }

// partOfRow returns the partition of row.
func (s *schema) partOfRow(row Row, n int) int {
	h := newKeyHash()
	for _, p := range s.part {
		h.addValue(&s.cols[p], row[p])
	}
	return h.partition(n)
}

// partOfPK returns the partition of the row whose primary key is pk.
func (s *schema) partOfPK(pk []Value, n int) int {
	h := newKeyHash()
	for _, p := range s.part {
		for j, q := range s.pk {
			if q == p {
				h.addValue(&s.cols[p], pk[j])
				break
			}
		}
	}
	return h.partition(n)
}
