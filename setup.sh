#!/usr/bin/env bash
# Install what streamtime needs on Debian 12, then configure and build it.
# Safe to run again: packages already present are not reinstalled, an
# existing build directory is reused.
#
#   ./setup.sh                 packages + build/ (the README's Quick start)
#   BUILD=dir ./setup.sh -Dx=y packages + another build directory, meson options
#   SETUP_PACKAGES=build ./setup.sh -Dtests=false   build packages only
set -euo pipefail
cd "$(dirname "$0")"
build=${BUILD:-build}

# what building needs
build_packages=(
	gcc libc6-dev meson ninja-build pkg-config
	# libraries
	libjansson-dev libpq-dev libcurl4-openssl-dev libcsv-dev zlib1g-dev
	# ISA-L: .pfw.gz inflated about 3x as fast as by zlib (meson -Disal)
	libisal-dev
	# nettle: the SHA-256 of every input in reproduce's provenance.json
	nettle-dev
	# figures: cairo, libpng, and a font Debian ships
	libcairo2-dev libpng-dev fonts-dejavu-core
	# the Python module (import streamtime) for Debian's /usr/bin/python3
	python3-dev
	# the time zone database, read at run time
	tzdata
)
# what building and running the tests needs besides: CMocka, and Python
# (stdlib only) for the independent checks.  The servers and tracers of the
# suites that start them (sshd, PostgreSQL, bpftrace, mpstat, strace,
# libfaketime, Slurm, Chromium) are installed by those suites on first use,
# through tests/install_packages.sh, never here.
test_packages=(libcmocka-dev python3)
# SETUP_PACKAGES=build (the Docker image's build stage): no test packages,
# and configure with -Dtests=false yourself
packages=("${build_packages[@]}")
[ "${SETUP_PACKAGES:-all}" = build ] || packages+=("${test_packages[@]}")
bash tests/install_packages.sh "${packages[@]}"

if [ ! -f "$build/build.ninja" ]; then
	# a directory left by a failed configure is configured afresh
	[ -d "$build/meson-logs" ] && meson setup --wipe "$build" "$@" >&2 ||
		meson setup "$build" "$@" >&2
elif [ $# -gt 0 ]; then
	meson configure "$build" "$@" >&2
fi
meson compile -C "$build" >&2
