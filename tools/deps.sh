# Sourced by bootstrap.sh and test.sh: installs what the build needs and is missing (Debian/Ubuntu).
# The CUDA Toolkit (nvcc, cudart, cuBLAS) is not a Debian package here: it must already be installed
# (https://developer.nvidia.com/cuda-downloads); everything else comes from apt.
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

klab_install_missing() {
  local missing=()
  pkg-config --exists inih 2>/dev/null || missing+=(libinih-dev)
  [ -f /usr/include/csv.h ] || missing+=(libcsv-dev)
  pkg-config --exists cmocka 2>/dev/null || missing+=(libcmocka-dev)
  command -v cmake >/dev/null 2>&1 || missing+=(cmake)
  command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  # test_report draws klab report's HTML in headless Chromium and checks the charts' pixels
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "klab: installing ${missing[*]}" >&2
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

klab_configure() {
  cmake -S . -B "${KLAB_BUILD:-build}" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
}
