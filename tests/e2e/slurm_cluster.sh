# A real single-node Slurm cluster in a scratch directory, for the Slurm
# end-to-end test and bench/slurm_overhead.sh. Source it, then:
#   slurm_install || exit 77        # apt-get installs munge and Slurm if missing
#   slurm_start <dir> || exit 1     # munged, slurmctld, slurmd on localhost
#   ... srun/sbatch/squeue with $SLURM_CONF exported ...
#   slurm_stop                      # also run on EXIT by slurm_start
# The node has 2 CPUs and a GRES of two fake GPUs ("gpu", files under
# <dir>/dev): Slurm hands them out and sets CUDA_VISIBLE_DEVICES and
# SLURM_STEP_GPUS as it would for real ones.

slurm_packages=(munge slurmctld slurmd slurm-client)  # as in scripts/setup.sh

# Installs what is missing; fails (the caller skips) where that cannot be done.
slurm_install() {
  local missing=() p
  for p in "${slurm_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "slurm: ${missing[*]} not installed and this is not a root Debian shell"
    return 1
  fi
  echo "slurm: installing ${missing[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1 || {
    echo "slurm: apt-get install ${missing[*]} failed"
    return 1
  }
}

# Waits up to $2 seconds for the command $1 to succeed.
slurm_wait_for() {
  local i
  for i in $(seq 1 $(($2 * 10))); do
    eval "$1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

slurm_start() { # <scratch dir>
  slurm_dir=$1
  rm -rf "$slurm_dir" && mkdir -p "$slurm_dir"/{state,spool,dev,log}
  # Two fake GPUs: character devices like /dev/null, named gpu0 and gpu1.
  mknod "$slurm_dir/dev/gpu0" c 1 3 && mknod "$slurm_dir/dev/gpu1" c 1 3 || {
    echo "slurm: cannot create the fake GPU devices"; return 1; }
  dd if=/dev/urandom of="$slurm_dir/munge.key" bs=1024 count=1 status=none
  chmod 600 "$slurm_dir/munge.key"
  munged --force --key-file="$slurm_dir/munge.key" --socket="$slurm_dir/munge.socket" \
    --pid-file="$slurm_dir/munged.pid" --log-file="$slurm_dir/log/munged.log" \
    --seed-file="$slurm_dir/munge.seed" || { echo "slurm: munged did not start"; return 1; }
  # Ports of our own: another cluster (or test) on this machine keeps its own.
  local port=$((20000 + RANDOM % 20000))
  cat >"$slurm_dir/slurm.conf" <<CONF
ClusterName=retune-test
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$slurm_dir/munge.socket
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd.pid
SlurmctldLogFile=$slurm_dir/log/slurmctld.log
SlurmdLogFile=$slurm_dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
GresTypes=gpu
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=10
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 Gres=gpu:2 State=UNKNOWN
PartitionName=tune Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  cat >"$slurm_dir/gres.conf" <<CONF
AutoDetect=off
NodeName=localhost Name=gpu File=$slurm_dir/dev/gpu[0-1]
CONF
  export SLURM_CONF=$slurm_dir/slurm.conf
  slurmctld -D -i >"$slurm_dir/log/slurmctld.out" 2>&1 &
  slurm_ctld_pid=$!
  slurmd -D -N localhost >"$slurm_dir/log/slurmd.out" 2>&1 &
  slurm_d_pid=$!
  trap slurm_stop EXIT
  slurm_wait_for 'sinfo -h -N -o %T | grep -qx idle' 30 || {
    echo "slurm: the node did not become idle:"
    sinfo -N 2>&1; tail -5 "$slurm_dir"/log/*.log
    return 1
  }
}

slurm_stop() {
  [ -n "${slurm_dir:-}" ] || return 0
  scancel --user=root >/dev/null 2>&1
  local pid
  for pid in ${slurm_d_pid:-} ${slurm_ctld_pid:-} $(cat "$slurm_dir/munged.pid" 2>/dev/null); do
    kill "$pid" 2>/dev/null
  done
  for pid in ${slurm_d_pid:-} ${slurm_ctld_pid:-}; do
    wait "$pid" 2>/dev/null
  done
  slurm_dir=
}
