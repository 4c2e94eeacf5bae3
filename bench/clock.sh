#!/usr/bin/env bash
# Benchmark: clock offset over ssh, the paper's `ssh host date +%s%3N` vs
# `streamtime clock probe` ssh:// and ssh-date://.
#
#   bench/clock.sh [--runs N] [--raw FILE]
#
# Starts one throwaway sshd on 127.0.0.1 and, against it, measures a remote
# clock shifted by libfaketime (+1.234 s, so the truth is +1234 ms) N times
# (default 30) with each method, interleaved. Prints a markdown table of the
# errors and of streamtime's bounds. STREAMTIME=path overrides the binary
# (default build/streamtime). Needs ssh, sshd, faketime and /usr/bin/python3.
# The work is done by bench/clock_compare.py.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
python=${PYTHON:-/usr/bin/python3}

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "clock.sh: $*" >&2; exit 1; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

bin=$(abspath "${STREAMTIME:-$root/build/streamtime}")
runs=30
raw=()
while [ $# -gt 0 ]; do
    case $1 in
        --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
        --raw) [ $# -ge 2 ] || die "--raw needs a file"; raw=(--raw "$(abspath "$2")"); shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
case $runs in ''|*[!0-9]*|0) die "--runs must be a positive integer, got '$runs'" ;; esac
[ -x "$bin" ] || die "streamtime binary not found or not executable: $bin (build it with 'ninja -C build' or set STREAMTIME=path)"
[ -x "$python" ] || die "$python not found"

cd "$root"
exec "$python" "$here/clock_compare.py" --runs "$runs" --streamtime "$bin" "${raw[@]}"
