/* trace_int.h - what the trace/ files share, not a public interface.
 *
 * Summaries (SPEC 5.10): each thread takes whole files (largest first,
 * gather.c) and gathers into its own struct agg: ids of its own string
 * tables, counters indexed by them, a few pair maps, and per process the
 * intervals of its I/O and compute events.  The threads' aggs are then
 * merged by string key into the first one and finished (trace.c):
 * exact unions per process, quartiles, sorted lists.  Nothing depends on
 * which thread read which file.  Timelines (trace_timeline.c) read the files
 * twice more and give overlapping slices lanes (trace_timeline_lanes.c).
 */
#ifndef STREAMTIME_TRACE_INT_H
#define STREAMTIME_TRACE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include "streamtime/grow.h"
#include "streamtime/heap.h"
#include "streamtime/num.h"
#include "streamtime/pairmap.h"
#include "streamtime/trace.h"
#include "pass.h"

#define OOM(err) st_error_set(err, ST_EXIT_IOERR, "out of memory")


/* A run of a process's intervals in a temporary file (ivstore.c): N
 * disjoint intervals sorted by start at byte OFF of the store's file FILE;
 * LEVEL counts the merges that made it. */
struct ivseg {
	uint32_t file, level;
	uint64_t off, n;
};

/* A process's intervals of one kind: a growing list folded into its union
 * whenever it has doubled since the last fold, so that overlapping events
 * (threads, nested calls) do not cost memory, and the runs moved out of
 * memory when the agg's budget was reached. */
struct ivec {
	st_trace_iv *v;
	size_t n, cap, fold_at;
	struct ivseg *seg;
	size_t nseg, segcap;
};

/* An agg's temporary files (unlinked; its own and those of the aggs merged
 * into it) and how many intervals its vectors have room for (HELD, within
 * BUDGET: every vector is spilled and freed when one would grow past it). */
struct ivstore {
	int *fd;
	uint64_t *size;
	size_t nfd, fdcap;
	int own;                /* index of the file it writes, -1 none yet */
	size_t held, budget;
	int err;                /* errno of a failed read or write, 0 */
};

/* D_GROUP and D_PER hold the groups' and the per units' keys: the keys'
 * values joined by NUL (no value of an event holds one), exact; what is
 * shown joins them by ','. */
enum { D_NAME, D_CAT, D_HOST, D_FILE, D_GROUP, D_PER, D_N };

struct acc {
	uint64_t count;
	int64_t dur, bytes;
	uint8_t io, compute;    /* categories */
	uint8_t rw;             /* names: trace_name_rw */
};

/* Does table D count its strings' events (struct acc)?  Hosts, files
 * and per units do not: their acc is NULL, not 32 bytes a string. */
static inline bool trace_dim_counts(int d)
{
	return d == D_NAME || d == D_CAT || d == D_GROUP;
}

struct proc {
	uint32_t host;
	int64_t pid;
	uint64_t events;
	struct ivec io, comp;
};

/* The ids an event's keys read (ids of an agg's tables; file ST_PFW_NONE
 * when none). */
struct kev {
	uint32_t name, cat, host, file, proc;
	uint32_t seg;          /* phases: o->seg_phase's index + 1, 0 none */
	int64_t tid;
};

struct agg {
	const st_trace_opts *o;
	st_strtab tab[D_N];
	/* The files' names are not in tab[D_FILE], which stays empty: every
	 * file name the readers met (st_pfw_use_file_table), counted or
	 * not, is in the pool, one copy, compact (st_strtab_compact: a
	 * directory once), shared by the threads of a run
	 * (trace_agg_share_pool); the files counted are pool ids by file
	 * id.  trace_agg_n and trace_agg_str read a table of any D. */
	st_strtab *fpool;      /* another agg's own_pool, or NULL: G's own
				* (an agg may be moved) */
	st_strtab own_pool;
	uint32_t *fmap;        /* by pool id: file id + 1, 0 not counted */
	size_t fcap;
	uint32_t *files;       /* by file id: pool id */
	size_t nfiles, files_cap;
	/* false while each file's id is its pool id (the files counted in
	 * the order the pool met them, the usual case with one thread):
	 * fmap and files are not made */
	bool fmapped;
	char *fbuf;            /* a file's name read from the pool */
	size_t fbcap;
	struct acc *acc[D_N];
	size_t acc_cap[D_N];
	struct proc *procs;
	size_t nprocs, proc_cap;
	st_pairids procids;    /* (host, pid) -> proc */
	st_pairmap threads;    /* (proc, tid) */
	st_pairmap sizes;      /* (name, bytes) -> events */
	st_pairmap gper;       /* (group, 2 per) -> dur, (group, 2 per + 1)
				* -> bytes */
	/* A key list's value for an event is found from the event's ids
	 * without formatting: the ids its keys read (name, cat, host or file
	 * id, proc, tid) folded pairwise into one tuple id (fold), then
	 * (tuple, 0) -> group or per id + 1 (cache); only a new tuple is
	 * formatted. */
	st_pairids gfold, pfold;
	st_pairmap gcache, pcache;
	st_trace_keys per;     /* o->per, or pid */
	char *kb, *ib;         /* a key's value; a joined key */
	size_t kcap, icap;
	bool phase;            /* a key is phase and there are phases */
	struct kev klast;      /* the last event's ids */
	uint32_t kgroup, kper; /* and its group and unit */
	bool have_key;
	st_pairmap bins;       /* (bin, BIN_*) -> its events, bytes, ... */
	st_trace_seg *segs;    /* o->nseg - 1 of them, or NULL */
	uint64_t events;
	int64_t first, end;
	int64_t host_none;      /* the id of "" in tab[D_HOST], -1 */
	bool saturated;         /* a sum stopped at INT64_MAX */
	struct ivstore ivs;
	/* one-entry caches */
	uint32_t last_proc;     /* of the thread cache */
	int64_t last_tid;
	bool have_thread;
};

/* The pool of G's files' names. */
static inline st_strtab *trace_agg_pool(const struct agg *g)
{
	return g->fpool ? g->fpool : (st_strtab *)&g->own_pool;
}

/* The pool id of G's file ID. */
static inline uint32_t trace_agg_file_pid(const struct agg *g, uint32_t id)
{
	return g->fmapped ? g->files[id] : id;
}

/* The number of strings of G's table D. */
static inline uint32_t trace_agg_n(const struct agg *g, int d)
{
	return d == D_FILE ? (uint32_t)g->nfiles : g->tab[d].n;
}

/* String ID of G's table D (borrowed: a file's name until the next call
 * on G); *LEN its length.  NULL when memory runs out. */
static inline const char *trace_agg_str(struct agg *g, int d, uint32_t id,
					size_t *len)
{
	return d == D_FILE ? st_strtab_get(trace_agg_pool(g),
					   trace_agg_file_pid(g, id),
					   &g->fbuf, &g->fbcap, len)
			   : st_strtab_str(&g->tab[d], id, len);
}

/* Per reader string id: its id in each of the thread's tables (+ 1);
 * and the filter, whose answers the fset keeps per string id. */
struct rmap {
	uint32_t *tr[4];
	size_t cap[4];
	struct st_trace_fset fs;  /* empty without a filter */
};

struct run {
	const char *const *paths;
	size_t n;
	const st_trace_opts *o;
	size_t *order;            /* largest first */
	_Atomic size_t next;
	_Atomic int stop;
	st_trace_file *files;     /* by path index */
	st_trace_bad **bad;       /* by path index: the first max_bad */
	size_t *nbad;
};

struct worker {
	struct run *run;
	struct agg agg;
	st_error err;
	bool failed;
	pthread_t th;
};

/* *A += B for sums of bytes and times (A, B >= 0), stopping at INT64_MAX
 * and setting *SAT instead of wrapping: one event's ts and dur are bounded
 * by the reader (|x| <= 2^53), but its bytes are not, nor is a sum over
 * billions of events of a hostile trace.  Every term is >= 0, so a capped
 * sum is INT64_MAX however the terms were split between threads. */
static inline void sadd(int64_t *a, int64_t b, bool *sat)
{
	if (b > INT64_MAX - *a) {
		*a = INT64_MAX;
		*sat = true;
	} else {
		*a += b;
	}
}

/* The same for the values of the pair maps (A <= INT64_MAX). */
static inline void uadd(uint64_t *a, uint64_t b, bool *sat)
{
	if (b > (uint64_t)INT64_MAX - *a) {
		*a = (uint64_t)INT64_MAX;
		*sat = true;
	} else {
		*a += b;
	}
}

/* String ID of G's table D's counters: all zero for a table that does
 * not count (trace_dim_counts). */
static inline const struct acc *trace_acc(const struct agg *g, int d,
					  uint32_t id)
{
	static const struct acc none;

	return trace_dim_counts(d) ? &g->acc[d][id] : &none;
}

/* gather.c: open PATH through O's source (or st_pfw_open). */
st_pfw_reader *trace_open(const st_trace_source *src, const char *path,
			  bool tracks, st_error *err);

/* trace_filter.c: FIELD as a term names it ("name", "dur", ...). */
const char *trace_field_name(enum st_trace_field f);

/* gather.c */
void trace_agg_init(struct agg *g, const st_trace_opts *o);
void trace_agg_release(struct agg *g);
/* G, new, keeps its files' names in the pool of OWNER (which is neither
 * moved nor released before G), that threads then share.  0, -1 out of
 * memory. */
int trace_agg_share_pool(struct agg *g, struct agg *owner);
/* Merge B into A (B is emptied of its intervals); -1 out of memory. */
int trace_agg_merge(struct agg *a, struct agg *b);

/* The segment of SEG[0..NSEG) (st_trace_opts.seg_us) that TS falls in,
 * + 1 (NSEG: from the last bound on); 0 before the first.  The phase
 * key of an event starting at TS is seg_phase[that - 1] then. */
uint32_t trace_phase_seg(const int64_t *seg, size_t nseg, int64_t ts);
/* The id of S[0..LEN) in G's table D (added if new), -1 out of memory. */
int64_t trace_agg_intern(struct agg *g, int d, const char *s, size_t len);

/* Is the call NAME[0..LEN) a read (1), a write (2) or neither (0)?  A
 * read or write call as st_pfw_event_bytes takes its bytes (its name
 * holds "read" or "write", not "readdir" or "readlink"), not a block
 * device's ("bio_read": the call above it moved the bytes); "write"
 * decides first, as DFAnalyzer does. */
int trace_name_rw(const char *name, size_t len);

/* What agg.bins holds per bin: the events starting in it, their bytes,
 * of those the reads' and the writes' (trace_name_rw), then (when the
 * summary is finished) the I/O and compute union time in it.  A partial
 * holds the first four. */
enum { BIN_EVENTS, BIN_BYTES, BIN_READ, BIN_WRITTEN, BIN_IO, BIN_COMPUTE };
/* The index of process (HOST id, PID) in G->procs (added if new), -1 out
 * of memory. */
int64_t trace_agg_proc(struct agg *g, uint32_t host, int64_t pid);

/* The intervals of a process's events, per kind: the union of its I/O
 * events' [ts, ts + dur) and that of its compute events'. */
enum { TRACE_IV_IO, TRACE_IV_COMP };
typedef int (*trace_iv_fn)(void *ctx, int kind, int64_t s, int64_t e);
/* Add [S, E) of KIND to process P of G.  0, -1 out of memory. */
int trace_agg_add_iv(struct agg *g, size_t p, int kind, int64_t s, int64_t e);
/* Give FN the union of process P's intervals: the I/O kind's disjoint
 * intervals in order of start, then the compute kind's.  Returns the first
 * non-zero FN returned, else 0.  Intervals may be added afterwards. */
int trace_agg_each_iv(struct agg *g, size_t p, trace_iv_fn fn, void *ctx);
/* Set ERR for an agg function's -1: an I/O error of G's temporary file,
 * else memory running out; returns -1. */
int trace_agg_fail(const struct agg *g, st_error *err);

/* ivstore.c: the intervals in memory bounded by a budget (the environment's
 * STREAMTIME_IV_BUDGET, for tests, else room for 2^15 intervals an agg); the
 * functions return 0, or -1 (trace_agg_fail tells which error). */
void trace_ivs_init(struct ivstore *st);
void trace_ivs_release(struct ivstore *st);
void trace_ivec_release(struct ivec *v);
/* Add [S, E) to V, a vector of G's. */
int trace_ivec_push(struct agg *g, struct ivec *v, int64_t s, int64_t e);
/* Move every vector of G to its temporary file. */
int trace_ivs_spill(struct agg *g);
/* Make B's files A's; *BASE is the index the first of them gets. */
int trace_ivs_adopt(struct ivstore *a, struct ivstore *b, size_t *base);
/* Move B (whose files A adopted at BASE) into A, a vector of GA. */
int trace_ivec_take(struct agg *ga, struct ivec *a, struct ivec *b,
		    size_t base);
/* Give FN the disjoint intervals of process P's unions of the kinds in the
 * mask KINDS (1 << TRACE_IV_IO, 1 << TRACE_IV_COMP): each kind's in order of
 * start, the kinds interleaved.  *BOTH (may be NULL): the length of the
 * union of the kinds.  The first non-zero FN returned, or 0, or -1. */
int trace_ivs_union(struct agg *g, size_t p, unsigned kinds,
		    trace_iv_fn fn, void *ctx, int64_t *both);
/* A thread's loop: files from RUN until none is left or one failed. */
void *trace_worker_main(void *arg);
/* M for a new reader, with filter F (may be NULL: none; borrowed). */
void trace_rmap_init(struct rmap *m, const st_trace_filter *f);
void trace_rmap_release(struct rmap *m);
/* Does filter F, the one M was initialised with, let EV of R through
 * (1 when F is NULL)?  1, 0, or -1 with ERR: out of memory, or the filter
 * failed (trace_filter_failed). */
int trace_rmap_pass(struct rmap *m, const st_pfw_reader *r,
		    const st_trace_filter *f, const st_pfw_event *ev,
		    st_error *err);
/* ERR, from a filter that failed on R's current line, prefixed with the
 * file and line ("PATH:LINE: --filter: ...").  Returns -1. */
int trace_filter_failed(const st_pfw_reader *r, st_error *err);
/* Tell P (may be NULL) of R's bytes read past *SEEN and of *EVENTS (may
 * be NULL: the events are told when the input is closed). */
void trace_progress_add(st_trace_progress *p, uint64_t *seen,
			const st_pfw_reader *r, uint64_t *events);

/* trace.c */
/* G, the threads' gatherings merged, finished into S (zeroed, its
 * strings table initialised): sorted stats, quartiles, unions, bins.
 * 0, or -1 with ERR set. */
int trace_agg_finish(st_trace_summary *s, struct agg *g, st_error *err);
/* Given to trace_summarize: the gatherings G merged, not finished, and
 * S with only the inputs' records (files_in, bad, bad_lines).  0, or -1
 * with ERR set. */
typedef int (*trace_agg_done)(void *ctx, struct agg *g, st_trace_summary *s,
			      st_error *err);
/* st_trace_summarize, but when DONE is given S is not finished: DONE
 * gets the merged gatherings instead. */
int trace_summarize(const char *const *paths, size_t n,
		    const st_trace_opts *o, st_trace_summary *s,
		    trace_agg_done done, void *ctx, st_error *err);

/* trace_timeline_lanes.c */
/* A slice to be given a lane: [s, e) on TRACK, the SEQ-th slice written. */
struct lrec {
	int64_t s, e;
	uint32_t track, seq;
};

/* First fit over the lanes of one track.  Each lane is a stack of the
 * ends of its open slices (non-increasing upwards: a slice goes on a lane
 * only when it ends within the top one).  A slice [s, e) fits a lane when,
 * after the slices that ended by s are closed, the lane has none open or
 * the innermost ends at e or later.  A max tree over the lanes of that
 * room (the innermost open end, INT64_MAX when none) finds the first lane
 * that fits in O(log lanes); a min heap of the ends pushed closes slices
 * as the starts advance.  Unused leaves are INT64_MAX, so a slice that
 * fits no lane lands on the next new one. */
struct lstack {
	int64_t *v;
	size_t n, cap;
};

struct laner {
	int64_t *tree;            /* [1, 2 * leaves): max of the room */
	size_t leaves;            /* a power of two, > nlanes */
	struct lstack *st;        /* leaves of them */
	size_t nlanes;
	st_heap heap;             /* (end, lane) of the slices pushed */
};

/* By track, start, the longer first (so that an equal start nests), then
 * the order of writing (qsort). */
int trace_cmp_lrec(const void *x, const void *y);
/* V[0..N) into trace_cmp_lrec's order, in place: introsort, no memory
 * beyond V (qsort's merge sort takes a copy, 24 bytes a slice more, at
 * the timeline's peak). */
void trace_lrec_sort(struct lrec *v, size_t n);
/* The lane of [S, E), the slices coming in trace_cmp_lrec's order; -1
 * when memory runs out. */
int64_t trace_laner_place(struct laner *L, int64_t s, int64_t e);
/* A new track: every lane empty. */
void trace_laner_reset(struct laner *L);
void trace_laner_release(struct laner *L);

#endif
