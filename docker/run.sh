#!/bin/sh
# Run `streamtime reproduce` in the image on a data directory:
#   docker/run.sh [DATA] [OUT] [TAG]
# DATA (default: the sample shipped in the image) is mounted read-only at
# /data; OUT (default: ./out) at /out, where the outputs, the figures, the
# timeline and report.html appear.  The comparison table goes to stdout.
#
# STREAMTIME_ENGINE=docker|podman picks the engine (default: whichever is
# installed).  STREAMTIME_ENGINE=podman-chroot runs the image without a
# container runtime: `podman image mount`, bind mounts, chroot (root only;
# for machines where `podman run` cannot work, as in tests/docker/).
set -eu
data=${1:-}
out=${2:-out}
tag=${3:-streamtime}
engine=${STREAMTIME_ENGINE:-}
if [ -z "$engine" ]; then
	if command -v docker >/dev/null 2>&1; then engine=docker
	elif command -v podman >/dev/null 2>&1; then engine=podman
	else echo "run.sh: neither docker nor podman found" >&2; exit 69
	fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ "$engine" = podman-chroot ]; then
	m=$(podman image mount "$tag")
	cleanup() {
		umount "$m/out" 2>/dev/null || true
		[ -n "$data" ] && umount "$m/data" 2>/dev/null || true
		umount "$m/proc" 2>/dev/null || true
		podman image unmount "$tag" >/dev/null 2>&1 || true
	}
	trap cleanup EXIT
	# the image's /out, /data and /proc are the mount points (read-only
	# image: nothing can be made here)
	mount --bind "$out" "$m/out"
	mount -t proc proc "$m/proc"
	set -- reproduce --data /usr/share/streamtime/data --out /out
	if [ -n "$data" ]; then
		data=$(cd "$data" && pwd)
		mount --bind -o ro "$data" "$m/data"
		set -- reproduce --data /data --out /out
	fi
	chroot "$m" /usr/bin/streamtime "$@"
	exit $?
fi
if [ -n "$data" ]; then
	data=$(cd "$data" && pwd)
	exec "$engine" run --rm -v "$data:/data:ro" -v "$out:/out" \
		--user "$(id -u):$(id -g)" "$tag" reproduce --data /data --out /out
fi
exec "$engine" run --rm -v "$out:/out" --user "$(id -u):$(id -g)" "$tag"
