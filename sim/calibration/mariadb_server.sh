# Sourced by the calibration scripts: a private MariaDB server on a unix
# socket under $DIR (no TCP). start POOL [fresh] starts it with POOL as
# innodb_buffer_pool_size, on a new data directory unless fresh is 0, and
# with $SERVER_FLAGS added (also to the bootstrap, where options such as
# innodb_page_size must be set); stop shuts it down; q runs one query;
# cpu is the server's utime+stime in clock ticks (CLK ticks a second),
# unz INNODB_CMP's decompressions, reads Innodb_buffer_pool_reads, status NAME
# a global status variable.
SOCK=$DIR/mysqld.sock
start() {
  if [ "${2:-1}" = 1 ]; then
    rm -rf "$DIR/data"; mkdir -p "$DIR/data"
    # shellcheck disable=SC2086 # SERVER_FLAGS is a list of flags
    mariadb-install-db --no-defaults --datadir="$DIR/data" --user=root ${SERVER_FLAGS:-} >/dev/null 2>&1
  fi
  # shellcheck disable=SC2086 # SERVER_FLAGS is a list of flags
  mariadbd --no-defaults --datadir="$DIR/data" --socket="$SOCK" --skip-networking --user=root \
    --innodb-buffer-pool-size="$1" --innodb-file-per-table=1 --innodb-read-only-compressed=OFF \
    --innodb-cmp-per-index-enabled=ON --innodb-flush-log-at-trx-commit=2 --innodb-doublewrite=0 \
    --innodb-log-file-size=512M --skip-log-bin --max-connections=200 ${SERVER_FLAGS:-} >"$DIR/err.log" 2>&1 &
  echo $! > "$DIR/pid"
  for i in $(seq 60); do mariadb --socket="$SOCK" -uroot -e 'select 1' >/dev/null 2>&1 && return 0; sleep 1; done
  echo "server did not start"; cat "$DIR/err.log"; exit 1
}
stop() { mariadb-admin --socket="$SOCK" -uroot shutdown >/dev/null 2>&1; sleep 2; }
q() { mariadb --socket="$SOCK" -uroot -N -B -e "$1"; }
CLK=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' "/proc/$(cat "$DIR/pid")/stat"; }
unz() { q "select sum(uncompress_ops) from information_schema.innodb_cmp"; }
status() { q "show global status like '$1'" | cut -f2; }
reads() { status Innodb_buffer_pool_reads; }
