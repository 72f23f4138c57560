// Package sim drives zipsim tables with the workloads the seeds measured
// (research/targets.md §2): sysbench's OLTP events on sbtest tables,
// a LinkBench-like social graph, and seed 001's document table. A
// Workload creates and loads its tables and hands each runner goroutine
// a Worker that executes operations; Run runs workers for a duration or
// an operation count, with warm-up and report intervals, and returns a
// Report (run header, throughput per interval, latency histograms per
// operation merged across goroutines, the store's metrics per interval,
// CPU utilisation and Go memory statistics) that prints as a table, JSON
// or CSV and plots to PNG and SVG.
//
// Scenarios (scenario.go, t1.go .. t9.go) reproduce research/targets.md's
// targets T1..T9: each builds its own stores at a size two cores run in
// under two minutes, measures the ratios its target's pass band is about
// and reports PASS or FAIL with the side numbers that explain a miss;
// `zipsim reproduce` runs them, and BenchmarkT1.. report the same ratios.
//
// Calibrate (calibrate.go) loads sysbench's sbtest1 as the MariaDB
// calibration script does, and MariaDBFigures holds what that script
// measured on real InnoDB (MariaDB 10.11.14, sim/calibration), so that
// `zipsim calibrate` can print the two side by side. MariaDBT1Figures,
// MariaDBT4Figures, MariaDBT6Figures, MariaDBT7Figures and MariaDBT8Figures
// hold what mariadb_t1.sh, mariadb_t4.sh, mariadb_t6.sh, mariadb_t7.sh and
// mariadb_t8.sh measured
// in those targets' own shapes, which the scenarios print beside their
// ratios.
//
// The workloads call the engine directly; a MySQL server would also spend
// CPU in its SQL layer for each statement and each row a range reads.
// Config.StatementCPU and RowCPU spend that CPU after each operation as
// plain work, holding no latch (servercpu.go); T1, T4 and T5 spend the
// amounts MariaDB spent in T1's and T4's shapes, so that their throughput
// ratios weigh engine costs as a server does. Config.LoadRowCPU does the
// same for each row a load inserts; T2 and T7 spend MariaDB's load CPU a
// row in their shapes less zipsim's. T6 and T8 spend MariaDB's CPU a
// LinkBench request in T8's shape less zipsim's, once per operation, and
// T8 runs with twice as many Ps as cores, so that the kernel, which
// schedules InnoDB's threads, shares the cores among more of the
// goroutines that stand for them, rather than Go's run queue holding a
// requester until a page cleaner's writer stops compressing. The default
// is none.
//
// Every scenario compresses with InnoDB's codec (seedCodec: czlib, C
// zlib's deflate), not the library's faster default.
//
// The scenarios run their seeds' engines: every one but T5 uses InnoDB's
// plugin-line latches (seedLatches), T5 compares them with the 5.1
// builtin's, and T1, T2 and T5, whose seeds ran 5.1, also take 5.1's
// rules (engine51: innodb_old_blocks_time=0, the update reserve on
// compressed leaves, and with Legacy or Global locking zip_clean's walks);
// T1's Legacy arm runs one buffer pool, as 5.1 had, and T5's builtin arm
// its innodb_thread_concurrency of 8. T6 and T8 take 5.7's SX index lock
// (Config.SXIndexLock); the others keep the exclusive one.
//
// Run gives each worker a zipsim.Session, a connection's place at the
// store's concurrency gate (Config.ThreadConcurrency; without it the
// session gates nothing): Recorder.Op ends a statement, leaving the
// gate, and so does sysbench's simple range for each row it sends, as
// 5.1's server did. Workloads find the session with zipsim.SessionOf.
//
// Everything is deterministic for a given Config.Seed except timing:
// worker i draws from its own generator seeded from (Seed, i).
package sim
