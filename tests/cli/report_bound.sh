#!/bin/sh
# klab report over two generated runs of 2,500 rows each (tools/gen_bench_runs.py): past the 2,000 rows
# a page shows (SCOPE_SHOWN_MAX, core/report/scope.h), each page, the terminal table and report.html say
# what they left out, while the claims are judged over all 5,000 rows, met and not met alike.
#   sh tests/cli/report_bound.sh KLAB GEN_BENCH_RUNS_PY
set -eu
klab=$1
case $klab in /*) ;; *) klab=$(pwd)/$klab ;; esac
gen=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 "$gen" --rows 2500 --out "$out" --counters >/dev/null
mkdir "$out/exp"
# every fused row is 1.6x its baseline [1.58, 1.62]: the first claim is met at every case, the second
# at none, so its table of rows not met is the one a page bounds
cat >"$out/exp/big.exp.ini" <<'INI'
[experiment]
title = Fused RMSNorm over many rows
question = Is the fused profile at least 1.5x the baseline on every case?
plugin = rmsnorm
profiles = fused, baseline
run = klab --plugin rmsnorm
boundary = Generated rows.

[claim faster]
says = fused is at least 1.5x the baseline
rule = speedup_lo >= 1.5 where profile = fused

[claim much_faster]
says = fused is at least 1.7x the baseline
rule = speedup_lo >= 1.7 where profile = fused
INI
cd "$out"
if ! "$klab" report --experiments exp --out-dir report a b >stdout 2>&1; then
    cat stdout
    echo "not ok: klab report failed"
    exit 1
fi
rc=0
# each check: a file, a fixed string it must hold, what it says
check() {
    if grep -qF -- "$2" "$1"; then
        echo "ok: $3"
    else
        echo "not ok: $3: $1 lacks: $2"
        rc=1
    fi
}
# the claims count every case of both runs: 2,500 cases, all met, then none
check report/experiments/big.md "(2500 of 2500 cases met; 0 not met, 0 undecided)" "the first claim judged over all rows"
check report/experiments/big.md "(0 of 2500 cases met; 2500 not met, 0 undecided)" "the second claim judged over all rows"
check report/experiments/big.md "5000 rows in the runs given" "the page counts every row"
left="Of the 5000 rows in scope, the tables and charts below show 2000 (at most the first 1000 of each of the 2 runs): 3000 rows are left out of them. The runs' CSVs hold every row, and the claims and status are judged over all 5000."
check report/experiments/big.md "$left" "the experiment's page says what it left out"
check report/plugins/rmsnorm.md "$left" "the plugin's page says what it left out"
# the page escapes the apostrophe as any text of it
check report/report.html "$(echo "$left" | sed "s/'/\&#39;/")" "report.html says what it left out"
check report/experiments/big.md "500 more rows not met, undecided or set aside are left out of this table" "the rows not met bounded"
check report/report.html "the first 2000 of 2500 cases" "the claim's chart bounded"
check stdout "(the first 2000 of 2500 rows: 500 left out here; a/rmsnorm.csv holds every row)" "the terminal table bounded"
# the bound itself: 2,000 rows in the results table (1,000 of each run), 2,000 in the table not met
n=$(grep -c '^| n[0-9]* fp16 [a-z]* · bench-[ab] | [0-9]' report/experiments/big.md || true)
if [ "$n" = 2000 ]; then echo "ok: 2000 rows in the results table"; else echo "not ok: $n rows in the results table, not 2000"; rc=1; fi
n=$(grep -c '^| n[0-9]* fp16 fused · bench-[ab] | not met |' report/experiments/big.md || true)
if [ "$n" = 2000 ]; then echo "ok: 2000 rows not met listed"; else echo "not ok: $n rows not met listed, not 2000"; rc=1; fi
n=$(grep -c '^n[0-9]' stdout || true)
if [ "$n" = 4000 ]; then echo "ok: 2000 rows of each run on the terminal"; else echo "not ok: $n rows on the terminal, not 4000"; rc=1; fi
exit $rc
