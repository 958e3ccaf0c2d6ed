#!/usr/bin/env bash
# The lab's first command: install what is missing, build, and run the main job.
#
#   tools/bootstrap.sh                  on a machine with a GPU: verify and time every experiment,
#                                       out/<run-id>/*.csv and a table on the terminal
#   tools/bootstrap.sh --device-deps    fetch the Debian packages a GPU host without a registry
#                                       needs into .deps/ (see docs/gpu-host.md)
#
# Without a GPU it still does the real work a GPU does not need: lists the plugins, validates every
# INI against its plugin, renders the report of the committed evidence, and says that timing needs
# a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/deps.sh

if [ "${1:-}" = --device-deps ]; then
  mkdir -p .deps
  (cd .deps && apt-get download libinih-dev libinih1 libcsv-dev libcsv3 libcmocka-dev libcmocka0)
  ls -1 .deps
  exit 0
fi

klab_need_cuda
klab_install_missing
klab_configure
cmake --build build -j "$(nproc)"
K=build/klab

$K --version
status=0 # a refused plugin or a broken INI is reported and the rest still runs
$K --list || status=$?
$K --validate || status=$?
rc=0
$K "$@" || rc=$?
if [ $rc -eq 3 ]; then
  # no GPU: show the latest committed evidence instead of measuring
  # the most recently committed sitting (names sort wrongly: "2026-11-22-h200/" after "…-h200-rows/");
  # without git history, the last name
  latest=$(for d in experiments/evidence/*/main; do
             [ -d "$d" ] && echo "$(git log -1 --format=%ct -- "$d" 2>/dev/null || echo 0) $d"
           done | sort -n | tail -n 1 | cut -d' ' -f2-)
  if [ -n "$latest" ]; then
    echo
    echo "The latest committed evidence ($latest), measured on a GPU:"
    $K report --out-dir out/evidence-report "$latest" # the report beside out/, not in the committed tree
  fi
  echo
  echo "Timing needs a GPU: on one, this same command verifies and times every experiment."
  exit $status
fi
[ $rc -gt $status ] && status=$rc
exit $status
