#!/usr/bin/env bash
# Real-InnoDB anchor for T6: LinkBench's load and then its request phase
# in T6's shape on MariaDB's InnoDB on this machine: innodb_page_size=8K,
# linktable and counttable DYNAMIC (u) or COMPRESSED KEY_BLOCK_SIZE=4 (c),
# nodetable DYNAMIC, a pool of POOL (T6: 0.15 of the data) with O_DIRECT
# reads from this machine's disk. 8 link loaders and a node loader load
# linkbench_sql.py's rows; then 20 requesters (mariadb clients) send
# LinkBench's reads for WARM seconds and its mix for 12 intervals of
# INTERVAL seconds, after which they are stopped. Appends to OUT, per
# interval: operations a second (the server's statements over the mix's
# statements an operation; the 3 statements of each poll left out), INNODB_METRICS index_page_splits, buffer pool
# reads, the server's CPU and its innodb_lru_scan_depth (the free pages its
# page cleaner keeps: 1536 by default, more than this pool holds;
# EXTRA_FLAGS=--innodb-lru-scan-depth=100, its least, keeps about as few
# free as T6's cleaner does).
# Needs: apt-get install mariadb-server python3.
# Usage: mariadb_t6.sh MAXID1 POOL OUT   (env: WARM=6 INTERVAL=2 OPS=40000
#        EXTRA_FLAGS: more server options)
set -u
MAXID1=${1:?maxid1}
POOL=${2:?pool size}
OUT=${3:?output file}
WARM=${WARM:-6}
INTERVAL=${INTERVAL:-2}
OPS=${OPS:-40000}
LOADERS=8
REQUESTERS=20
DIR=${DIR:-$(mktemp -d -t zipsim-t6.XXXXXX)}
mkdir -p "$DIR/sql"
SERVER_FLAGS="--innodb-page-size=8k --innodb-flush-method=O_DIRECT --innodb-monitor-enable=index_page_splits ${EXTRA_FLAGS:-}"
. "$(dirname "$0")/mariadb_server.sh"
here=$(dirname "$0")
python3 "$here/linkbench_sql.py" "$MAXID1" "$LOADERS" "$DIR/sql" >/dev/null
per_op=$(python3 "$here/linkbench_sql.py" --requests "$MAXID1" "$REQUESTERS" "$OPS" "$DIR/sql")
[ -s "$OUT" ] || printf 'format\tinterval\tseconds\tstatements\tops_per_s\tsplits\tpool_reads\tserver_cpu_s\tlru_scan_depth\n' > "$OUT"
splits() { q "select count from information_schema.innodb_metrics where name='index_page_splits'"; }
clients() { # clients PREFIX: starts one mariadb client per requester file, sets pids
  # --force: a client goes on after an error (a deadlock), as LinkBench's
  # requesters do; the errors are counted at the end.
  pids=()
  for r in $(seq 0 $((REQUESTERS - 1))); do
    mariadb --socket="$SOCK" -uroot --default-character-set=latin1 --force d < "$DIR/sql/$1$r.sql" >/dev/null 2>>"$DIR/errors" & pids+=($!)
  done
}
for kbs in 0 4; do
  if [ "$kbs" = 0 ]; then fmt="ROW_FORMAT=DYNAMIC"; name=u; else fmt="ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4"; name=c; fi
  start "$POOL"
  depth=$(q "select @@innodb_lru_scan_depth")
  q "create database d character set latin1"
  q "create table d.linktable (id1 bigint unsigned not null, id2 bigint unsigned not null, link_type bigint unsigned not null,
     visibility tinyint not null, data varchar(255) not null, time bigint unsigned not null, version int unsigned not null,
     primary key (link_type, id1, id2), key id1_type (id1, link_type, visibility, time, id2, version, data)) engine=innodb $fmt"
  q "create table d.counttable (id bigint unsigned not null, link_type bigint unsigned not null, count int unsigned not null,
     time bigint unsigned not null, version bigint unsigned not null, primary key (id, link_type)) engine=innodb $fmt"
  q "create table d.nodetable (id bigint unsigned not null, type int unsigned not null, version bigint unsigned not null,
     time int unsigned not null, data mediumtext not null, primary key (id)) engine=innodb ROW_FORMAT=DYNAMIC"
  t0=$(date +%s.%N)
  lp=()
  for i in $(seq 0 $((LOADERS - 1))); do mariadb --socket="$SOCK" -uroot --default-character-set=latin1 d < "$DIR/sql/loader$i.sql" & lp+=($!); done
  mariadb --socket="$SOCK" -uroot --default-character-set=latin1 d < "$DIR/sql/node.sql" & lp+=($!)
  wait "${lp[@]}"
  t1=$(date +%s.%N)
  printf '%s\tload\t%s\t0\t0\t%s\t%s\t0\t%s\n' "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" "$(splits)" "$(status Innodb_buffer_pool_reads)" "$depth" >> "$OUT"
  clients warm
  sleep "$WARM"
  kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
  clients mix
  for i in $(seq 0 12); do
    now=$(date +%s.%N); qs=$(status Questions); sp=$(splits); rd=$(status Innodb_buffer_pool_reads); c=$(cpu)
    if [ "$i" -gt 0 ]; then
      awk -v n="$name" -v i="$i" -v a="$prev" -v b="$now" -v q0="$pq" -v q1="$qs" -v per="$per_op" -v s0="$psp" -v s1="$sp" \
        -v r0="$prd" -v r1="$rd" -v c0="$pc" -v c1="$c" -v clk="$CLK" -v depth="$depth" 'BEGIN {
          w = b - a; printf "%s\t%d\t%.3f\t%d\t%.0f\t%d\t%d\t%.2f\t%d\n", n, i, w, q1 - q0, (q1 - q0 - 3) / per / w, s1 - s0, r1 - r0, (c1 - c0) / clk, depth }' >> "$OUT"
    fi
    prev=$now; pq=$qs; psp=$sp; prd=$rd; pc=$c
    [ "$i" -lt 12 ] && sleep "$INTERVAL"
  done
  kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
  q "select concat('$name size ', sum(data_length + index_length)) from information_schema.tables where table_schema='d'"
  echo "$name: $(grep -c ERROR "$DIR/errors" 2>/dev/null || echo 0) client errors ($(grep ERROR "$DIR/errors" 2>/dev/null | sed 's/ at line.*//' | sort | uniq -c | sort -rn | head -3 | tr '\n' ';'))"
  rm -f "$DIR/errors"
  stop
done
