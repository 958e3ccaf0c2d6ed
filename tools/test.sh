#!/usr/bin/env bash
# The lab's second command: install what is missing, build, and run every test (TAP through ctest).
# GPU tests run where there is a GPU and report SKIP, with the reason, where there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/deps.sh
klab_need_cuda
klab_install_missing test
klab_configure -DKLAB_BUILD_TESTS=ON
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
