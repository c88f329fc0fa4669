#!/usr/bin/env bash
# A one-node Slurm cluster on this machine (munge + slurmctld + slurmd, no systemd), for testing the
# job scripts in jobs/. Recipe: shared/deps.md §8.
#   bash scripts/slurm-local.sh start   # installs slurm-wlm and munge if missing, starts the daemons
#   bash scripts/slurm-local.sh start 2 # two nodes, n1 and n2: two slurmd's on this machine
#   bash scripts/slurm-local.sh stop
# Two nodes: Debian's slurm-wlm is built with multiple-slurmd support, so NodeName n1 and n2 share this
# host (NodeAddr 127.0.0.1) on ports 6818 and 6819, each slurmd started with -N; each node's pid file,
# spool directory and TmpFS carry its name (%n), since the PMIx plugin makes its per-step directory
# (spmix_appdir_UID_JOB.STEP) under TmpFS and the second node's step fails with "File exists" when both
# share /tmp. A job then spans two "nodes" whose ranks meet through the same kernel (no network between
# them): what it tests is Slurm's and the job scripts' side (--nodes, --ntasks-per-node, --mem per node,
# srun's placement and the PMIx wire-up across nodes), not an interconnect.
# Needs root (it writes /etc/slurm and starts daemons). Exits 3 when Slurm cannot run here (no root,
# no cgroup file system), so tests can report a skip.
set -euo pipefail
cmd=${1:-start}
nodes=${2:-1}
[[ "$nodes" =~ ^[12]$ ]] || { echo "slurm-local: nodes must be 1 or 2"; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "slurm-local: needs root"; exit 3; }

stop() {
  for f in /run/slurmd.pid /run/slurmd.n1.pid /run/slurmd.n2.pid /run/slurmctld.pid /run/munge/munged.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  sleep 1
}

if [ "$cmd" = stop ]; then stop; exit 0; fi

if ! dpkg-query -W -f='${Status}' slurm-wlm 2>/dev/null | grep -q "install ok installed" ||
   ! dpkg-query -W -f='${Status}' munge 2>/dev/null | grep -q "install ok installed"; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 \
    slurm-wlm munge >/dev/null
fi
[ -d /sys/fs/cgroup ] || { echo "slurm-local: no /sys/fs/cgroup, slurmd cannot start here"; exit 3; }

stop
host=$(hostname -s)
mkdir -p /etc/slurm /var/spool/slurmd /var/spool/slurmctld /var/log/slurm /run/munge
if [ "$nodes" = 1 ]; then
  node_lines="NodeName=${host} NodeAddr=127.0.0.1 CPUs=4 RealMemory=4000 State=UNKNOWN"
  per_node="SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
SlurmdLogFile=/var/log/slurm/slurmd.log"
else
  mkdir -p /var/spool/slurmd/n1 /var/spool/slurmd/n2 /tmp/slurm-local/n1 /tmp/slurm-local/n2
  node_lines="NodeName=n1 NodeHostname=${host} NodeAddr=127.0.0.1 Port=6818 CPUs=2 RealMemory=4000 State=UNKNOWN
NodeName=n2 NodeHostname=${host} NodeAddr=127.0.0.1 Port=6819 CPUs=2 RealMemory=4000 State=UNKNOWN"
  per_node="SlurmdPidFile=/run/slurmd.%n.pid
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmdLogFile=/var/log/slurm/slurmd.%n.log
TmpFS=/tmp/slurm-local/%n"
fi
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=meniscus-local
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
${per_node}
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmdParameters=config_overrides
KillWait=10
${node_lines}
PartitionName=debug Nodes=ALL Default=YES MaxTime=60 State=UP OverSubscribe=YES
CONF
[ -f /etc/munge/munge.key ] || { dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; }
chown -R munge:munge /etc/munge /run/munge
chmod 0700 /etc/munge
chmod 0400 /etc/munge/munge.key
runuser -u munge -- /usr/sbin/munged
/usr/sbin/slurmctld
if [ "$nodes" = 1 ]; then
  /usr/sbin/slurmd
else
  /usr/sbin/slurmd -N n1
  /usr/sbin/slurmd -N n2
fi
for _ in $(seq 1 20); do
  if [ "$(sinfo -h -N -o '%T' 2>/dev/null | grep -cE 'idle|mixed')" -ge "$nodes" ]; then
    echo "slurm-local: up ($(sinfo -h -o '%P %D %T'))"
    exit 0
  fi
  sleep 1
done
echo "slurm-local: slurmd did not come up; see /var/log/slurm/slurmd.log"
tail -n 5 /var/log/slurm/slurmd*.log 2>/dev/null || true
exit 3
