/* trace.h - summaries and timelines of DFTracer I/O traces (SPEC 5.10).
 *
 * st_trace_summarize() reads the files in parallel (one file per thread at
 * a time, largest first) and merges what each thread gathered.  Everything
 * it reports is a sum, a maximum, a set or a sorted list, so the result is
 * the same for any number of threads and any order of completion.
 *
 * Definitions (what the summary's numbers mean):
 *   events      X events that pass the filter;
 *   host        args.hostname, or args.hhash resolved; hosts counts the
 *               distinct names (events without one add none);
 *   process     a distinct (host, pid) pair; thread a (host, pid, tid);
 *   files       distinct file names (args.fname, or args.fhash resolved);
 *   span        first ts to the last ts + dur;
 *   bytes       st_pfw_event_bytes (pfw.h);
 *   read, write a read or write call: a name that holds "read" or
 *               "write" (not "readdir" or "readlink": the calls whose
 *               bytes are args.ret) and does not start with "bio" (a
 *               block device's, under a call already counted); a name
 *               holding both is a write (DFAnalyzer's order).  Other
 *               events with bytes (args.size, args.image_size) are in
 *               bytes only: bytes_read + bytes_written <= bytes;
 *   I/O time    per process, the length of the union of the intervals
 *               [ts, ts + dur) of its events whose category is an I/O
 *               category; io_us is the sum over processes (io_max_us the
 *               largest process);
 *   compute     the same over the compute categories;
 *   unoverlapped  the I/O union minus the compute union (and the other way
 *               round), exactly, per process, summed;
 *   groups      (--group-by KEYS) per distinct tuple of the keys' values
 *               (an event without a value of a key: "(none)"; host "";
 *               phase: seg_phase's, by the event's start),
 *               count, dur, bytes, and the largest sum of dur and of bytes
 *               over the per units (--per KEYS, default pid) inside it.
 * Sums (bytes, dur, time) stop at INT64_MAX instead of wrapping, and
 * st_trace_summary.saturated says that one did.
 */
#ifndef STREAMTIME_TRACE_H
#define STREAMTIME_TRACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/interval.h"
#include "streamtime/pfw.h"
#include "streamtime/strtab.h"
#include "streamtime/trace_filter.h"
#include "streamtime/trace_keys.h"

/* ---- intervals ------------------------------------------------------- */

/* An event's [s, e); st_interval_union, _length and _overlap
 * (streamtime/interval.h) work on them. */
typedef st_interval st_trace_iv;

/* ---- grouping -------------------------------------------------------- */

/* --group-by and --per take keys (trace_keys.h, SPEC 5.12). */

/* ---- where events come from ------------------------------------------ */

struct st_ctrace;

/* Inputs that are not DFTracer files (system traces, systrace.h) plug in
 * here; every member may be NULL (the DFTracer behaviour). */
typedef struct st_trace_source {
	/* Open PATH as st_pfw_open does; TRACKS: the timeline's tids name
	 * tracks (see track_name). */
	st_pfw_reader *(*open)(const void *ctx, const char *path, bool tracks,
			       st_error *err);
	/* The name of process (HOST, PID) into BUF and its place among the
	 * processes (*SORT, smaller first); false: the default. */
	bool (*proc_name)(const void *ctx, const char *host, int64_t pid,
			  char *buf, size_t size, int64_t *sort);
	/* The name of track TID into BUF; false: "tid T". */
	bool (*track_name)(const void *ctx, int64_t tid, char *buf,
			   size_t size);
	/* More args of the event R returned last. */
	void (*event_args)(const void *ctx, const st_pfw_reader *r,
			   struct st_ctrace *w);
	/* Events after the slices, on processes from PID0 (*USED of them). */
	int (*extras)(const void *ctx, struct st_ctrace *w, int64_t pid0,
		      int64_t *used, st_error *err);
	/* Members of otherData, each written as ",\"key\":value". */
	void (*meta)(const void *ctx, struct st_ctrace *w);
	const void *ctx;
} st_trace_source;

/* ---- summary --------------------------------------------------------- */

/* Counters a progress meter may read while st_trace_* runs: all of them
 * atomic, since the meter's thread reads them while the readers (and, for
 * total_bytes, st_trace_timeline_write) change them. */
typedef struct st_trace_progress {
	_Atomic uint64_t bytes;     /* input bytes consumed (compressed) */
	_Atomic uint64_t events;
	_Atomic uint64_t total_bytes;  /* set by the caller; the timeline
					* multiplies it by its passes (3) */
} st_trace_progress;

typedef struct st_trace_opts {
	const char *const *io_cats;        /* NULL: POSIX, STDIO */
	size_t n_io;
	const char *const *compute_cats;   /* NULL: compute */
	size_t n_compute;
	const st_trace_filter *filter;     /* NULL: every event */
	st_trace_keys group;               /* n 0: no groups */
	st_trace_keys per;                 /* the unit of the groups' maxima;
					    * n 0: pid */
	int64_t granularity_us;            /* > 0: time bins of this width */
	bool no_overlap;                   /* skip the interval unions */
	int jobs;                          /* threads; < 1 means 1 */
	size_t max_bad;                    /* corrupt lines kept by number */
	st_trace_progress *progress;       /* may be NULL */
	const st_trace_source *src;        /* NULL: DFTracer files only */
	bool tracks;                       /* src->open's TRACKS */
	/* NULL, or the opener of input I (PATHS[I] a name only): the
	 * ranges of one file read at once (trace_cache.c) */
	st_pfw_reader *(*open_at)(const void *ctx, size_t i, st_error *err);
	const void *open_ctx;
	const int64_t *seg_us;             /* > 1 sorted bounds: per segment
					    * [seg_us[i], seg_us[i+1]) the
					    * events starting in it are
					    * counted into segs */
	size_t nseg;
	const char *const *seg_phase;      /* NULL, or nseg names: [i] the
					    * phase of [seg_us[i], seg_us[i+1])
					    * ([nseg-1]: from seg_us[nseg-1]
					    * on), NULL none: the key phase */
} st_trace_opts;

/* At most this many time bins that hold anything (empty bins are not
 * listed), and 100 times as many bin visits by the unions. */
#define ST_TRACE_MAX_BINS 1000000

typedef struct st_trace_stat {
	const char *key;        /* borrowed from the summary; as shown: the
				 * escaped text of the name (text.h) */
	uint64_t count;
	int64_t dur_us, bytes;
	/* groups only: */
	int64_t max_proc_dur_us;  /* the largest sum of dur over the per
				   * units (processes by default) in it */
	int64_t max_per_bytes;    /* the same for bytes */
	const char *max_dur_key, *max_bytes_key;  /* those units as
				   * max_dur_key is written (the per keys'
				   * values joined by ','), the smallest key
				   * (strcmp) on ties; max_bytes_key NULL
				   * when no event of the group has bytes */
	const char *const *keys;  /* the group's key values, one per key of
				   * --group-by (key is their escaped texts,
				   * text.h, joined by ',') */
	const size_t *key_lens;   /* their lengths (a value may hold NULs) */
	uint64_t sized;           /* events with bytes */
	double q1, median, q3;    /* their bytes' quartiles, interpolated
				   * linearly at (n-1)p of the sorted values
				   * (SPEC 5.7, as st_stats_quantile_sorted);
				   * 0 if none */
} st_trace_stat;

typedef struct st_trace_bin {
	int64_t start_us;         /* a multiple of the granularity */
	uint64_t events;          /* events starting in the bin */
	int64_t bytes;            /* of those events */
	int64_t bytes_read;       /* of those, the read calls' and */
	int64_t bytes_written;    /* the write calls' (see below) */
	int64_t io_us, compute_us;  /* union time in the bin, summed over
				     * processes */
} st_trace_bin;

/* The events that start in a segment of st_trace_opts.seg_us. */
typedef struct st_trace_seg {
	uint64_t events;
	int64_t io_us;            /* their durations summed, I/O categories */
	int64_t read_bytes, write_bytes;   /* read and write calls (see
					    * the definitions above) */
	uint64_t reads, writes;
} st_trace_seg;

typedef struct st_trace_process {
	const char *host;         /* "" when unknown (borrowed) */
	int64_t pid;
	uint64_t events;
	int64_t io_us, compute_us;
	int64_t *tids;            /* sorted, owned by the summary */
	size_t ntids;
} st_trace_process;

typedef struct st_trace_file {
	const char *path;         /* borrowed from the caller */
	st_pfw_stats st;
	int err_code;             /* 65 damaged gzip, 66, 74; 0 none */
	char *err_text;           /* owned */
	bool not_trace;           /* read to its end and no line is an
				   * event of any phase: empty, only "["
				   * and "]", or only corrupt lines */
	int64_t first_us, end_us; /* the span of its events (filter or
				   * not), when st.events > 0 */
} st_trace_file;

/* Inputs that look like unrelated runs: the largest gap between the
 * spans of FILES' events taken in time order, more than
 * ST_TRACE_SPAN_GAP_US (a day); 0 with *BEFORE and *AFTER the files on
 * either side, -1 when there is none. */
#define ST_TRACE_SPAN_GAP_US (INT64_C(86400) * 1000000)
int st_trace_span_gap(const st_trace_file *files, size_t n, size_t *before,
		      size_t *after, int64_t *gap_us);

typedef struct st_trace_bad {
	size_t file;              /* index into files */
	uint64_t line;
	char *why;                /* owned */
} st_trace_bad;

typedef struct st_trace_summary {
	uint64_t events, bad_lines, hosts, processes, threads, files;
	int64_t first_us, end_us;           /* no events: both 0 */
	int64_t io_us, compute_us, io_unoverlapped_us, compute_unoverlapped_us;
	int64_t io_max_us, compute_max_us;  /* the largest process */
	st_trace_stat *by_cat, *by_name, *groups;  /* sorted by key */
	size_t n_cat, n_name, n_groups;
	const char **group_keys;            /* owned: the groups' keys */
	size_t *group_key_lens;             /* owned: their lengths */
	st_trace_bin *bins;
	size_t n_bins;
	st_trace_seg *segs;                 /* nseg - 1 of them */
	size_t n_segs;
	st_trace_process *procs;            /* sorted by host, pid */
	size_t n_procs;
	st_trace_file *files_in;            /* one per path, in order */
	size_t n_files;
	st_trace_bad *bad;                  /* the first max_bad, in order */
	size_t n_bad;
	bool saturated;    /* a sum of bytes or time passed INT64_MAX and is
			    * INT64_MAX (capped, never wrapped) */
	st_strtab strings;                  /* the keys */
} st_trace_summary;

/* Read PATHS[0..N) and summarise them into S.  A file that cannot be
 * opened, a damaged gzip stream or a read error is recorded in
 * S->files_in (what was read before it counts) and does not stop the
 * others.  Returns 0, or -1 with ERR set when memory runs out, the
 * temporary file of the I/O-time unions fails (74) or there are too many
 * time bins (64); release S either way. */
int st_trace_summarize(const char *const *paths, size_t n,
		       const st_trace_opts *o, st_trace_summary *s,
		       st_error *err);

void st_trace_summary_release(st_trace_summary *s);

/* The trace commands' default of --jobs: the cores online, at least 1,
 * at most MAX (0: no limit). */
int st_trace_jobs_default(int max);

/* --io-cat or --compute-cat (OPT, for the message) LIST, cut in place,
 * into *V (its names, pointing into LIST; the old *V freed, the new one
 * the caller's to free) and *N: "" is no category (*V not NULL, *N 0),
 * else names joined by commas, none of them empty ("," or "POSIX," must
 * not quietly mean the default: 64).  0, or -1 with ERR set. */
int st_trace_cats_parse(const char *opt, char *list, const char ***v,
			size_t *n, st_error *err);

#endif
