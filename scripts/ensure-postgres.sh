#!/usr/bin/env bash
# Makes sure PostgreSQL server binaries (initdb, postgres) are installed; the PostgreSQL store
# tests start a throwaway cluster from them (test/support/pg-cluster.ts).
# Installs postgresql-15 with apt-get only when they are missing. Idempotent, quiet when present.
set -euo pipefail

have_server() {
  local bindir=""
  if command -v pg_config >/dev/null 2>&1; then bindir="$(pg_config --bindir 2>/dev/null || true)"; fi
  if [ -n "$bindir" ] && [ -x "$bindir/initdb" ] && [ -x "$bindir/postgres" ]; then return 0; fi
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then return 0; fi
  done
  return 1
}

if have_server; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: PostgreSQL server binaries are missing and apt-get is not available" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "ensure-postgres: installing postgresql-15 (initdb/postgres not found)" >&2
$SUDO apt-get update -qq
# The tests make their own clusters: tell postgresql-common not to create (and start) "main".
$SUDO mkdir -p /etc/postgresql-common
if [ ! -f /etc/postgresql-common/createcluster.conf ]; then
  echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.conf >/dev/null
fi
# The Debian package also creates the 'postgres' OS user that the tests run initdb as.
$SUDO apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null
have_server || { echo "ensure-postgres: install finished but initdb is still missing" >&2; exit 1; }
