#!/usr/bin/env bash
# Real-InnoDB anchor for T7: LinkBench's load in T7's shape on MariaDB's
# InnoDB on this machine: innodb_page_size=8K, linktable and counttable
# DYNAMIC (u) or COMPRESSED KEY_BLOCK_SIZE=4 (c), unpartitioned (p1) or
# 32 partitions by KEY(id1) (p32), nodetable DYNAMIC and unpartitioned, a
# pool larger than the data (POOL=15M for T7's IO-bound pool, read with
# MariaDB's default O_DIRECT). 8 link loaders and 1 node loader, each a
# mariadb client sending linkbench_sql.py's statements. Prints, per load:
# wall time, rows/s, the server's CPU a row and the cores it kept busy,
# INNODB_CMP's compressions, and the waits on the index trees' locks from
# performance_schema when PFS=1 (which costs the server CPU of its own),
# and appends them to OUT (a header first when OUT is new).
# Needs: apt-get install mariadb-server python3.
# Usage: [PFS=1] [POOL=1G] [EXTRA_FLAGS=...] mariadb_t7.sh MAXID1 REPEATS OUT
#        (EXTRA_FLAGS: more server options, e.g. --innodb-lru-scan-depth=100)
set -u
MAXID1=${1:?maxid1}
REPEATS=${2:?repeats}
OUT=${3:?output file}
LOADERS=8
DIR=${DIR:-$(mktemp -d -t zipsim-t7.XXXXXX)}
mkdir -p "$DIR/sql"
SERVER_FLAGS="--innodb-page-size=8k ${EXTRA_FLAGS:-}"
if [ "${PFS:-0}" = 1 ]; then
  SERVER_FLAGS="$SERVER_FLAGS --performance-schema=ON --performance-schema-instrument=wait/synch/sxlock/innodb/index_tree_rw_lock=ON"
fi
. "$(dirname "$0")/mariadb_server.sh"
# pfs_wait is the index trees' locks' total wait so far in seconds (0
# without PFS=1).
pfs_wait() {
  if [ "${PFS:-0}" = 1 ]; then
    q "select sum_timer_wait/1e12 from performance_schema.events_waits_summary_global_by_event_name where event_name='wait/synch/sxlock/innodb/index_tree_rw_lock'"
  else
    echo 0
  fi
}
rows=$(python3 "$(dirname "$0")/linkbench_sql.py" "$MAXID1" "$LOADERS" "$DIR/sql")
start "${POOL:-1G}"
q "select version()"
cores=$(nproc)
[ -s "$OUT" ] || printf 'pfs\trepeat\tformat\tpartitions\trows\twall_s\tserver_cpu_s\tcores\tcompress_ops\tcompress_ops_ok\tindex_lock_wait_s\n' > "$OUT"
for rep in $(seq "$REPEATS"); do
  for kbs in 0 4; do
    for parts in 1 32; do
      if [ "$kbs" = 0 ]; then fmt="ROW_FORMAT=DYNAMIC"; name=u; else fmt="ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4"; name=c; fi
      lp=""; cp=""
      if [ "$parts" = 32 ]; then lp="PARTITION BY KEY(id1) PARTITIONS 32"; cp="PARTITION BY KEY(id) PARTITIONS 32"; fi
      q "drop database if exists d"
      q "create database d character set latin1"
      q "create table d.linktable (id1 bigint unsigned not null, id2 bigint unsigned not null, link_type bigint unsigned not null,
         visibility tinyint not null, data varchar(255) not null, time bigint unsigned not null, version int unsigned not null,
         primary key (link_type, id1, id2), key id1_type (id1, link_type, visibility, time, id2, version, data)) engine=innodb $fmt $lp"
      q "create table d.counttable (id bigint unsigned not null, link_type bigint unsigned not null, count int unsigned not null,
         time bigint unsigned not null, version bigint unsigned not null, primary key (id, link_type)) engine=innodb $fmt $cp"
      q "create table d.nodetable (id bigint unsigned not null, type int unsigned not null, version bigint unsigned not null,
         time int unsigned not null, data mediumtext not null, primary key (id)) engine=innodb ROW_FORMAT=DYNAMIC"
      idx0=$(pfs_wait)
      ops0=$(q "select sum(compress_ops), sum(compress_ops_ok) from information_schema.innodb_cmp")
      c0=$(cpu); t0=$(date +%s.%N)
      pids=()
      for i in $(seq 0 $((LOADERS - 1))); do mariadb --socket="$SOCK" -uroot --default-character-set=latin1 d < "$DIR/sql/loader$i.sql" & pids+=($!); done
      mariadb --socket="$SOCK" -uroot --default-character-set=latin1 d < "$DIR/sql/node.sql" & pids+=($!)
      wait "${pids[@]}"
      t1=$(date +%s.%N); c1=$(cpu)
      ops1=$(q "select sum(compress_ops), sum(compress_ops_ok) from information_schema.innodb_cmp")
      idx=$(awk -v a="$idx0" -v b="$(pfs_wait)" 'BEGIN { print b - a }')
      awk -v n="$name p$parts" -v r="$rows" -v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" -v clk="$CLK" -v cores="$cores" \
        -v o0="$ops0" -v o1="$ops1" -v idx="$idx" 'BEGIN {
          w = t1 - t0; cpu = (c1 - c0) / clk; split(o0, a, "\t"); split(o1, b, "\t")
          printf "%s\twall %.2f s\t%.0f rows/s\tserver CPU %.2f us a row, %.0f%% of %d cores\tcompress ops %d, failed %d",
            n, w, r / w, 1e6 * cpu / r, 100 * cpu / (w * cores), cores, b[1] - a[1], (b[1] - a[1]) - (b[2] - a[2])
          if (idx > 0) printf "\tindex-tree lock wait %.2f s, share %.3f of 9 loaders", idx, idx / (9 * w)
          printf "\n" }'
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${PFS:-0}" "$rep" "$name" "$parts" "$rows" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" "$(awk -v a="$c0" -v b="$c1" -v k="$CLK" 'BEGIN { printf "%.2f", (b - a) / k }')" \
        "$cores" "$(echo "$ops0 $ops1" | awk '{ print $3 - $1 }')" "$(echo "$ops0 $ops1" | awk '{ print $4 - $2 }')" "$idx" >> "$OUT"
    done
  done
done
stop
