package zipsim

import (
	"fmt"
	"strings"
)

// Columns is a projection: the columns a read fills (GetColumns,
// ScanColumns). Reading only the columns a query needs is what makes
// DYNAMIC pay in seed 001: rows whose long columns live off-page are read
// from a clustered index small enough to cache, and the BLOB pages are
// read only when the column is asked for. The zero Columns selects every
// column.
type Columns struct {
	t    *Table
	need []bool // by column position; nil means every column
}

// Columns returns the projection of the named columns (in any case).
// Primary key columns are always filled, named or not: the key locates
// the row.
func (t *Table) Columns(names ...string) (Columns, error) {
	c := Columns{t: t, need: make([]bool, len(t.sch.cols))}
	for _, n := range names {
		i := t.column(n)
		if i < 0 {
			return Columns{}, fmt.Errorf("zipsim: %s has no column %q", t.name, n)
		}
		c.need[i] = true
	}
	for _, p := range t.sch.pk {
		c.need[p] = true
	}
	return c, nil
}

// column returns the position of the column called name, or -1.
func (t *Table) column(name string) int {
	for i, c := range t.sch.cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// check says whether c can be used on t.
func (c Columns) check(t *Table) error {
	if c.t != nil && c.t != t {
		return fmt.Errorf("the projection was made for table %s", c.t.name)
	}
	return nil
}
