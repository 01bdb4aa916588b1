#!/usr/bin/env bash
# Makes sure the machine's PostgreSQL has pgvector and Citus when it can: the pgvector and Citus
# tests (test/store/postgres-pgvector*.test.ts, test/store/citus*.test.ts) start servers that load
# them. Run after scripts/ensure-postgres.sh. If either is missing and the release sources are
# beside the repository (../shared/pg-extensions, with its build.sh), builds and installs them
# (about a minute, needs root and apt); otherwise does nothing and says how to install them.
# ENGRAM_PG_EXTENSIONS_DIR overrides where the sources are looked for.
# Idempotent, quiet when both are present.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SOURCES="${ENGRAM_PG_EXTENSIONS_DIR:-$ROOT/../shared/pg-extensions}"

PGC="${PG_CONFIG:-$(ls /usr/lib/postgresql/*/bin/pg_config 2>/dev/null | sort -V | tail -1)}"
if [ -z "$PGC" ] || [ ! -x "$PGC" ]; then PGC="$(command -v pg_config || true)"; fi
if [ -z "$PGC" ]; then
  echo "ensure-pg-extensions: no PostgreSQL server found (run scripts/ensure-postgres.sh first)" >&2
  exit 1
fi
MAJOR="$("$PGC" --version | sed -E 's/[^0-9]*([0-9]+).*/\1/')"
EXT="$("$PGC" --sharedir)/extension"
LIB="$("$PGC" --pkglibdir)"

missing=()
{ [ -f "$EXT/vector.control" ] && [ -f "$LIB/vector.so" ]; } || missing+=(vector)
{ [ -f "$EXT/citus.control" ] && [ -f "$LIB/citus.so" ]; } || missing+=(citus)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ -f "$SOURCES/build.sh" ]; then
  echo "ensure-pg-extensions: ${missing[*]} missing from PostgreSQL $MAJOR; building from $SOURCES" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  want=all
  [ ${#missing[@]} -eq 1 ] && want="${missing[0]}"
  $SUDO env PG_CONFIG="$PGC" bash "$SOURCES/build.sh" "$want"
  exit 0
fi

packages=()
for m in "${missing[@]}"; do
  if [ "$m" = vector ]; then packages+=("postgresql-$MAJOR-pgvector"); else packages+=("postgresql-$MAJOR-citus-13.2"); fi
done
echo "ensure-pg-extensions: ${missing[*]} missing from PostgreSQL $MAJOR and no $SOURCES/build.sh;" \
  "the tests that need them will skip (under CI they fail). Install with: apt-get install ${packages[*]}" \
  "(PostgreSQL project packages), or run ../shared/pg-extensions/build.sh where that folder exists" >&2
