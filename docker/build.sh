#!/bin/sh
# Build the streamtime image from the repository root:
#   docker/build.sh [TAG]        (default tag: streamtime)
# Uses docker, or podman when there is no docker (STREAMTIME_ENGINE=podman
# forces it).  Extra engine options: STREAMTIME_BUILD_OPTS.
set -eu
cd "$(dirname "$0")/.."
tag=${1:-streamtime}
engine=${STREAMTIME_ENGINE:-}
if [ -z "$engine" ]; then
	if command -v docker >/dev/null 2>&1; then engine=docker
	elif command -v podman >/dev/null 2>&1; then engine=podman
	else echo "build.sh: neither docker nor podman found" >&2; exit 69
	fi
fi
# shellcheck disable=SC2086
exec "$engine" build ${STREAMTIME_BUILD_OPTS:-} -f docker/Dockerfile -t "$tag" .
