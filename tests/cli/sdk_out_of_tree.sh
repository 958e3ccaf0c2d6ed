#!/bin/sh
# The plugin SDK used from outside the tree, the way a user would: install klab to a fresh prefix,
# build plugin-sdk/examples/saxpy against that prefix only (CMake with find_package(klab 2.0), and one
# nvcc line through pkg-config), then have the installed klab list and validate it. The package says
# which plugin ABI it speaks, and refuses a request for another major or a newer minor. No GPU needed.
#
#   sdk_out_of_tree.sh BINARY_DIR EXAMPLE_DIR
#   environment (set by tests/cli/tests.cmake): CMAKE_COMMAND, KLAB_NVCC, KLAB_CMAKE_GENERATOR
#
# Prints TAP. Each check runs in a subshell with `set -e`; its output is shown, as TAP comments, only
# when it fails.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 BINARY_DIR EXAMPLE_DIR" >&2
    exit 2
fi
bin=$1
src=$(cd "$2" && pwd -P)
cmake=${CMAKE_COMMAND:-cmake}
nvcc=${KLAB_NVCC:-nvcc}
gen=${KLAB_CMAKE_GENERATOR:-}
arch=90a
# the example must compile warning-free, like the lab's own plugins
warn="-Xcompiler=-Wall,-Wextra,-Werror --Werror=all-warnings"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/klab-sdk-XXXXXX")
tmp=$(cd "$tmp" && pwd -P) # klab prints real paths
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
build=$tmp/build-cmake # the CMake route
pcbuild=$tmp/build-pc  # the pkg-config route
unset KLAB_PLUGIN_PATH KLAB_INI_PATH || true

. "$(dirname "$0")/../support/tap_check.sh" # check, tap_end

# The `klab --list` block of plugin $1 in file $2: from its heading to the next blank line.
block() {
    awk -v h="  $1 " 'index($0, h) == 1 { p = 1 } p && /^$/ { exit } p' "$2"
}

install_prefix() {
    "$cmake" --install "$bin" --prefix "$prefix"
    for f in bin/klab include/klab/plugin.h include/klab/cuda.h lib/cmake/klab/klabConfig.cmake \
        lib/cmake/klab/KlabPlugin.cmake lib/pkgconfig/klab.pc lib/klab/plugins/vector_add.so; do
        test -e "$prefix/$f" || { echo "missing $prefix/$f"; exit 1; }
    done
}

configure_cmake() {
    set -- -S "$src" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES=$arch \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
        "-DCMAKE_CUDA_FLAGS=$warn"
    if [ -n "$gen" ]; then
        "$cmake" -G "$gen" "$@"
    else
        "$cmake" "$@"
    fi
    # found in the prefix, not in the build tree or anywhere else
    grep "^klab_DIR:" "$build/CMakeCache.txt"
    grep -qxF "klab_DIR:PATH=$prefix/lib/cmake/klab" "$build/CMakeCache.txt"
}

build_cmake() {
    "$cmake" --build "$build"
    test -f "$build/saxpy.so"
}

exports_only_entry() {
    nm -D --defined-only "$build/saxpy.so" | awk '$2 == "T" { print $3 }' >"$tmp/exports"
    cat "$tmp/exports"
    test "$(cat "$tmp/exports")" = klab_plugin_entry
}

pkg_config_cflags() {
    cflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags klab)
    echo "pkg-config --cflags klab: $cflags"
    inc=$(echo "$cflags" | sed 's/^ *-I//; s/ *$//')
    test -f "$inc/klab/plugin.h"
    test "$(cd "$inc" && pwd -P)" = "$prefix/include"
}

build_pkg_config() {
    mkdir -p "$pcbuild"
    # the README's one line, plus the warnings
    # shellcheck disable=SC2046,SC2086
    "$nvcc" -shared -Xcompiler -fPIC -std=c++20 -arch=sm_$arch $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags klab) \
        $warn "$src/saxpy.cu" -o "$pcbuild/saxpy.so"
    test -f "$pcbuild/saxpy.so"
}

list_cmake_build() {
    rc=0
    "$prefix/bin/klab" --plugin-path "$build" --list >"$tmp/list.txt" 2>&1 || rc=$?
    cat "$tmp/list.txt"
    echo "exit status $rc"
    block saxpy "$tmp/list.txt" >"$tmp/saxpy.txt"
    test -s "$tmp/saxpy.txt" || { echo "saxpy is not listed"; exit 1; }
    grep -F "(plugin ABI $(abi_of_header MAJOR).$(abi_of_header MINOR))" "$tmp/saxpy.txt"
    grep -E "^ +profile naive +.*\[baseline\]$" "$tmp/saxpy.txt"
    grep -E "^ +profile vectorized " "$tmp/saxpy.txt"
    grep -F "dtypes: fp32 fp16   params: a" "$tmp/saxpy.txt"
    grep -xF "      file: $build/saxpy.so" "$tmp/saxpy.txt"
    if grep -F "REFUSED" "$tmp/list.txt" | grep -F saxpy; then
        echo "saxpy was refused"
        exit 1
    fi
    # the installed klab found its own plugins in the prefix, nothing from the build tree
    grep -xF "      file: $prefix/lib/klab/plugins/vector_add.so" "$tmp/list.txt"
    if grep -F "$bin" "$tmp/list.txt"; then
        echo "the installed klab looked into the build tree"
        exit 1
    fi
}

validate_cmake_build() {
    rc=0
    "$prefix/bin/klab" --plugin-path "$build" --validate --config "$src/saxpy.ini" >"$tmp/validate.txt" 2>&1 || rc=$?
    cat "$tmp/validate.txt"
    echo "exit status $rc"
    test $rc -eq 0
    grep -xF "ok      $src/saxpy.ini" "$tmp/validate.txt"
    grep -E "case 2\^20 .*profiles naive,vectorized, 12\.6 MB moved at fp32" "$tmp/validate.txt"
    grep -E "case odd .*dtypes fp32,fp16 " "$tmp/validate.txt"
    grep -F "8 rows (case x dtype x profile)" "$tmp/validate.txt"
}

# The ABI version as the installed header writes it, the one source the package must agree with.
abi_of_header() {
    sed -n "s/^#define KLAB_ABI_$1 \([0-9]*\)$/\1/p" "$prefix/include/klab/plugin.h"
}

# A project that asks for klab $1 and prints what it found; its configure log in $tmp/abi-$1.log.
probe_abi() {
    dir=$tmp/abi-probe-$1
    mkdir -p "$dir"
    cat >"$dir/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.24)
project(probe LANGUAGES C)
find_package(klab $1 REQUIRED)
message(STATUS "klab ABI \${klab_ABI_VERSION} major \${klab_ABI_MAJOR} minor \${klab_ABI_MINOR}")
CMAKE
    "$cmake" -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
        >"$tmp/abi-$1.log" 2>&1
}

package_exports_abi() {
    major=$(abi_of_header MAJOR)
    minor=$(abi_of_header MINOR)
    echo "the installed plugin.h says ABI $major.$minor"
    test -n "$major" && test -n "$minor"
    probe_abi "$major.$minor"
    cat "$tmp/abi-$major.$minor.log"
    grep -F "klab ABI $major.$minor major $major minor $minor" "$tmp/abi-$major.$minor.log"
    # another major, or a newer minor than the SDK has, is not this package
    for want in $((major + 1)).0 $((major - 1)).0 "$major.$((minor + 1))"; do
        if probe_abi "$want"; then
            echo "find_package(klab $want) accepted an SDK of ABI $major.$minor"
            cat "$tmp/abi-$want.log"
            exit 1
        fi
        echo "find_package(klab $want) refused, as it must"
    done
    test "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=abi_major klab)" = "$major"
    test "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=abi_minor klab)" = "$minor"
    test "$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion klab)" = "$major.$minor"
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --atleast-version="$major.$minor" klab
}

list_validate_pkg_config_build() {
    rc=0
    "$prefix/bin/klab" --plugin-path "$pcbuild" --list --plugin saxpy >"$tmp/list-pc.txt" 2>&1 || rc=$?
    cat "$tmp/list-pc.txt"
    echo "exit status $rc"
    test $rc -eq 0
    block saxpy "$tmp/list-pc.txt" | grep -xF "      file: $pcbuild/saxpy.so"
    block saxpy "$tmp/list-pc.txt" | grep -E "^ +profile vectorized "
    "$prefix/bin/klab" --plugin-path "$pcbuild" --validate --config "$src/saxpy.ini" >"$tmp/validate-pc.txt" 2>&1
    cat "$tmp/validate-pc.txt"
    grep -xF "ok      $src/saxpy.ini" "$tmp/validate-pc.txt"
}

echo "1..10"
check "cmake --install to a fresh prefix: klab, the SDK headers, klabConfig.cmake, klab.pc, plugins" install_prefix
check "the example configures with find_package(klab) from that prefix only" configure_cmake
check "the example builds saxpy.so with klab_add_plugin (warnings are errors)" build_cmake
check "saxpy.so exports klab_plugin_entry and nothing else" exports_only_entry
check "pkg-config --cflags klab points into the prefix it was installed to" pkg_config_cflags
check "one nvcc line with \$(pkg-config --cflags klab) builds saxpy.so too" build_pkg_config
check "the installed klab --list shows saxpy (CMake build) with both profiles, not refused" list_cmake_build
check "the installed klab --validate --config saxpy.ini says ok" validate_cmake_build
check "the pkg-config build lists and validates the same" list_validate_pkg_config_build
check "the CMake package and klab.pc export the plugin ABI version, and refuse another" package_exports_abi
tap_end
