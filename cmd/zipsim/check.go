package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/zipsim/zipsim"
	"github.com/zipsim/zipsim/bufpool"
)

const checkAbout = `Opens the store in DIR (made by zipsim prepare, or any zipsim store directory)
and runs Store.Check: the buffer pool, then CHECK TABLE on every table (each
index tree, rows against their secondary entries, off-page chains, page
allocation). Prints one line per table and every violation; exits 1 if there
is any. Opening and closing the store rewrites its catalog and marks its files
clean, as any use of the store does; the data is not changed.`

func cmdCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("check")
	var pool int64
	fs.Var(sizeValue{&pool}, "pool", "buffer pool for the check (default 128M)")
	quiet := fs.Bool("quiet", false, "print only violations")
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e, fs, "check [flags] DIR", checkAbout, "pool", "quiet")
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("check: give one data directory: zipsim check DIR")
	}
	dir := pos[0]
	if err := checkStoreDir(dir); err != nil {
		return err
	}
	opts := zipsim.Options{Pool: bufpool.Options{Bytes: pool}, NoSync: true}
	st, err := zipsim.Open(dir, opts)
	if err != nil {
		return nameFiles(fmt.Errorf("%s: %s", dir, strings.TrimPrefix(err.Error(), "zipsim: ")), dir, dir)
	}
	tables := st.Tables()
	if !*quiet {
		fmt.Fprintf(e.stdout, "checking %d tables in %s\n", len(tables), dir)
	}
	errs := st.Check(ctx)
	if cerr := st.Close(); cerr != nil {
		errs = append(errs, fmt.Errorf("close: %w", cerr))
	}
	if !*quiet {
		for _, t := range tables {
			n := 0
			for _, err := range errs {
				if mentionsTable(err.Error(), t.Name()) {
					n++
				}
			}
			status := "ok"
			if n > 0 {
				status = fmt.Sprintf("%d violations", n)
			}
			fmt.Fprintf(e.stdout, "  %s: %s\n", t.Name(), status)
		}
	}
	for _, err := range errs {
		fmt.Fprintln(e.stdout, "  "+oneLine(err.Error()))
	}
	if ctx.Err() != nil {
		return interrupted(ctx.Err())
	}
	if len(errs) > 0 {
		return fmt.Errorf("check %s: %d violations", dir, len(errs))
	}
	if !*quiet {
		fmt.Fprintf(e.stdout, "%s: no violations\n", dir)
	}
	return nil
}

// mentionsTable says whether an error from Table.Check is about table
// name: its messages start "zipsim: name." or "zipsim: name#p#".
func mentionsTable(msg, name string) bool {
	msg = strings.TrimPrefix(msg, "zipsim: ")
	return strings.HasPrefix(msg, name+".") || strings.HasPrefix(msg, name+"#") || strings.HasPrefix(msg, name+":") || strings.HasPrefix(msg, name+" ")
}

// checkStoreDir makes sure dir holds a zipsim store before Open, which
// would create an empty one.
func checkStoreDir(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such directory", dir)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory (check takes a data directory; inspect reads a .ibd file)", dir)
	}
	cat := filepath.Join(dir, "zipsim.catalog")
	if _, err := os.Stat(cat); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: not found: %s holds no zipsim store", cat, dir)
	} else if err != nil {
		return err
	}
	return nil
}

// tableInError finds the tables and partitions an error of the zipsim
// package names ("table sbtest1: ...", "table t#p#p3: index ...").
var tableInError = regexp.MustCompile(`table ([^\s:]+)`)

// nameFiles adds to err the tablespace files, in dir, of the tables its
// message names, shown under shownDir, so that an error about a damaged
// page says which file holds it. Errors that already name a .ibd file
// are left as they are.
func nameFiles(err error, dir, shownDir string) error {
	if err == nil || strings.Contains(err.Error(), ".ibd") {
		return err
	}
	var files []string
	for _, m := range tableInError.FindAllStringSubmatch(err.Error(), -1) {
		name := m[1]
		if _, serr := os.Stat(filepath.Join(dir, name+".ibd")); serr == nil {
			files = append(files, filepath.Join(shownDir, name+".ibd"))
			continue
		}
		if parts, _ := filepath.Glob(filepath.Join(dir, name+"#p#p*.ibd")); len(parts) > 0 {
			files = append(files, filepath.Join(shownDir, name+"#p#p*.ibd"))
		}
	}
	if len(files) == 0 {
		return err
	}
	return fmt.Errorf("%w (file %s)", err, strings.Join(files, ", "))
}
