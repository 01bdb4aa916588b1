#!/bin/sh
# Installs Debian's Chromium for the memory inspector's end-to-end tests (test/e2e), only when
# it is missing. The tests drive /usr/bin/chromium through playwright-core and fail (never skip)
# without it. Needs root or passwordless sudo for apt-get; does nothing when chromium exists.
set -eu

CHROMIUM="${ENGRAM_CHROMIUM:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
  echo "chromium present: $CHROMIUM"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo -n"
else
  echo "ensure-chromium: $CHROMIUM is missing and this user cannot run apt-get (no root, no sudo)" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and apt-get is not available; install Chromium and set ENGRAM_CHROMIUM" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium

if [ ! -x "$CHROMIUM" ]; then
  echo "ensure-chromium: apt-get installed chromium but $CHROMIUM does not exist" >&2
  exit 1
fi
echo "chromium installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
