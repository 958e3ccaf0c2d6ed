#!/usr/bin/env bash
# klab on a Slurm cluster: one array task per shard (klab --shard K/N, one GPU each), one run id shared
# by all, and a merge job that runs once every task has ended (--dependency=afterany). The shards' run
# folders are <out>/<run id>.shards/<K>/<run id>, beside them each task's log <K>.log and klab's exit
# status <K>.status; the merged one is <out>/<run id>. See docs/scale-out.md.
#
#   tools/slurm/klab-array.sh --shards N [--run-id ID] [--out DIR] [--klab PATH] [--sbatch "ARGS"]
#                             [--dry-run] -- [klab options: --plugin, --case, --seed, --with-profiling ...]
#
# The merge job (klab-shards-merge.sh, beside this script) merges only when every shard ran to its
# end (klab exit 0, or 1: rows that did not pass); otherwise it names each shard that did not, with
# its exit status and the end of its log, and merges nothing.
# --dry-run prints the command lines it would run (mkdir, then each sbatch) and submits nothing; the
# merge job's dependency then names ARRAY_JOB_ID, the id sbatch gives the array when it is submitted.
# --sbatch adds words to both sbatch calls (a partition, an account, a time limit; --requeue where the
# cluster does not requeue tasks of a failed node itself). Give --seed to klab when the shards' rows
# should share one seed (each task otherwise picks its own; rows record it).
# --klab: the klab each task runs. Default: the klab of this script's own tree, build/klab when the
# script is a source tree's tools/slurm/klab-array.sh, else bin/klab beside it (an installed one).
# A requeued task (SLURM_RESTART_COUNT > 0) whose run folder has a meta.ini continues it with
# klab --resume: its complete CSVs kept, its partial ones from their last whole unit; where klab
# refuses (another GPU or build), the folder goes aside to <run id>.attempt<N> and the shard runs anew.
set -euo pipefail

# The comment block above, without its '#'.
help() {
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# The klab of the tree this script is in, never one found on PATH: a task on another node would get
# whatever klab its PATH has there. A source tree's script is tools/slurm/ under the top CMakeLists.txt.
here="$(cd "$(dirname "$0")" && pwd)"
if [ "${here%/tools/slurm}" != "$here" ] && [ -f "${here%/tools/slurm}/CMakeLists.txt" ]; then
  klab="${here%/tools/slurm}/build/klab"
else
  klab="$here/klab"
fi
klab_given=0
merger="$here/klab-shards-merge.sh"

shards="" run_id="" out="out" extra="" dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) shards="${2:-}"; shift 2 ;;
    --run-id) run_id="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    --klab) klab="${2:-}"; klab_given=1; shift 2 ;;
    --sbatch) extra="${2:-}"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --) shift; break ;;
    -h|--help) help; exit 0 ;;
    *) echo "klab-array.sh: unknown option '$1' (klab's own options go after --)" >&2; exit 2 ;;
  esac
done
case "$shards" in
  ''|*[!0-9]*|0) echo "klab-array.sh: --shards needs a whole number of shards, 1 or more" >&2; exit 2 ;;
esac
for a in "$@"; do
  case "$a" in
    --shard|--shard=*|--devices|--devices=*|--out|--out=*|--run-id|--run-id=*)
      echo "klab-array.sh: '$a' is the script's to set (give --out and --run-id before --)" >&2; exit 2 ;;
  esac
done
# A given --klab names a path on the nodes, which may not exist here; the default is this tree's own.
if [ "$klab_given" = 0 ] && { [ ! -x "$klab" ] || [ -d "$klab" ]; }; then
  echo "klab-array.sh: no klab at $klab (build it, or give --klab PATH)" >&2; exit 2
fi
if [ ! -f "$merger" ]; then
  echo "klab-array.sh: $merger, the merge job's script, is missing (it is installed beside this one)" >&2; exit 2
fi
if [ -z "$run_id" ]; then
  run_id="$(date -u +%Y%m%d-%H%M%S)-slurm"
fi
case "$run_id" in
  */*|'') echo "klab-array.sh: --run-id must be a plain name" >&2; exit 2 ;;
esac

# One word for sh -c (sbatch --wrap runs its text with sh): as it is when plain, else in single quotes,
# each ' closed and escaped.
q() {
  case "$1" in
    *[!A-Za-z0-9_./:%=,+@-]*|'') printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf '%s' "$1" ;;
  esac
}
words() {
  local s="" w
  for w in "$@"; do s="$s${s:+ }$(q "$w")"; done
  printf '%s' "$s"
}

shard_root="$out/$run_id.shards"
last=$((shards - 1))
# The task's own index and restart count are expanded by the task's shell, not here. A requeued task
# resumes its own run folder when the first attempt got as far as writing its meta.ini (one stopped
# before that has nothing to keep). klab refuses to resume on another GPU or build (exit 2): a task
# requeued onto another node then moves the folder aside, to <run id>.attempt<N>, and runs anew.
# Each attempt first removes the status an earlier one left, so a task killed before it ends leaves
# none, and the merge job cannot take it for one that ended.
r=$(q "$run_id")
task_cmd="d=$(q "$shard_root")/\"\${SLURM_ARRAY_TASK_ID}\"; rm -f \"\$d\".status; k() { $(words "$klab" "$@") --shard \"\${SLURM_ARRAY_TASK_ID}/$shards\" --run-id $r --out \"\$d\" \"\$@\"; }; s() { if [ \"\${SLURM_RESTART_COUNT:-0}\" -gt 0 ] && [ -f \"\$d\"/$r/meta.ini ]; then k --resume \"\$d\"/$r; rc=\$?; [ \$rc -eq 2 ] || return \$rc; mv \"\$d\"/$r \"\$d\"/$r.attempt\"\$SLURM_RESTART_COUNT\"; fi; k; }; s; rc=\$?; echo \$rc > \"\$d\".status; exit \$rc"
merge_cmd="$(words "$merger" "$klab" "$out/$run_id" "$shards")"

# shellcheck disable=SC2206 # --sbatch's words are split on purpose
extra_words=($extra)
# --open-mode=append: a requeued task's log keeps the first attempt's lines
array=(sbatch --parsable "--job-name=klab-$run_id" "--array=0-$last" --gpus=1 ${extra_words[@]+"${extra_words[@]}"}
       "--output=$shard_root/%a.log" --open-mode=append "--wrap=$task_cmd")
merge_job() {
  merge=(sbatch --parsable "--job-name=klab-$run_id-merge" "--dependency=afterany:$1" ${extra_words[@]+"${extra_words[@]}"}
         "--output=$out/$run_id.merge.log" "--wrap=$merge_cmd")
}

if [ "$dry" = 1 ]; then
  printf '%s\n' "$(words mkdir -p "$shard_root")"
  printf '%s\n' "$(words "${array[@]}")"
  merge_job ARRAY_JOB_ID
  printf '%s\n' "$(words "${merge[@]}")"
  exit 0
fi
mkdir -p "$shard_root"
jobid="$("${array[@]}")"
jobid="${jobid%%;*}" # --parsable: "id" or "id;cluster"
merge_job "$jobid"
merge_id="$("${merge[@]}")"
echo "klab-array.sh: run $run_id: array job $jobid ($shards shards), merge job ${merge_id%%;*} -> $out/$run_id"
