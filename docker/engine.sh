# shellcheck shell=sh
# Sourced by docker/build.sh and docker/run.sh: pick the container engine.
#   pick_engine PROG   sets $engine, says on stderr which one and why
# STREAMTIME_ENGINE (docker, podman, podman-chroot) is taken as given.
# Otherwise docker when its daemon answers (`docker info`), else podman: a
# docker CLI without a daemon (none installed, none running, no access to
# its socket) is common, and `docker run` would only fail there.  Neither:
# exit 69 saying what was found.
pick_engine() {
	engine=${STREAMTIME_ENGINE:-}
	if [ -n "$engine" ]; then
		echo "$1: engine: $engine (STREAMTIME_ENGINE)" >&2
		return 0
	fi
	why=
	if command -v docker >/dev/null 2>&1; then
		if timeout 20 docker info >/dev/null 2>&1; then
			engine=docker
			echo "$1: engine: docker" >&2
			return 0
		fi
		why="docker is installed but its daemon does not answer (docker info failed)"
	fi
	if command -v podman >/dev/null 2>&1; then
		engine=podman
		echo "$1: engine: podman${why:+ ($why)}" >&2
		return 0
	fi
	echo "$1: no container engine: ${why:-neither docker nor podman found}${why:+, and podman is not installed}" >&2
	exit 69
}
