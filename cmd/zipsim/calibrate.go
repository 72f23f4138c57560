package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/zipsim/zipsim/sim"
)

const calibrateAbout = `Loads sysbench 1.0's sbtest1 as sim/calibration/mariadb_load.sh loads it
into MariaDB (ids in order by one loader, then CREATE INDEX k_1), as DYNAMIC and
ROW_FORMAT=COMPRESSED at each KEY_BLOCK_SIZE, and prints zipsim's file size,
compression failure rate, INNODB_CMP counts and leaf pages beside what the
script measured on real InnoDB (MariaDB 10.11, 1,000,000 rows). Exit status 1
when a file size or failure rate is more than 15% off. --rows other than
1000000 prints zipsim's figures alone.`

func cmdCalibrate(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("calibrate")
	rows := fs.Int("rows", 1_000_000, "rows of sbtest1")
	shapes := fs.String("kbs", "0,16,8,4,2,1", "shapes: KEY_BLOCK_SIZEs in KiB, 0 for DYNAMIC")
	codec := fs.String("codec", "czlib:6", "page codec of the compressed shapes (czlib writes C zlib's bytes; zlib is klauspost's, faster and 4-7% smaller)")
	seed := fs.Uint64("seed", 1, "seed of the rows' values")
	quiet := fs.Bool("quiet", false, "no progress lines")
	_, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e, fs, "calibrate [flags]", calibrateAbout, "rows", "kbs", "codec", "seed", "quiet")
		return err
	}
	if err != nil {
		return err
	}
	cc := sim.CalibrationConfig{Rows: *rows, Codec: *codec, Seed: *seed}
	if *rows < 1 {
		return usagef("calibrate: --rows %d: give at least 1", *rows)
	}
	for _, s := range strings.Split(*shapes, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k != 0 && k != 1 && k != 2 && k != 4 && k != 8 && k != 16 {
			return usagef("calibrate: --kbs %q: use 0 (DYNAMIC), 1, 2, 4, 8 or 16, comma-separated", s)
		}
		cc.Shapes = append(cc.Shapes, k)
	}
	var progress func(int, int64)
	if !*quiet {
		loaded := map[int]int64{}
		progress = func(kbs int, n int64) {
			if loaded[kbs] += n; loaded[kbs]%200_000 == 0 || loaded[kbs] == int64(*rows) {
				fmt.Fprintf(e.stderr, "  %s: %d rows\n", sim.Calibration{KBS: kbs}.Shape(), loaded[kbs])
			}
		}
	}
	zs, err := sim.Calibrate(ctx, cc, progress)
	if err != nil {
		return err
	}
	maria, err := sim.MariaDBFigures()
	if err != nil {
		return err
	}
	if *rows != int(maria[0].Rows) {
		fmt.Fprintf(e.stdout, "MariaDB's figures are for %d rows; zipsim alone:\n", maria[0].Rows)
		maria = nil
	}
	ok, err := sim.WriteCalibration(e.stdout, zs, maria)
	if err != nil {
		return err
	}
	if maria != nil && !ok {
		return errors.New("calibrate: a file size or failure rate is more than 15% off MariaDB's (BENCHMARKS.md says why)")
	}
	return nil
}
