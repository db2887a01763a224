#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests, on 127.0.0.1 only.
#
#   scripts/pg-cluster.sh init DIR PORT   create a cluster in DIR and start it on PORT
#   scripts/pg-cluster.sh stop DIR        stop it (the data stays; for outage tests)
#   scripts/pg-cluster.sh start DIR PORT  start it again
#   scripts/pg-cluster.sh destroy DIR     stop it and delete DIR
#
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` user (created by
# Debian's postgresql package). Trust authentication and fsync=off: for tests, never for data.
# Prints the URL to export as VOUCH_TEST_DATABASE_URL.
set -euo pipefail

bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$dir" ] || { echo "pg-cluster: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
  echo "$dir"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local dir=$1 port=$2 fd
  # The server is a daemon: it must not keep the caller's descriptors open (a caller waiting for
  # this script's end through an inherited descriptor, as Foundation's Process does, would wait
  # for the server's end instead).
  for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
  as_owner "$(bindir)/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
}

case "${1:-}" in
  init)
    dir=${2:?DIR}; port=${3:?PORT}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
    chmod 700 "$dir"
    as_owner "$(bindir)/initdb" -D "$dir" -A trust -U postgres --no-sync >/dev/null
    start "$dir" "$port"
    echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
    ;;
  start)
    start "${2:?DIR}" "${3:?PORT}"
    ;;
  stop)
    as_owner "$(bindir)/pg_ctl" -D "${2:?DIR}" -m fast -w stop >/dev/null
    ;;
  destroy)
    dir=${2:?DIR}
    if [ -f "$dir/postmaster.pid" ]; then as_owner "$(bindir)/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null || true; fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 init DIR PORT | start DIR PORT | stop DIR | destroy DIR" >&2
    exit 2
    ;;
esac
