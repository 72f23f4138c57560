#!/usr/bin/env bash
# Real-InnoDB anchor: loads sysbench's sbtest table into MariaDB's InnoDB with
# and without ROW_FORMAT=COMPRESSED at each KEY_BLOCK_SIZE, then records load
# time, file size and INNODB_CMP counters, and in OUT.stats each index's pages
# (innodb_index_stats after ANALYZE TABLE) and INNODB_CMP_PER_INDEX rows.
# This is ../shared/calibration/mariadb_innodb.sh with its point-select runs
# left out (their columns stay empty) and the per-index queries added; it
# produced mariadb-10.11.14-1M.tsv and mariadb-10.11.14-1M-stats.tsv.
# Needs: apt-get install mariadb-server sysbench. Runs a private server on a
# unix socket under $DIR (no TCP). Usage: mariadb_load.sh [rows] [outfile]
set -u
ROWS=${1:-1000000}
OUT=${2:-results.tsv}
DIR=${DIR:-$(mktemp -d -t zipsim-calib.XXXXXX)}
BP=${BP:-1G}
mkdir -p "$DIR"
. "$(dirname "$0")/mariadb_server.sh"
cat > "$DIR/sb.lua" <<'LUA'
mysql_table_options = os.getenv("SB_TABLE_OPTIONS") or ""
dofile("/usr/share/sysbench/" .. (os.getenv("SB_SCRIPT") or "oltp_read_only") .. ".lua")
LUA
SB="sysbench $DIR/sb.lua --db-driver=mysql --mysql-socket=$SOCK --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=$ROWS"
printf "config\trows\tload_s\tibd_bytes\tdata_length\tindex_length\tcompress_ops\tcompress_ops_ok\tcompress_time\tuncompress_ops\tuncompress_time\tro_tps_bp_big\tro_uncompress_big\tro_tps_bp_small\tro_uncompress_small\n" > "$OUT"
for cfg in ${CONFIGS:-plain 16 8 4 2 1}; do
  start "$BP"
  q "create database sbtest"
  if [ "$cfg" = plain ]; then export SB_TABLE_OPTIONS="ROW_FORMAT=DYNAMIC"; else export SB_TABLE_OPTIONS="ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=$cfg"; fi
  q "select * from information_schema.innodb_cmp_reset" >/dev/null
  t0=$(date +%s.%N); $SB prepare >/dev/null 2>&1; t1=$(date +%s.%N)
  load=$(echo "$t1 - $t0" | bc)
  q "flush tables sbtest1 for export; unlock tables" >/dev/null 2>&1
  sleep 2
  ibd=$(stat -c %s "$DIR/data/sbtest/sbtest1.ibd")
  st=$(q "select data_length, index_length from information_schema.tables where table_schema='sbtest' and table_name='sbtest1'")
  cmp=$(q "select sum(compress_ops), sum(compress_ops_ok), sum(compress_time), sum(uncompress_ops), sum(uncompress_time) from information_schema.innodb_cmp_reset")
  q "analyze table sbtest.sbtest1" >/dev/null
  q "select '$cfg', index_name, stat_name, stat_value from mysql.innodb_index_stats where database_name='sbtest' and table_name='sbtest1' and stat_name in ('size','n_leaf_pages')" >> "$OUT.stats"
  q "select '$cfg', index_name, compress_ops, compress_ops_ok, compress_time, uncompress_ops from information_schema.innodb_cmp_per_index" >> "$OUT.stats"
  stop
  big=; ubig=; small=; usmall=
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$cfg" "$ROWS" "$load" "$ibd" "$(echo $st | tr ' ' '\t')" "$(echo $cmp | tr ' ' '\t')" "$big" "$ubig" "$small" "$usmall" >> "$OUT"
  echo "done $cfg: load=$load ibd=$ibd cmp=$cmp big=$big small=$small"
done
