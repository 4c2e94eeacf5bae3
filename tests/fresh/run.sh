#!/usr/bin/env bash
# The README's two Quick start commands on a fresh Debian 12: a bookworm
# root made by debootstrap (--variant=minbase: not even sudo or git), the
# repository cloned in at its current commit, ../shared beside it when
# present, then inside the root with chroot:
#   ./setup.sh && build/streamtime reproduce
#   ./setup.sh && meson test -C build --print-errorlogs
# This proves that the two commands need nothing this machine happened to
# have, and that the first installs no server or tracer.  Needs root;
# installs debootstrap when missing.  .ci/run calls it when CI_FRESH=1.
# Takes 10 to 20 minutes (the whole suite, with the packages of Slurm,
# PostgreSQL, the tracers and Chromium installed inside by their suites).
#
# ST_FRESH_BASE=DIR keeps the debootstrap base between runs (default
# /var/tmp/streamtime-bookworm-base, shared with tests/docker/run.sh);
# ST_FRESH_KEEP=1 keeps the root afterwards for a look.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
# Cannot run is a skip (77) only off CI; under CI=true it is a failure, and
# so is anything that does not come up (tests/cli/setup_rule.py's rule).
on_ci() { case "${CI:-}" in "" | 0 | false | no) return 1 ;; esac; }
if [ "$(id -u)" -ne 0 ]; then
	if on_ci; then
		echo "tests/fresh: FAIL: needs root (debootstrap, chroot) and CI=$CI allows no skip" >&2
		exit 1
	fi
	echo "tests/fresh: needs root (debootstrap, chroot): skipped" >&2
	exit 77
fi
bash tests/install_packages.sh debootstrap || {
	echo "tests/fresh: FAIL: cannot install debootstrap" >&2
	exit 1
}
base=${ST_FRESH_BASE:-/var/tmp/streamtime-bookworm-base}
if [ ! -x "$base/bin/sh" ]; then
	rm -rf "$base"
	debootstrap --variant=minbase bookworm "$base" \
		http://deb.debian.org/debian >&2 || {
		echo "tests/fresh: FAIL: cannot set up the root: debootstrap failed" >&2
		exit 1
	}
fi

work=$(mktemp -d /var/tmp/st-fresh.XXXXXX)
root=$work/root
mounted=()
cleanup() {
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[$i]}" 2>/dev/null || true
	done
	# --one-file-system: should an unmount have failed, never into the
	# host's /sys or /dev through the root
	[ "${ST_FRESH_KEEP:-0}" = 1 ] && echo "kept $root" >&2 ||
		rm -rf --one-file-system "$work"
}
trap cleanup EXIT
cp -a "$base" "$root"
mkdir -p "$root/w"
git clone -q "$repo" "$root/w/main"
echo "fresh: $(git -C "$root/w/main" log --oneline -1)"
[ -d "$repo/../shared" ] && cp -r "$repo/../shared" "$root/w/shared"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
for m in proc sys dev dev/pts dev/shm; do
	mkdir -p "$root/$m"
	case $m in
	proc) mount -t proc proc "$root/proc" ;;
	# the host's /sys with what is mounted under it: slurmd needs the
	# cgroup hierarchy of /sys/fs/cgroup, which a fresh sysfs lacks
	sys) mount --rbind /sys "$root/sys" ;;
	*) mount --bind "/$m" "$root/$m" ;;
	esac
	mounted+=("$root/$m")
done

inside() {  # the command as a newcomer types it, in the checkout
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		CI="${CI:-}" bash -c "cd /w/main && $1"
}
t0=$(date +%s)
inside './setup.sh && build/streamtime reproduce' | tee "$work/reproduce.txt"
grep -q '^| size | file transfer (s) | streaming (s) | enhancement |$' \
	"$work/reproduce.txt"
echo "fresh: command 1 passed in $(( $(date +%s) - t0 )) s"
# ./setup.sh installed what the build needs and nothing else: no server or
# tracer in the root (the suites install theirs on first use, below)
inside 'python3 tests/cli/setup_packages_check.py --installed'
t1=$(date +%s)
inside './setup.sh && meson test -C build --print-errorlogs'
echo "fresh: command 2 passed in $(( $(date +%s) - t1 )) s"
echo "tests/fresh: both Quick start commands passed on a fresh bookworm root"
