#!/bin/sh
# Run `streamtime reproduce` in the image on a data directory:
#   docker/run.sh [--dry-run] [DATA] [OUT] [TAG]
# DATA (default: the sample shipped in the image) is mounted read-only at
# /data; OUT (default: ./out) at /out, where the outputs, the figures, the
# timeline and report.html appear.  The comparison table goes to stdout.
#
# The engine (said on stderr): docker when its daemon answers, else podman
# (docker/engine.sh); STREAMTIME_ENGINE=docker|podman forces one.
# STREAMTIME_ENGINE=podman-chroot runs the image without a container
# runtime: `podman image mount`, bind mounts, chroot (root only; for
# machines where `podman run` cannot work, as in tests/docker/).
# --dry-run prints the engine's command instead of running it.
set -eu
dry=
if [ "${1:-}" = --dry-run ]; then
	dry=1
	shift
fi
data=${1:-}
out=${2:-out}
tag=${3:-streamtime}
# shellcheck source=docker/engine.sh
. "$(dirname "$0")/engine.sh"
pick_engine run.sh
if [ -n "$dry" ]; then
	# nothing is made: the paths as given, made absolute where they exist
	[ -n "$data" ] && [ -d "$data" ] && data=$(cd "$data" && pwd)
	[ -d "$out" ] && out=$(cd "$out" && pwd)
	if [ "$engine" = podman-chroot ]; then
		in=/usr/share/streamtime/data
		[ -n "$data" ] && in=/data
		echo chroot "(podman image mount $tag)" /usr/bin/streamtime \
			reproduce --data "$in" --out /out
	elif [ -n "$data" ]; then
		echo "$engine" run --rm -v "$data:/data:ro" -v "$out:/out" \
			--user "$(id -u):$(id -g)" "$tag" reproduce --data /data --out /out
	else
		echo "$engine" run --rm -v "$out:/out" --user "$(id -u):$(id -g)" "$tag"
	fi
	exit 0
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
