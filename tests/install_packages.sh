#!/usr/bin/env bash
# tests/install_packages.sh PACKAGE...: the Debian packages that are not
# installed, installed.  The one installer of the project: setup.sh's for
# what building needs, and a test suite's on first use for the server or
# tracer it starts (each suite names its packages once and calls this
# through tests/cli/setup_rule.py's need(), or tests/slurm/slurm_up.sh).
#
# Exit 0: every PACKAGE is installed (it was, or is now).
# Exit 69: some are missing and cannot be installed here: not root, and
#   no sudo that works without asking (with a terminal, sudo may ask).
#   The caller decides what that means (setup_rule.py: a skip off CI).
# Exit 1: apt-get failed; the tail of its log on stderr.
#
# Suites run in parallel under meson: the installs are serialized by flock
# on a lock file of our own (ST_INSTALL_LOCK, default
# /run/lock/streamtime-install.lock), and apt-get waits up to 300 s for
# dpkg's lock when anyone else holds it.  apt-get is run with the lists as
# they are first, and after apt-get update when that fails.  apt-get's
# output is appended to ST_INSTALL_LOG (default /tmp/streamtime-install.
# UID.log; the tests' is build/meson-logs/install.log).
set -uo pipefail

installed() {	# installed PACKAGE: dpkg says it is (for one architecture)
	case $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) in
	*"install ok installed"*) return 0 ;;
	*) return 1 ;;
	esac
}
find_missing() {	# find_missing PACKAGE...: those not installed, in missing
	missing=()
	for p; do
		installed "$p" || missing+=("$p")
	done
}
find_missing "$@"
[ ${#missing[@]} -eq 0 ] && exit 0

# ST_INSTALL_AS_ROOT=1 (this script again, as root or through sudo): take
# the lock, look again (another suite may have installed them meanwhile),
# apt-get
if [ "${ST_INSTALL_AS_ROOT:-0}" = 1 ]; then
	lock=${ST_INSTALL_LOCK:-/run/lock/streamtime-install.lock}
	mkdir -p "$(dirname "$lock")"
	exec 9>>"$lock" || exit 1
	flock -w 900 9 || { echo "another install held $lock for 900 s"; exit 1; }
	find_missing "$@"
	[ ${#missing[@]} -eq 0 ] && exit 0
	echo "== $(date -u +%FT%TZ) apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt=(apt-get -o DPkg::Lock::Timeout=300 -y -q)
	"${apt[@]}" install --no-install-recommends "${missing[@]}" </dev/null ||
		{ "${apt[@]}" update </dev/null &&
			"${apt[@]}" install --no-install-recommends "${missing[@]}" </dev/null; }
	exit
fi

log=${ST_INSTALL_LOG:-${TMPDIR:-/tmp}/streamtime-install.$(id -u).log}
as_root=(env ST_INSTALL_AS_ROOT=1)
[ -n "${ST_INSTALL_LOCK:-}" ] && as_root+=(ST_INSTALL_LOCK="$ST_INSTALL_LOCK")
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		as_root=(sudo -n "${as_root[@]}")
	elif command -v sudo >/dev/null && [ -t 0 ]; then
		as_root=(sudo "${as_root[@]}")
	else
		echo "${missing[*]} not installed, and not root to install them (apt-get install ${missing[*]})" >&2
		exit 69
	fi
fi
echo "install_packages: installing ${missing[*]} (log: $log)" >&2
"${as_root[@]}" bash "$0" "$@" >>"$log" 2>&1
rc=$?
asked=("${missing[@]}")
find_missing "$@"
if [ $rc -ne 0 ] || [ ${#missing[@]} -gt 0 ]; then
	echo "install_packages: apt-get install ${missing[*]:-${asked[*]}} failed (exit $rc); the end of $log:" >&2
	tail -n 20 "$log" >&2
	exit 1
fi
