package zipsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/zipsim/zipsim/page"
)

// The catalog is zipsim's data dictionary [dict0dict.cc; the SYS_TABLES,
// SYS_COLUMNS, SYS_INDEXES tables of 5.x, mysql.ibd in 8.0]: one file in
// the store's directory holding every table's definition, the space and
// index ids, each index's root page, and each tablespace's page
// allocation state (the FSP header fields fsp0fsp.cc keeps in page 0).
//
// It is a first line "zipsim-catalog v2 xxh64:<hex>" with the xxhash64 of
// the rest, then the catalog as indented JSON, so that a person can read
// it and a damaged file is refused rather than misread. It is written to
// a temporary file, synced and renamed over the old one, so a crash while
// writing leaves the previous catalog.
const (
	catalogFile  = "zipsim.catalog"
	catalogTemp  = "zipsim.catalog.tmp"
	catalogMagic = "zipsim-catalog"
	// catalogVersion 2: rows go to partitions by MySQL's KEY hash
	// (keyhash.go), where version 1 used xxhash, so a version 1 store's
	// rows would be looked for in the wrong partitions.
	catalogVersion = 2
	maxCatalogSize = 256 << 20
)

type catalog struct {
	PageSize    int
	NextSpace   uint32 // the next tablespace id to give out
	NextIndexID uint64 // the next index id to give out
	Tables      []catalogTable
}

type catalogTable struct {
	Name       string
	Options    TableOptions
	Partitions []catalogPart
}

// catalogPart is one tablespace: the whole table, or one partition.
type catalogPart struct {
	Space   uint32
	Next    uint32   // FSP_FREE_LIMIT: pages below it have been handed out
	Free    []uint32 // FSP_FREE: pages given back
	Indexes []catalogIndex
}

type catalogIndex struct {
	Name string
	ID   uint64
	Root uint32
}

// writeCatalog replaces the catalog in dir with c.
func writeCatalog(dir string, c *catalog, sync bool) error {
	body, err := json.MarshalIndent(c, "", "\t")
	if err != nil {
		return fmt.Errorf("zipsim: encode catalog: %w", err)
	}
	body = append(body, '\n')
	head := fmt.Sprintf("%s v%d xxh64:%016x\n", catalogMagic, catalogVersion, xxhash.Sum64(body))
	tmp := filepath.Join(dir, catalogTemp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("zipsim: write catalog: %w", err)
	}
	_, err = f.Write(append([]byte(head), body...))
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, catalogFile))
	}
	if err == nil && sync {
		err = syncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("zipsim: write catalog: %w", err)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// readCatalog reads and checks the catalog in dir; nil, nil when there is
// none yet.
func readCatalog(dir string) (*catalog, error) {
	path := filepath.Join(dir, catalogFile)
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("zipsim: read catalog: %w", err)
	}
	if st.Size() > maxCatalogSize {
		return nil, fmt.Errorf("zipsim: catalog %s is %d bytes, more than the %d a catalog can be: the file is damaged", path, st.Size(), maxCatalogSize)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("zipsim: read catalog: %w", err)
	}
	c, err := decodeCatalog(b)
	if err != nil {
		return nil, fmt.Errorf("zipsim: catalog %s: %w", path, err)
	}
	return c, nil
}

// decodeCatalog parses and checks a catalog file's bytes.
func decodeCatalog(b []byte) (*catalog, error) {
	head, body, ok := bytes.Cut(b, []byte{'\n'})
	if !ok {
		return nil, errors.New("no header line: the file is damaged or not a zipsim catalog")
	}
	var version int
	var sum uint64
	if _, err := fmt.Sscanf(string(head), catalogMagic+" v%d xxh64:%x", &version, &sum); err != nil {
		return nil, fmt.Errorf("header %q is not %q: the file is damaged or not a zipsim catalog", head, fmt.Sprintf("%s v%d xxh64:<hex>", catalogMagic, catalogVersion))
	}
	if version != catalogVersion {
		return nil, fmt.Errorf("version %d: this zipsim reads version %d (version 2 moved rows to partitions by MySQL's KEY hash: load the store again)", version, catalogVersion)
	}
	if got := xxhash.Sum64(body); got != sum {
		return nil, fmt.Errorf("checksum %016x does not match the header's %016x: the file is damaged", got, sum)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var c catalog
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// validate checks everything the catalog says that does not need the
// tablespaces: table definitions, ids, page numbers.
func (c *catalog) validate() error {
	if err := page.CheckPageSize(c.PageSize); err != nil {
		return err
	}
	names := map[string]bool{}
	spaces := map[uint32]bool{}
	ids := map[uint64]bool{}
	for _, t := range c.Tables {
		if !validName(t.Name) {
			return fmt.Errorf("table name %q: use %s", t.Name, nameRule)
		}
		key := strings.ToLower(t.Name)
		if names[key] {
			return fmt.Errorf("table %q appears twice", t.Name)
		}
		names[key] = true
		_, sch, err := prepare(t.Options, c.PageSize)
		if err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		if len(t.Partitions) != sch.nParts {
			return fmt.Errorf("table %s: %d tablespaces for %d partitions", t.Name, len(t.Partitions), sch.nParts)
		}
		for i, p := range t.Partitions {
			where := spaceName(t.Name, i, sch.nParts)
			if p.Space == 0 || p.Space >= c.NextSpace || spaces[p.Space] {
				return fmt.Errorf("%s: space id %d is 0, repeated or not below the next id %d", where, p.Space, c.NextSpace)
			}
			spaces[p.Space] = true
			if err := checkFreeList(p.Next, p.Free); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			if len(p.Indexes) != len(sch.indexes) {
				return fmt.Errorf("%s: %d indexes for a table of %d", where, len(p.Indexes), len(sch.indexes))
			}
			var roots []uint32
			for j, x := range p.Indexes {
				if x.Name != sch.indexes[j].name {
					return fmt.Errorf("%s: index %d is %q, the table's is %q", where, j, x.Name, sch.indexes[j].name)
				}
				if x.ID == 0 || x.ID >= c.NextIndexID || ids[x.ID] {
					return fmt.Errorf("%s: index %s has id %d: 0, repeated or not below the next id %d", where, x.Name, x.ID, c.NextIndexID)
				}
				ids[x.ID] = true
				if x.Root == 0 || x.Root >= p.Next || slices.Contains(p.Free, x.Root) || slices.Contains(roots, x.Root) {
					return fmt.Errorf("%s: index %s has root page %d: 0, free, shared or not below the page limit %d", where, x.Name, x.Root, p.Next)
				}
				roots = append(roots, x.Root)
			}
		}
	}
	return nil
}
