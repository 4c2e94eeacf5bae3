#!/bin/bash
# A real single-host Slurm 22.05 for the tests (Debian 12 packages only).
#
#   tests/slurm/slurm_up.sh STATE_DIR      # then: source STATE_DIR/env
#   tests/slurm/slurm_down.sh STATE_DIR
#
# Starts, all under STATE_DIR: a private munged, MariaDB (unix socket only,
# --skip-networking), slurmdbd, slurmctld, four slurmd (n1..n4 on 127.0.0.1,
# each on a free port), slurmrestd with rest_auth/jwt on 127.0.0.1:<free port>;
# cluster "stcluster", account dstlr_acct, user root, QOS realtime_test granted.
# Writes STATE_DIR/env (SLURM_CONF, SLURM_JWT, SLURM_REST_URL, ...) and
# STATE_DIR/rest.url.  Returns once sinfo shows the four nodes idle, sacct
# answers and slurmrestd answers.
#
# Idempotent: if the cluster of STATE_DIR is already up and healthy it only
# writes a fresh token into STATE_DIR/env; otherwise it stops what is left of an
# earlier run and starts from nothing.  On failure: exit 1, the failing daemon
# and the tail of its log on stderr, and what was started is stopped again
# (set SLURM_UP_KEEP=1 to leave it running for inspection).
#
# Environment knobs: SLURM_JWT_LIFESPAN (seconds, default 86400).
set -u -o pipefail
[ $# -eq 1 ] || { echo "usage: $0 STATE_DIR" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "slurm_up: must run as root" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
t0=$(date +%s.%N)

# --- STATE_DIR: ours (marker file) or new/empty -----------------------------------
mkdir -p "$1" || exit 2
S=$(cd "$1" && pwd)
MARK=$S/.slurm-test-state
if [ ! -f "$MARK" ] && [ -n "$(ls -A "$S")" ]; then
  echo "slurm_up: $S is not empty and was not made by slurm_up.sh; refusing to use it" >&2
  exit 2
fi
touch "$MARK"; chmod 755 "$S"
len=${#S}
if [ $((len + 20)) -gt 107 ]; then   # sockets live at STATE_DIR/munge/munge.socket etc.
  echo "slurm_up: STATE_DIR path too long for unix sockets (max ~87 chars): $S" >&2; exit 2
fi
exec 9>"$S/.lock"   # every daemon below is started with 9>&- so none inherits the lock
flock -w 120 9 || { echo "slurm_up: another slurm_up/down holds $S/.lock" >&2; exit 1; }

export SLURM_CONF=$S/etc/slurm.conf
unset SLURM_JWT          # with SLURM_JWT set, client commands switch to auth/jwt
LIFESPAN=${SLURM_JWT_LIFESPAN:-86400}
CLUSTER=stcluster ACCOUNT=dstlr_acct QOS=realtime_test
log() { echo "slurm_up: $*" >&2; }
elapsed() { echo "$(date +%s.%N) $t0" | awk '{printf "%.1f", $1-$2}'; }

# --- packages --------------------------------------------------------------------
# installed when missing by tests/install_packages.sh (its log: STATE_DIR/
# apt.log); a fresh minbase has neither curl (the checks of slurmrestd
# below) nor netbase, whose /etc/hosts names localhost for
# mariadb-install-db
pkgs="slurmctld slurmd slurmdbd slurm-client slurmrestd slurm-wlm-jwt-plugin munge mariadb-server curl netbase"
# shellcheck disable=SC2086
ST_INSTALL_LOG=$S/apt.log bash "$here/../install_packages.sh" $pkgs 9>&- || exit 1

# --- writes STATE_DIR/env with a fresh token ---------------------------------------
write_env() {
  local tok url
  tok=$(timeout 10 scontrol token username=root lifespan="$LIFESPAN" 2>&1) || {
    log "scontrol token failed: $tok"; return 1; }
  tok=${tok#SLURM_JWT=}
  url=$(cat "$S/rest.url")
  cat >"$S/env.tmp" <<E
# written by tests/slurm/slurm_up.sh $(date +%FT%T); source this file
export SLURM_CONF=$S/etc/slurm.conf
export SLURM_JWT=$tok
export SLURM_REST_URL=$url
export SLURM_REST_USER=root
export SLURM_CLUSTER=$CLUSTER
export SLURM_TEST_STATE_DIR=$S
E
  mv "$S/env.tmp" "$S/env"
}

# --- already up? -----------------------------------------------------------------
alive() {   # alive PIDFILE COMM: the pid is COMM and not a zombie
  local pid st; pid=$(tr -dc 0-9 <"$1" 2>/dev/null); [ -n "$pid" ] || return 1
  [ "$(cat /proc/$pid/comm 2>/dev/null)" = "$2" ] || return 1
  st=$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null | cut -d' ' -f1); [ -n "$st" ] && [ "$st" != Z ]
}
rest_code() { curl -s -m 5 -o /dev/null -w '%{http_code}' "$1" 2>/dev/null; }
idle_nodes() {   # nodes in state exactly "idle" ("idle*" = not responding)
  timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2 == "idle" {print $1}' | sort -u | wc -l; }
healthy() {
  [ -f "$S/rest.url" ] && [ -f "$S/etc/slurm.conf" ] || return 1
  alive "$S/munge/munged.pid" munged && alive "$S/mysql/mysqld.pid" mariadbd &&
  alive "$S/run/slurmdbd.pid" slurmdbd && alive "$S/run/slurmctld.pid" slurmctld &&
  alive "$S/run/slurmrestd.pid" slurmrestd || return 1
  local n; for n in 1 2 3 4; do alive "$S/run/slurmd-n$n.pid" slurmd || return 1; done
  timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' || return 1
  [ "$(timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | grep -Evc 'down|drain|fail|unk|not_resp')" -ge 4 ] || return 1
  timeout 10 sacct -n -X -S now-1minutes >/dev/null 2>&1 || return 1
  [ "$(rest_code "$(cat "$S/rest.url")/openapi")" != 000 ] || return 1
}
if healthy; then
  write_env || exit 1
  log "already up ($S), token refreshed, $(elapsed) s"
  exit 0
fi

# --- from nothing ----------------------------------------------------------------
SLURM_DOWN_QUIET=1 SLURM_DOWN_NOLOCK=1 "$here/slurm_down.sh" "$S" 9>&- || {
  log "could not stop the leftovers of an earlier run in $S"; exit 1; }
rm -rf "$S/etc" "$S/log" "$S/run" "$S/state" "$S/spool" "$S/mysql" "$S/munge" \
       "$S/jobs" "$S/env" "$S/rest.url" "$S/expected_jobs.txt" "$S/all_jobs.txt" "$S/window.txt"
mkdir -p "$S/etc" "$S/log" "$S/run" "$S/state" "$S/spool" "$S/mysql/data" "$S/munge"

started=0
fail() {   # fail DAEMON LOGFILE MESSAGE [STDOUT_FILE]
  echo "slurm_up: FAILED: $1: $3" >&2
  local f
  for f in "$2" "${4:-}"; do
    if [ -n "$f" ] && [ -s "$f" ]; then echo "---- tail of $f ----" >&2; tail -n 25 "$f" >&2; echo "----" >&2; fi
  done
  if [ "$started" = 1 ] && [ "${SLURM_UP_KEEP:-0}" != 1 ]; then
    SLURM_DOWN_QUIET=1 SLURM_DOWN_NOLOCK=1 "$here/slurm_down.sh" "$S" 9>&-
  fi
  exit 1
}
phase() { echo "$(elapsed) $*" >>"$S/log/up-timing.log"; }
wait_for() {   # wait_for SECONDS CMD...: poll every 0.2 s
  local end=$(( $(date +%s) + $1 )); shift
  until "$@"; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.2; done
}
port_busy() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }
pick_port() {  # a free TCP port in 20000-59999 not handed out yet by this run
  local p
  while :; do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    case " $picked " in *" $p "*) continue ;; esac
    port_busy "$p" || { picked="$picked $p"; echo "$p"; return; }
  done
}
picked=
# every port is picked free per run (slurmd's too: one NodeName line per
# node), so that several STATE_DIRs (two checkouts' tests) run at once
SLURMD_PORTS=
for n in 1 2 3 4; do
  p=$(pick_port); picked="$picked $p"; SLURMD_PORTS="$SLURMD_PORTS $p"
done
CTLD_PORT=$(pick_port); picked="$picked $CTLD_PORT"
DBD_PORT=$(pick_port);  picked="$picked $DBD_PORT"
REST_PORT=$(pick_port); picked="$picked $REST_PORT"
host=$(hostname -s)
started=1

phase start munged
# munged: a private instance; its socket is handed to Slurm by AuthInfo=socket=
MSOCK=$S/munge/munge.socket
mkdir -p "$S/munge/key"        # key dir 700; socket dir must be 755 (munged checks)
head -c 1024 /dev/urandom >"$S/munge/key/munge.key"
chown -R munge:munge "$S/munge"; chmod 755 "$S/munge"; chmod 700 "$S/munge/key"
chmod 400 "$S/munge/key/munge.key"
setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged 9>&- \
  --socket="$MSOCK" --key-file="$S/munge/key/munge.key" --pid-file="$S/munge/munged.pid" \
  --log-file="$S/munge/munged.log" --seed-file="$S/munge/key/munged.seed" </dev/null >>"$S/log/munged.stdout" 2>&1 ||
  fail munged "$S/munge/munged.log" "munged did not start" "$S/log/munged.stdout"
wait_for 10 eval 'munge -n -S "$MSOCK" | unmunge -S "$MSOCK" >/dev/null 2>&1' ||
  fail munged "$S/munge/munged.log" "munge/unmunge through $MSOCK fails"

phase start mariadb
# MariaDB: unix socket only, no my.cnf
MYSOCK=$S/mysql/mysqld.sock
MYLOG=$S/mysql/mariadb.log
chown -R mysql:mysql "$S/mysql"
mariadb-install-db 9>&- --no-defaults --user=mysql --datadir="$S/mysql/data" --skip-test-db \
  --auth-root-authentication-method=socket >"$S/mysql/install.log" 2>&1 ||
  fail mariadb "$S/mysql/install.log" "mariadb-install-db failed"
setsid /usr/sbin/mariadbd 9>&- --no-defaults --user=mysql --datadir="$S/mysql/data" \
  --socket="$MYSOCK" --pid-file="$S/mysql/mysqld.pid" --skip-networking --log-error="$MYLOG" \
  --skip-log-bin --innodb-buffer-pool-size=256M --innodb-log-file-size=64M --innodb-lock-wait-timeout=900 \
  </dev/null >>"$S/log/mariadbd.stdout" 2>&1 &
wait_for 30 eval 'mariadb --no-defaults -S "$MYSOCK" -e "select 1" >/dev/null 2>&1' ||
  fail mariadb "$MYLOG" "MariaDB does not answer on $MYSOCK" "$S/log/mariadbd.stdout"
DBPASS=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
mariadb --no-defaults -S "$MYSOCK" -e "CREATE DATABASE slurm_acct_db;
  CREATE USER 'slurm'@'localhost' IDENTIFIED BY '$DBPASS';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';" 2>>"$MYLOG" ||
  fail mariadb "$MYLOG" "creating slurm_acct_db failed"

phase start config
# configuration
head -c 32 /dev/urandom >"$S/etc/jwt.key"
cat >"$S/etc/slurmdbd.conf" <<C
AuthType=auth/munge
AuthInfo=socket=$MSOCK
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$S/etc/jwt.key
DbdHost=localhost
DbdPort=$DBD_PORT
SlurmUser=slurm
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=$DBPASS
LogFile=$S/log/slurmdbd.log
PidFile=$S/run/slurmdbd.pid
C
cat >"$S/etc/slurm.conf" <<C
ClusterName=$CLUSTER
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=slurm
AuthType=auth/munge
AuthInfo=socket=$MSOCK
CredType=cred/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$S/etc/jwt.key
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd-%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
# for connections to slurmdbd, clients take the munge socket from here, not AuthInfo
AccountingStoragePass=$MSOCK
AccountingStorageEnforce=associations,limits,qos
SchedulerType=sched/backfill
# default batch_sched_delay=3 leaves 3 s between back-to-back 4-node jobs; 0 makes it ~1 s
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
C
n=0
for p in $SLURMD_PORTS; do
  n=$((n + 1))
  echo "NodeName=n$n NodeHostname=$host NodeAddr=127.0.0.1 Port=$p CPUs=1 State=UNKNOWN"
done >>"$S/etc/slurm.conf"
echo "PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP" >>"$S/etc/slurm.conf"
for n in 1 2 3 4; do mkdir -p "$S/spool/n$n"; done
chown -R slurm:slurm "$S/etc" "$S/log" "$S/run" "$S/state" "$S/spool"
chmod 600 "$S/etc/jwt.key" "$S/etc/slurmdbd.conf"
echo "http://127.0.0.1:$REST_PORT" >"$S/rest.url"

phase start slurmdbd
# slurmdbd (reads slurmdbd.conf next to $SLURM_CONF; MYSQL_UNIX_PORT points the
# MariaDB client library at our socket, since StorageHost=localhost means "socket")
env MYSQL_UNIX_PORT="$MYSOCK" setpriv --reuid=slurm --regid=slurm --init-groups \
  /usr/sbin/slurmdbd 9>&- </dev/null >>"$S/log/slurmdbd.stdout" 2>&1 ||
  fail slurmdbd "$S/log/slurmdbd.log" "slurmdbd did not start" "$S/log/slurmdbd.stdout"
wait_for 30 eval 'timeout 5 sacctmgr -n list cluster >/dev/null 2>&1' ||
  fail slurmdbd "$S/log/slurmdbd.log" "sacctmgr cannot reach slurmdbd on port $DBD_PORT" "$S/log/slurmdbd.stdout"
acct() { timeout 10 sacctmgr -i "$@" >>"$S/log/sacctmgr.log" 2>&1 || fail slurmdbd "$S/log/sacctmgr.log" "sacctmgr $* failed"; }
acct add cluster "$CLUSTER"
acct add qos "$QOS"
acct add account "$ACCOUNT" Cluster="$CLUSTER"
acct add user root Account="$ACCOUNT" DefaultAccount="$ACCOUNT"
acct modify user root set qos+="$QOS"
acct modify account "$ACCOUNT" set qos+="$QOS"

phase start slurmctld
# slurmctld
/usr/sbin/slurmctld 9>&- -f "$SLURM_CONF" </dev/null >>"$S/log/slurmctld.stdout" 2>&1 ||
  fail slurmctld "$S/log/slurmctld.log" "slurmctld did not start" "$S/log/slurmctld.stdout"
wait_for 30 eval 'timeout 5 scontrol ping 2>/dev/null | grep -q "is UP"' ||
  fail slurmctld "$S/log/slurmctld.log" "scontrol ping does not report UP"

phase start slurmd
# four slurmd
for n in 1 2 3 4; do
  /usr/sbin/slurmd 9>&- -f "$SLURM_CONF" -N "n$n" </dev/null >>"$S/log/slurmd-n$n.stdout" 2>&1 ||
    fail "slurmd n$n" "$S/log/slurmd-n$n.log" "slurmd -N n$n did not start" "$S/log/slurmd-n$n.stdout"
done
if ! wait_for 40 eval '[ "$(idle_nodes)" -ge 4 ]'; then
  for n in 1 2 3 4; do
    timeout 5 sinfo -h -N -t idle -n "n$n" -o %N 2>/dev/null | grep -q . ||
      fail "slurmd n$n" "$S/log/slurmd-n$n.log" "node n$n is not idle: $(timeout 5 sinfo -h -N -n "n$n" -o '%T %E' 2>&1)"
  done
  fail slurmctld "$S/log/slurmctld.log" "nodes not idle"
fi

phase start slurmrestd
# slurmrestd, JWT, loopback only (runs as SlurmUser: it refuses root)
SLURM_JWT=daemon setsid setpriv --reuid=slurm --regid=slurm --init-groups \
  /usr/sbin/slurmrestd 9>&- -a rest_auth/jwt "127.0.0.1:$REST_PORT" </dev/null >>"$S/log/slurmrestd.log" 2>&1 &
echo $! >"$S/run/slurmrestd.pid"
# every path needs a token (even /openapi): any HTTP status means it listens
wait_for 20 eval '[ "$(rest_code "http://127.0.0.1:$REST_PORT/openapi")" != 000 ]' ||
  fail slurmrestd "$S/log/slurmrestd.log" "no answer on http://127.0.0.1:$REST_PORT/openapi"
alive "$S/run/slurmrestd.pid" slurmrestd ||
  fail slurmrestd "$S/log/slurmrestd.log" "pid $(cat "$S/run/slurmrestd.pid") is not slurmrestd"

phase start token
write_env || fail slurmctld "$S/log/slurmctld.log" "scontrol token failed"
. "$S/env"
code=$(curl -s -o "$S/log/rest-check.json" -w '%{http_code}' -H "X-SLURM-USER-NAME: root" \
  -H "X-SLURM-USER-TOKEN: $SLURM_JWT" "$SLURM_REST_URL/slurmdb/v0.0.38/jobs")
[ "$code" = 200 ] || fail slurmrestd "$S/log/slurmrestd.log" "GET /slurmdb/v0.0.38/jobs with the token gave HTTP $code"
unset SLURM_JWT
timeout 10 sacct -n -X -S now-1hours >/dev/null 2>"$S/log/sacct-check.log" ||
  fail slurmdbd "$S/log/slurmdbd.log" "sacct fails: $(cat "$S/log/sacct-check.log")"
phase done
log "up in $(elapsed) s: source $S/env  (REST $(cat "$S/rest.url"))"
