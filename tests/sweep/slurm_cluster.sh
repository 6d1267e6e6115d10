#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Starts a one-node Slurm cluster on 127.0.0.1 (munged, slurmctld, slurmd as plain processes,
# configuration and munge key in a temporary folder), runs the sweep SPEC with the slurm backend
# and with the local backend, and requires byte-identical results.csv. Stops every daemon it
# started. Exits 77 (ctest: skipped) with one line saying why when the daemons cannot start.
# usage: slurm_cluster.sh BUILD/gpuvp SPEC.yaml
set -u
gpuvp=$1
spec=$2
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

for t in munged munge slurmctld slurmd sbatch squeue sinfo; do
  command -v "$t" >/dev/null 2>&1 || skip "$t is not installed (Debian packages slurm-wlm and munge)"
done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs (running as $(id -un))"

work=$(mktemp -d /tmp/gpuvp-slurm.XXXXXX)
chmod 700 "$work"
pids=()
cleanup() {
  # Jobs still on this private cluster (after a failure) end before their daemons do.
  if [ -f "$work/slurm.conf" ] && squeue -h 2>/dev/null | grep -q .; then
    scancel --partition=gpuvp 2>/dev/null
    for _ in $(seq 50); do squeue -h 2>/dev/null | grep -q . || break; sleep 0.2; done
  fi
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# A free TCP port on 127.0.0.1 (nothing answers a connect).
free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  echo 0
}
wait_for() {  # seconds, command...
  local t=$1; shift
  for _ in $(seq $((t * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}

# munge: a fresh key and socket in the temporary folder.
mkdir -m 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged -F -f --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" >"$work/munge/out.log" 2>&1 &
pids+=($!)
wait_for 10 sh -c "munge -n --socket='$socket' | unmunge --socket='$socket'" ||
  skip "munged did not start: $(tail -n 2 "$work/munge/munged.log" "$work/munge/out.log" 2>/dev/null | tr '\n' ' ')"

host=$(hostname -s)
ctld_port=$(free_port)
slurmd_port=$(free_port)
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=gpuvptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=gpuvp-node NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=gpuvp Nodes=gpuvp-node Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -c -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N gpuvp-node -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -N -n gpuvp-node -o %t 2>/dev/null)" = idle ]; }
wait_for 60 node_idle ||
  skip "slurmctld/slurmd did not come up: $(tail -n 3 "$work/slurmctld.log" "$work/slurmd.log" "$work/slurmctld.out" "$work/slurmd.out" 2>/dev/null | tr '\n' ' ')"

"$gpuvp" sweep "$spec" --out "$work/local" --no-plot >"$work/local.log" 2>&1 || { cat "$work/local.log"; fail "local sweep failed"; }
# --max-array 4: 8 points after the first share 4 array tasks (2 each), exercising the chunks.
timeout 240 "$gpuvp" sweep "$spec" --out "$work/slurm" --backend slurm --max-array 4 --poll 0.5 --no-plot \
  >"$work/slurm.log" 2>&1 || { cat "$work/slurm.log"; tail -n 20 "$work/slurmctld.log" "$work/slurmd.log"; fail "slurm sweep failed"; }
cat "$work/slurm.log"
cmp "$work/local/results.csv" "$work/slurm/results.csv" || { diff "$work/local/results.csv" "$work/slurm/results.csv"; fail "results differ"; }
grep -q '"batch-1"\|"batch": "1"' "$work/slurm/slurm/jobs.json" || fail "no array job for the remaining points"
echo "PASS: slurm results.csv equals the local backend's ($(($(wc -l <"$work/local/results.csv") - 1)) points)"
