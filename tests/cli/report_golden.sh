#!/bin/sh
# klab report over the fixture runs and experiments (tests/fixtures/), its Markdown diffed against the
# committed golden files (tests/fixtures/report/), in inih's style: a change to the report's output is a
# change to a golden file, reviewed in the same commit.
#   sh tests/cli/report_golden.sh KLAB            compare; the diff on failure
#   sh tests/cli/report_golden.sh KLAB --update   rewrite the golden files from this build
set -eu
klab=$1
update=${2:-}
case $klab in /*) ;; *) klab=$(pwd)/$klab ;; esac
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# from the fixtures folder, so the pages name the runs by the same relative paths wherever the tree is
cd "$fixtures"
if ! "$klab" report --experiments experiments --out-dir "$out/report" runs/copy runs/copy-quick runs/reduction \
    runs/gemm runs/rows runs/prof >"$out/stdout" 2>&1; then
    cat "$out/stdout"
    echo "not ok: klab report failed"
    exit 1
fi
# the matrix (every status, the plugin table), a Caveated page with its figures, a page with a quick
# row set aside, a plugin's page with its counters
pages="decisions.md experiments/reduction.md experiments/copy_rate.md plugins/rmsnorm.md"
rc=0
for page in $pages; do
    if [ "$update" = --update ]; then
        mkdir -p "report/$(dirname "$page")"
        cp "$out/report/$page" "report/$page"
        echo "updated tests/fixtures/report/$page"
    elif ! diff -u "report/$page" "$out/report/$page"; then
        echo "not ok: tests/fixtures/report/$page differs (sh tests/cli/report_golden.sh KLAB --update, then review)"
        rc=1
    else
        echo "ok: $page"
    fi
done
exit $rc
