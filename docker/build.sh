#!/bin/sh
# Build the streamtime image from the repository root:
#   docker/build.sh [--dry-run] [TAG]        (default tag: streamtime)
# Uses docker when its daemon answers, else podman (docker/engine.sh; said
# on stderr); STREAMTIME_ENGINE=docker|podman forces one.  Extra engine
# options: STREAMTIME_BUILD_OPTS.  --dry-run prints the command instead.
set -eu
cd "$(dirname "$0")/.."
dry=
if [ "${1:-}" = --dry-run ]; then
	dry=1
	shift
fi
tag=${1:-streamtime}
# shellcheck source=docker/engine.sh
. docker/engine.sh
pick_engine build.sh
# shellcheck disable=SC2086
set -- build ${STREAMTIME_BUILD_OPTS:-} -f docker/Dockerfile -t "$tag" .
if [ -n "$dry" ]; then
	echo "$engine" "$@"
	exit 0
fi
exec "$engine" "$@"
