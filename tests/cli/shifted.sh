#!/bin/sh
# shifted.sh SHIFT COMMAND [ARG...]: run COMMAND with its clock shifted by
# SHIFT seconds (e.g. +1.234), by preloading libfaketime directly.
#
# The `faketime` wrapper is not used: it makes a named semaphore and shared
# memory per call, keyed by its own pid, and leaves them in /dev/shm when
# it is killed; once pids wrap, a new wrapper with a reused pid fails with
# "sem_open: File exists".  Offsets (+S, -S) need none of that.
set -eu
[ $# -ge 2 ] || { echo "usage: shifted.sh SHIFT COMMAND [ARG...]" >&2; exit 64; }
shift_s=$1
shift
for lib in /usr/lib/*/faketime/libfaketime.so.1 \
           /usr/lib/faketime/libfaketime.so.1 \
           /usr/local/lib/faketime/libfaketime.so.1; do
    if [ -e "$lib" ]; then
        FAKETIME=$shift_s
        LD_PRELOAD=$lib${LD_PRELOAD:+:$LD_PRELOAD}
        # a sanitizer build's ASan runtime must not insist on coming first
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
        export FAKETIME LD_PRELOAD ASAN_OPTIONS
        exec "$@"
    fi
done
echo "shifted.sh: libfaketime.so.1 not found (apt-get install faketime)" >&2
exit 69
