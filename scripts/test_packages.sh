#!/usr/bin/env bash
# The pip and .deb packages of README "Installing", end to end. Outside CTest: it needs root
# for apt-get and, with --from-scratch, compiles the library again (10+ minutes on 2 cores).
# The C++ package has its CTest test, package.consumer.
#   pip  `pip wheel` and, in a fresh venv (--system-site-packages: Debian's numpy, setuptools
#        and wheel), `pip install --no-build-isolation --no-index .`, then a short fit from
#        Python. setup.py reuses the configured build/ (SYMGNN_CMAKE_BUILD_DIR) unless
#        --from-scratch, where it configures and compiles build/pip/cmake.
#   deb  scripts/package_deb.sh, `apt-get install` of the .deb, `symgnn version` and a
#        2-epoch `symgnn train` from /usr/bin, `apt-get remove` (unless symgnn was installed before).
# Usage: scripts/test_packages.sh [--from-scratch] [--no-pip] [--no-deb]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=0 do_pip=1 do_deb=1
for a in "$@"; do
  case $a in
    --from-scratch) scratch=1 ;;
    --no-pip) do_pip=0 ;;
    --no-deb) do_deb=0 ;;
    *) echo "usage: $0 [--from-scratch] [--no-pip] [--no-deb]" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_WAIT_POLICY=PASSIVE

if [ $do_pip = 1 ]; then
  if [ $scratch = 1 ]; then
    rm -rf build/pip
    unset SYMGNN_CMAKE_BUILD_DIR
  else
    export SYMGNN_CMAKE_BUILD_DIR=${SYMGNN_CMAKE_BUILD_DIR:-$root/build}
  fi
  start=$SECONDS
  /usr/bin/python3 -m pip wheel --no-build-isolation --no-index --no-deps -w "$tmp/wheels" "$root"
  echo "test_packages: pip wheel took $((SECONDS - start)) s: $(ls "$tmp"/wheels)"
  /usr/bin/python3 -m zipfile -l "$tmp"/wheels/symgnn-*.whl
  /usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
  start=$SECONDS
  "$tmp/venv/bin/pip" install --no-build-isolation --no-index "$root"
  echo "test_packages: pip install took $((SECONDS - start)) s"
  (cd "$tmp" && "$tmp/venv/bin/python" - <<'PY')
import sys
import symgnn
assert symgnn.__file__.startswith(sys.prefix), f"{symgnn.__file__} is not the venv's"
data = symgnn.load_dataset("synthetic")
model = symgnn.SyMGNN(train_epochs=3, verbose=False).fit(data)
rmse = model.score(data)
assert rmse == rmse and rmse < 5, rmse
print(f"test_packages: pip: {symgnn.__file__}: {model.model_.name} on {data.name}, test RMSE {rmse:.4f}")
PY
fi

if [ $do_deb = 1 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  bash scripts/package_deb.sh
  deb=$(ls "$root/${SYMGNN_BUILD_DIR:-build}"/symgnn_*.deb)
  echo "test_packages: $deb ($(du -h "$deb" | cut -f1)), Depends: $(dpkg-deb -f "$deb" Depends)"
  had=0
  if dpkg-query -W -f='${Status}' symgnn 2>/dev/null | grep -q "install ok installed"; then had=1; fi
  $SUDO apt-get install -y "$deb"
  /usr/bin/symgnn version
  /usr/bin/symgnn train --data synthetic --epochs 2 --out "$tmp/run"
  test -s "$tmp/run/metrics.json"
  if [ $had = 0 ]; then $SUDO apt-get remove -y symgnn; fi
  echo "test_packages: deb: installed, ran and removed $deb"
fi
