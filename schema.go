package zipsim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zipsim/zipsim/btree"
	"github.com/zipsim/zipsim/page"
)

// Type is a column type.
type Type uint8

// Column types: enough for sysbench, linkbench and the document workload.
const (
	// TypeInt is a signed integer of Len bytes: 1, 2, 3, 4 or 8
	// (TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT); 0 means 8. It is
	// stored big-endian with the sign bit flipped, as InnoDB stores
	// integers, so byte order is numeric order.
	TypeInt Type = iota + 1
	// TypeChar is a fixed-length byte string of Len bytes, 1..255 (CHAR(n)
	// in a one-byte character set), padded with spaces when shorter.
	// Reads return all Len bytes, padding included.
	TypeChar
	// TypeVarchar is a byte string of at most Len bytes, 1..MaxVarcharLen
	// (VARCHAR, VARBINARY, TEXT, BLOB and MEDIUMBLOB). Values of a column
	// longer than 255 bytes may be stored off-page when the row does not
	// fit its page (see RowFormat).
	TypeVarchar
)

// Schema limits, InnoDB's where it has one.
const (
	MaxColumns       = 1017      // columns per table
	MaxKeyColumns    = 16        // columns per index (MAX_REF_PARTS)
	MaxIndexes       = 64        // secondary indexes per table (MAX_INDEXES)
	MaxPartitions    = 1024      // each is a tablespace with its own file
	MaxCharLen       = 255       // CHAR(255)
	MaxVarcharLen    = 1<<24 - 1 // MEDIUMBLOB
	MaxNameLen       = 64        // identifiers
	PrimaryIndexName = "PRIMARY"
)

var typeNames = [...]string{TypeInt: "INT", TypeChar: "CHAR", TypeVarchar: "VARCHAR"}

// String returns INT, CHAR or VARCHAR.
func (t Type) String() string {
	if t >= TypeInt && t <= TypeVarchar {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// MarshalText writes the name String returns, for the catalog.
func (t Type) MarshalText() ([]byte, error) {
	if t < TypeInt || t > TypeVarchar {
		return nil, fmt.Errorf("zipsim: unknown column type %d", uint8(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads INT, CHAR or VARCHAR, in any case.
func (t *Type) UnmarshalText(b []byte) error {
	for i := TypeInt; i <= TypeVarchar; i++ {
		if strings.EqualFold(string(b), typeNames[i]) {
			*t = i
			return nil
		}
	}
	return fmt.Errorf("zipsim: unknown column type %q: use INT, CHAR or VARCHAR", b)
}

// Column describes one column. There is no NULL: every row has a value
// for every column.
type Column struct {
	Name string
	Type Type
	// Len is the size in bytes: see the Type constants for what each type
	// allows.
	Len int
}

// IndexDef describes a secondary index. Its entries are the named columns
// followed by the primary key columns it does not name, so an entry is
// unique and leads back to its row [dict_index_build_internal_non_clust].
type IndexDef struct {
	Name    string
	Columns []string
}

// schema is a validated table definition compiled for encoding rows.
type schema struct {
	cols    []Column
	pk      []int // column positions of the primary key, in key order
	vals    []int // the other columns, in the clustered record's value
	indexes []indexSchema
	// part holds the partitioning columns in KEY (...) order: the primary
	// key's unless PartitionBy names others.
	part     []int
	nParts   int
	pageSize int
	zipSize  int
	format   RowFormat
	// extCap marks the columns that may be stored off-page (DATA_BIG_COL
	// VARCHARs outside the primary key); their length in the record
	// carries the external flag.
	extCap []bool
	anyExt bool
	// secCols marks the columns some secondary index holds: an update or
	// delete must read those of the old row, off-page or not.
	secCols []bool
}

// indexSchema is dict_index_t's field list: indexes[0] is PRIMARY.
type indexSchema struct {
	name string
	// cols are the key's columns: the ones the definition names, then the
	// primary key columns it did not name.
	cols []int
	// covering says the entries hold every column, so a scan needs no
	// clustered lookup.
	covering bool
	// fields is n_fields for page_zip_empty_size, system columns included.
	fields int
	// maxKey is the longest key, with VARCHARs counted at Len+2 (their
	// terminator, not their escapes), for btree.Options.MaxKeyLen.
	maxKey int
}

// validName reports whether s can name a table, column or index: 1..64
// characters of [A-Za-z0-9_$], MySQL's unquoted identifiers, which are
// also safe in file names.
func validName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
		if !ok {
			return false
		}
	}
	return true
}

const nameRule = "1..64 characters of A-Z, a-z, 0-9, _ and $"

// maxKeyBytes is InnoDB's maximum key length for a page size: 3072 bytes
// on 16K pages, 1536 on 8K, 768 on 4K (innodb_large_prefix).
func maxKeyBytes(pageSize int) int { return 3072 * pageSize / page.MaxPageSize }

// maxColumnKeyBytes is the longest column an index may hold: 767 bytes on
// COMPACT (REC_ANTELOPE_MAX_INDEX_COL_LEN), the whole key limit otherwise.
func maxColumnKeyBytes(f RowFormat, pageSize int) int {
	if f == Compact {
		return min(767, maxKeyBytes(pageSize))
	}
	return maxKeyBytes(pageSize)
}

// compile validates the column, key and partition part of o (already
// through withDefaults) and builds the schema.
func compile(o TableOptions, pageSize, zipSize int) (*schema, error) {
	s := &schema{pageSize: pageSize, zipSize: zipSize, nParts: o.Partitions, format: o.RowFormat}
	if len(o.Columns) == 0 || len(o.Columns) > MaxColumns {
		return nil, fmt.Errorf("%d columns: a table has 1..%d", len(o.Columns), MaxColumns)
	}
	s.cols = slices.Clone(o.Columns)
	byName := make(map[string]int, len(s.cols))
	for i := range s.cols {
		c := &s.cols[i]
		if !validName(c.Name) {
			return nil, fmt.Errorf("column %d: name %q: use %s", i, c.Name, nameRule)
		}
		key := strings.ToLower(c.Name)
		if _, dup := byName[key]; dup {
			return nil, fmt.Errorf("column %q appears twice (names ignore case)", c.Name)
		}
		byName[key] = i
		switch c.Type {
		case TypeInt:
			if c.Len == 0 {
				c.Len = 8
			}
			if c.Len < 1 || c.Len > 8 || c.Len > 4 && c.Len < 8 {
				return nil, fmt.Errorf("column %q: INT of %d bytes: use 1, 2, 3, 4 or 8 (0 means 8)", c.Name, c.Len)
			}
		case TypeChar:
			if c.Len < 1 || c.Len > MaxCharLen {
				return nil, fmt.Errorf("column %q: CHAR(%d): use 1..%d", c.Name, c.Len, MaxCharLen)
			}
		case TypeVarchar:
			if c.Len < 1 || c.Len > MaxVarcharLen {
				return nil, fmt.Errorf("column %q: VARCHAR(%d): use 1..%d", c.Name, c.Len, MaxVarcharLen)
			}
		default:
			return nil, fmt.Errorf("column %q: type %v: use TypeInt, TypeChar or TypeVarchar", c.Name, c.Type)
		}
	}
	lookup := func(what string, names []string) ([]int, error) {
		if len(names) == 0 || len(names) > MaxKeyColumns {
			return nil, fmt.Errorf("%s has %d columns: use 1..%d", what, len(names), MaxKeyColumns)
		}
		pos := make([]int, len(names))
		for i, n := range names {
			p, ok := byName[strings.ToLower(n)]
			if !ok {
				return nil, fmt.Errorf("%s names column %q, which the table does not have", what, n)
			}
			if slices.Contains(pos[:i], p) {
				return nil, fmt.Errorf("%s names column %q twice", what, n)
			}
			pos[i] = p
		}
		return pos, nil
	}
	if len(o.PrimaryKey) == 0 {
		return nil, fmt.Errorf("no primary key: name its columns in PrimaryKey (InnoDB would add a hidden DB_ROW_ID; zipsim does not)")
	}
	var err error
	if s.pk, err = lookup("PRIMARY KEY", o.PrimaryKey); err != nil {
		return nil, err
	}
	for i := range s.cols {
		if !slices.Contains(s.pk, i) {
			s.vals = append(s.vals, i)
		}
	}
	if len(o.SecondaryIndexes) > MaxIndexes {
		return nil, fmt.Errorf("%d secondary indexes: use at most %d", len(o.SecondaryIndexes), MaxIndexes)
	}
	s.indexes = append(s.indexes, s.newIndex(PrimaryIndexName, s.pk, true))
	for _, d := range o.SecondaryIndexes {
		if !validName(d.Name) {
			return nil, fmt.Errorf("index name %q: use %s", d.Name, nameRule)
		}
		for _, x := range s.indexes {
			if strings.EqualFold(x.name, d.Name) {
				return nil, fmt.Errorf("index name %q is taken (names ignore case; PRIMARY is the clustered index)", d.Name)
			}
		}
		cols, err := lookup("index "+d.Name, d.Columns)
		if err != nil {
			return nil, err
		}
		for _, p := range s.pk {
			if !slices.Contains(cols, p) {
				cols = append(cols, p)
			}
		}
		s.indexes = append(s.indexes, s.newIndex(d.Name, cols, false))
	}
	for i, x := range s.indexes {
		limit, total := maxColumnKeyBytes(o.RowFormat, pageSize), 0
		user := x.cols
		if i > 0 {
			user = x.cols[:len(o.SecondaryIndexes[i-1].Columns)]
		}
		for _, p := range user {
			c := s.cols[p]
			if c.Len > limit {
				return nil, fmt.Errorf("index %s: column %q is %d bytes; an index column may be at most %d bytes with ROW_FORMAT=%v and %d-byte pages",
					x.name, c.Name, c.Len, limit, o.RowFormat, pageSize)
			}
			total += c.Len
		}
		if total > maxKeyBytes(pageSize) {
			return nil, fmt.Errorf("index %s is %d bytes long; max key length is %d bytes with %d-byte pages", x.name, total, maxKeyBytes(pageSize), pageSize)
		}
	}
	if err := s.checkMinRecords(); err != nil {
		return nil, err
	}
	s.extCap = make([]bool, len(s.cols))
	for _, p := range s.vals {
		c := s.cols[p]
		s.extCap[p] = c.Type == TypeVarchar && c.Len > bigColumnLen
		s.anyExt = s.anyExt || s.extCap[p]
	}
	s.secCols = make([]bool, len(s.cols))
	for _, x := range s.indexes[1:] {
		for _, p := range x.cols {
			s.secCols[p] = true
		}
	}
	s.part = s.pk
	if len(o.PartitionBy) > 0 {
		if s.nParts < 2 {
			return nil, fmt.Errorf("PartitionBy needs Partitions of 2 or more")
		}
		if s.part, err = lookup("PartitionBy", o.PartitionBy); err != nil {
			return nil, err
		}
		for i, p := range s.part {
			if !slices.Contains(s.pk, p) {
				return nil, fmt.Errorf("PartitionBy column %q is not in the primary key: the primary key must include every partitioning column", o.PartitionBy[i])
			}
		}
	}
	return s, nil
}

func (s *schema) newIndex(name string, cols []int, clustered bool) indexSchema {
	x := indexSchema{name: name, cols: cols, covering: clustered || len(cols) == len(s.cols), fields: len(cols)}
	if clustered {
		x.fields = len(s.cols) + 2 // DB_TRX_ID, DB_ROLL_PTR
	}
	for _, p := range cols {
		x.maxKey += s.cols[p].Len
		if s.cols[p].Type == TypeVarchar {
			x.maxKey += 2
		}
	}
	return x
}

// checkMinRecords refuses a table whose longest key cannot give two node
// pointers on an empty page, or whose smallest row cannot be stored
// without off-page columns, as InnoDB's CREATE TABLE does
// [dict_index_too_big_for_tree].
func (s *schema) checkMinRecords() error {
	for i, x := range s.indexes {
		key, val := 0, 0
		for _, p := range x.cols {
			key += minKeyLen(s.cols[p])
		}
		kind := page.SecondaryLeaf
		if i == 0 {
			kind = page.ClusteredLeaf
			for _, p := range s.vals {
				val += minValueLen(s.cols[p])
			}
		}
		if err := btree.CheckKeyLen(s.pageSize, s.zipSize, x.fields, x.maxKey); err != nil {
			return fmt.Errorf("index %s: %w", x.name, err)
		}
		if rs := page.RecordSize(kind, key, val); page.RecNeedsExt(rs, x.fields, s.pageSize, s.zipSize) {
			return fmt.Errorf("row size too large: the smallest %s record takes %d bytes, more than a %d-byte page (KEY_BLOCK_SIZE %d) can hold without off-page columns",
				x.name, rs, s.pageSize, s.zipSize/1024)
		}
	}
	return nil
}

func minKeyLen(c Column) int {
	if c.Type == TypeVarchar {
		return 2
	}
	return c.Len
}

func minValueLen(c Column) int {
	if c.Type == TypeVarchar {
		return 1
	}
	return c.Len
}
