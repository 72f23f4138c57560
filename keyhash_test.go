package zipsim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeyHashMariaDB checks PARTITION BY KEY against the partitions
// MariaDB 10.11 put rows in on this project's machine (SELECT ... PARTITION
// (pN) after INSERT into tables PARTITION BY KEY(a) or KEY(a, b)).
func TestKeyHashMariaDB(t *testing.T) {
	bigint := []Column{{Name: "a", Type: TypeInt}}
	for _, tc := range []struct {
		name  string
		cols  []Column
		parts int
		rows  map[int][]Row
	}{
		{"BIGINT", bigint, 32, map[int][]Row{
			0: {{Int(1228)}, {Int(399449)}}, 1: {{Int(32)}}, 3: {{Int(123456789)}}, 4: {{Int(1)}},
			5: {{Int(65535)}}, 9: {{Int(256)}}, 11: {{Int(2)}}, 14: {{Int(3)}},
			23: {{Int(-5)}, {Int(-1)}, {Int(9223372036854775807)}}, 26: {{Int(255)}}, 29: {{Int(399450)}},
		}},
		{"INT", []Column{{Name: "a", Type: TypeInt, Len: 4}}, 7, map[int][]Row{
			1: {{Int(-7)}}, 2: {{Int(2147483647)}}, 4: {{Int(1)}, {Int(2)}}, 5: {{Int(100000)}},
		}},
		{"TINYINT", []Column{{Name: "a", Type: TypeInt, Len: 1}}, 5, map[int][]Row{
			0: {{Int(-1)}, {Int(1)}, {Int(97)}, {Int(127)}}, 1: {{Int(32)}}, 2: {{Int(0)}},
		}},
		{"VARCHAR", []Column{{Name: "a", Type: TypeVarchar, Len: 20}}, 13, map[int][]Row{
			1: {{String("")}}, 7: {{String("abc")}}, 8: {{String("a")}, {String("x ")}},
			9: {{String("ABD")}}, 10: {{String("hello world")}},
		}},
		{"BIGINT, INT", []Column{{Name: "a", Type: TypeInt}, {Name: "b", Type: TypeInt, Len: 4}}, 11, map[int][]Row{
			5: {{Int(1), Int(1)}}, 6: {{Int(7), Int(-3)}}, 9: {{Int(1), Int(2)}}, 10: {{Int(400000), Int(123456789)}},
		}},
		// 32 partitions, so that every bit of a weight counts: letters,
		// accents and the Swedish letters, trailing spaces, and every
		// integer width.
		{"VARCHAR latin1", []Column{{Name: "a", Type: TypeVarchar, Len: 20}}, 32, map[int][]Row{
			2: {{Bytes([]byte("\xe9t\xe9"))}}, 6: {{String("abc")}}, 8: {{String("AbCdE")}}, 9: {{String("Zq")}},
			14: {{Bytes([]byte("\xc5\xc4\xd6"))}}, 16: {{String("zebra")}}, 18: {{Bytes([]byte("m\xfcller"))}},
			23: {{String("yy")}}, 24: {{Bytes([]byte{0xc9})}}, 27: {{String("qwerty")}},
		}},
		{"CHAR", []Column{{Name: "a", Type: TypeChar, Len: 6}}, 32, map[int][]Row{
			4: {{Bytes([]byte{0xf8, 0xf7, 0xff})}}, 18: {{String("ab")}}, 23: {{String("xyz  ")}},
		}},
		{"SMALLINT", []Column{{Name: "a", Type: TypeInt, Len: 2}}, 32, map[int][]Row{
			1: {{Int(-32768)}}, 4: {{Int(97)}}, 5: {{Int(32767)}}, 18: {{Int(25185)}}, 25: {{Int(-200)}},
		}},
		{"MEDIUMINT", []Column{{Name: "a", Type: TypeInt, Len: 3}}, 32, map[int][]Row{
			6: {{Int(6513249)}}, 12: {{Int(12345)}}, 20: {{Int(-1)}, {Int(8388607)}},
		}},
		{"BIGINT letters", bigint, 32, map[int][]Row{
			7: {{Int(0x7a7a)}, {Int(0x6162636465666768)}}, 21: {{Int(0xe0e1e2e3)}}, 28: {{Int(7020873)}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &schema{cols: tc.cols}
			for i := range tc.cols {
				s.part = append(s.part, i)
			}
			for want, rows := range tc.rows {
				for _, r := range rows {
					require.Equal(t, want, s.partOfRow(r, tc.parts), "%v", r)
				}
			}
		})
	}
}

// TestKeyHashFolds checks that values latin1_swedish_ci holds equal land
// together: case, accents, trailing spaces.
func TestKeyHashFolds(t *testing.T) {
	s := &schema{cols: []Column{{Name: "a", Type: TypeVarchar, Len: 20}}, part: []int{0}}
	for _, pair := range [][2]Value{{String("abc"), String("ABC")}, {String("e"), Bytes([]byte{0xe9})}, {String("ab"), String("ab   ")}} {
		for n := 2; n <= 64; n++ {
			require.Equal(t, s.partOfRow(Row{pair[0]}, n), s.partOfRow(Row{pair[1]}, n), "%q and %q, %d partitions", pair[0].b, pair[1].b, n)
		}
	}
}

// TestKeyHashWeights checks latin1_swedish_ci's weights where they fold:
// case, accents, the Swedish letters after Z, and the two that keep their
// own.
func TestKeyHashWeights(t *testing.T) {
	for in, want := range map[byte]byte{'a': 'A', 'z': 'Z', 'A': 'A', 0xe9: 'E', 0xc9: 'E', 0xc5: '[', 0xe4: '\\', 0xc6: '\\',
		0xd6: ']', 0xf6: ']', 0xd7: 0xd7, 0xf7: 0xf7, 0xd8: 0xd8, 0xf8: 0xd8, 0xdf: 0xdf, 0xff: 0xff, 0xfd: 'Y', 0xfe: 0xde, 0x80: 0x80} {
		require.Equal(t, want, latin1Weights[in], "weight of %#x", in)
	}
}

// TestKeyHashPK checks that partOfPK, given the primary key in key order,
// agrees with partOfRow when the partitioning columns are a reordered part
// of it.
func TestKeyHashPK(t *testing.T) {
	s := &schema{cols: []Column{{Name: "id1", Type: TypeInt}, {Name: "id2", Type: TypeInt}, {Name: "type", Type: TypeInt}},
		pk: []int{2, 0, 1}, part: []int{0}}
	for id := int64(0); id < 100; id++ {
		row := Row{Int(id), Int(id + 5), Int(7)}
		require.Equal(t, s.partOfRow(row, 32), s.partOfPK([]Value{Int(7), Int(id), Int(id + 5)}, 32))
	}
}
