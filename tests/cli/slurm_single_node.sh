#!/bin/sh
# tools/slurm/klab-array.sh under a real Slurm: munged, slurmctld and slurmd (Debian's slurm-wlm and
# munge) started here in a temporary folder with their own key, ports and slurm.conf, one node with a
# stand-in GPU (gres.conf: /dev/null), and stopped at the end however the test ends.
#   - the build's klab, two shards: without a GPU each exits 3, and the merge job names both shards
#     with klab's status and the end of its log, and merges nothing (with a GPU it merges them);
#   - a stand-in for klab's run that writes a shard's run folder from a real run's rows (every N-th
#     row from the K-th), three shards: the merge job merges them, every row once, meta.ini naming
#     each shard.
# Skipped (exit 77) with the reason where Slurm is not installed or does not start, but not under CI
# (CI set): there tools/deps.sh installs slurm-wlm and munge and the test must run.
#   slurm_single_node.sh KLAB_ARRAY_SH KLAB FIXTURE_RUN
set -u
script=$1 klab=$2 fixture=$3
PATH=$PATH:/usr/sbin:/sbin
tmp="$(mktemp -d)"
pids=""

fail() {
  echo "not ok - $*"
  exit 1
}
skip() {
  [ -n "${CI:-}" ] && fail "$* (CI must run this test: tools/deps.sh installs slurm-wlm and munge)"
  echo "1..0 # SKIP $*"
  exit 77
}
# Waits up to $1 seconds for the command after it to succeed.
within() {
  n=$1
  shift
  while ! "$@" > /dev/null 2>&1; do
    n=$((n - 1))
    [ "$n" -gt 0 ] || return 1
    sleep 1
  done
}
# A daemon of ours that has exited is a zombie until waited for.
ended() { ! grep -q '^State:[[:space:]]*[^Z]' "/proc/$1/status" 2> /dev/null; }
# Jobs first, so that no job step outlives slurmd; then each daemon, KILL where TERM is not enough.
stop() {
  if [ -n "$pids" ]; then
    timeout 10 scancel --quiet --user "$(id -un)" 2> /dev/null
    within 10 queue_empty
    for p in $pids; do
      kill "$p" 2> /dev/null
      within 10 ended "$p" || kill -KILL "$p" 2> /dev/null
      wait "$p" 2> /dev/null
    done
  fi
  rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP
queue_empty() { [ -z "$(timeout 10 squeue -h -o %i)" ]; }
logs() {
  for f in "$tmp"/munge/log "$tmp"/slurmctld.log "$tmp"/slurmd.log; do
    [ -f "$f" ] && { echo "# $f:"; tail -n 5 "$f" | sed 's/^/#   /'; }
  done
}

for t in munged slurmctld slurmd sbatch squeue sinfo scancel scontrol python3 timeout; do
  command -v "$t" > /dev/null 2>&1 || skip "$t not found (apt-get install slurm-wlm munge)"
done
[ -x "$klab" ] || fail "no klab at $klab"

# munged with a key of its own, its socket in a folder anyone may enter (Slurm's clients use it)
chmod 755 "$tmp"
mkdir -m 755 "$tmp/munge"
head -c 128 /dev/urandom > "$tmp/munge/key"
chmod 600 "$tmp/munge/key"
munged --foreground --key-file="$tmp/munge/key" --socket="$tmp/munge/sock" --pid-file="$tmp/munge/pid" \
  --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" > /dev/null 2>&1 &
pids="$!"

# Two free ports, so that this cluster meets no other one on the host (another test run, a real Slurm)
ports="$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')"
host="$(hostname -s)"
user="$(id -un)"
mem=$(awk '/^MemTotal:/ { print int($2 / 2048) }' /proc/meminfo)
mkdir "$tmp/ctld" "$tmp/d"
cat > "$tmp/slurm.conf" <<CONF
ClusterName=klabtest
SlurmctldHost=$host
SlurmctldPort=${ports% *}
SlurmdPort=${ports#* }
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/sock
MpiDefault=none
GresTypes=gpu
StateSaveLocation=$tmp/ctld
SlurmdSpoolDir=$tmp/d
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host CPUs=$(getconf _NPROCESSORS_ONLN) RealMemory=$mem Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
echo "Name=gpu File=/dev/null" > "$tmp/gres.conf"
export SLURM_CONF="$tmp/slurm.conf"
within 10 test -S "$tmp/munge/sock" || { logs; skip "munged did not start"; }
slurmctld -D -f "$SLURM_CONF" > "$tmp/slurmctld.out" 2>&1 &
pids="$! $pids"
slurmd -D -f "$SLURM_CONF" > "$tmp/slurmd.out" 2>&1 &
pids="$! $pids"
node_idle() { [ "$(timeout 10 sinfo -h -n "$host" -o %t)" = idle ]; }
within 30 node_idle || { logs; skip "slurmctld and slurmd did not start (node: $(sinfo -h -o %t 2>&1))"; }
echo "ok - a single-node Slurm started (ports $ports)"

# klab's stand-in: a shard's run folder cut from a real run's rows; `merge` is the real klab's
cat > "$tmp/stand-in" <<STANDIN
#!/bin/sh
[ "\$1" = merge ] && exec "$klab" "\$@"
while [ \$# -gt 0 ]; do
  case "\$1" in
    --shard) shard=\$2 ;;
    --run-id) id=\$2 ;;
    --out) out=\$2 ;;
  esac
  shift
done
mkdir -p "\$out/\$id"
cp "$fixture/meta.ini" "\$out/\$id/"
for f in "$fixture"/*.csv; do
  awk -v k="\${shard%/*}" -v n="\${shard#*/}" 'NR == 1 || (NR - 2) % n == k' "\$f" > "\$out/\$id/\${f##*/}"
done
echo "stand-in: shard \$shard written"
STANDIN
chmod +x "$tmp/stand-in"

# Both runs submitted at once: the node's one GPU runs their tasks one after another.
o="$tmp/o"
submit() {
  timeout 60 "$script" --out "$o" "$@" > "$tmp/submit.out" 2>&1 || fail "klab-array.sh $*: $(cat "$tmp/submit.out")"
  sed -n 's/.*merge job \([0-9]*\) .*/\1/p' "$tmp/submit.out"
}
merge_real=$(submit --shards 2 --run-id real --klab "$klab" -- --plugin vector_add --quick)
merge_stand=$(submit --shards 3 --run-id stand --klab "$tmp/stand-in" -- --plugin rmsnorm)
# A dependency Slurm can no longer satisfy (afterok after a failed task) leaves a job pending for ever.
ended_or_stuck() {
  queue_empty || timeout 10 squeue -h -o %r | grep -q DependencyNeverSatisfied
}
within 180 ended_or_stuck || fail "the jobs did not end within 180 s: $(squeue 2>&1)"
queue_empty || fail "a job waits for ever: $(squeue 2>&1)"
job_exit() { timeout 10 scontrol show job "$1" | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p'; }

log="$o/real.merge.log"
[ -f "$log" ] || fail "the merge job after the real klab left no log"
if nvidia-smi -L > /dev/null 2>&1; then
  [ -f "$o/real/meta.ini" ] || fail "with a GPU the shards were not merged: $(cat "$log")"
  echo "ok - the build's klab: two shards on the GPU, merged"
else
  for k in 0 1; do
    [ "$(cat "$o/real.shards/$k.status" 2>&1)" = 3 ] || fail "shard $k's status: $(cat "$o/real.shards/$k.status" 2>&1)"
    grep -q "^klab-shards-merge.sh: shard $k of 2 failed: klab exited 3; the end of its log, $o/real.shards/$k.log:\$" "$log" ||
      fail "shard $k not named: $(cat "$log")"
  done
  [ "$(grep -c '^  | klab: no CUDA device' "$log")" = 2 ] || fail "the shards' logs not shown: $(cat "$log")"
  grep -q "not merged: 2 of 2 shards failed (shard 0 1); $o/real not written" "$log" || fail "no verdict: $(cat "$log")"
  [ ! -e "$o/real" ] || fail "shards that failed were merged"
  [ "$(job_exit "$merge_real")" = 2 ] || fail "the merge job's exit status: $(job_exit "$merge_real"), not 2"
  echo "ok - the build's klab without a GPU: both shards named with status 3 and their log, nothing merged"
fi

log="$o/stand.merge.log"
[ "$(job_exit "$merge_stand")" = 0 ] || fail "the stand-in's merge job exited $(job_exit "$merge_stand"): $(cat "$log" 2>&1)"
grep -q "3 shards merged into $o/stand\$" "$log" || fail "merge log: $(cat "$log")"
for f in "$fixture"/*.csv; do
  tail -n +2 "$f" | sort > "$tmp/want"
  tail -n +2 "$o/stand/${f##*/}" | sort > "$tmp/got"
  [ -s "$tmp/want" ] || fail "the fixture $f has no row"
  cmp -s "$tmp/want" "$tmp/got" || fail "${f##*/}: not every shard's rows once: $(diff "$tmp/want" "$tmp/got" | head -5)"
done
for k in 0 1 2; do
  grep -q "$o/stand.shards/$k/stand" "$o/stand/meta.ini" || fail "meta.ini does not name shard $k: $(cat "$o/stand/meta.ini")"
done
echo "ok - a stand-in's three shards merged: every row once, meta.ini naming each shard"
