#!/bin/sh
# A plugin that ships its PyTorch baseline, used from outside the tree: install klab to a fresh prefix
# (libklab_bench and the PyTorch driver with it), build plugin-sdk/examples/leaky_relu against that
# prefix only, then, from the prefix's klab, validate it, validate its PyTorch module (no torch or GPU
# needed: the module's declarations and cases, and one line on whether torch is there), and report a
# small committed run of it (tests/fixtures/runs/leaky_relu). The installed klab must run what was
# installed with it, never the build or source tree.
#
#   sdk_example_torch.sh BINARY_DIR EXAMPLE_DIR FIXTURE_RUN
#   environment (set by tests/cli/tests.cmake): CMAKE_COMMAND, KLAB_NVCC, KLAB_CMAKE_GENERATOR
#
# Prints TAP; each check's output is shown, as TAP comments, only when it fails.
set -eu

if [ $# -ne 3 ]; then
    echo "usage: $0 BINARY_DIR EXAMPLE_DIR FIXTURE_RUN" >&2
    exit 2
fi
bin=$(cd "$1" && pwd -P)
src=$(cd "$2" && pwd -P)
fixture=$(cd "$3" && pwd -P)
tools=$(cd "$(dirname "$0")/../../tools" && pwd -P)
cmake=${CMAKE_COMMAND:-cmake}
nvcc=${KLAB_NVCC:-nvcc}
gen=${KLAB_CMAKE_GENERATOR:-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/klab-sdk-torch-XXXXXX")
tmp=$(cd "$tmp" && pwd -P) # klab prints real paths
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
build=$tmp/build
unset KLAB_PLUGIN_PATH KLAB_INI_PATH KLAB_TORCH_ROWS KLAB_BUILD || true

. "$(dirname "$0")/../support/tap_check.sh" # check, tap_end

# $1 holds no path into the build tree or the source tree's tools/
no_tree_paths() {
    if grep -F -e "$bin/" -e "$tools/" "$1"; then
        echo "the installed klab reached into the build or source tree"
        exit 1
    fi
}

install_prefix() {
    "$cmake" --install "$bin" --prefix "$prefix"
    for f in bin/klab lib/libklab_bench.so share/klab/python/torch_rows.py share/klab/python/klab/rows.py \
        share/klab/python/klab/torch_module.py lib/klab/plugins/softmax.so lib/klab/plugins/softmax_torch.py; do
        test -f "$prefix/$f" || { echo "missing $prefix/$f"; exit 1; }
    done
    if find "$prefix" -name __pycache__ | grep .; then
        echo "a __pycache__ was installed"
        exit 1
    fi
}

build_example() {
    set -- -S "$src" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES=90a \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
        "-DCMAKE_CUDA_FLAGS=-Xcompiler=-Wall,-Wextra,-Werror --Werror=all-warnings"
    if [ -n "$gen" ]; then
        "$cmake" -G "$gen" "$@"
    else
        "$cmake" "$@"
    fi
    grep -qxF "klab_DIR:PATH=$prefix/lib/cmake/klab" "$build/CMakeCache.txt"
    "$cmake" --build "$build"
    test -f "$build/leaky_relu.so"
    cmp "$src/leaky_relu_torch.py" "$build/leaky_relu_torch.py" # beside the .so, where klab looks
}

validate() {
    rc=0
    "$prefix/bin/klab" --plugin-path "$build" --validate --config "$src/leaky_relu.ini" >"$tmp/v.txt" 2>&1 || rc=$?
    cat "$tmp/v.txt"
    test $rc -eq 0
    grep -xF "ok      $src/leaky_relu.ini" "$tmp/v.txt"
    grep -F "8 rows (case x dtype x profile)" "$tmp/v.txt"
}

validate_with_torch() {
    rc=0
    "$prefix/bin/klab" --plugin-path "$build" --with-torch --validate --config "$src/leaky_relu.ini" \
        >"$tmp/vt.txt" 2>&1 || rc=$?
    cat "$tmp/vt.txt"
    test $rc -eq 0
    # the prefix's driver and libklab_bench, the module beside the plugin klab found
    grep -F " $prefix/share/klab/python/torch_rows.py --build $prefix/lib --dry-run " "$tmp/vt.txt"
    grep -F "plugin leaky_relu  -> leaky_relu.torch.csv  (PyTorch: $build/leaky_relu_torch.py)" "$tmp/vt.txt"
    grep -E "^  2\^24 .* F\.leaky_relu, torch\.compile  \[x\[16777216\]\] ; slope 0\.01$" "$tmp/vt.txt"
    grep -E "^  odd .* F\.leaky_relu, torch\.compile  \[x\[1000003\]\] param\.slope=0\.2; slope 0\.2$" "$tmp/vt.txt"
    # whether torch is there, said plainly (this machine may have it or not)
    grep -E "^# torch: (not installed|installed) for " "$tmp/vt.txt"
    no_tree_paths "$tmp/vt.txt"
}

installed_plugin_with_torch() {
    "$cmake" --install "$build"
    for f in leaky_relu.so leaky_relu_torch.py leaky_relu.ini; do
        test -f "$prefix/lib/klab/plugins/$f" || { echo "missing $prefix/lib/klab/plugins/$f"; exit 1; }
    done
    rc=0
    "$prefix/bin/klab" --plugin leaky_relu --with-torch --validate >"$tmp/vi.txt" 2>&1 || rc=$?
    cat "$tmp/vi.txt"
    test $rc -eq 0
    grep -xF "ok      $prefix/lib/klab/plugins/leaky_relu.ini" "$tmp/vi.txt"
    grep -F "(PyTorch: $prefix/lib/klab/plugins/leaky_relu_torch.py)" "$tmp/vi.txt"
    no_tree_paths "$tmp/vi.txt"
}

bad_module_refused() {
    mkdir -p "$tmp/bad"
    cp "$build/leaky_relu.so" "$tmp/bad/"
    sed 's/^KLAB_TORCH = 1$/KLAB_TORCH = 7/' "$src/leaky_relu_torch.py" >"$tmp/bad/leaky_relu_torch.py"
    rc=0
    "$prefix/bin/klab" --plugin-path "$tmp/bad" --with-torch --validate --config "$src/leaky_relu.ini" \
        >"$tmp/vb.txt" 2>&1 || rc=$?
    cat "$tmp/vb.txt"
    echo "exit status $rc"
    test $rc -eq 1
    grep -F "$tmp/bad/leaky_relu_torch.py: KLAB_TORCH = 7; this klab reads version 1" "$tmp/vb.txt"
}

report_fixture() {
    rc=0
    "$prefix/bin/klab" report --experiments "$src" --out-dir "$tmp/report" "$fixture" >"$tmp/r.txt" 2>&1 || rc=$?
    cat "$tmp/r.txt"
    test $rc -eq 0
    page=$tmp/report/plugins/leaky_relu.md
    test -f "$page"
    grep -F "| 2^24 fp16 vectorized | 18.95 [18.92–18.98] |" "$page"
    grep -F "| 2^24 fp16 F.leaky_relu | 21.10 [21.07–21.13] |" "$page"
    grep -F "| odd fp32 torch.compile | 6.60 [6.59–6.61] |" "$page"
    # the example's claim, judged against its own PyTorch baseline's rows
    grep -F "**Supported** — 2 of 2 cases · plugin \`leaky_relu\`" "$tmp/report/experiments/leaky_relu.md"
}

echo "1..7"
check "cmake --install: klab, libklab_bench, the PyTorch driver, the plugins with their modules" install_prefix
check "the example builds against the prefix only; its module lands beside leaky_relu.so" build_example
check "the installed klab --validate --config leaky_relu.ini says ok" validate
check "the installed klab --with-torch --validate runs the prefix's driver over the module" validate_with_torch
check "cmake --install of the example: klab finds plugin, INI and module in the prefix" installed_plugin_with_torch
check "a module that breaks the contract is refused, naming its file" bad_module_refused
check "the installed klab report over the fixture run: both kinds of rows, the example's claim judged" report_fixture
tap_end
