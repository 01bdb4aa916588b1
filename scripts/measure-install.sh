#!/usr/bin/env bash
# Install time, installed size and first-recall time of packed tarballs, side by side:
#   scripts/measure-install.sh engram-memory-0.1.0.tgz [other.tgz …]
# For each tarball, in a fresh project: a cold install (an empty npm cache via --cache), then a
# warm one (the same cache, a new project); `du` of node_modules; then a first recall in a fresh
# process (import, open SQLite, load the local model, add one memory, recall). The cold installs
# of all tarballs run first, then the warm ones, so a busy machine slows them alike. Extra npm
# environment (e.g. ONNXRUNTIME_NODE_INSTALL=skip) is passed through as given.
set -euo pipefail
[ "$#" -ge 1 ] || { echo "usage: $0 a.tgz [b.tgz …]" >&2; exit 2; }
out="$(mktemp -d /tmp/engram-measure-XXXXXX)"
seconds() { awk "BEGIN { printf \"%.1f\", ($2 - $1) / 1000000000 }"; }

cat > "$out/first-recall.mjs" <<'EOF'
const started = performance.now();
const { Engram, openStore } = await import('engram-memory');
const { createLocalEmbedder } = await import('engram-memory/embed');
const imported = performance.now();
const scope = { tenant: 'acme', user: 'alice' };
const engram = await Engram.open({ store: await openStore(`${process.argv[2]}/engram.db`), embedder: createLocalEmbedder() });
await engram.add({ text: 'Alice is allergic to peanuts' }, { scope });
const { hits } = await engram.recall('What should I cook tonight?', { scope });
const done = performance.now();
await engram.close();
const ms = (a, b) => Math.round(b - a);
console.log(`import ${ms(started, imported)} ms, first recall ${ms(started, done)} ms after start (process up ${Math.round(process.uptime() * 1000)} ms), top hit: ${hits[0]?.memory.text}`);
EOF

tarballs=()
for tgz in "$@"; do tarballs+=("$(realpath "$tgz")"); done
for kind in cold warm; do
  for n in "${!tarballs[@]}"; do
    tgz="${tarballs[$n]}"
    project="$out/$n-$kind"
    mkdir -p "$project"
    echo '{"name":"measure","version":"1.0.0","private":true,"type":"module"}' > "$project/package.json"
    start=$(date +%s%N)
    status=0
    (cd "$project" && npm install "$tgz" --cache "$out/cache-$n" --no-audit --no-fund > "$project/install.log" 2>&1) || status=$?
    end=$(date +%s%N)
    echo "[$n] $(basename "$tgz") $kind install: $(seconds "$start" "$end") s (exit $status)"
  done
done
for n in "${!tarballs[@]}"; do
  project="$out/$n-warm"
  [ -d "$project/node_modules/engram-memory" ] || { echo "[$n] not installed: see $project/install.log"; continue; }
  echo "[$n] node_modules: $(du -sm "$project/node_modules" | cut -f1) MB; largest:"
  (cd "$project/node_modules" && du -sm -- * 2>/dev/null | sort -rn | head -6 | sed 's/^/    /')
  echo "    copies of @electric-sql/pglite: $(find "$project/node_modules" -path '*/@electric-sql/pglite/package.json' | wc -l)"
  for i in 1 2 3; do
    data="$(mktemp -d "$out/recall-XXXX")"
    cp "$out/first-recall.mjs" "$project/first-recall.mjs" # resolved from the project
    result="$(cd "$project" && node first-recall.mjs "$data" 2>&1)" || result="failed: $(grep -m1 Error <<< "$result")"
    echo "    run $i: $result"
  done
done
echo "(projects and logs in $out)"
