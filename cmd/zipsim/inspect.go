package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/zipsim/zipsim/compress"
	"github.com/zipsim/zipsim/page"
	"github.com/zipsim/zipsim/storage"
)

const inspectAbout = `Reads a tablespace file (.ibd) without changing it and prints its header and
one page as named regions (page.Regions), as innodb_ruby's page dumps do:
the FIL header, the index header, the record heap or, on a compressed page,
the compressed records, the modification log, free space, BLOB pointers,
uncompressed columns and the dense directory, then the FIL trailer. With
--space-map it prints one line per page (type, index, level, records, fill)
or, with --runs, one line per run of like pages. Index names and a table's
codec come from the catalog (zipsim.catalog) in the file's directory when
there is one.`

func cmdInspect(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("inspect")
	pageNo := fs.Int64("page", -1, "the page `N` to dump (default 1, the clustered index root of a table's first index)")
	spaceMap := fs.Bool("space-map", false, "one line per page: type, index id and name, level, records, fill")
	runs := fs.Bool("runs", false, "with --space-map: one line per run of pages of one type, index and level")
	hexBytes := fs.Int("hex", 0, "with a page dump: show up to this many bytes of each region in hex")
	records := fs.Int("records", 0, "with a page dump of an index page: list up to this many records")
	codec := fs.String("codec", "", "page codec of a compressed table (default from the catalog, else zlib:6)")
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e, fs, "inspect [flags] FILE.ibd", inspectAbout, "page", "space-map", "runs", "hex", "records", "codec")
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("inspect: give one .ibd file: zipsim inspect [--page N | --space-map] FILE.ibd")
	}
	if *runs && !*spaceMap {
		*spaceMap = true
	}
	if *spaceMap && *pageNo >= 0 {
		return usagef("inspect: --page and --space-map exclude each other")
	}
	if *hexBytes < 0 || *records < 0 {
		return usagef("inspect: --hex and --records take a count of 0 or more")
	}
	path := pos[0]
	ts, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer ts.Close()
	cat := readCatalogInfo(filepath.Dir(path), ts.Options().SpaceID)
	if *codec != "" {
		cat.codec = *codec
	}
	in := &inspector{path: path, ts: ts, cat: cat}
	if ts.Options().ZipSize != 0 {
		set, err := compress.ParseSetting(cmpOr(cat.codec, "zlib:6"))
		if err != nil {
			return usagef("inspect: --codec %q: %v", cat.codec, err)
		}
		if in.codec, err = compress.Shared(set); err != nil {
			return err
		}
		in.codecName = set.String()
	}
	in.header(e.stdout)
	if *spaceMap {
		return in.spaceMap(e.stdout, *runs)
	}
	n := uint32(1)
	if *pageNo >= 0 {
		if *pageNo >= int64(ts.Pages()) {
			return usagef("inspect: --page %d: %s has pages 0..%d", *pageNo, path, ts.Pages()-1)
		}
		n = uint32(*pageNo)
	} else if ts.Pages() < 2 {
		n = 0
	}
	return in.dump(e.stdout, n, *hexBytes, *records)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// roDevice is a storage.Device on a file opened read-only: writes,
// syncs and hole punches are dropped, so storage.Open (which marks the
// header open) can read a tablespace without changing it.
type roDevice struct {
	f          *os.File
	size       int64
	alloc      int64
	blockSize_ int
}

func openRO(path string) (*roDevice, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	d := &roDevice{f: f, size: fi.Size(), alloc: fi.Size(), blockSize_: 4096}
	// st_blocks and st_blksize where the system has them (Unix).
	if v := reflect.ValueOf(fi.Sys()); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if b := v.Elem().FieldByName("Blocks"); b.IsValid() && b.CanInt() {
			d.alloc = b.Int() * 512
		}
		if b := v.Elem().FieldByName("Blksize"); b.IsValid() && b.CanInt() && b.Int() > 0 {
			d.blockSize_ = int(b.Int())
		}
	}
	return d, nil
}

func (d *roDevice) ReadAt(p []byte, off int64) error {
	n, err := d.f.ReadAt(p, off)
	if err == io.EOF {
		clear(p[n:])
		return nil
	}
	return err
}
func (d *roDevice) WriteAt(p []byte, off int64) error { return nil }
func (d *roDevice) PunchHole(off, length int64) error { return nil }
func (d *roDevice) Sync() error                       { return nil }
func (d *roDevice) Size() int64                       { return d.size }
func (d *roDevice) Allocated() int64                  { return d.alloc }
func (d *roDevice) BlockSize() int                    { return d.blockSize_ }
func (d *roDevice) Close() error                      { return d.f.Close() }

// openReadOnly opens the tablespace in path without changing the file.
// Errors name the file.
func openReadOnly(path string) (*storage.Tablespace, error) {
	d, err := openRO(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file", path)
		}
		return nil, err
	}
	ts, err := storage.Open(d)
	if err != nil {
		d.Close()
		msg := strings.TrimPrefix(err.Error(), "storage: ")
		if errors.Is(err, storage.ErrNotClean) {
			return nil, fmt.Errorf("%s: %s (is a zipsim process still using it?)", path, msg)
		}
		return nil, fmt.Errorf("%s: not a zipsim tablespace, or damaged: %s", path, msg)
	}
	return ts, nil
}

// catalogInfo is what inspect takes from the store's catalog: the index
// names of a space, its free pages and its table's codec.
type catalogInfo struct {
	table   string
	codec   string
	indexes map[uint64]string
	free    map[uint32]bool
	roots   map[uint32]string
}

// readCatalogInfo reads the catalog in dir leniently: anything missing
// or unreadable just leaves the names out.
func readCatalogInfo(dir string, space uint32) catalogInfo {
	ci := catalogInfo{indexes: map[uint64]string{}, free: map[uint32]bool{}, roots: map[uint32]string{}}
	b, err := os.ReadFile(filepath.Join(dir, "zipsim.catalog"))
	if err != nil {
		return ci
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	var cat struct {
		Tables []struct {
			Name    string
			Options struct{ Codec string }
			Parts   []struct {
				Space   uint32
				Free    []uint32
				Indexes []struct {
					Name string
					ID   uint64
					Root uint32
				}
			} `json:"Partitions"`
		}
	}
	if json.Unmarshal(b, &cat) != nil {
		return ci
	}
	for _, t := range cat.Tables {
		for _, p := range t.Parts {
			if p.Space != space {
				continue
			}
			ci.table, ci.codec = t.Name, t.Options.Codec
			for _, f := range p.Free {
				ci.free[f] = true
			}
			for _, x := range p.Indexes {
				ci.indexes[x.ID] = x.Name
				ci.roots[x.Root] = x.Name
			}
		}
	}
	return ci
}

// inspector reads one tablespace.
type inspector struct {
	path      string
	ts        *storage.Tablespace
	cat       catalogInfo
	codec     *compress.Codec
	codecName string
}

func (in *inspector) header(w io.Writer) {
	o, u := in.ts.Options(), in.ts.Usage()
	fmt.Fprintf(w, "%s: space %d", in.path, o.SpaceID)
	if in.cat.table != "" {
		fmt.Fprintf(w, " (table %s)", in.cat.table)
	}
	fmt.Fprintf(w, ", %d-byte pages", o.PageSize)
	if o.ZipSize != 0 {
		fmt.Fprintf(w, ", ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=%d (%s)", o.ZipSize/1024, in.codecName)
	}
	if o.Compression != "" {
		fmt.Fprintf(w, ", transparent compression %s on %d-byte blocks", o.Compression, o.FSBlockSize)
	}
	fmt.Fprintf(w, "\n  %d slots of %d bytes (header page included), file %s, %s allocated", u.Pages, in.ts.PhysicalSize(),
		humanBytes(u.ApparentBytes), humanBytes(u.AllocatedBytes))
	if o.Compression != "" {
		fmt.Fprintf(w, ", %d pages stored compressed", u.Holes)
	}
	fmt.Fprintln(w)
}

// read reads page n; page 0 is read from the device directly, since the
// tablespace keeps it to itself.
func (in *inspector) read(n uint32) ([]byte, error) {
	buf := make([]byte, in.ts.PhysicalSize())
	var err error
	if n == 0 {
		err = in.ts.Device().ReadAt(buf, 0)
	} else {
		err = in.ts.ReadPage(n, buf)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: page %d: %v", in.path, n, strings.TrimPrefix(err.Error(), "storage: "))
	}
	return buf, nil
}

// indexName names an index id.
func (in *inspector) indexName(id uint64) string {
	if n, ok := in.cat.indexes[id]; ok {
		return fmt.Sprintf("%s (%d)", n, id)
	}
	return strconv.FormatUint(id, 10)
}

// regions splits a page image into regions, with the table's codec for
// compressed pages.
func (in *inspector) regions(b []byte) ([]page.Region, error) {
	o := in.ts.Options()
	if n := page.Fil(b).PageNo(); n == 0 || page.Fil(b).Type() == page.TypeFSPHeader {
		return []page.Region{{Name: "FIL header", Start: 0, End: page.FilHeaderSize, Note: "page 0, type FSP_HDR"},
			{Name: "tablespace header", Start: page.FilHeaderSize, End: 134, Note: "magic, sizes, space size, state, transparent compression"},
			{Name: "unused", Start: 134, End: len(b)}}, nil
	}
	return page.Regions(b, o.PageSize, o.ZipSize, page.Env{Codec: in.codec})
}

func (in *inspector) dump(w io.Writer, n uint32, hexBytes, records int) error {
	b, err := in.read(n)
	if err != nil {
		return err
	}
	f := page.Fil(b)
	fmt.Fprintf(w, "\npage %d: %v", n, f.Type())
	if vErr := page.Verify(b); vErr != nil && n != 0 {
		fmt.Fprintf(w, " (checksum: %v)", vErr)
	}
	if f.Type() == page.TypeIndex {
		ip := page.IndexPage(b)
		fmt.Fprintf(w, ", index %s, level %d, %d records", in.indexName(ip.IndexID()), ip.Level(), ip.NRecs())
		if name, ok := in.cat.roots[n]; ok {
			fmt.Fprintf(w, ", root of %s", name)
		}
	}
	if in.cat.free[n] {
		fmt.Fprint(w, " (on the free list)")
	}
	fmt.Fprintln(w)
	rs, err := in.regions(b)
	if err != nil {
		return fmt.Errorf("%s: page %d does not parse: %v", in.path, n, strings.TrimPrefix(err.Error(), "page: "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REGION\tSTART\tEND\tBYTES\tNOTE")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", r.Name, r.Start, r.End, r.End-r.Start, r.Note)
	}
	tw.Flush()
	if hexBytes > 0 {
		for _, r := range rs {
			if r.End <= r.Start {
				continue
			}
			end := min(r.End, r.Start+hexBytes)
			fmt.Fprintf(w, "\n%s [%d, %d)", r.Name, r.Start, r.End)
			if end < r.End {
				fmt.Fprintf(w, ", first %d bytes", end-r.Start)
			}
			fmt.Fprintln(w, ":")
			d := hex.Dump(b[r.Start:end])
			// Offsets from the page start, not the region's.
			fmt.Fprint(w, rebase(d, r.Start))
		}
	}
	if records > 0 && f.Type() == page.TypeIndex {
		return in.records(w, b, records)
	}
	return nil
}

// rebase rewrites hex.Dump's offsets to start at base.
func rebase(d string, base int) string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(d, "\n") {
		if len(line) > 8 {
			if off, err := strconv.ParseInt(line[:8], 16, 64); err == nil {
				line = fmt.Sprintf("%08x", off+int64(base)) + line[8:]
			}
		}
		out.WriteString(line)
	}
	return out.String()
}

// records lists the first n records of an index page (decompressing a
// compressed one).
func (in *inspector) records(w io.Writer, b []byte, n int) error {
	o := in.ts.Options()
	p := page.IndexPage(b)
	if o.ZipSize != 0 {
		z, err := page.NewZip(b)
		if err != nil {
			return fmt.Errorf("%s: page %d: %v", in.path, page.Fil(b).PageNo(), err)
		}
		scratch := make([]byte, o.PageSize)
		if err := z.Decompress(scratch, page.Env{Codec: in.codec}); err != nil {
			return fmt.Errorf("%s: page %d: %v", in.path, page.Fil(b).PageNo(), err)
		}
		p = page.IndexPage(scratch)
	}
	fmt.Fprintf(w, "\nrecords (first %d of %d, key order):\n", min(n, p.NRecs()), p.NRecs())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SLOT\tOFFSET\tSIZE\tKEY\tVALUE")
	for i := 0; i < min(n, p.NRecs()); i++ {
		r := p.Record(i)
		val := fmt.Sprintf("%d bytes", len(r.Value))
		switch {
		case !p.IsLeaf():
			val = fmt.Sprintf("child page %d", r.Child)
		case r.NExt > 0:
			val += fmt.Sprintf(", %d off-page", r.NExt)
		}
		if r.DeleteMarked {
			val += ", delete-marked"
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\n", i, p.Offset(i), p.RecSize(i), shortHex(r.Key, 24), val)
	}
	return tw.Flush()
}

func shortHex(b []byte, n int) string {
	if len(b) <= n {
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(b[:n]) + "…"
}

// pageInfo is one line of the space map.
type pageInfo struct {
	no      uint32
	kind    string // page type, or "free"
	index   string
	level   int
	recs    int
	fill    float64 // 0..1; -1 when it does not apply
	problem string
}

func (in *inspector) describe(n uint32) pageInfo {
	pi := pageInfo{no: n, level: -1, fill: -1}
	b, err := in.read(n)
	if err != nil {
		pi.kind, pi.problem = "?", err.Error()
		return pi
	}
	f := page.Fil(b)
	pi.kind = f.Type().String()
	if n == 0 {
		return pi
	}
	if in.cat.free[n] {
		pi.kind = "free (" + pi.kind + ")"
		return pi
	}
	if err := page.Verify(b); err != nil {
		pi.problem = "bad checksum"
	}
	o := in.ts.Options()
	switch f.Type() {
	case page.TypeIndex:
		ip := page.IndexPage(b)
		pi.index, pi.level, pi.recs = in.indexName(ip.IndexID()), ip.Level(), ip.NRecs()
		rs, err := in.regions(b)
		if err != nil {
			if pi.problem != "" {
				pi.problem += "; "
			}
			pi.problem += strings.TrimPrefix(err.Error(), "page: ")
			return pi
		}
		if o.ZipSize != 0 {
			free := 0
			for _, r := range rs {
				if r.Name == "free space" {
					free += r.End - r.Start
				}
			}
			pi.fill = 1 - float64(free)/float64(len(b))
		} else {
			usable := len(b) - page.HeapStart - page.FilTrailerSize
			pi.fill = float64(ip.DataSize()+2*ip.NRecs()) / float64(usable)
		}
	case page.TypeBlob:
		if part, _, err := page.ParseBlobPage(b); err == nil {
			pi.fill = float64(len(part)) / float64(page.BlobPayload(o.PageSize))
		} else {
			pi.problem = err.Error()
		}
	case page.TypeZBlob, page.TypeZBlob2:
		if chunk, _, err := page.ParseZBlobPage(b, f.Type() == page.TypeZBlob); err == nil {
			pi.fill = float64(len(chunk)) / float64(page.ZBlobPayload(len(b)))
		} else {
			pi.problem = err.Error()
		}
	}
	return pi
}

func (in *inspector) spaceMap(w io.Writer, runs bool) error {
	n := in.ts.Pages()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w)
	if !runs {
		fmt.Fprintln(tw, "PAGE\tTYPE\tINDEX\tLEVEL\tRECORDS\tFILL\tNOTE")
		for i := uint32(0); i < n; i++ {
			pi := in.describe(i)
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", pi.no, pi.kind, orDash(pi.index), levelStr(pi.level), recStr(pi), fillStr(pi.fill), pi.problem)
		}
		return tw.Flush()
	}
	fmt.Fprintln(tw, "PAGES\tCOUNT\tTYPE\tINDEX\tLEVEL\tRECORDS\tFILL MEAN\tFILL MIN..MAX\tNOTE")
	type run struct {
		first, last  pageInfo
		count, recs  int
		fills        int
		sum, lo, hi  float64
		problems     int
		firstProblem string
		firstBad     uint32
	}
	var cur *run
	flush := func() {
		if cur == nil {
			return
		}
		pages := strconv.FormatUint(uint64(cur.first.no), 10)
		if cur.last.no != cur.first.no {
			pages += "-" + strconv.FormatUint(uint64(cur.last.no), 10)
		}
		mean, rng := "-", "-"
		if cur.fills > 0 {
			mean = fillStr(cur.sum / float64(cur.fills))
			rng = fillStr(cur.lo) + ".." + fillStr(cur.hi)
		}
		note := ""
		if cur.problems > 0 {
			note = fmt.Sprintf("%d damaged, first page %d: %s", cur.problems, cur.firstBad, cur.firstProblem)
		}
		recs := "-"
		if cur.first.kind == page.TypeIndex.String() {
			recs = strconv.Itoa(cur.recs)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pages, cur.count, cur.first.kind, orDash(cur.first.index), levelStr(cur.first.level), recs, mean, rng, note)
	}
	for i := uint32(0); i < n; i++ {
		pi := in.describe(i)
		if cur == nil || pi.kind != cur.first.kind || pi.index != cur.first.index || pi.level != cur.first.level {
			flush()
			cur = &run{first: pi, lo: 2, hi: -1}
		}
		cur.last = pi
		cur.count++
		cur.recs += pi.recs
		if pi.fill >= 0 {
			cur.fills++
			cur.sum += pi.fill
			cur.lo, cur.hi = min(cur.lo, pi.fill), max(cur.hi, pi.fill)
		}
		if pi.problem != "" {
			if cur.problems == 0 {
				cur.firstProblem, cur.firstBad = pi.problem, pi.no
			}
			cur.problems++
		}
	}
	flush()
	return tw.Flush()
}

func levelStr(l int) string {
	if l < 0 {
		return "-"
	}
	return strconv.Itoa(l)
}

func recStr(pi pageInfo) string {
	if pi.kind != page.TypeIndex.String() {
		return "-"
	}
	return strconv.Itoa(pi.recs)
}

func fillStr(f float64) string {
	if f < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}
