#!/usr/bin/env bash
# Real-InnoDB anchor for T2: sysbench's parallel prepare in T2's shape on
# MariaDB's InnoDB on this machine: TABLES tables of ROWS rows from
# THREADS threads, DYNAMIC (u) or COMPRESSED KEY_BLOCK_SIZE=8 (c), 16 KiB
# pages, in a pool of POOL. With the default O_DIRECT, pages the pool
# cannot hold are written to and read from this machine's disk; FLUSH=fsync
# loads through the OS cache instead. Appends to OUT, for each load: its
# wall time, mariadbd's CPU, the .ibd files' bytes and INNODB_CMP's
# compressions.
# Needs: apt-get install mariadb-server sysbench.
# Usage: mariadb_t2.sh ROWS TABLES THREADS POOL REPEATS OUT
set -u
ROWS=${1:?rows}
TABLES=${2:?tables}
THREADS=${3:?threads}
POOL=${4:?pool size}
REPEATS=${5:?repeats}
OUT=${6:?output file}
FLUSH=${FLUSH:-O_DIRECT}
DIR=${DIR:-$(mktemp -d -t zipsim-t2.XXXXXX)}
mkdir -p "$DIR"
SERVER_FLAGS="--innodb-flush-method=$FLUSH"
. "$(dirname "$0")/mariadb_server.sh"
cat > "$DIR/sb.lua" <<'LUA'
mysql_table_options = os.getenv("SB_TABLE_OPTIONS") or ""
dofile("/usr/share/sysbench/oltp_read_only.lua")
LUA
[ -s "$OUT" ] || printf 'flush\tpool\trepeat\tformat\ttables\trows\tload_s\tserver_cpu_s\tibd_bytes\tcompress_ops\tcompress_ops_ok\n' > "$OUT"
for rep in $(seq "$REPEATS"); do
  for f in u c; do
    if [ "$f" = u ]; then export SB_TABLE_OPTIONS="ROW_FORMAT=DYNAMIC"; else export SB_TABLE_OPTIONS="ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8"; fi
    start "$POOL"
    q "create database sbtest"
    c0=$(cpu); t0=$(date +%s.%N)
    sysbench "$DIR/sb.lua" --db-driver=mysql --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbtest \
      --tables="$TABLES" --table-size="$ROWS" --threads="$THREADS" prepare >/dev/null 2>&1
    t1=$(date +%s.%N); c1=$(cpu)
    cmp=$(q "select sum(compress_ops), sum(compress_ops_ok) from information_schema.innodb_cmp")
    stop
    ibd=$(cat "$DIR"/data/sbtest/*.ibd | wc -c)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$FLUSH" "$POOL" "$rep" "$f" "$TABLES" "$ROWS" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" "$(awk -v a="$c0" -v b="$c1" -v k="$CLK" 'BEGIN { printf "%.2f", (b - a) / k }')" \
      "$ibd" "$cmp" >> "$OUT"
  done
done
