#!/usr/bin/env bash
# docs/report/ and the README's results table are klab's own output over the committed baseline, never
# typed: this regenerates them with `klab report` and fails on any difference (--write rewrites them).
#   tools/checks/baseline_report.sh [KLAB] [--write]
# The baseline is experiments/baseline/<gpu>/ (the last by name when there are several GPUs' folders).
set -euo pipefail
cd "$(dirname "$0")/../.."
klab=${1:-build/klab}
write=${2:-}
base=$( (ls -d experiments/baseline/*/ 2>/dev/null || true) | sort | tail -n 1)
base=${base%/}
if [ -z "$base" ]; then
  echo "1..0 # SKIP no baseline under experiments/baseline/"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$klab" report --out-dir "$tmp/report" "$base" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
# the README's block: the matrix table of decisions.md, under the line naming the run
results() {
  awk '/^\| Domain \| Decision \|/{p=1} p&&!/^\|/{exit} p' "$1"
}
{
  echo "<!-- results: begin (klab report $base; do not edit by hand) -->"
  sed -n 's/^- `[^`]*`: \(.*\)$/Run: \1/p' "$tmp/report/decisions.md" | head -n 1
  echo
  results "$tmp/report/decisions.md" | sed 's|](#|](docs/report/decisions.md#|g'
  echo "<!-- results: end -->"
} >"$tmp/block"
if [ "$write" = --write ]; then
  rm -rf docs/report/experiments docs/report/plugins
  mkdir -p docs/report
  cp -r "$tmp/report/decisions.md" "$tmp/report/experiments" "$tmp/report/plugins" docs/report/ 2>/dev/null || true
  awk -v f="$tmp/block" '/^<!-- results: begin/{while((getline l < f)>0) print l; skip=1; next}
                         /^<!-- results: end/{skip=0; next} !skip' README.md >"$tmp/README.md"
  cp "$tmp/README.md" README.md
  echo "wrote docs/report/ and the README's results from $base"
  exit 0
fi
bad=0
for f in $(cd "$tmp/report" && find . -name '*.md' | sort); do
  if ! cmp -s "$tmp/report/$f" "docs/report/$f"; then
    echo "docs/report/${f#./} differs from klab report $base:"
    diff "docs/report/$f" "$tmp/report/$f" | head -n 10 || true
    bad=1
  fi
done
if ! awk '/^<!-- results: begin/{p=1} p; /^<!-- results: end/{p=0}' README.md | cmp -s - "$tmp/block"; then
  echo "README.md's results differ from klab report $base:"
  awk '/^<!-- results: begin/{p=1} p; /^<!-- results: end/{p=0}' README.md | diff - "$tmp/block" | head -n 10 || true
  bad=1
fi
[ $bad -eq 0 ] && echo "docs/report/ and README.md's results are klab report $base, byte for byte"
exit $bad
