#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `start` prints its URL (starting it if needed),
# `stop` stops it and removes its files, `url` prints the URL of the running one, and
# `run CMD...` starts one, runs CMD with SVC_TEST_DATABASE_URL set, then stops and removes it.
# `down` / `up` stop and start the server of a started cluster, keeping its files (the test of
# PostgreSQL restarting under load uses its own cluster for that).
#
# Fast and unsafe on purpose (never for data you keep): initdb --no-sync, trust auth on
# 127.0.0.1 only, fsync/synchronous_commit/full_page_writes off. Runs as the `postgres` user when
# started as root (initdb refuses root). Needs Debian's `postgresql` package (or any initdb/pg_ctl
# on PATH). The cluster lives in $SVC_PG_TEST_DIR (default: one per checkout under /tmp).
# SVC_PG_TEST_SAFE=1 keeps PostgreSQL's durable defaults (fsync, synchronous_commit,
# full_page_writes on): bench/dbs-pg.js measures with those, as a production server runs.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${SVC_PG_TEST_DIR:-/tmp/svc-pg-test-$(printf '%s' "$root" | md5sum | cut -c1-8)}"

bindir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return; fi
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [ -n "$found" ]; then echo "$found"; return; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  echo "pg-test-cluster: PostgreSQL is not installed (apt-get install -y postgresql postgresql-contrib)" >&2
  exit 1
}

# Runs a PostgreSQL binary as the cluster's owner.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

url() {
  echo "postgres://postgres@127.0.0.1:$(cat "$dir/port")/postgres"
}

running() {
  [ -f "$dir/port" ] && as_owner "$(bindir)/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

start() {
  if running; then url; return; fi
  rm -rf "$dir"
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_owner test -w "$dir" || { echo "pg-test-cluster: the cluster's owner cannot write $dir (a parent folder is closed to it); use a folder right under /tmp" >&2; exit 1; }
  local bin port
  bin="$(bindir)"
  port="${SVC_PG_TEST_PORT:-$(free_port)}"
  as_owner "$bin/initdb" --no-sync -A trust -U postgres -E UTF8 --locale=C.UTF-8 -D "$dir/data" >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  echo "$port" >"$dir/port"
  up
  url
}

# Starts the server of the cluster's files (fast and unsafe settings, 127.0.0.1 on its port).
up() {
  local unsafe="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [ "${SVC_PG_TEST_SAFE:-}" = 1 ] && unsafe=""
  as_owner "$(bindir)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start -o \
    "-c listen_addresses=127.0.0.1 -p $(cat "$dir/port") -c unix_socket_directories=$dir -c max_connections=400 \
     $unsafe -c shared_buffers=256MB" >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
}

# A free port below the system's ephemeral range: the port is written down now and listened on
# later (after initdb; again after each `down`/`up`), and a port the system hands out (listen(0) of a
# test server, the local end of a connection) could be taken by another test meanwhile; one below
# that range is only ever taken by asking for it by number.
free_port() {
  node -e "
    const net = require('net')
    let low = 32768
    try { low = Number(require('fs').readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low } catch {}
    const from = Math.max(1024, Math.min(10000, low - 1000))
    const attempt = (left) => {
      const port = from + Math.floor(Math.random() * (low - from))
      const s = net.createServer()
      s.once('error', () => (left > 0 ? attempt(left - 1) : process.exit(1)))
      s.listen(port, '127.0.0.1', () => s.close(() => console.log(port)))
    }
    attempt(200)
  "
}

stop() {
  if [ -d "$dir/data" ]; then as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  down) as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null ;;
  up) up ;;
  stop) stop ;;
  url) running && url || { echo "pg-test-cluster: not running" >&2; exit 1; } ;;
  run)
    shift
    [ $# -gt 0 ] || { echo "usage: $0 run CMD [ARGS...]" >&2; exit 2; }
    trap stop EXIT
    SVC_TEST_DATABASE_URL="$(start)"
    export SVC_TEST_DATABASE_URL
    "$@"
    ;;
  *) echo "usage: $0 start|stop|url|down|up|run CMD [ARGS...]" >&2; exit 2 ;;
esac
