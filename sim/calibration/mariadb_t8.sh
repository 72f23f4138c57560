#!/usr/bin/env bash
# Real-InnoDB anchor for T8: LinkBench's load and its request mix in T8's
# shape on MariaDB's InnoDB on this machine, with page compression
# (PAGE_COMPRESSED=1, MariaDB's punched-hole compression, compressed in
# the flushing thread as 5.7's transparent compression is) against
# ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8, and DYNAMIC without compression
# (u, which calibrates T8's server layer): 16 KiB pages, linktable and
# counttable in 32 partitions by KEY(id1) and KEY(id), nodetable DYNAMIC
# and unpartitioned, a pool of POOL (T8: 0.25 of the uncompressed data)
# with O_DIRECT reads from this machine's disk, zlib at level 6 in both.
# LOADERS (2; other counts print their rows instead of appending them to
# OUT) link loaders and a node loader load linkbench_sql.py's rows, and the
# load ends when the pool holds no dirty page (T8 times Create + Load +
# Flush; this times the load and the flush, not the CREATE statements
# before them); then 2 requesters (mariadb clients) send LinkBench's mix for
# WARM seconds unmeasured and DURATION seconds measured. Appends to OUT,
# per repeat and mode: the load's seconds and the server's CPU over it;
# the measured window's seconds, operations a second in it (the server's
# statements over the mix's statements an operation) and the server's CPU
# over it; pool reads an operation; INNODB_CMP's compressions and
# decompressions over the run; the pages page compression wrote; the
# link and count tables' files' apparent and allocated bytes; the mix's
# statements an operation; INNODB_CMP's decompressions an operation; the
# server's innodb_lru_scan_depth (the free pages its page cleaner keeps:
# 1536 by default in 10.11; EXTRA_FLAGS=--innodb-lru-scan-depth=100, its
# least, keeps about as few free as T8's cleaner does); whether a snapshot
# was held (HOLD_SNAPSHOT, below).
# Needs: apt-get install mariadb-server python3.
# With SIZES=1 it prints, after each load, every table's rows and data
# and index MiB and every index's leaf and allocated pages (ANALYZE
# TABLE, then information_schema.tables and mysql.innodb_index_stats,
# summed over the partitions) and the pool's pages, and runs no requests.
# With HOLD_SNAPSHOT=1 a client holds a consistent snapshot open over the
# requests, so that purge removes nothing and reads no page for it.
# With PROBE=1 the server runs every InnoDB monitor counter (which costs
# it CPU, so its rows go to stdout, not OUT), and the script prints, just
# before and after the measured window, the free pages,
# the history list's length, and the pages written, page-compressed and
# statements so far, then the window's pool reads by page type, purge
# counters, page splits, merges and reorganizations, and compression and
# padding counters (information_schema.innodb_metrics), its
# INNODB_CMP_PER_INDEX counts by index, and the pool's pages by state,
# type and index at its end.
# With PERF=PREFIX, perf samples every CPU (499 Hz, with call chains) over
# the measured window into PREFIX.MODE.REPEAT.data, and perf_split.py
# prints the server's CPU by part: zlib's deflate (adler32 within it),
# its inflate, the kernel, the rest. Sampling costs the server CPU, so
# the rows go to stdout, as PROBE's do.
# Usage: mariadb_t8.sh MAXID1 POOL REPEATS OUT
#        (env: WARM=2 DURATION=8 OPS=60000 MODES="u transparent old" SIZES=0 HOLD_SNAPSHOT=0 PROBE=0 PERF= LOADERS=2
#         EXTRA_FLAGS: more server options, e.g. --innodb-read-ahead-threshold=0)
set -u
MAXID1=${1:?maxid1}
POOL=${2:?pool size}
REPEATS=${3:?repeats}
OUT=${4:?output file}
WARM=${WARM:-2}
DURATION=${DURATION:-8}
OPS=${OPS:-60000}
MODES=${MODES:-u transparent old}
LOADERS=${LOADERS:-2}
REQUESTERS=2
DIR=${DIR:-$(mktemp -d -t zipsim-t8.XXXXXX)}
mkdir -p "$DIR/sql"
# 5.7 buffered changes by default, as T8 does; MariaDB 10.11 does not.
SERVER_FLAGS="--innodb-flush-method=O_DIRECT --innodb-compression-algorithm=zlib --innodb-compression-level=6 --innodb-change-buffering=all ${EXTRA_FLAGS:-}"
[ "${PROBE:-0}" = 1 ] && SERVER_FLAGS="$SERVER_FLAGS --innodb-monitor-enable=all"
. "$(dirname "$0")/mariadb_server.sh"
here=$(dirname "$0")
python3 "$here/linkbench_sql.py" "$MAXID1" "$LOADERS" "$DIR/sql" >/dev/null
per_op=$(python3 "$here/linkbench_sql.py" --requests "$MAXID1" "$REQUESTERS" "$OPS" "$DIR/sql")
header='repeat\tmode\tload_s\tload_cpu_s\tseconds\tops_per_s\trequest_cpu_s\tpool_reads_per_op\tcompress_ops\tcompress_ops_ok\tuncompress_ops\tpage_compressed\tapparent_bytes\tallocated_bytes\tstatements_per_op\tuncompress_per_op\tlru_scan_depth\tsnapshot_held'
if [ -s "$OUT" ]; then
  [ "$(head -1 "$OUT")" = "$(printf '%b' "$header")" ] || { echo "$OUT has another header: write to a new file"; exit 2; }
else
  printf '%b\n' "$header" > "$OUT"
fi
cmp() { q "select concat(sum(compress_ops), ' ', sum(compress_ops_ok), ' ', sum(uncompress_ops)) from information_schema.innodb_cmp"; }
# probe start|end: PROBE=1's figures (see above), outside the window's
# statement counts.
probe() {
  [ "${PROBE:-0}" = 1 ] || return 0
  echo "$mode $1: free pages $(status Innodb_buffer_pool_pages_free), history list $(status Innodb_history_list_length), pages written $(status Innodb_buffer_pool_pages_flushed), page-compressed $(status Innodb_num_pages_page_compressed), questions $(status Questions)"
  q "select name, count from information_schema.innodb_metrics
     where (name like 'buffer_page_read%' or name like 'purge%' or name like 'index_page%' or name like 'compress%')
       and name != 'purge_dml_delay_usec' order by name" > "$DIR/probe.$1"
  q "select concat(substring_index(table_name, '#', 1), '.', index_name), sum(compress_ops), sum(compress_ops_ok), sum(uncompress_ops)
     from information_schema.innodb_cmp_per_index where database_name = 'd' group by 1" > "$DIR/cmpidx.$1"
  [ "$1" = end ] || return 0
  echo "$mode: the window's INNODB_CMP_PER_INDEX by index (compress_ops, compress_ops_ok, uncompress_ops)"
  LC_ALL=C join <(LC_ALL=C sort "$DIR/cmpidx.start") <(LC_ALL=C sort "$DIR/cmpidx.end") | awk '{ print "  " $1, $5 - $2, $6 - $3, $7 - $4 }'
  echo "$mode: the window's pool reads by page type, purge, index page and compression counters"
  LC_ALL=C join <(LC_ALL=C sort "$DIR/probe.start") <(LC_ALL=C sort "$DIR/probe.end") | awk '$3 > $2 { print "  " $1, $3 - $2 }'
  echo "$mode: the pool's pages by state, type and index at its end"
  q "select page_state, page_type, coalesce(index_name, '-'), count(*) from information_schema.innodb_buffer_page
     group by 1, 2, 3 order by 4 desc limit 12" | sed 's/^/  /'
}
for rep in $(seq "$REPEATS"); do
  for mode in $MODES; do
    case $mode in
      u) fmt="ROW_FORMAT=DYNAMIC" ;;
      transparent) fmt="ROW_FORMAT=DYNAMIC PAGE_COMPRESSED=1 PAGE_COMPRESSION_LEVEL=6" ;;
      old) fmt="ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8" ;;
      *) echo "mode $mode: use u, transparent or old"; exit 2 ;;
    esac
    start "$POOL"
    q "create database d character set latin1"
    q "create table d.linktable (id1 bigint unsigned not null, id2 bigint unsigned not null, link_type bigint unsigned not null,
       visibility tinyint not null, data varchar(255) not null, time bigint unsigned not null, version int unsigned not null,
       primary key (link_type, id1, id2), key id1_type (id1, link_type, visibility, time, id2, version, data)) engine=innodb $fmt
       partition by key(id1) partitions 32"
    q "create table d.counttable (id bigint unsigned not null, link_type bigint unsigned not null, count int unsigned not null,
       time bigint unsigned not null, version bigint unsigned not null, primary key (id, link_type)) engine=innodb $fmt
       partition by key(id) partitions 32"
    q "create table d.nodetable (id bigint unsigned not null, type int unsigned not null, version bigint unsigned not null,
       time int unsigned not null, data mediumtext not null, primary key (id)) engine=innodb ROW_FORMAT=DYNAMIC"
    c0=$(cpu); t0=$(date +%s.%N)
    lp=()
    for i in $(seq 0 $((LOADERS - 1))); do mariadb --socket="$SOCK" -uroot --default-character-set=latin1 d < "$DIR/sql/loader$i.sql" & lp+=($!); done
    mariadb --socket="$SOCK" -uroot --default-character-set=latin1 d < "$DIR/sql/node.sql" & lp+=($!)
    wait "${lp[@]}"
    q "set global innodb_max_dirty_pages_pct=0"
    for _ in $(seq 3000); do [ "$(status Innodb_buffer_pool_pages_dirty)" -gt 0 ] || break; sleep 0.1; done
    t1=$(date +%s.%N); c1=$(cpu); dirty=$(status Innodb_buffer_pool_pages_dirty)
    if [ "${SIZES:-0}" = 1 ]; then
      q "analyze table d.linktable, d.counttable, d.nodetable" >/dev/null
      echo "== $mode"
      q "select substring_index(table_name,'#',1), sum(table_rows), round(sum(data_length)/1048576,1) data_mib, round(sum(index_length)/1048576,1) index_mib
         from information_schema.tables where table_schema='d' group by substring_index(table_name,'#',1)"
      q "select substring_index(table_name,'#',1) t, index_name, stat_name, sum(stat_value) from mysql.innodb_index_stats
         where database_name='d' and stat_name in ('n_leaf_pages','size') group by t, index_name, stat_name"
      echo "pool pages $(status Innodb_buffer_pool_pages_total)"
      stop
      continue
    fi
    q "set global innodb_max_dirty_pages_pct=90"
    holder=
    if [ "${HOLD_SNAPSHOT:-0}" = 1 ]; then
      mariadb --socket="$SOCK" -uroot -e "start transaction with consistent snapshot; select count(*) from d.counttable where id = 1; select sleep(3600)" >/dev/null 2>&1 &
      holder=$!
      sleep 0.5
    fi
    pids=()
    for r in $(seq 0 $((REQUESTERS - 1))); do
      mariadb --socket="$SOCK" -uroot --default-character-set=latin1 --force d < "$DIR/sql/mix$r.sql" >/dev/null 2>>"$DIR/errors" & pids+=($!)
    done
    sleep "$WARM"
    probe start
    pc0=$(status Innodb_num_pages_page_compressed) # before Questions' window, as pc1 is after it
    qs0=$(status Questions); rd0=$(status Innodb_buffer_pool_reads); read -r co0 _ u0 <<< "$(cmp)"; c2=$(cpu); t2=$(date +%s.%N)
    perfpid=
    if [ -n "${PERF:-}" ]; then
      perf record -q -a --call-graph dwarf,8192 -e cpu-clock -F 499 -o "$PERF.$mode.$rep.data" -- sleep "$DURATION" 2>>"$DIR/perf.log" &
      perfpid=$!
    fi
    sleep "$DURATION"
    qs1=$(status Questions); rd1=$(status Innodb_buffer_pool_reads); read -r co1 _ u1 <<< "$(cmp)"; c3=$(cpu); t3=$(date +%s.%N)
    pc1=$(status Innodb_num_pages_page_compressed)
    [ -z "$perfpid" ] || wait "$perfpid" # perf's window began and ends a little after ours; then it writes its file
    probe end
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
    kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
    # after the requesters stop: splitting the samples takes CPU
    if [ -n "$perfpid" ]; then
      ops=$(awk -v q0="$qs0" -v q1="$qs1" -v per="$per_op" 'BEGIN { printf "%d", (q1 - q0 - 3) / per }')
      echo "$mode: the window's $ops operations: $(awk -v n="$ops" -v pc=$((pc1 - pc0)) -v co=$((co1 - co0)) -v un=$((u1 - u0)) 'BEGIN {
        printf "%.3f pages page-compressed, %.3f INNODB_CMP compressions, %.3f decompressions an operation", pc / n, co / n, un / n }')"
      python3 "$here/perf_split.py" "$PERF.$mode.$rep.data" "$(cat "$DIR/pid")" "$ops" | sed "s/^/$mode: /"
    fi
    read -r cops cok uops <<< "$(cmp)"
    pc=$(status Innodb_num_pages_page_compressed)
    depth=$(q "select @@innodb_lru_scan_depth")
    files=$(ls "$DIR"/data/d/linktable*.ibd "$DIR"/data/d/counttable*.ibd)
    # shellcheck disable=SC2086 # files is a list of paths without spaces
    apparent=$(du -cb --apparent-size $files | tail -1 | cut -f1)
    # shellcheck disable=SC2086
    allocated=$(du -cB1 $files | tail -1 | cut -f1)
    out=$OUT
    # PROBE's and PERF's figures stay out of OUT, as do runs with other
    # loader counts: OUT's rows are T8's shape (MariaDBT8Figures).
    [ "${PROBE:-0}" = 1 ] || [ -n "${PERF:-}" ] || [ "$LOADERS" != 2 ] && out=/dev/stdout
    awk -v rep="$rep" -v m="$mode" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v c0="$c0" -v c1="$c1" -v c2="$c2" -v c3="$c3" \
      -v q0="$qs0" -v q1="$qs1" -v r0="$rd0" -v r1="$rd1" -v per="$per_op" -v clk="$CLK" \
      -v u0="$u0" -v u1="$u1" -v cops="$cops" -v cok="$cok" -v uops="$uops" -v pc="$pc" -v ap="$apparent" -v al="$allocated" -v depth="$depth" -v held="${HOLD_SNAPSHOT:-0}" 'BEGIN {
        ops = (q1 - q0 - 3) / per # the three status queries between the reads of Questions
        printf "%d\t%s\t%.3f\t%.2f\t%.3f\t%.0f\t%.2f\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%.3f\t%d\t%d\n", rep, m, t1 - t0, (c1 - c0) / clk, t3 - t2, ops / (t3 - t2), (c3 - c2) / clk, (r1 - r0) / ops, cops, cok, uops, pc, ap, al, per, (u1 - u0) / ops, depth, held }' >> "$out"
    echo "$mode: $alive of $REQUESTERS requesters still running at the end (fewer: OPS too small), $dirty pages dirty when the load's flush ended, $(cat "$DIR/errors" 2>/dev/null | grep -c ERROR) client errors"
    rm -f "$DIR/errors"
    [ -z "$holder" ] || kill "$holder" 2>/dev/null
    stop
  done
done
