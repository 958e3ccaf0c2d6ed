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
# Then the host's C code again under AddressSanitizer and UndefinedBehaviorSanitizer, in build-asan/:
# an out-of-bounds access, a leak or undefined behaviour in klab or a test fails the run. That build
# leaves out the real plugins but vector_add (CMakeLists.txt, KLAB_SANITIZE): nvcc over the GEMM
# templates is most of the normal build's time, and no CPU test runs them. A few minutes on 2 cores.
KLAB_BUILD=build-asan klab_configure -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKLAB_SANITIZE=ON
cmake --build build-asan -j "$(nproc)"
ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
