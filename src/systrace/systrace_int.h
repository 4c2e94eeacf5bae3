/* systrace_int.h - what the systrace files share, not a public interface. */
#ifndef STREAMTIME_SYSTRACE_INT_H
#define STREAMTIME_SYSTRACE_INT_H

#include <pthread.h>

#include "streamtime/pairmap.h"
#include "streamtime/systrace.h"

/* An application log: where its lines end (byte offsets), its size. */
struct ml_log {
	size_t fi;
	uint64_t *ends;
	size_t nends, ends_cap;
	uint64_t size;
};

/* One MLLOG line: its log, its first byte. */
struct ml_rec {
	st_sys_mllog m;
	size_t log;
	uint64_t off;
	size_t seq;
};

/* A read or write of strace's (entry time, the entry of its thread's next
 * call) to be matched with bpftrace's. */
struct sys_scall {
	int64_t tgid, tid, fd, ret, t_us, next_us;   /* next_us -1: unknown */
	char kind;                  /* 'R', 'W' */
	bool unfinished;            /* its return came on another line */
};

/* An open of trace_openat.out: its path, open_paths[off..off+len). */
struct sys_open {
	int64_t pid, fd, ts;
	size_t off, len;
};

struct st_systrace {
	char *dir;
	st_sys_file_stat *files;    /* sorted by path */
	size_t nfiles;
	char **events;              /* borrowed from files */
	size_t nevents, events_cap;
	st_sys_align al;
	st_sys_phase *ph;
	size_t nph, ph_cap, ngpu;
	int max_gpu_seen;
	st_sys_instant *inst;
	size_t ninst, inst_cap;
	st_sys_proc_name *names;    /* sorted by pid */
	size_t nnames, names_cap;
	struct ml_rec *ml;
	size_t nml, ml_cap;
	struct ml_log *logs;
	size_t nlogs;
	struct sys_scall *sc;       /* strace's reads and writes */
	size_t nsc, sc_cap;
	char host[256];
	int64_t manifest_pid;
	st_sys_record rec;
	char *recover_dir;          /* .bpftrace.out split here, or NULL */
	st_sys_bad *bad;
	size_t nbad, max_bad;
	size_t fi_align;
	int y, m, d;                /* the date of times of day, y 0 none */
	char date_src[64];
	const st_tz *tz;
	st_tz *own_tz;
	bool tz_given;
	pthread_mutex_t mu;         /* files[] stats from reader threads */
	struct sys_open *opens;     /* by (pid, fd, ts) */
	size_t nopens;
	char *open_paths;
	st_pairmap open_run;        /* (pid, fd) -> start << 32 | count */
};

/* Name PID NAME[0..LEN) from SOURCE of priority PRIO (a higher one wins;
 * the later of equal ones): 0, or -1 out of memory.  Callers after
 * st_systrace_open hold s->mu. */
int sys_name_set(struct st_systrace *s, int64_t pid, const char *name,
		 size_t len, const char *source, int prio);

/* strace's line T of thread TID (process TGID), complete or not, into
 * s->sc; PENDING maps (tid, 0) to the record + 1 awaiting its thread's
 * next entry.  0, or -1 out of memory. */
int sys_strace_note(struct st_systrace *s, st_pairmap *pending,
		    const st_sys_strace *t, int64_t tgid);

/* Bounds of the offset from strace's calls matched with bpftrace's in
 * RPATH and WPATH (either may be NULL): *LO, *HI (INT64_MIN/MAX when
 * none), *PAIRS matched.  0, or -1 with ERR set. */
int sys_strace_bounds(struct st_systrace *s, const char *rpath,
		      const char *wpath, int64_t *lo, int64_t *hi,
		      uint64_t *pairs, st_error *err);

/* Read PATH line by line: FN(CTX, LINE, LEN, LINENO, ERR) for each (no
 * newline); FN returns 0 to go on, -1 to stop with ERR set.  66 when it
 * cannot be opened, 74 on a read error. */
typedef int (*sys_line_fn)(void *ctx, const char *line, size_t len,
			   uint64_t lineno, st_error *err);
int sys_each_line(const char *path, sys_line_fn fn, void *ctx,
		  st_error *err);

/* Each call of the bpftrace call file PATH, parsed under its header, to
 * FN (which returns 0, or -1 with ERR set); PRE (may be NULL) may pass a
 * line over before it is parsed.  *BAD (may be NULL) counts the lines
 * that do not parse. */
typedef int (*sys_call_fn)(void *ctx, const st_sys_call *c, st_error *err);
int sys_each_call(const char *path,
		  bool (*pre)(const st_sys_header *h, const char *line,
			      size_t len),
		  sys_call_fn fn, void *ctx, uint64_t *bad, st_error *err);

/* The opens of the bpftrace openat file PATH into s->opens: 0, or -1
 * with ERR set. */
int sys_opens_read(struct st_systrace *s, const char *path, st_error *err);

/* The path (borrowed, *LEN bytes) of the last open of (PID, FD) at or
 * before TS when it ends in "/NAME"; NULL when there is none. */
const char *sys_open_path(const struct st_systrace *s, int64_t pid,
			  int64_t fd, int64_t ts, const char *name,
			  size_t nlen, size_t *len);

/* Count a bad line of file FI, the first max_bad kept by number. */
void sys_bad(struct st_systrace *s, size_t fi, uint64_t line,
	     const char *why);

#endif
