#!/bin/sh
# The merge job of klab-array.sh: it runs once every array task has ended, however each ended
# (--dependency=afterany), and merges the shards only when all of them ran to their end.
#
#   klab-shards-merge.sh KLAB OUT N
#
# OUT is the merged run folder, <out>/<run id>. Shard K (0 <= K < N) left its run folder in
# <out>/<run id>.shards/<K>/<run id>, its log in <K>.log and klab's exit status in <K>.status.
# A shard ran to its end when klab exited 0, or 1 (rows that did not pass: its CSV says which and
# why). Any other status, or none (the task was killed, cancelled, out of time or never started),
# and nothing is merged: each such shard is named with its status and the end of its log.
# Exit status: klab merge's (0; 1 also where a shard's rows did not all pass), 2 when not merged.
set -u

me="klab-shards-merge.sh"
if [ $# -ne 3 ]; then
  echo "$me: usage: $me KLAB OUT N" >&2
  exit 2
fi
klab=$1 out=$2 n=$3
case "$n" in
  ''|*[!0-9]*|0) echo "$me: N must be a whole number of shards, 1 or more, not '$n'" >&2; exit 2 ;;
esac
run_id=$(basename "$out")
shards="$out.shards"

rc=0 failed="" nfailed=0 k=0
set --
while [ "$k" -lt "$n" ]; do
  status=$(cat "$shards/$k.status" 2>/dev/null)
  why=""
  case "$status" in
    0) ;;
    1) echo "$me: shard $k of $n: klab exited 1: rows that did not pass (its CSV says which); merged with the rest"
       rc=1 ;;
    ''|*[!0-9]*) why="no exit status in $shards/$k.status (the task was killed, cancelled, out of time or never started)" ;;
    *) why="klab exited $status" ;;
  esac
  if [ -n "$why" ]; then
    failed="$failed $k" nfailed=$((nfailed + 1))
    echo "$me: shard $k of $n failed: $why; the end of its log, $shards/$k.log:" >&2
    if [ -f "$shards/$k.log" ]; then
      tail -n 15 "$shards/$k.log" | sed 's/^/  | /' >&2
    else
      echo "  (no log)" >&2
    fi
  else
    set -- "$@" "$shards/$k/$run_id"
  fi
  k=$((k + 1))
done

if [ "$nfailed" -gt 0 ]; then
  echo "$me: not merged: $nfailed of $n shards failed (shard$failed); $out not written (to keep the others' rows: $klab merge $out RUN...)" >&2
  exit 2
fi
"$klab" merge "$out" "$@"
mrc=$?
[ "$mrc" -ne 0 ] && exit "$mrc"
echo "$me: $n shards merged into $out"
exit "$rc"
