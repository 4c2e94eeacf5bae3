/* trace_inputs.h - what the trace commands share about their inputs: the
 * system-trace option rows, and the library's input collection
 * (trace_inputs.h, trace_sets.h) with what it found said on stderr. */
#ifndef STREAMTIME_CMD_TRACE_INPUTS_H
#define STREAMTIME_CMD_TRACE_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/trace_cache.h"
#include "streamtime/trace_inputs.h"
#include "streamtime/trace_sets.h"

#define ST_TRACE_SYS_OPT_ROWS(so) \
	{ ST_O("date", 0, ST_OPT_STRING, &(so).date, "YYYY-MM-DD", \
	       "system traces: the local date of the time-align trace's " \
	       "times of day (default: the date in cpu.out's mpstat header " \
	       "or gpu.out's Date column)", 0) }, \
	{ ST_O("tz", 0, ST_OPT_ZONE, &(so).tz, "ZONE", \
	       "system traces: the IANA zone of those local times (default " \
	       "UTC, or the zone in trace record's manifest.json)", 0) }, \
	{ ST_O("names", 0, ST_OPT_PATH, &(so).names, "FILE", \
	       "system traces: process names, a line 'PID NAME' each ('#' " \
	       "comments); they win over the names found in the traces", 0) }

/* --cache DIR and --cache-max MB of summary and compare (struct
 * trace_cache_opt). */
struct trace_cache_opt {
	const char *dir;            /* NULL: $STREAMTIME_CACHE, or none */
	int64_t max_mb;
};

#define ST_TRACE_CACHE_OPT_ROWS(co) \
	{ ST_O("cache", 0, ST_OPT_PATH, &(co).dir, "DIR", \
	       "keep each file's partial results in DIR (default " \
	       "$STREAMTIME_CACHE; off without either), keyed by the file's " \
	       "device, inode, size, mtime, ctime, head and tail and by the " \
	       "options: a rerun reads only the files that changed, and " \
	       "prints the same (docs/trace.md, Result cache)", 0) }, \
	{ ST_O("cache-max", 0, ST_OPT_INT, &(co).max_mb, "MB", \
	       "at most MB megabytes (2^20 bytes) of entries in the cache " \
	       "(default 1024); the least recently used go first", 0), \
	  .min = 1, .max = INT64_C(1) << 40, \
	  .expect = "a positive number of megabytes" }

/* The cache CO asks for opened into C: 1 on, 0 off (no --cache nor
 * $STREAMTIME_CACHE, or a DIR that cannot be made: a warning, and the
 * run goes on without it). */
int trace_cache_begin(st_trace_cache *c, const struct trace_cache_opt *co,
		      const char *prog);

/* What the run did with C said (-v; its warning always), C released. */
void trace_cache_end(st_trace_cache *c, bool on, const char *prog);

/* Say NT's notes on stderr, in order (errors, warnings, and with -v the
 * verbose ones) and empty it.  Returns the exit status they ask for
 * (st_trace_notes_status). */
int trace_notes_say(st_trace_notes *nt);

/* NT said, then ERR's failure when R (a library call's return) < 0.
 * The exit status. */
int trace_notes_said(st_trace_notes *nt, int r, const st_error *err);

/* The library's calls, what they found said: each returns the exit
 * status (74 out of memory), 0 when all is well. */
int trace_inputs_open(struct st_trace_inputs *in, struct st_trace_sets *ts,
		      char *const *args, size_t n,
		      const struct st_trace_sys_opts *so, size_t max_bad);
int trace_sets_check(char *const *dirs, size_t n);
int trace_sets_open(struct st_trace_sets *ts, char *const *dirs, size_t n,
		    const struct st_trace_sys_opts *so, size_t max_bad,
		    char ***paths, size_t *npaths);
int trace_sets_phases(struct st_trace_sets *ts);
int trace_inputs_report(const st_trace_file *files, size_t nfiles,
			const st_trace_bad *bad, size_t nbad,
			uint64_t bad_lines, const st_systrace_list *sets);

/* --filter F of the trace commands: one more AND of terms into the
 * st_trace_filter at O->target (64 when F does not parse). */
struct st_option;
int trace_opt_filter(const struct st_option *o, char *arg, st_error *err);

#endif
