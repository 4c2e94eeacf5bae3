#!/bin/bash
# Stop everything tests/slurm/slurm_up.sh started for STATE_DIR.
#
#   tests/slurm/slurm_down.sh STATE_DIR
#
# Cancels the cluster's jobs, then stops slurmrestd, the four slurmd, slurmctld,
# slurmdbd, MariaDB and the private munged, each by the pid file slurm_up.sh
# made it write (a pid is only signalled if /proc/PID/comm still names the
# expected program).  A last sweep catches strays (e.g. slurmstepd): a process
# of one of those programs whose command line or environment mentions
# STATE_DIR.  Files under STATE_DIR (logs, database) are kept.  munged is the
# harness's own instance (own socket and key under STATE_DIR), so it is always
# stopped; a system munged is never touched.
# Exit status: 0 when none of them is left running, 1 otherwise.
set -u -o pipefail
[ $# -eq 1 ] || { echo "usage: $0 STATE_DIR" >&2; exit 2; }
[ -d "$1" ] || exit 0                         # nothing was ever started there
S=$(cd "$1" && pwd)
quiet=${SLURM_DOWN_QUIET:-0}
if [ -z "${SLURM_DOWN_NOLOCK:-}" ] && [ -f "$S/.slurm-test-state" ]; then   # slurm_up holds it itself
  exec 9>"$S/.lock"
  flock -w 120 9 || { echo "slurm_down: another slurm_up/down holds $S/.lock" >&2; exit 1; }
fi
say() { [ "$quiet" = 1 ] || echo "slurm_down: $*" >&2; }

# Cancel jobs first so that no slurmstepd outlives its slurmd.
if [ -f "$S/etc/slurm.conf" ] && [ -f "$S/run/slurmctld.pid" ]; then
  export SLURM_CONF=$S/etc/slurm.conf
  unset SLURM_JWT
  ids=$(timeout 5 squeue -h -o %A 2>/dev/null | sort -u)
  if [ -n "$ids" ]; then
    timeout 5 scancel $ids 2>/dev/null
    for _ in $(seq 50); do
      [ -z "$(timeout 5 squeue -h -o %A 2>/dev/null)" ] && break; sleep 0.1; done
  fi
fi

# running PID COMM: PID is COMM and not a zombie (pid 1 here reaps late, and a
# zombie keeps its /proc/PID/comm).
running() {
  [ "$(cat /proc/$1/comm 2>/dev/null)" = "$2" ] || return 1
  local st; st=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -d' ' -f1)
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
# stop PIDFILE COMM: TERM, wait up to 10 s, then KILL.
stop() {
  local f=$1 comm=$2 pid
  [ -f "$f" ] || return 0
  pid=$(tr -dc 0-9 <"$f")
  if [ -n "$pid" ] && running "$pid" "$comm"; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 200); do running "$pid" "$comm" || break; sleep 0.05; done
    if running "$pid" "$comm"; then
      say "$comm ($pid) ignored SIGTERM for 10 s, sending SIGKILL"; kill -KILL "$pid" 2>/dev/null; sleep 0.2
    fi
    say "stopped $comm ($pid)"
  fi
  rm -f "$f"
}

stop "$S/run/slurmrestd.pid" slurmrestd
for n in 1 2 3 4; do stop "$S/run/slurmd-n$n.pid" slurmd; done
stop "$S/run/slurmctld.pid" slurmctld
stop "$S/run/slurmdbd.pid" slurmdbd
stop "$S/mysql/mysqld.pid" mariadbd
stop "$S/munge/munged.pid" munged

# Sweep: our programs that still refer to STATE_DIR (cmdline or environment).
ours() {   # prints pids of leftover processes belonging to this STATE_DIR
  local p comm
  for p in /proc/[0-9]*; do
    comm=$(cat "$p/comm" 2>/dev/null) || continue
    case $comm in
      slurmrestd|slurmd|slurmstepd|slurmctld|slurmdbd|mariadbd|munged) ;;
      *) continue ;;
    esac
    running "${p#/proc/}" "$comm" || continue
    if { tr '\0' '\n' <"$p/cmdline"; } 2>/dev/null | grep -qF "$S/" ||
       { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$S/etc/slurm.conf"; then
      echo "${p#/proc/}"
    fi
  done
}
left=$(ours)
if [ -n "$left" ]; then
  say "stray processes: $(echo $left)"
  kill -TERM $left 2>/dev/null; sleep 1
  left=$(ours); [ -n "$left" ] && { kill -KILL $left 2>/dev/null; sleep 0.5; }
fi
left=$(ours)
if [ -n "$left" ]; then
  echo "slurm_down: still running:" >&2
  for p in $left; do echo "  $p $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)" >&2; done
  exit 1
fi
rm -f "$S/env" "$S/rest.url"
exit 0
