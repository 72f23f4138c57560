#!/usr/bin/env bash
# Real-InnoDB anchor for T3: seed 001's table (int PK, int secondary key,
# MEDIUMTEXT html, TEXT short_html, two datetimes, an int) in COMPACT and
# DYNAMIC on MariaDB's InnoDB, 2,000 documents with a 64 KiB html and a
# short_html of 2,048 or 100 bytes (lengths decide the record format, not
# content). Prints the clustered index's B-tree pages, counted as the
# PRIMARY pages of type INDEX in the pool after a scan (off-page BLOB
# pages share the index's leaf segment, so n_leaf_pages counts them too;
# it is printed beside). Needs: apt-get install mariadb-server.
# Usage: mariadb_t3.sh [documents]
set -u
DOCS=${1:-2000}
DIR=${DIR:-$(mktemp -d -t zipsim-t3.XXXXXX)}
mkdir -p "$DIR"
. "$(dirname "$0")/mariadb_server.sh"
start 1G
q "select version()"
q "create database d"
for rf in COMPACT DYNAMIC; do
  for sh in 2048 100; do
    t=docs_${rf}_${sh}
    q "create table d.$t (id int primary key, k int, html mediumtext, short_html text, c datetime, u datetime, n int, key(k)) engine=innodb row_format=$rf"
    q "insert into d.$t select seq, seq % 97, repeat(md5(seq), 2048), left(repeat(md5(seq+1), 80), $sh), now(), now(), seq from d.seq_1_to_$DOCS"
    q "analyze table d.$t" >/dev/null
    q "select count(*) from d.$t force index(primary) where n >= 0" >/dev/null
    pages=$(q "select count(*) from information_schema.innodb_buffer_page where table_name like '%$t%' and index_name='PRIMARY' and page_type='INDEX'")
    st=$(q "select stat_value from mysql.innodb_index_stats where table_name='$t' and index_name='PRIMARY' and stat_name='n_leaf_pages'")
    printf "%s\tshort_html=%s\tPRIMARY B-tree pages %s\tn_leaf_pages %s\n" "$rf" "$sh" "$pages" "$st"
  done
done
stop
