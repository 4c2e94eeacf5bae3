/* trace_path.h - the pieces of an event's file path that keys
 * (trace_keys.h) and filters (trace.h) both name: its basename, the
 * pattern of that basename, and its first N components.
 *
 * Plain byte work on PATH[0..LEN): no allocation, no NUL needed.
 */
#ifndef STREAMTIME_TRACE_PATH_H
#define STREAMTIME_TRACE_PATH_H

#include <stddef.h>

/* The basename of PATH[0..LEN) (trace_keys.h): its offset in *OFF, its
 * length returned. */
size_t st_trace_basename(const char *path, size_t len, size_t *off);

/* The pattern of S[0..LEN) (trace_keys.h: runs of digits and '-' as '*';
 * never longer than S) into OUT, at most CAP bytes of it (no NUL added);
 * returns its whole length. */
size_t st_trace_pattern(const char *s, size_t len, char *out, size_t cap);

/* The length of PATH[0..LEN)'s first DEPTH components: "/p/lustre1/x/y"
 * at depth 2 is "/p/lustre1", "a/b/c" at depth 2 "a/b"; a path with fewer
 * components is whole.  Repeated slashes count once. */
size_t st_trace_prefix_len(const char *path, size_t len, int depth);

#endif
