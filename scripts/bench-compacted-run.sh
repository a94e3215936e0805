#!/bin/sh
# Peak RSS of `sessiondb import` and `sessiondb context` on a generated
# 100,000-turn thClaws file ending in a 20 KB compaction (red-team case: a
# compaction run's summary was held once per seq it covers), for two builds
# side by side, as ratios against the first (the baseline).
#
# Usage: scripts/bench-compacted-run.sh BASELINE_BIN CANDIDATE_BIN [TURNS] [SUMMARY_BYTES]
# (release builds of the `sessiondb` binary; files under $TMPDIR or /tmp).
set -eu
base=$1 cand=$2 turns=${3:-100000} bytes=${4:-20480}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/govruns-bench.XXXXXX")
file=$work/compacted.jsonl
python3 "$here/gen-compacted-thclaws.py" "$file" "$turns" "$bytes"
head -c 32 /dev/urandom | base64 > "$work/key"
rss() { # CMD...: run it, print its peak RSS in KiB (its output to $work/out)
  /usr/bin/time -v "$@" > "$work/out" 2> "$work/time" || { cat "$work/time" >&2; exit 1; }
  sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time"
}
for which in base cand; do
  eval bin=\$$which
  db=$work/$which.db
  imp=$(rss "$bin" --db "$db" --key-file "$work/key" import "$file")
  ctx=$(rss "$bin" --db "$db" --key-file "$work/key" context govruns-100k)
  eval ${which}_imp=$imp ${which}_ctx=$ctx
  cp "$work/out" "$work/$which.context"
  echo "$which ($bin): import ${imp} KiB, context ${ctx} KiB; context printed $(wc -l < "$work/out") lines"
done
cmp -s "$work/base.context" "$work/cand.context" && echo "context output: identical" || echo "context output: DIFFERS"
awk -v bi="$base_imp" -v ci="$cand_imp" -v bc="$base_ctx" -v cc="$cand_ctx" 'BEGIN {
  printf "peak RSS, candidate / baseline: import %.4fx (%d / %d KiB), context %.4fx (%d / %d KiB)\n", ci / bi, ci, bi, cc / bc, cc, bc }'
rm -rf "$work"
