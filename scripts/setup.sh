#!/usr/bin/env bash
# Installs the Debian packages symgnn builds against, only those missing (idempotent).
# Run as root or with sudo available. Debian 12 (bookworm).
# SYMGNN_PACKAGES=build: only what the symgnn binary needs (scripts/demo.sh, which builds
# that alone); otherwise (all) every package of the tests, the Python package and the
# browser test too (scripts/test.sh).
set -euo pipefail

# What the symgnn binary builds against.
packages=(
  build-essential cmake git pkg-config  # git: the build names its commit (cmake/git_hash.cmake)
  libtorch-dev          # tensors, autograd, optimisers (LibTorch 1.13 on Debian 12)
  libopenblas-dev       # so that LibTorch's BLAS calls resolve to OpenBLAS, not the reference BLAS
  libhdf5-dev           # MATLAB v7.3 .mat files are HDF5
  libcli11-dev nlohmann-json3-dev libgtest-dev
  libssl-dev            # SHA-256 of the files symgnn writes (docs/reliability.md)
  libcpp-httplib-dev    # the HTTP server of `symgnn serve` (docs/serve.md)
  libhnswlib-dev        # approximate k-NN graphs of wide catalogues (src/graph/knn_approximate.h)
  libgloo-dev           # Gloo's headers for LibTorch's c10d process group: multi-process training (docs/scale.md)
)
group=${SYMGNN_PACKAGES:-all}
case "$group" in
  build) ;;
  all) packages+=(
  clang libclang-rt-14-dev  # libFuzzer target for the text parsers (scripts/fuzz.sh)
  gnuplot-nox           # figures of the reproduction (docs/results.md)
  python3-dev pybind11-dev  # the Python package (python/)
  python3-numpy python3-scipy python3-pandas python3-pytest  # its arrays and its tests
  python3-torch         # torch.load opens model.pt: the export test (python/tests/test_export.py)
  python3-sklearn       # clone and GridSearchCV over the estimator (python/tests/test_estimator.py)
  python3-optuna        # symgnn.tune's studies (python/symgnn/tune.py, python/tests/test_tune.py)
  python3-pip python3-setuptools python3-wheel python3-venv  # `pip install .` offline (pyproject.toml, README "Installing")
  python3-flask         # the Flask app bench/bench_serve.cpp measures beside `symgnn serve`
  chromium chromium-driver python3-selenium  # the browser test of serve's page (tests/serve/browser_test.py)
  ) ;;
  *) echo "setup: SYMGNN_PACKAGES=$group: expected build or all" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present ($group)"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
