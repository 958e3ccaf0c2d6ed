#!/usr/bin/env bash
# The lab's first command: install what is missing, build, and run the main job.
#
#   tools/bootstrap.sh [klab options]   on a machine with a GPU: verify and time every experiment,
#                                       PyTorch beside it where torch imports (one line says why not
#                                       otherwise), and end with the report: out/<run-id>/*.csv,
#                                       out/<run-id>/report/, the decisions and where the time went
#   tools/bootstrap.sh --fetch-deps     fetch the Debian packages a GPU host without a registry
#                                       needs into .deps/ (docs/gpu-host.md)
#
# Without a GPU it still does the real work a GPU does not need: lists the plugins, validates every
# INI against its plugin, renders the report of the committed baseline (the newest folder under
# experiments/baseline/, when there is one), and says that timing needs a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/deps.sh

if [ "${1:-}" = --fetch-deps ]; then
  klab_fetch_deps
  exit 0
fi

klab_need_cuda
klab_install_missing
klab_configure -DKLAB_BUILD_TESTS=OFF # the main job needs klab, libklab_bench and the plugins
cmake --build build -j "$(nproc)"
K=build/klab

$K --version
status=0 # a refused plugin or a broken INI is reported and the rest still runs
$K --list || status=$?
$K --validate || status=$?
# the main job: one run, one answer (PyTorch has no tuning trials and no verify-only run)
run=(--with-torch --report)
for a in "$@"; do
  case $a in --tune | --verify-only) run=(--report) ;; esac
done
rc=0
$K "${run[@]}" "$@" || rc=$?
if [ $rc -eq 3 ]; then
  # no GPU: the report of the committed baseline instead of a measurement; the newest by the commit
  # that added it (names need not sort by date), without git history the last name
  latest=$(for d in experiments/baseline/*/; do
             [ -d "$d" ] || continue
             echo "$(git log -1 --format=%ct -- "$d" 2>/dev/null || echo 0) ${d%/}"
           done | sort -n | tail -n 1 | cut -d' ' -f2-)
  if [ -n "$latest" ]; then
    echo
    echo "The committed baseline ($latest), measured on a GPU:"
    $K report --out-dir out/baseline-report "$latest" # beside out/, not in the committed tree
  fi
  echo
  echo "Timing needs a GPU: on one, this same command verifies and times every experiment."
  exit $status
fi
[ $rc -gt $status ] && status=$rc
exit $status
