#!/bin/sh
# tools/slurm/klab-array.sh without Slurm (sbatch --test-only is not available here): the command lines
# of --dry-run, to the letter; then a real submission to a fake sbatch that runs each --wrap text with
# sh, as Slurm would (the array's once per task index), against a fake klab that records its words:
# each shard's klab gets its own slice, the shared run id and its own folder, and the merge job names
# the array's job id and every shard's run folder.
set -eu
script="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "not ok - $*"; exit 1; }

"$script" --dry-run --shards 3 --run-id R1 --out /scratch/o --klab /opt/klab/bin/klab \
  --sbatch "--partition=gpu --time=2:00:00" -- --plugin softmax --seed 5 --case "a b" > "$tmp/dry"
cat > "$tmp/want" <<'WANT'
mkdir -p /scratch/o/R1.shards
sbatch --parsable --job-name=klab-R1 --array=0-2 --gpus=1 --partition=gpu --time=2:00:00 --output=/scratch/o/R1.shards/%a.log --open-mode=append '--wrap=d=/scratch/o/R1.shards/"${SLURM_ARRAY_TASK_ID}"; k() { /opt/klab/bin/klab --plugin softmax --seed 5 --case '\''a b'\'' --shard "${SLURM_ARRAY_TASK_ID}/3" --run-id R1 --out "$d" "$@"; }; if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] && [ -f "$d"/R1/meta.ini ]; then k --resume "$d"/R1; rc=$?; [ $rc -eq 2 ] || exit $rc; mv "$d"/R1 "$d"/R1.attempt"$SLURM_RESTART_COUNT"; fi; k'
sbatch --parsable --job-name=klab-R1-merge --dependency=afterok:ARRAY_JOB_ID --partition=gpu --time=2:00:00 --output=/scratch/o/R1.merge.log '--wrap=/opt/klab/bin/klab merge /scratch/o/R1 /scratch/o/R1.shards/0/R1 /scratch/o/R1.shards/1/R1 /scratch/o/R1.shards/2/R1'
WANT
diff "$tmp/want" "$tmp/dry" || fail "--dry-run printed other command lines"
echo "ok - --dry-run's command lines"

# --help: the script's comment block, to stdout, exit 0, and nothing of the script's code
"$script" --help > "$tmp/help" || fail "--help exited $?"
head -1 "$tmp/help" | grep -q "^klab on a Slurm cluster" || fail "--help: $(head -1 "$tmp/help")"
grep -q "klab --resume" "$tmp/help" || fail "--help does not say what a requeue does"
if grep -q "set -euo\|^#" "$tmp/help"; then fail "--help printed a line of code: $(cat "$tmp/help")"; fi
echo "ok - --help"

# the default klab: the one installed beside the script, else klab on PATH (the dry run above named one)
mkdir "$tmp/inst"
cp "$script" "$tmp/inst/klab-array.sh"
"$tmp/inst/klab-array.sh" --dry-run --shards 1 --run-id R0 > "$tmp/dry0"
grep -q "k() { klab --shard " "$tmp/dry0" || fail "no klab beside the script: not klab from PATH: $(cat "$tmp/dry0")"
printf '#!/bin/sh\n' > "$tmp/inst/klab"
chmod +x "$tmp/inst/klab"
"$tmp/inst/klab-array.sh" --dry-run --shards 1 --run-id R0 > "$tmp/dry0"
grep -q "k() { $tmp/inst/klab --shard " "$tmp/dry0" || fail "klab beside the script not used: $(cat "$tmp/dry0")"
grep -q "'--wrap=$tmp/inst/klab merge " "$tmp/dry0" || fail "the merge job's klab: $(cat "$tmp/dry0")"
echo "ok - the default klab is the one beside the script"

# usage errors
if "$script" --dry-run -- --plugin x 2>"$tmp/err"; then fail "no --shards accepted"; fi
grep -q -- "--shards needs a whole number" "$tmp/err" || fail "no --shards: $(cat "$tmp/err")"
if "$script" --dry-run --shards 2 -- --shard 0/2 2>"$tmp/err"; then fail "--shard given to klab accepted"; fi
grep -q "'--shard' is the script's to set" "$tmp/err" || fail "--shard: $(cat "$tmp/err")"
echo "ok - usage errors"

# a fake Slurm: sbatch runs --wrap with sh (once per array index), prints a job id
mkdir "$tmp/bin"
cat > "$tmp/bin/sbatch" <<'SB'
#!/bin/sh
wrap="" array=""
for a in "$@"; do
  case "$a" in
    --wrap=*) wrap="${a#--wrap=}" ;;
    --array=*) array="${a#--array=}" ;;
  esac
done
printf '%s\n' "$*" >> "$FAKE/sbatch.log"
n=$(wc -l < "$FAKE/sbatch.log")
if [ -n "$array" ]; then
  for i in $(seq "${array%-*}" "${array#*-}"); do SLURM_ARRAY_TASK_ID=$i SLURM_RESTART_COUNT=${FAKE_RESTART:-0} sh -c "$wrap"; done
else
  sh -c "$wrap"
fi
echo "$((4000 + n));cluster1"
SB
cat > "$tmp/bin/klab" <<'KL'
#!/bin/sh
printf '%s|' "$@" >> "$FAKE/klab.log"
echo >> "$FAKE/klab.log"
# klab --resume's answer: FAKE_RESUME_RC (0 unless set)
for a; do [ "$a" = --resume ] && exit "${FAKE_RESUME_RC:-0}"; done
exit 0
KL
chmod +x "$tmp/bin/sbatch" "$tmp/bin/klab"
FAKE="$tmp" PATH="$tmp/bin:$PATH" "$script" --shards 2 --run-id R2 --out "$tmp/o" -- --plugin softmax --case "a b" > "$tmp/out"
cat > "$tmp/want" <<WANT
--plugin|softmax|--case|a b|--shard|0/2|--run-id|R2|--out|$tmp/o/R2.shards/0|
--plugin|softmax|--case|a b|--shard|1/2|--run-id|R2|--out|$tmp/o/R2.shards/1|
merge|$tmp/o/R2|$tmp/o/R2.shards/0/R2|$tmp/o/R2.shards/1/R2|
WANT
diff "$tmp/want" "$tmp/klab.log" || fail "the jobs ran other klab command lines"
grep -q -- "--dependency=afterok:4001 " "$tmp/sbatch.log" || fail "the merge job does not wait for array 4001: $(cat "$tmp/sbatch.log")"
[ -d "$tmp/o/R2.shards" ] || fail "the shards' folder (their logs) was not made"
grep -q "array job 4001 (2 shards), merge job 4002" "$tmp/out" || fail "summary: $(cat "$tmp/out")"
echo "ok - submitted to a fake sbatch: two shards, one run id, the merge after them"

# a requeue (SLURM_RESTART_COUNT 1): shard 0, whose first attempt wrote its meta.ini, resumes its run
# folder; shard 1, stopped before that, runs anew
mkdir -p "$tmp/o/R2.shards/0/R2"
: > "$tmp/o/R2.shards/0/R2/meta.ini"
: > "$tmp/klab.log"
FAKE="$tmp" FAKE_RESTART=1 PATH="$tmp/bin:$PATH" "$script" --shards 2 --run-id R2 --out "$tmp/o" -- --plugin softmax > "$tmp/out"
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
FAKE="$tmp" FAKE_RESTART=1 FAKE_RESUME_RC=2 PATH="$tmp/bin:$PATH" "$script" --shards 2 --run-id R2 --out "$tmp/o" -- --plugin softmax > "$tmp/out"
cat > "$tmp/want" <<WANT
--plugin|softmax|--shard|0/2|--run-id|R2|--out|$tmp/o/R2.shards/0|--resume|$tmp/o/R2.shards/0/R2|
--plugin|softmax|--shard|0/2|--run-id|R2|--out|$tmp/o/R2.shards/0|
--plugin|softmax|--shard|1/2|--run-id|R2|--out|$tmp/o/R2.shards/1|
merge|$tmp/o/R2|$tmp/o/R2.shards/0/R2|$tmp/o/R2.shards/1/R2|
WANT
diff "$tmp/want" "$tmp/klab.log" || fail "a refused resume did not run the shard anew"
[ -f "$tmp/o/R2.shards/0/R2.attempt1/meta.ini" ] || fail "the refused run folder was not kept aside"
echo "ok - a refused resume keeps the folder aside and runs anew"
