/* trace_cache.h - the result cache of `trace summary` and `trace compare`
 * (--cache DIR, issue 27 item 3).
 *
 * An entry is the partial `--save-partial` writes (sum_partial.h,
 * trace_compare.h; a summary's in its binary form, which reads back
 * about 20 times faster), of one input file or of a whole run's inputs,
 * in a file DIR/st1-DIGEST.entry.  DIGEST is the SHA-256 of the entry's key:
 * the kind (summary, compare; one file or a run), streamtime's version
 * and build (the identity of the executable or shared object holding
 * this code: a rebuilt streamtime starts afresh), the partial format's
 * version, the options that change the computation
 * (a summary's filter, categories, --group-by, --per and
 * --time-granularity as its partial's "options"; compare's metrics file
 * text), how many corrupt lines are kept by number, and per input its
 * identity: device, inode, size, mtime and ctime (nanoseconds) and the
 * SHA-256 of its first and last 4 KiB.  ctime changes on every write and
 * cannot be set back, so a file rewritten in place with its size and
 * mtime restored is a new key; a file changed less than 2 s before it is
 * read is not kept (timestamps are coarse: a second write within the
 * same tick could leave its ctime as it was).
 *
 * An entry is "streamtime-cache 1\n", the key's digest, the payload's
 * length and SHA-256, then the payload: any other file is ignored (a
 * miss) and replaced.  Entries are written to a temporary in DIR and
 * renamed (never beside the inputs); a hit sets the entry's mtime, and a
 * run that wrote entries then removes the least recently used ones
 * until DIR's entries fit the bound, under an flock on DIR/st1.lock (a
 * run that finds it held leaves the eviction to the holder).  Readers
 * take no lock: an entry is never changed once it is renamed.
 *
 * A gzip input of 1 MiB or more also gets, on the read that makes its
 * entry, its access points (zran.h: every 8 MiB of content, where a
 * deflate block starts) kept as the entry of the kind "zran" and its
 * identity; a later run with at least twice as many jobs as inputs
 * reads such a file in ranges from them, one thread each, and gives the
 * same answers (docs/trace.md says how many; a range that fails its
 * checks drops them and the file is read from its start).
 *
 * A run is served whole from its run entry (a summary of one input:
 * from its file entry) when every input is as before; otherwise each unchanged file from its file entry and the
 * others read, then merged as `trace merge` merges partials: the output
 * is the one the run gives without the cache.  Not cached, read every
 * time: standard input and what is not a regular file, a file with a
 * read error or a damaged gzip stream (its message is said again), and
 * runs with system-trace directories, compare's events metrics or
 * --save-partial (the cache is not used for them). */
#ifndef STREAMTIME_TRACE_CACHE_H
#define STREAMTIME_TRACE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/trace.h"
#include "streamtime/trace_compare.h"
#include "streamtime/trace_inputs.h"

/* The default bound of a cache directory's entries. */
#define ST_TRACE_CACHE_MAX_DEFAULT (UINT64_C(1) << 30)

/* What a run did with the cache. */
typedef struct st_trace_cache_stats {
	uint64_t hits, misses;      /* file entries (a run entry: hits) */
	bool run_hit;               /* served whole from the run entry */
	uint64_t written, evicted;  /* entries */
	uint64_t uncached;          /* inputs that cannot be cached */
	uint64_t recent;            /* inputs changed less than 2 s ago:
				     * read, not kept yet */
	uint64_t split;             /* read in ranges (access points) */
	uint64_t indexed;           /* access points built and kept */
	char warning[256];          /* "" or why the cache was not written
				     * (the run's answer is right anyway) */
} st_trace_cache_stats;

typedef struct st_trace_cache {
	char *dir;                  /* owned */
	uint64_t max_bytes;
	st_trace_cache_stats st;
} st_trace_cache;

/* The cache at DIR (created when missing) bounded to MAX_BYTES into C.
 * 0, or -1 with ERR set (73: DIR cannot be created; 74). */
int st_trace_cache_open(st_trace_cache *c, const char *dir,
			uint64_t max_bytes, st_error *err);
void st_trace_cache_release(st_trace_cache *c);

/* The cache in DIR (NULL: $STREAMTIME_CACHE; none, or "": off) of at most
 * MAX_MB megabytes (2^20 bytes; 0: 1024) opened into C for the command
 * PROG: 1 on, 0 off (also when DIR cannot be made: a warning in NT, and
 * the run goes on without it), -1 with ERR set when memory runs out. */
int st_trace_cache_begin(st_trace_cache *c, const char *dir, int64_t max_mb,
			 const char *prog, st_trace_notes *nt, st_error *err);

/* What the run did with C, opened by st_trace_cache_begin, into NT: its
 * warning, then (verbose) its counts; C released.  0, or -1 with ERR set
 * when memory runs out. */
int st_trace_cache_end(st_trace_cache *c, const char *prog,
		       st_trace_notes *nt, st_error *err);

/* The identity of the input PATH into BUF (SIZE bytes, at least 160):
 * "DEV INO SIZE MTIME CTIME HEADTAIL" (times in nanoseconds, HEADTAIL
 * the hex SHA-256 of its first and last 4 KiB).  1 when PATH cannot be
 * cached (standard input "-", not a regular file, cannot be stat'ed or
 * read: it is read without the cache), 0. */
int st_trace_cache_file_id(const char *path, char *buf, size_t size);

/* The hex SHA-256 of TEXT[0..LEN) into HEX. */
void st_trace_cache_digest(const char *text, size_t len, char hex[65]);

/* st_trace_summarize of PATHS[0..N) with O (GROUP and PER the
 * --group-by and --per texts, NULL when not given) through the cache C:
 * the same summary, what could be cached taken from C or put into it.
 * Without the cache's conditions (O reads system traces or skips the
 * unions) it is st_trace_summarize.  0, or -1 with ERR set as
 * st_trace_summarize; release S either way. */
int st_trace_cache_summarize(st_trace_cache *c, const char *const *paths,
			     size_t n, const st_trace_opts *o,
			     const char *group, const char *per,
			     st_trace_summary *s, st_error *err);

/* st_trace_compare of CASES[0..N) with O, the metrics read from
 * METRICS_TEXT, through the cache C (as above; st_trace_compare when a
 * case has system traces or events, or O keeps the tables). */
int st_trace_cache_compare(st_trace_cache *c, st_compare_case *cases,
			   size_t n, const st_compare_opts *o,
			   const char *metrics_text, st_error *err);

#endif
