package sim

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMariaDBFigures(t *testing.T) {
	ms, err := MariaDBFigures()
	require.NoError(t, err)
	require.Len(t, ms, len(CalibrationShapes))
	for i, m := range ms {
		require.Equal(t, CalibrationShapes[i], m.KBS)
		require.Equal(t, int64(1_000_000), m.Rows)
		require.Positive(t, m.FileBytes)
		require.Positive(t, m.PrimaryLeaves)
		require.Positive(t, m.KLeaves)
		require.GreaterOrEqual(t, m.PrimaryPages, m.PrimaryLeaves)
		require.GreaterOrEqual(t, m.KPages, m.KLeaves)
		if m.KBS == 0 {
			require.Zero(t, m.CompressOps)
			continue
		}
		require.Positive(t, m.CompressOps)
		require.LessOrEqual(t, m.CompressOK, m.CompressOps)
		require.Equal(t, m.CompressOps, m.PrimaryOps+m.KOps, "INNODB_CMP is the sum of the per-index rows")
	}
	require.Equal(t, int64(247_463_936), ms[0].FileBytes)
	require.InDelta(t, 0.0346, ms[2].FailureRate(), 0.0001)

	_, err = parseMariaDB(strings.NewReader("header\nplain\t1\n"), strings.NewReader(""))
	require.ErrorContains(t, err, "fields")
	_, err = parseMariaDB(strings.NewReader("header\n"), strings.NewReader("9\tPRIMARY\tsize\t1\n"))
	require.ErrorContains(t, err, "statistics line 1")
}

// TestCalibrateSmall loads a small sbtest1 as the calibration does and
// checks the figures hang together; the 1M-row comparison is
// `zipsim calibrate` (BENCHMARKS.md).
func TestCalibrateSmall(t *testing.T) {
	zs, err := Calibrate(context.Background(), CalibrationConfig{Rows: 3000, Shapes: []int{0, 8, 2}, PoolBytes: 16 << 20}, nil)
	require.NoError(t, err)
	require.Len(t, zs, 3)
	for _, z := range zs {
		require.Equal(t, int64(3000), z.Rows)
		require.Positive(t, z.FileBytes)
		require.Positive(t, z.PrimaryLeaves)
		require.Positive(t, z.KLeaves, "k_1 is built after the load")
		require.Less(t, z.KPages, z.PrimaryPages)
	}
	dyn, k8, k2 := zs[0], zs[1], zs[2]
	require.Zero(t, dyn.CompressOps)
	require.Less(t, k8.FileBytes, dyn.FileBytes)
	require.Positive(t, k8.CompressOps)
	require.Equal(t, k8.CompressOps, k8.PrimaryOps+k8.KOps)
	require.Greater(t, k2.FailureRate(), k8.FailureRate(), "smaller blocks fail more")
	require.Greater(t, k2.PrimaryLeaves, k8.PrimaryLeaves)

	var b bytes.Buffer
	ok, err := WriteCalibration(&b, zs, nil)
	require.NoError(t, err)
	require.True(t, ok, "nothing to compare is no miss")
	require.Contains(t, b.String(), "KBS=8")
	ms, err := MariaDBFigures()
	require.NoError(t, err)
	_, err = WriteCalibration(&b, zs, ms)
	require.ErrorContains(t, err, "MariaDB's figures are for 1000000")
}

func TestWriteCalibrationVerdicts(t *testing.T) {
	m := []Calibration{{KBS: 8, Rows: 10, FileBytes: 1000, CompressOps: 1000, CompressOK: 900}}
	low := []Calibration{{KBS: 8, Rows: 10, FileBytes: 1000, CompressOps: 1000, CompressOK: 995}}
	for _, c := range []struct {
		name string
		m    []Calibration
		z    Calibration
		want bool
	}{
		{"file +14%", m, Calibration{KBS: 8, Rows: 10, FileBytes: 1140, CompressOps: 500, CompressOK: 450}, true},
		{"file +16%", m, Calibration{KBS: 8, Rows: 10, FileBytes: 1160, CompressOps: 500, CompressOK: 450}, false},
		{"file -16%", m, Calibration{KBS: 8, Rows: 10, FileBytes: 840, CompressOps: 500, CompressOK: 450}, false},
		{"failures 11% against 10%", m, Calibration{KBS: 8, Rows: 10, FileBytes: 1000, CompressOps: 1000, CompressOK: 890}, true},
		{"failures 12% against 10%", m, Calibration{KBS: 8, Rows: 10, FileBytes: 1000, CompressOps: 1000, CompressOK: 880}, false},
		{"both below 1%", low, Calibration{KBS: 8, Rows: 10, FileBytes: 1000, CompressOps: 1000, CompressOK: 991}, true},
		{"shape MariaDB lacks", m, Calibration{KBS: 4, Rows: 10, FileBytes: 1, CompressOps: 1}, true},
	} {
		var b bytes.Buffer
		ok, err := WriteCalibration(&b, []Calibration{c.z}, c.m)
		require.NoError(t, err, c.name)
		require.Equal(t, c.want, ok, "%s\n%s", c.name, b.String())
		if c.z.KBS == c.m[0].KBS {
			require.Contains(t, b.String(), map[bool]string{true: "within 15%", false: "MISS"}[c.want], c.name)
		}
	}
}

func TestMariaDBT1Figures(t *testing.T) {
	runs, err := MariaDBT1Figures()
	require.NoError(t, err)
	require.Len(t, runs, 8, "u and c, tight and control, two rounds each")
	for _, r := range runs {
		require.Contains(t, []string{"u", "c"}, r.Format)
		require.Contains(t, []string{"tight", "control"}, r.Pool)
		require.Positive(t, r.TPS)
		require.Positive(t, r.CPUPerTxn)
		require.Greater(t, r.PoolBytes, r.WorkingSet, "u fits both pools")
		if r.Format == "u" {
			require.Zero(t, r.UncompressPerTxn)
		}
	}
	require.Equal(t, "u", runs[0].Format)
	require.Equal(t, "tight", runs[0].Pool)
	require.InDelta(t, 3655.91, runs[0].TPS, 0.001)
	require.Equal(t, 356*time.Microsecond, runs[0].CPUPerTxn)

	note := t1MariaDB(runs)
	require.Contains(t, note, "tight pool (138 MiB, u working set 110 MiB) c/u 0.44 0.35 by round")
	require.Contains(t, note, "control pool (188 MiB, u working set 110 MiB) c/u 0.74 0.88 by round")
	require.Contains(t, note, "9.4 decompressions and 0.19 reads a transaction, LRU 7371 pages, unzip_LRU 4243 (58% of the LRU with a frame), 813 of 8742 frames free, about 79 us of CPU a decompression)")
	require.True(t, strings.HasSuffix(note, "0.1 decompressions and 0.01 reads a transaction, LRU 7371 pages, unzip_LRU 7371 (100% of the LRU with a frame), 855 of 11912 frames free)"), "too few decompressions in the control pool to price one: %s", note)

	_, err = parseMariaDBT1(strings.NewReader("header\nu\ttight\t1\n"))
	require.ErrorContains(t, err, "line 2: 3 fields, want 14")
	_, err = parseMariaDBT1(strings.NewReader("header\nu\ttight\t1\t2\tx\t1\t1\t0\t0\t1\t1\t1\t1\t0\n"))
	require.ErrorContains(t, err, "line 2 field 5")
	_, err = parseMariaDBT1(strings.NewReader("header\nu\ttight\t1\t2\t1\t1\tfast\t0\t0\t1\t1\t1\t1\t0\n"))
	require.ErrorContains(t, err, "line 2 field 7")
	_, err = parseMariaDBT1(strings.NewReader("header\nu\ttight\t1\t2\t1\t1\t1\t0\t0\t1\t1\t1\tmany\t0\n"))
	require.ErrorContains(t, err, "line 2 field 13")
	require.Equal(t, int64(4243), runs[5].UnzipLRULen, "c tight, round 2")
	require.Equal(t, int64(813), runs[5].FreeBuffers)
	require.Equal(t, int64(8742), runs[5].PoolPages)
}

func TestMariaDBT4Figures(t *testing.T) {
	runs, err := MariaDBT4Figures()
	require.NoError(t, err)
	require.Len(t, runs, 4, "16K and 4K pages, c then u")
	for _, r := range runs {
		require.Contains(t, []int{16, 4}, r.PageKB)
		require.Contains(t, []int{0, r.PageKB / 2}, r.KBS, "c is compressed at half the page")
		require.Positive(t, r.QPS)
		require.Positive(t, r.CPUPerQuery)
		require.Less(t, r.PoolBytes, r.FileBytes/8, "the pool is 1/16 of the compressed files")
	}
	note := t4MariaDB(runs)
	require.Contains(t, note, "c 4K/16K 2.32 (19043 -> 44148 QPS, 94.6 -> 38.0 us of server CPU a query, 1.14 -> 1.28 decompressions a query)")
	require.Contains(t, note, "u 4K/16K 1.10 (87963 -> 96840 QPS, 13.4 -> 12.1 us of server CPU a query, 0.00 -> 0.00 decompressions a query)")
	require.Equal(t, "real InnoDB in this shape (MariaDB 10.11.14, sim/calibration/mariadb_t4.sh: 8 tables, 2 threads, uniform ids, buffered reads, pool 1/16 of the compressed files; recorded 2026-11-30 on this project's 2-core machine, not measured by this run):",
		t4MariaDB(nil), "no figures, no ratios")

	err = tsvRows(strings.NewReader("header\n16\tc\t8\t1\t2\t3\t4\t5\n"), "T", 9, func(*tsvRow) {})
	require.ErrorContains(t, err, "sim: T line 2: 8 fields, want 9")
}

func TestMariaDBT7Figures(t *testing.T) {
	runs, err := MariaDBT7Figures()
	require.NoError(t, err)
	require.Len(t, runs, 20, "3 repeats without performance_schema, 2 with, 4 loads each")
	for _, r := range runs {
		require.Equal(t, int64(662430), r.Rows, "zipsim's T7 loads the same number of rows")
		require.Contains(t, []int{1, 32}, r.Partitions)
		require.Equal(t, r.C, r.CompressOps > 0, "only c compresses")
		require.Equal(t, r.PFS, r.IndexLockWait > 0, "waits are timed only with performance_schema")
		require.Positive(t, r.Wall)
		require.Positive(t, r.ServerCPU)
	}
	require.Equal(t, MariaDBT7Run{Repeat: 1, C: true, Partitions: 1, Rows: 662430, Wall: 6094 * time.Millisecond,
		ServerCPU: 11310 * time.Millisecond, Cores: 2, CompressOps: 51196, CompressOpsOK: 50312}, runs[2])
	note := t7MariaDB(runs)
	require.Contains(t, note, "c p32/p1 0.86 0.83 0.84; u p32/p1 0.94 0.89 0.93; c/u p1 0.41 0.40 0.38;")
	require.Contains(t, note, "c 17.1 → 20.1, u 6.6 → 7.2;")
	require.Contains(t, note, "wait share c-p1/u-p1 (performance_schema timing the locks, over 9 loaders) 1.57 (0.396/0.253) 1.47 (0.423/0.287)")
	require.Contains(t, t7MariaDB(runs[:3]), "c p32/p1 ; u p32/p1 ;", "an incomplete repeat gives no ratios")
}

func TestMariaDBT6Figures(t *testing.T) {
	runs, err := MariaDBT6Figures()
	require.NoError(t, err)
	require.Len(t, runs, 8, "two runs of u then c at each of two innodb_lru_scan_depth values")
	for i, r := range runs {
		require.Equal(t, i%2 == 1, r.C)
		require.Equal(t, []int{1536, 100}[i/4], r.LRUScanDepth)
		require.Len(t, r.QPS, 12)
		require.Len(t, r.Splits, 12)
		require.Len(t, r.ServerCPU, 12)
		require.Positive(t, r.LoadWall)
	}
	require.Equal(t, []float64{843, 771, 568, 290, 308, 178, 166, 117, 105, 96, 91, 64}, runs[1].Splits)
	note := t6MariaDB(runs)
	require.Contains(t, note, "p0 c/u QPS interval 1 0.54, c QPS last/first 1.98, c splits last/first 0.08, u QPS last/first 1.40;")
	require.Contains(t, note, "p0 c/u QPS interval 1 0.62, c QPS last/first 1.83, c splits last/first 0.07, u QPS last/first 1.53;")
	require.Contains(t, note, "run 3 (innodb_lru_scan_depth=100): u QPS by interval 8472 ")
	require.Contains(t, note, "p0 c/u QPS interval 1 0.66, c QPS last/first 1.76, c splits last/first 0.08, u QPS last/first 1.67")
	require.NotContains(t, t6MariaDB(runs[1:3]), "run 1", "a pair that is not u then c gives nothing")

	bad := mariadbT6Results
	t.Cleanup(func() { mariadbT6Results = bad })
	mariadbT6Results = []byte("header\nc\t1\t2\t3\t4\t5\t6\t7\t100\n")
	_, err = MariaDBT6Figures()
	require.ErrorContains(t, err, "line 2: an interval outside its format's run")
}

func TestMariaDBT8Figures(t *testing.T) {
	runs, err := MariaDBT8Figures()
	require.NoError(t, err)
	require.Len(t, runs, 27, "3 repeats of u, transparent and old in each of three settings")
	for i, r := range runs {
		require.Equal(t, []string{"u", "transparent", "old"}[i%3], r.Mode)
		require.Equal(t, i%9/3+1, r.Repeat)
		require.Equal(t, []int{1536, 100, 100}[i/9], r.LRUScanDepth)
		require.Equal(t, i/9 == 2, r.SnapshotHeld)
		require.Equal(t, r.Mode == "old", r.CompressOps > 0, "only old-style compresses B-tree pages")
		require.Equal(t, r.Mode == "transparent", r.PageCompressed > 0, "only transparent compresses pages as it writes them")
		require.Equal(t, r.Mode == "transparent", r.AllocatedBytes < r.ApparentBytes/2, "only transparent punches holes")
		require.Positive(t, r.CPUPerOp())
	}
	require.Equal(t, MariaDBT8Run{Repeat: 1, Mode: "u", LoadWall: 8167 * time.Millisecond, LoadCPU: 10090 * time.Millisecond,
		Window: 8050 * time.Millisecond, QPS: 6409, RequestCPU: 7520 * time.Millisecond, ReadsPerOp: 1.276,
		ApparentBytes: 813580288, AllocatedBytes: 813842432, StatementsPerOp: 1.8282, LRUScanDepth: 1536}, runs[0])
	require.InDelta(t, 145.8, float64(runs[0].CPUPerOp())/1e3, 0.1)
	require.Zero(t, MariaDBT8Run{RequestCPU: time.Second}.CPUPerOp(), "no operations, no CPU an operation")
	note := t8MariaDB(runs)
	require.Contains(t, note, "[innodb_lru_scan_depth=1536] QPS transparent/old 1.01 0.91 1.00; load rows/s transparent/old 2.36 2.46 3.20;")
	require.Contains(t, note, "server CPU an operation u/transparent/old, µs: 146/333/247; 159/326/220; 145/345/263;")
	require.Contains(t, note, "[innodb_lru_scan_depth=100] QPS transparent/old 0.87 0.81 0.80;")
	require.Contains(t, note, "pool reads an operation u/transparent/old: 1.26/1.15/0.90; 1.13/1.17/0.87; 1.24/1.18/0.89")
	require.Contains(t, note, "[innodb_lru_scan_depth=100, a snapshot held over the requests: no purge] QPS transparent/old 1.21 1.12 1.02;")
	require.Contains(t, t8MariaDB(runs[:2]), "[innodb_lru_scan_depth=1536] QPS transparent/old ;", "an incomplete repeat gives no ratios")
}
