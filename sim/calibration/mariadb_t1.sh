#!/usr/bin/env bash
# Real-InnoDB anchor for T1: sysbench oltp_read_only (4 tables, 8 threads,
# uniform ids) on MariaDB's InnoDB, DYNAMIC against ROW_FORMAT=COMPRESSED
# KEY_BLOCK_SIZE=8, with a pool that holds the uncompressed clustered
# indexes at 0.8 of its size (u fits, u+c does not) and a control pool of
# 1.7 x that working set. Per run it records TPS, the server's CPU per
# transaction (utime+stime of mariadbd), INNODB_CMP's decompressions and
# Innodb_buffer_pool_reads per transaction, and the pool's lists at the
# round's end, so the c/u ratio of real InnoDB on this machine can be set
# beside zipsim's (BENCHMARKS.md, T1).
# Needs: apt-get install mariadb-server sysbench. Runs a private server on a
# unix socket under $DIR (no TCP). Usage: mariadb_t1.sh [rows/table] [outfile]
set -u
ROWS=${1:-125000}
OUT=${2:-t1.tsv}
DIR=${DIR:-$(mktemp -d -t zipsim-t1.XXXXXX)}
WARM=${WARM:-20}
SECS=${SECS:-20}
ROUNDS=${ROUNDS:-2}
mkdir -p "$DIR"
SERVER_FLAGS="--innodb-buffer-pool-chunk-size=1M --innodb-buffer-pool-load-at-startup=OFF --innodb-buffer-pool-dump-at-shutdown=OFF"
. "$(dirname "$0")/mariadb_server.sh"
# The pool's lists at the end of a round, from SHOW ENGINE INNODB STATUS:
# pool size, free buffers, database pages, LRU len, unzip_LRU len (pages).
lists() {
  mariadb --socket="$SOCK" -uroot -N -B -r -e "show engine innodb status" | awk '
    /^Buffer pool size / {size=$NF} /^Free buffers / {free=$NF} /^Database pages / {db=$NF}
    /^LRU len:/ {gsub(/,/,""); lru=$3; unzip=$6}
    END {printf "%s\t%s\t%s\t%s\t%s", size, free, db, lru, unzip}'
}
cat > "$DIR/sb.lua" <<'LUA'
mysql_table_options = os.getenv("SB_TABLE_OPTIONS") or ""
dofile("/usr/share/sysbench/oltp_read_only.lua")
LUA
SB="sysbench $DIR/sb.lua --db-driver=mysql --mysql-socket=$SOCK --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=$ROWS"
printf "format\tpool\tbp_bytes\tu_ws_bytes\tround\ttps\tcpu_us_per_txn\tuncompress_per_txn\treads_per_txn\tpool_pages\tfree_buffers\tdatabase_pages\tlru_len\tunzip_lru_len\n" > "$OUT"
for fmt in u c; do
  if [ "$fmt" = u ]; then export SB_TABLE_OPTIONS="ROW_FORMAT=DYNAMIC"; else export SB_TABLE_OPTIONS="ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8"; fi
  start 1G 1
  q "create database sbtest"
  $SB --threads=4 prepare >/dev/null 2>&1
  # The u working set is the DYNAMIC run's clustered indexes, measured once.
  if [ "$fmt" = u ]; then
    q "analyze table sbtest.sbtest1, sbtest.sbtest2, sbtest.sbtest3, sbtest.sbtest4" >/dev/null
    WS=$(q "select sum(stat_value)*16384 from mysql.innodb_index_stats where database_name='sbtest' and index_name='PRIMARY' and stat_name='size'")
  fi
  stop
  for pool in tight control; do
    if [ "$pool" = tight ]; then BPB=$((WS * 10 / 8)); else BPB=$((WS * 17 / 10)); fi
    BPB=$(( (BPB + 1048575) / 1048576 * 1048576 ))
    start "$BPB" 0
    $SB --threads=8 --rand-type=uniform --time="$WARM" run >/dev/null 2>&1
    for r in $(seq "$ROUNDS"); do
      c0=$(cpu); u0=$(unz); r0=$(reads)
      tps=$($SB --threads=8 --rand-type=uniform --time="$SECS" run 2>/dev/null | awk '/transactions:/ {gsub(/[(]/,"",$3); print $3}')
      c1=$(cpu); u1=$(unz); r1=$(reads)
      n=$(echo "$tps * $SECS" | bc)
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.3f\t%.3f\t%s\n" "$fmt" "$pool" "$BPB" "$WS" "$r" "$tps" \
        "$(echo "($c1 - $c0) * 1000000 / $CLK / $n" | bc -l)" "$(echo "($u1 - $u0) / $n" | bc -l)" "$(echo "($r1 - $r0) / $n" | bc -l)" "$(lists)" >> "$OUT"
      tail -1 "$OUT"
    done
    stop
  done
done
