#!/usr/bin/env bash
# What a new user waits for and gets, measured on the packed package, side by side with an older
# commit in one run:
#   bash bench/package-install.sh [base-ref]      e.g. bash bench/package-install.sh 7843507^1
# Packs the working tree (npm pack: its prepack builds dist/ and the inspector) and, given a ref,
# that commit too (in a throwaway git worktree sharing this repository's node_modules, so the
# ref's devDependencies must still be installed there), then runs scripts/measure-install.sh on
# the tarballs: cold install (an empty npm cache) and warm install (the same cache, a new
# project) from the npm registry, installed node_modules size with the biggest packages, and
# three first recalls in fresh processes. Wrap it in /work/tools/heavy on a shared machine.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d /tmp/engram-package-install-XXXXXX)"
tarballs=()
if [ "$#" -ge 1 ]; then
  base="$out/base"
  git -C "$repo" worktree add --detach "$base" "$1" > /dev/null
  trap 'git -C "$repo" worktree remove --force "$base"' EXIT
  ln -s "$(realpath "$repo/node_modules")" "$base/node_modules"
  mkdir -p "$out/base-tgz"
  (cd "$base" && npm pack --pack-destination "$out/base-tgz" > "$out/base-pack.log" 2>&1)
  tarballs+=("$(ls "$out"/base-tgz/*.tgz)")
  echo "base: $1 = $(git -C "$repo" rev-parse --short "$1") -> ${tarballs[0]}"
fi
mkdir -p "$out/head-tgz"
(cd "$repo" && npm pack --pack-destination "$out/head-tgz" > "$out/head-pack.log" 2>&1)
tarballs+=("$(ls "$out"/head-tgz/*.tgz)")
echo "head: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet || echo ' + uncommitted changes') -> ${tarballs[-1]}"
for tgz in "${tarballs[@]}"; do echo "  $(basename "$tgz"): $(du -k "$tgz" | cut -f1) kB packed"; done
bash "$repo/scripts/measure-install.sh" "${tarballs[@]}"
