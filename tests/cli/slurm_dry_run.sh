#!/bin/sh
# tools/slurm/klab-array.sh without Slurm (sbatch --test-only is not available here): the command lines
# of --dry-run, to the letter; then a real submission to a fake sbatch that runs each --wrap text with
# sh, as Slurm would (the array's once per task index), against a fake klab that records its words:
# each shard's klab gets its own slice, the shared run id and its own folder, each task leaves its exit
# status, and the merge job, once the array has ended, merges every shard's run folder or, where a
# shard did not run to its end, names it and merges nothing. tests/cli/slurm_single_node.sh runs the
# script under a real Slurm.
set -eu
script="$1"
scripts="$(cd "$(dirname "$script")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "not ok - $*"; exit 1; }

"$script" --dry-run --shards 3 --run-id R1 --out /scratch/o --klab /opt/klab/bin/klab \
  --sbatch "--partition=gpu --time=2:00:00" -- --plugin softmax --seed 5 --case "a b" |
  sed "s#$scripts/#SCRIPTS/#" > "$tmp/dry"
cat > "$tmp/want" <<'WANT'
mkdir -p /scratch/o/R1.shards
sbatch --parsable --job-name=klab-R1 --array=0-2 --gpus=1 --partition=gpu --time=2:00:00 --output=/scratch/o/R1.shards/%a.log --open-mode=append '--wrap=d=/scratch/o/R1.shards/"${SLURM_ARRAY_TASK_ID}"; rm -f "$d".status; k() { /opt/klab/bin/klab --plugin softmax --seed 5 --case '\''a b'\'' --shard "${SLURM_ARRAY_TASK_ID}/3" --run-id R1 --out "$d" "$@"; }; s() { if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] && [ -f "$d"/R1/meta.ini ]; then k --resume "$d"/R1; rc=$?; [ $rc -eq 2 ] || return $rc; mv "$d"/R1 "$d"/R1.attempt"$SLURM_RESTART_COUNT"; fi; k; }; s; rc=$?; echo $rc > "$d".status; exit $rc'
sbatch --parsable --job-name=klab-R1-merge --dependency=afterany:ARRAY_JOB_ID --partition=gpu --time=2:00:00 --output=/scratch/o/R1.merge.log '--wrap=SCRIPTS/klab-shards-merge.sh /opt/klab/bin/klab /scratch/o/R1 3'
WANT
diff "$tmp/want" "$tmp/dry" || fail "--dry-run printed other command lines"
echo "ok - --dry-run's command lines"

# --help: the script's comment block, to stdout, exit 0, and nothing of the script's code
"$script" --help > "$tmp/help" || fail "--help exited $?"
head -1 "$tmp/help" | grep -q "^klab on a Slurm cluster" || fail "--help: $(head -1 "$tmp/help")"
grep -q "klab --resume" "$tmp/help" || fail "--help does not say what a requeue does"
grep -q "build/klab when the" "$tmp/help" || fail "--help does not say which klab is the default"
if grep -q "set -euo\|^#\|()" "$tmp/help"; then fail "--help printed a line of code: $(cat "$tmp/help")"; fi
[ -n "$(tail -1 "$tmp/help")" ] || fail "--help ends with an empty line"
echo "ok - --help"

# the default klab: an installed script's is bin/klab beside it, a source tree's is the tree's
# build/klab; never klab from PATH, and none there is refused
mkdir "$tmp/inst"
cp "$script" "$scripts/klab-shards-merge.sh" "$tmp/inst/"
if "$tmp/inst/klab-array.sh" --dry-run --shards 1 --run-id R0 > "$tmp/dry0" 2> "$tmp/err"; then
  fail "no klab beside the script accepted: $(cat "$tmp/dry0")"
fi
grep -q "no klab at $tmp/inst/klab (build it, or give --klab PATH)" "$tmp/err" || fail "no klab: $(cat "$tmp/err")"
printf '#!/bin/sh\n' > "$tmp/inst/klab"
chmod +x "$tmp/inst/klab"
"$tmp/inst/klab-array.sh" --dry-run --shards 1 --run-id R0 > "$tmp/dry0"
grep -q "k() { $tmp/inst/klab --shard " "$tmp/dry0" || fail "klab beside the script not used: $(cat "$tmp/dry0")"
grep -q "'--wrap=$tmp/inst/klab-shards-merge.sh $tmp/inst/klab out/R0 1'" "$tmp/dry0" || fail "the merge job: $(cat "$tmp/dry0")"
mkdir -p "$tmp/src/tools/slurm" "$tmp/src/build"
: > "$tmp/src/CMakeLists.txt"
cp "$script" "$scripts/klab-shards-merge.sh" "$tmp/src/tools/slurm/"
cp "$tmp/inst/klab" "$tmp/src/build/klab"
"$tmp/src/tools/slurm/klab-array.sh" --dry-run --shards 1 --run-id R0 > "$tmp/dry0"
grep -q "k() { $tmp/src/build/klab --shard " "$tmp/dry0" || fail "the source tree's build/klab not used: $(cat "$tmp/dry0")"
rm "$tmp/inst/klab-shards-merge.sh"
if "$tmp/inst/klab-array.sh" --dry-run --shards 1 --run-id R0 > "$tmp/dry0" 2> "$tmp/err"; then
  fail "no merge script beside klab-array.sh accepted"
fi
grep -q "the merge job's script, is missing" "$tmp/err" || fail "no merge script: $(cat "$tmp/err")"
echo "ok - the default klab is the script's own tree's"

# usage errors
if "$script" --dry-run -- --plugin x 2>"$tmp/err"; then fail "no --shards accepted"; fi
grep -q -- "--shards needs a whole number" "$tmp/err" || fail "no --shards: $(cat "$tmp/err")"
if "$script" --dry-run --shards 2 -- --shard 0/2 2>"$tmp/err"; then fail "--shard given to klab accepted"; fi
grep -q "'--shard' is the script's to set" "$tmp/err" || fail "--shard: $(cat "$tmp/err")"
echo "ok - usage errors"

# a fake Slurm: sbatch runs --wrap with sh (once per array index), its output to --output's file,
# and prints a job id
mkdir "$tmp/bin"
cat > "$tmp/bin/sbatch" <<'SB'
#!/bin/sh
wrap="" array="" output=/dev/null
for a in "$@"; do
  case "$a" in
    --wrap=*) wrap="${a#--wrap=}" ;;
    --array=*) array="${a#--array=}" ;;
    --output=*) output="${a#--output=}" ;;
  esac
done
printf '%s\n' "$*" >> "$FAKE/sbatch.log"
n=$(wc -l < "$FAKE/sbatch.log")
if [ -n "$array" ]; then
  for i in $(seq "${array%-*}" "${array#*-}"); do
    SLURM_ARRAY_TASK_ID=$i SLURM_RESTART_COUNT=${FAKE_RESTART:-0} sh -c "$wrap" >> "$(echo "$output" | sed "s/%a/$i/")" 2>&1
  done
else
  sh -c "$wrap" >> "$output" 2>&1
fi
echo "$((4000 + n));cluster1"
SB
# FAKE_RC="K:STATUS ...": shard K's klab exits STATUS, or with "kill" kills its task's shell, as a
# task killed by Slurm (a time limit, a lost node) ends without a word
cat > "$tmp/bin/klab" <<'KL'
#!/bin/sh
printf '%s|' "$@" >> "$FAKE/klab.log"
echo >> "$FAKE/klab.log"
# klab --resume's answer: FAKE_RESUME_RC (0 unless set)
for a; do [ "$a" = --resume ] && exit "${FAKE_RESUME_RC:-0}"; done
shard=""
while [ $# -gt 0 ]; do [ "$1" = --shard ] && shard="${2%/*}"; shift; done
for kr in ${FAKE_RC:-}; do
  [ "${kr%%:*}" = "$shard" ] || continue
  case "${kr#*:}" in
    kill) kill -KILL "$PPID"; exit 137 ;;
    *) echo "klab: no CUDA device (fake, shard $shard)" >&2; exit "${kr#*:}" ;;
  esac
done
exit 0
KL
chmod +x "$tmp/bin/sbatch" "$tmp/bin/klab"
FAKE="$tmp" PATH="$tmp/bin:$PATH" "$script" --shards 2 --run-id R2 --out "$tmp/o" --klab "$tmp/bin/klab" -- --plugin softmax --case "a b" > "$tmp/out"
cat > "$tmp/want" <<WANT
--plugin|softmax|--case|a b|--shard|0/2|--run-id|R2|--out|$tmp/o/R2.shards/0|
--plugin|softmax|--case|a b|--shard|1/2|--run-id|R2|--out|$tmp/o/R2.shards/1|
merge|$tmp/o/R2|$tmp/o/R2.shards/0/R2|$tmp/o/R2.shards/1/R2|
WANT
diff "$tmp/want" "$tmp/klab.log" || fail "the jobs ran other klab command lines"
grep -q -- "--dependency=afterany:4001 " "$tmp/sbatch.log" || fail "the merge job does not wait for array 4001: $(cat "$tmp/sbatch.log")"
[ "$(cat "$tmp/o/R2.shards/0.status" "$tmp/o/R2.shards/1.status")" = "0
0" ] || fail "the tasks' exit statuses were not kept"
grep -q "2 shards merged into $tmp/o/R2" "$tmp/o/R2.merge.log" || fail "merge log: $(cat "$tmp/o/R2.merge.log")"
[ -d "$tmp/o/R2.shards" ] || fail "the shards' folder (their logs) was not made"
grep -q "array job 4001 (2 shards), merge job 4002" "$tmp/out" || fail "summary: $(cat "$tmp/out")"
echo "ok - submitted to a fake sbatch: two shards, one run id, the merge after them"

# a requeue (SLURM_RESTART_COUNT 1): shard 0, whose first attempt wrote its meta.ini, resumes its run
# folder; shard 1, stopped before that, runs anew
mkdir -p "$tmp/o/R2.shards/0/R2"
: > "$tmp/o/R2.shards/0/R2/meta.ini"
: > "$tmp/klab.log"
FAKE="$tmp" FAKE_RESTART=1 PATH="$tmp/bin:$PATH" "$script" --shards 2 --run-id R2 --out "$tmp/o" --klab "$tmp/bin/klab" -- --plugin softmax > "$tmp/out"
cat > "$tmp/want" <<WANT
--plugin|softmax|--shard|0/2|--run-id|R2|--out|$tmp/o/R2.shards/0|--resume|$tmp/o/R2.shards/0/R2|
--plugin|softmax|--shard|1/2|--run-id|R2|--out|$tmp/o/R2.shards/1|
merge|$tmp/o/R2|$tmp/o/R2.shards/0/R2|$tmp/o/R2.shards/1/R2|
WANT
diff "$tmp/want" "$tmp/klab.log" || fail "a requeued task did not resume its own run folder"
echo "ok - a requeued task resumes its run folder"

# klab refuses to resume (exit 2: the requeue landed on another GPU): the folder goes aside, the shard
# runs anew
: > "$tmp/klab.log"
FAKE="$tmp" FAKE_RESTART=1 FAKE_RESUME_RC=2 PATH="$tmp/bin:$PATH" "$script" --shards 2 --run-id R2 --out "$tmp/o" --klab "$tmp/bin/klab" -- --plugin softmax > "$tmp/out"
cat > "$tmp/want" <<WANT
--plugin|softmax|--shard|0/2|--run-id|R2|--out|$tmp/o/R2.shards/0|--resume|$tmp/o/R2.shards/0/R2|
--plugin|softmax|--shard|0/2|--run-id|R2|--out|$tmp/o/R2.shards/0|
--plugin|softmax|--shard|1/2|--run-id|R2|--out|$tmp/o/R2.shards/1|
merge|$tmp/o/R2|$tmp/o/R2.shards/0/R2|$tmp/o/R2.shards/1/R2|
WANT
diff "$tmp/want" "$tmp/klab.log" || fail "a refused resume did not run the shard anew"
[ -f "$tmp/o/R2.shards/0/R2.attempt1/meta.ini" ] || fail "the refused run folder was not kept aside"
echo "ok - a refused resume keeps the folder aside and runs anew"

# shards that did not all run to their end: shard 0's klab exits 3 (no GPU), shard 2's task is killed
# (the status an earlier attempt left is no answer), shard 1 ends well. The merge job names the two,
# with the end of each log, merges nothing and exits 2.
: > "$tmp/klab.log"
mkdir -p "$tmp/o/R3.shards"
echo 0 > "$tmp/o/R3.shards/2.status"
FAKE="$tmp" FAKE_RC="0:3 2:kill" PATH="$tmp/bin:$PATH" "$script" --shards 3 --run-id R3 --out "$tmp/o" --klab "$tmp/bin/klab" -- --plugin softmax > "$tmp/out"
log="$tmp/o/R3.merge.log"
if grep -q "^merge|" "$tmp/klab.log"; then fail "a partial run was merged: $(cat "$tmp/klab.log")"; fi
[ ! -e "$tmp/o/R3" ] || fail "a partial run's merged folder was written"
grep -q "^klab-shards-merge.sh: shard 0 of 3 failed: klab exited 3; the end of its log, $tmp/o/R3.shards/0.log:\$" "$log" || fail "shard 0 not named: $(cat "$log")"
grep -q "^  | klab: no CUDA device (fake, shard 0)\$" "$log" || fail "shard 0's log not shown: $(cat "$log")"
grep -q "^klab-shards-merge.sh: shard 2 of 3 failed: no exit status in $tmp/o/R3.shards/2.status (the task was killed" "$log" || fail "shard 2 not named: $(cat "$log")"
if grep -q "shard 1 " "$log"; then fail "shard 1, which ended well, named: $(cat "$log")"; fi
grep -q "not merged: 2 of 3 shards failed (shard 0 2); $tmp/o/R3 not written" "$log" || fail "no verdict: $(cat "$log")"
rc=0
"$scripts/klab-shards-merge.sh" "$tmp/bin/klab" "$tmp/o/R3" 3 2> /dev/null || rc=$?
[ "$rc" = 2 ] || fail "the merge job exited $rc, not 2, without merging"
echo "ok - shards that did not run to their end: named with their status and log, nothing merged"

# a shard whose rows did not all pass (klab exit 1) ran to its end: merged, and the merge job says so
# and exits 1
: > "$tmp/klab.log"
FAKE="$tmp" FAKE_RC="1:1" PATH="$tmp/bin:$PATH" "$script" --shards 2 --run-id R4 --out "$tmp/o" --klab "$tmp/bin/klab" -- --plugin softmax > "$tmp/out"
grep -q "^merge|$tmp/o/R4|$tmp/o/R4.shards/0/R4|$tmp/o/R4.shards/1/R4|\$" "$tmp/klab.log" || fail "not merged: $(cat "$tmp/klab.log")"
grep -q "shard 1 of 2: klab exited 1: rows that did not pass" "$tmp/o/R4.merge.log" || fail "merge log: $(cat "$tmp/o/R4.merge.log")"
rc=0
FAKE="$tmp" "$scripts/klab-shards-merge.sh" "$tmp/bin/klab" "$tmp/o/R4" 2 > /dev/null || rc=$?
[ "$rc" = 1 ] || fail "the merge job exited $rc, not 1, after a shard with rows not passed"
echo "ok - a shard with rows not passed is merged; the merge job exits 1"
