#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The installed gpuvp with the source and build trees out of reach: in a private mount namespace
# (unshare, no root needed) both are covered by empty folders, and the installation is reached
# through a bind mount elsewhere. `gpuvp run` and `gpuvp plot` must work from what was installed.
# usage: out_of_reach.sh PREFIX SOURCE_DIR BUILD_DIR      exit 77: no user namespaces here
set -eu
prefix=$1 source=$2 build=$3
if ! unshare -rm true 2>/dev/null; then
  echo "SKIP: unshare -rm (user namespaces) is not available: the out-of-reach check did not run"
  exit 77
fi
t=$(mktemp -d /tmp/gpuvp-installed-XXXXXX)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/prefix" "$t/sweep"
# A finished two-point sweep, as `gpuvp sweep` leaves it.
printf 'point,width,time,exit_code,error\n0,8,20,0,\n1,16,10,0,\n' >"$t/sweep/results.csv"
printf '{"parameters": ["width"], "metrics": [{"name": "time", "path": "run.sim_time_ps"}]}\n' >"$t/sweep/sweep.json"
unshare -rm sh -eu -c '
  mount --bind "$1" "$4/prefix"
  mount -t tmpfs none "$2"
  case "$3" in "$2"/*) ;; *) mount -t tmpfs none "$3" ;; esac
  cd "$4"
  [ ! -e "$2/tools/gpuvp_plot.py" ] || { echo "the source tree is still visible"; exit 1; }
  prefix/bin/gpuvp run --quiet
  if python3 -c "import matplotlib" 2>/dev/null || /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
    prefix/bin/gpuvp plot sweep --y time
    [ -s sweep/plots/time-vs-width.png ] || { echo "gpuvp plot wrote no plot"; exit 1; }
  else
    echo "note: no matplotlib, gpuvp plot not checked"
  fi
' sh "$prefix" "$source" "$build" "$t"
echo "ok: the installed gpuvp runs and plots with $source and $build out of reach"
