#!/usr/bin/env bash
# Build the Docker image and run it, for real, on a machine without a Docker
# engine (../shared/recipes/README.md):
#   1. a Debian bookworm base made by debootstrap, imported into podman as
#      debian:bookworm-slim (no registry is reachable);
#   2. docker/build.sh with podman (--isolation chroot, --pull=never);
#   3. docker/run.sh with STREAMTIME_ENGINE=podman-chroot (podman run
#      cannot work in this sandbox: it forbids setrlimit);
# then checks what the run printed and wrote.  Needs root; installs podman
# and debootstrap when missing.  .ci/run calls it when CI_DOCKER=1.
#
#   tests/docker/run.sh            (about 5 minutes the first time)
# ST_DOCKER_BASE=DIR keeps the debootstrap base between runs (default
# /var/tmp/streamtime-bookworm-base).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
# Cannot run is a skip (77) only off CI; under CI=true it is a failure, and
# so is anything that does not come up (tests/cli/setup_rule.py's rule).
on_ci() { case "${CI:-}" in "" | 0 | false | no) return 1 ;; esac; }
if [ "$(id -u)" -ne 0 ]; then
	if on_ci; then
		echo "tests/docker: FAIL: needs root (podman image mount, chroot) and CI=$CI allows no skip" >&2
		exit 1
	fi
	echo "tests/docker: needs root (podman image mount, chroot): skipped" >&2
	exit 77
fi
bash tests/install_packages.sh podman debootstrap || {
	echo "tests/docker: FAIL: cannot install podman and debootstrap" >&2
	exit 1
}

fails=0
try() {     # try WHAT COMMAND...: run it, say ok or FAIL, go on either way
	local what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAIL: $what" >&2
		fails=$((fails + 1))
	fi
}

base=${ST_DOCKER_BASE:-/var/tmp/streamtime-bookworm-base}
if ! podman image exists docker.io/library/debian:bookworm-slim; then
	if [ ! -x "$base/bin/sh" ]; then
		rm -rf "$base"
		debootstrap --variant=minbase bookworm "$base" \
			http://deb.debian.org/debian >&2 || {
			echo "tests/docker: FAIL: cannot set up the base: debootstrap failed" >&2
			exit 1
		}
	fi
	tar -C "$base" -c . | podman import - localhost/debian:bookworm-slim >&2
	podman tag localhost/debian:bookworm-slim \
		docker.io/library/debian:bookworm-slim
fi

tag=streamtime-test
t0=$(date +%s)
try "docker/build.sh builds the image" env STREAMTIME_ENGINE=podman \
	STREAMTIME_BUILD_OPTS="--isolation chroot --pull=never" \
	docker/build.sh "$tag"
echo "build: $(( $(date +%s) - t0 )) s"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {     # run DATA OUT > table: docker/run.sh without a container runtime
	STREAMTIME_ENGINE=podman-chroot docker/run.sh "$1" "$2" "$tag"
}

# the shipped sample, built into the image
try "docker/run.sh on the shipped sample" \
	sh -c "$(declare -f run); tag=$tag; run '' '$tmp/sample' > '$tmp/sample.txt'"
try "the comparison table on stdout" grep -q \
	'^| size | file transfer (s) | streaming (s) | enhancement |$' \
	"$tmp/sample.txt"
for f in report.html timeline.json statistics/statistics_table.csv \
	 file_transfer/merged_job_info.csv; do
	try "run.sh wrote $f" test -s "$tmp/sample/$f"
done

# a mounted data directory: the paper's, when it is beside the checkout
if [ -d "$root/../shared/paper-data" ]; then
	try "docker/run.sh on a mounted data directory" \
		sh -c "$(declare -f run); tag=$tag; run '$root/../shared/paper-data' '$tmp/paper' > '$tmp/paper.txt'"
	try "the paper's 128x128 row" grep -q \
		'^| 128 | 52.0 ± 30.6 | 4.0 ± 0.0 | 13.0 |$' "$tmp/paper.txt"
	try "the paper's 1024x1024 row" grep -q \
		'^| 1024 | 442.6 ± 53.5 | 97.2 ± 4.1 | 4.6 |$' "$tmp/paper.txt"
elif on_ci; then
	echo "FAIL: no paper data at $root/../shared/paper-data (CI=$CI)" >&2
	fails=$((fails + 1))
else
	echo "skipped: the mounted data directory (no $root/../shared/paper-data)" >&2
fi

# the runtime image carries no compiler and no headers
m=$(podman image mount "$tag")
try "no compiler in the runtime image" \
	sh -c "! chroot '$m' sh -c 'command -v gcc || command -v cc'"
try "no -dev headers in the runtime image" test ! -e "$m/usr/include/jansson.h"
try "streamtime --version in the image" chroot "$m" /usr/bin/streamtime --version
podman image unmount "$tag" >/dev/null
echo "image size: $(podman image inspect "$tag" --format '{{.Size}}') bytes"

if [ "$fails" -ne 0 ]; then
	echo "tests/docker: $fails check(s) failed" >&2
	exit 1
fi
echo "tests/docker: all checks passed"
