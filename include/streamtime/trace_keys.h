/* trace_keys.h - the keys of trace events (SPEC 5.12): what --group-by,
 * a metric's "per" and `trace events --keys` name.
 *
 * An event is seen through st_trace_rec, its fields as strings and
 * numbers, whatever source it came from (DFTracer, system traces).  A key
 * is one of:
 *   host      the host name;
 *   pid       the process: "HOST:PID" (HOST "?" when the event names
 *             none), as `trace summary --group-by pid` writes it;
 *   thread    the thread: "HOST:PID:TID";
 *   name, cat, file   as the event gives them;
 *   basename  the file's last component, trailing slashes ignored:
 *             "/a/b.pt" -> "b.pt", "/a/b/" -> "b", "b" -> "b"; a path of
 *             slashes only is "/"; the empty path is "";
 *   pattern   the basename with every run of digits and '-' replaced by
 *             one '*': a run is a maximal sequence of consecutive bytes
 *             each an ASCII digit 0-9 or '-' (a lone '-' is a run too),
 *             so "ckpt-00012_rank3.pt" -> "ckpt*_rank*.pt", "0042" -> "*",
 *             "a-b" -> "a*b"; other bytes (UTF-8 included) are kept;
 *   prefix:N  the file's first N components (N 1..64) as
 *             st_trace_prefix_len (trace_path.h) cuts them: components
 *             are the non-empty pieces between slashes, the prefix runs
 *             from the start of the path to the end of the Nth
 *             ("/p/lustre1/x/y" at 2 is "/p/lustre1", "a//b/c" at 2 is
 *             "a//b"); a path with N components or fewer is whole, less
 *             its trailing slashes ("/a/b/" at 5 is "/a/b", "/" stays
 *             "/");
 *   phase     the application phase the event starts in (epochs, from
 *             system traces): st_trace_rec.phase, as trace summary and
 *             trace compare take it from the phases of the system-trace
 *             sets read with the event (st_trace_opts.seg_phase,
 *             st_compare_case.seg_phase); none without them.
 * An event without a host has no host value, one without a file no
 * file, basename, pattern or prefix value (ST_TRACE_KEY_NONE); the
 * caller says how to show that ("(none)", an empty cell, null).
 */
#ifndef STREAMTIME_TRACE_KEYS_H
#define STREAMTIME_TRACE_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/trace_path.h"

enum st_trace_key_kind {
	ST_TRACE_KEY_HOST, ST_TRACE_KEY_PID, ST_TRACE_KEY_THREAD,
	ST_TRACE_KEY_NAME, ST_TRACE_KEY_CAT, ST_TRACE_KEY_FILE,
	ST_TRACE_KEY_BASENAME, ST_TRACE_KEY_PATTERN, ST_TRACE_KEY_PREFIX,
	ST_TRACE_KEY_PHASE, ST_TRACE_KEY_N
};

typedef struct st_trace_key {
	enum st_trace_key_kind kind;
	int depth;                /* prefix:N: N; else 0 */
} st_trace_key;

#define ST_TRACE_KEYS_MAX 16

/* A list of keys, in the order given ("pattern,pid"). */
typedef struct st_trace_keys {
	st_trace_key v[ST_TRACE_KEYS_MAX];
	size_t n;
} st_trace_keys;

/* One event as the keys see it: strings with their lengths (not
 * NUL-terminated, borrowed); HOST, FILE and PHASE NULL when the event
 * has none. */
typedef struct st_trace_rec {
	const char *name, *cat, *host, *file, *phase;
	size_t name_len, cat_len, host_len, file_len, phase_len;
	int64_t pid, tid;
} st_trace_rec;

/* st_trace_key_format's answer for an event without a value of the key. */
#define ST_TRACE_KEY_NONE SIZE_MAX

/* Parse LIST, "KEY[,KEY...]", into K (set afresh).  Usage errors (64)
 * name the bad key and, when one is close, what was meant: an unknown
 * key ("'patern': not a key; did you mean 'pattern'? ..."), an empty one
 * (",", "pid,"), prefix without a depth 1-64, a key given twice, more
 * than ST_TRACE_KEYS_MAX.  The empty LIST is no key (K->n 0). */
int st_trace_keys_parse(st_trace_keys *k, const char *list, st_error *err);

/* The key's name as it is written ("pattern", "prefix:2") into BUF
 * (SIZE bytes, 16 are enough), NUL-terminated; returns BUF. */
const char *st_trace_key_name(const st_trace_key *k, char *buf, size_t size);

/* The value of key K for event E, written to BUF (at most SIZE - 1 bytes
 * and a NUL; BUF may be NULL when SIZE is 0), as snprintf: the value's
 * length is returned even when it did not fit (then call again with
 * more room), or ST_TRACE_KEY_NONE when E has no value of K (BUF then
 * holds ""). No allocation. */
size_t st_trace_key_format(const st_trace_key *k, const st_trace_rec *e,
			   char *buf, size_t size);

#endif
