# Sourced by bootstrap.sh and test.sh: installs what the build needs and is missing (Debian/Ubuntu).
# The CUDA Toolkit (nvcc, cudart, cuBLAS; 12.4 or newer, 13.0 tested) is not a Debian package here: it
# must already be installed (https://developer.nvidia.com/cuda-downloads); everything else comes from
# apt, or, on a host that reaches no package registry (a cluster's GPU node), from Debian packages
# fetched beforehand into .deps/ by `tools/bootstrap.sh --fetch-deps` (docs/gpu-host.md).
KLAB_DEBS="libinih-dev libinih1 libcsv-dev libcsv3 libcmocka-dev libcmocka0"

klab_need_cuda() {
  if ! command -v nvcc >/dev/null 2>&1; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then
      export PATH=/usr/local/cuda/bin:$PATH
    else
      echo "klab: nvcc not found: install the CUDA Toolkit (12.4 or newer), then run this again" >&2
      return 1
    fi
  fi
}

# The Debian packages of the libraries, downloaded into .deps/ (kept out of git) for a host without a
# registry.
klab_fetch_deps() {
  mkdir -p .deps
  (cd .deps && apt-get download $KLAB_DEBS)
  ls -1 .deps
}

# .deps/*.deb unpacked under .deps/root (never over /), and CMake, pkg-config and the loader pointed
# at them: the build then finds inih, libcsv and cmocka without installing anything.
klab_use_fetched_deps() {
  local root=$PWD/.deps/root f
  ls .deps/*.deb >/dev/null 2>&1 || return 1
  if [ ! -d "$root" ]; then
    for f in .deps/*.deb; do dpkg -x "$f" "$root"; done
  fi
  local lib=$root/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
  sed -i "s#^prefix=/usr\$#prefix=$root/usr#" "$lib"/pkgconfig/*.pc
  export PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export CMAKE_PREFIX_PATH=$root/usr CMAKE_LIBRARY_PATH=$lib CMAKE_INCLUDE_PATH=$root/usr/include
  export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "klab: using the libraries in .deps/" >&2
}

# klab_install_missing [test]: the build's needs; with `test`, also what the tests need (Chromium draws
# the report in one of them; a single-node Slurm, slurm-wlm and munge, runs the Slurm script in another).
klab_install_missing() {
  local missing=()
  if ! pkg-config --exists inih 2>/dev/null || ! [ -f /usr/include/csv.h ]; then
    klab_use_fetched_deps || true
  fi
  pkg-config --exists inih 2>/dev/null || missing+=(libinih-dev)
  [ -f /usr/include/csv.h ] || [ -f "${CMAKE_INCLUDE_PATH:-/nonexistent}/csv.h" ] || missing+=(libcsv-dev)
  pkg-config --exists cmocka 2>/dev/null || missing+=(libcmocka-dev)
  command -v cmake >/dev/null 2>&1 || missing+=(cmake)
  command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  if [ "${1:-}" = test ]; then
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
    # the daemons are in /usr/sbin, which a user's PATH may lack
    PATH=$PATH:/usr/sbin command -v slurmd >/dev/null 2>&1 || missing+=(slurm-wlm)
    PATH=$PATH:/usr/sbin command -v munged >/dev/null 2>&1 || missing+=(munge)
  fi
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "klab: installing ${missing[*]}" >&2
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
    echo "klab: could not install ${missing[*]}; on a host without a package registry, run" >&2
    echo "      'tools/bootstrap.sh --fetch-deps' where there is one and copy .deps/ here (docs/gpu-host.md)" >&2
    return 1
  fi
}

klab_configure() {
  cmake -S . -B "${KLAB_BUILD:-build}" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
}
