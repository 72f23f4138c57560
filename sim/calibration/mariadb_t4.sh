#!/usr/bin/env bash
# Real-InnoDB anchor for T4: sysbench oltp_point_select (8 tables, 2
# threads, uniform ids) on MariaDB's InnoDB at innodb_page_size 16K and 4K,
# DYNAMIC (u) against ROW_FORMAT=COMPRESSED at half the page (c: KBS=8 on
# 16K pages, KBS=2 on 4K), in a pool 1/16 of the c files, so nearly every
# select misses and reads, buffered, from the OS cache. Per run it records QPS, the
# server's CPU per query (utime+stime of mariadbd), and INNODB_CMP
# decompressions and Innodb_buffer_pool_reads per query, so that the
# 4K/16K ratios of real InnoDB on this machine can be set beside zipsim's
# (BENCHMARKS.md, T4). Needs: apt-get install mariadb-server sysbench.
# Usage: mariadb_t4.sh [rows/table] [outfile]
set -u
ROWS=${1:-100000}
OUT=${2:-t4.tsv}
DIR=${DIR:-$(mktemp -d -t zipsim-t4.XXXXXX)}
WARM=${WARM:-10}
SECS=${SECS:-20}
mkdir -p "$DIR"
. "$(dirname "$0")/mariadb_server.sh"
cat > "$DIR/sb.lua" <<'LUA'
mysql_table_options = os.getenv("SB_TABLE_OPTIONS") or ""
dofile("/usr/share/sysbench/oltp_point_select.lua")
LUA
SB="sysbench $DIR/sb.lua --db-driver=mysql --mysql-socket=$SOCK --mysql-user=root --mysql-db=sbtest --tables=8 --table-size=$ROWS"
printf "page_kb\tformat\tkbs\tbp_bytes\tfile_bytes\tqps\tcpu_us_per_query\tuncompress_per_query\treads_per_query\n" > "$OUT"
for ps in 16 4; do
  POOL=
  for fmt in c u; do
    kbs=0
    if [ "$fmt" = u ]; then export SB_TABLE_OPTIONS="ROW_FORMAT=DYNAMIC"; else kbs=$((ps / 2)); export SB_TABLE_OPTIONS="ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=$kbs"; fi
    # Buffered reads (innodb_flush_method=fsync, not 10.11's O_DIRECT), as
    # the seed ran: a miss is a copy from the OS cache.
    SERVER_FLAGS="--innodb-page-size=${ps}k --innodb-flush-method=fsync --innodb-buffer-pool-chunk-size=1M --innodb-buffer-pool-load-at-startup=OFF --innodb-buffer-pool-dump-at-shutdown=OFF"
    start 512M 1
    q "create database sbtest"
    $SB --threads=4 prepare >/dev/null 2>&1
    stop
    FILES=$(cat "$DIR"/data/sbtest/sbtest*.ibd | wc -c)
    # The pool is 1/16 of the c files of this page size, for u as for c.
    if [ -z "$POOL" ]; then POOL=$(( (FILES / 16 + 1048575) / 1048576 * 1048576 )); fi
    start "$POOL" 0
    $SB --threads=2 --rand-type=uniform --time="$WARM" run >/dev/null 2>&1
    c0=$(cpu); u0=$(unz); r0=$(reads)
    qps=$($SB --threads=2 --rand-type=uniform --time="$SECS" run 2>/dev/null | awk '/queries:/ {gsub(/[(]/,"",$3); print $3}')
    c1=$(cpu); u1=$(unz); r1=$(reads)
    n=$(echo "$qps * $SECS" | bc)
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.3f\t%.3f\n" "$ps" "$fmt" "$kbs" "$POOL" "$FILES" "$qps" \
      "$(echo "($c1 - $c0) * 1000000 / $CLK / $n" | bc -l)" "$(echo "($u1 - $u0) / $n" | bc -l)" "$(echo "($r1 - $r0) / $n" | bc -l)" >> "$OUT"
    tail -1 "$OUT"
    stop
  done
done
