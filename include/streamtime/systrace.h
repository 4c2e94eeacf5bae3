/* systrace.h - system traces (SPEC 5.11, docs/systrace.md): the
 * trace_visuals layout (bpftrace call files, mpstat, nvidia-smi pmon,
 * MLPerf logs, strace) and `trace record`'s, read into the event model of
 * the DFTracer traces (SPEC 5.10).
 *
 * Two levels:
 *   line parsers (st_sys_*_parse): one line at a time, no state but what
 *     the caller passes, never reading outside the line;
 *   the set (st_systrace): a directory read once for what is small (the
 *     clock relation, the application's phases, process names, CPU and GPU
 *     samples per phase), whose call files are then read by the trace
 *     summary and timeline through st_pfw_reader (st_systrace_open_file),
 *     one call per event, streaming: memory per file is bounded by the
 *     longest line and the per-PID and per-file tables.
 *
 * Times: calls are stamped in CLOCK_MONOTONIC ns (bpftrace's nsecs) and
 * moved to UTC by the set's alignment; mpstat and pmon write local wall
 * time (a date and a zone make it UTC); MLPerf and strace write UNIX time.
 */
#ifndef STREAMTIME_SYSTRACE_H
#define STREAMTIME_SYSTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/ctrace.h"
#include "streamtime/error.h"
#include "streamtime/pfw.h"
#include "streamtime/tz.h"

/* ---- the files of a directory ---------------------------------------- */

enum st_sys_file {
	ST_SYS_READ, ST_SYS_WRITE, ST_SYS_OPENAT, ST_SYS_CLOSE, ST_SYS_BIO,
	ST_SYS_MMAP, ST_SYS_CREATE_DEL,          /* bpftrace call files */
	ST_SYS_TIME_ALIGN, ST_SYS_PROC, ST_SYS_CPU, ST_SYS_GPU, ST_SYS_LOG,
	ST_SYS_STRACE, ST_SYS_MANIFEST, ST_SYS_PS,
	ST_SYS_NONE,                             /* not a system-trace file */
};

/* The kind of a file by its base name (docs/systrace.md). */
enum st_sys_file st_sys_classify(const char *base);

/* Is the kind a bpftrace call file? */
static inline bool st_sys_is_calls(enum st_sys_file k)
{
	return k <= ST_SYS_CREATE_DEL;
}

/* ---- bpftrace call lines --------------------------------------------- */

enum st_sys_col {
	ST_SC_TS, ST_SC_PID, ST_SC_TID, ST_SC_COMM, ST_SC_FD, ST_SC_RET,
	ST_SC_REQ, ST_SC_OFFSET, ST_SC_BUF, ST_SC_LAT, ST_SC_FULLPATH,
	ST_SC_FILENAME, ST_SC_DONEPID, ST_SC_DONECOMM, ST_SC_DISK, ST_SC_RW,
	ST_SC_BYTES, ST_SC_SECTOR, ST_SC_FUNC, ST_SC_OTHER, ST_SC_N
};

#define ST_SYS_MAXCOL 24

/* A header line's columns, found by name ("RET (B)", "BUFFER ADDR" and
 * "LAT(ns)" are one column each).  A last column FILENAME or FULLPATH is
 * free text: it may be empty or hold spaces. */
typedef struct st_sys_header {
	int8_t pos[ST_SC_N];        /* column of each name, -1 when absent */
	uint8_t col[ST_SYS_MAXCOL]; /* the name of each column */
	uint8_t ncol;
	bool free_last;
} st_sys_header;

/* 1 with H filled when LINE is a header (its first word TIMESTAMP and it
 * names PID, or TID as the seed's scripts did before they printed the
 * PID), else 0; -1 for a header of more than ST_SYS_MAXCOL columns.  The
 * seed's write layout (BUFFER ADDR ... LAT(ns), no name) gets the
 * FILENAME its lines carry last. */
int st_sys_header_parse(const char *line, size_t len, st_sys_header *h);

/* One call (or bio request) as written: values absent from the layout
 * are -1 (LAT 0), strings empty; PID is TID's value under a header
 * without PID.  FILE is openat's FULLPATH where the layout has one. */
typedef struct st_sys_call {
	int64_t ts, pid, tid, fd, ret, req, off, lat, bytes;
	const char *file, *comm;     /* borrowed from the line */
	const char *func;            /* FUNCTION ("mkdir()"), borrowed */
	size_t flen, clen, fnlen;
	char rw;                     /* bio: 'R', 'W' or 0 */
	bool lat_wrapped;            /* LAT was negative: 2^32 added */
	bool path_cut;               /* the name is 63 bytes: bpftrace's
				      * string limit, maybe truncated */
} st_sys_call;

/* Parse LINE[0..LEN) under header H: 0, or -1 with *WHY (static) saying
 * what is wrong: a field count off, a field that is not a number, a
 * second timestamp (lines of two CPUs interleaved), a value out of range
 * (a pid above 2^22, a latency beyond 2^32 ns). */
int st_sys_call_parse(const st_sys_header *h, const char *line, size_t len,
		      st_sys_call *c, const char **why);

/* ---- other line formats ---------------------------------------------- */

/* trace_time_align.out: "NSECS HH:MM:SS": 1 with *NS and *SECS (seconds
 * of the day), 0 for a line that is not one (a header), -1 when it starts
 * with a number but is damaged. */
int st_sys_align_parse(const char *line, size_t len, int64_t *ns, int *secs);

/* mpstat: a row "HH:MM:SS [AM|PM] CPU %usr ... %idle" (columns found by
 * the last header, H); its values in V by header column. */
typedef struct st_sys_cpu_header {
	int8_t usr, nice, sys, iowait, idle, cpu;  /* value index, -1 */
	uint8_t nval;                               /* values after CPU */
	bool valid;
} st_sys_cpu_header;

typedef struct st_sys_cpu_row {
	int secs;                   /* of the day, 24-hour */
	bool all;                   /* the "all" row */
	int cpu;                    /* else its number */
	double usr, nice, sys, iowait, idle;
} st_sys_cpu_row;

/* Classify one mpstat line: 1 a row (into R), 2 a header (into H), 3 the
 * first line with the date (*Y, *M, *D), 0 anything else (blank,
 * "Average:"), -1 a damaged row, -2 the first line with a date that does
 * not exist (02/31/2026: *Y, *M, *D as written). */
int st_sys_cpu_parse(const char *line, size_t len, st_sys_cpu_header *h,
		     st_sys_cpu_row *r, int *y, int *m, int *d);

/* nvidia-smi pmon: the header "#Date Time gpu pid type sm mem enc dec fb
 * command" names the columns. */
typedef struct st_sys_gpu_header {
	int8_t date, time, gpu, pid, sm, mem, fb, command;
	uint8_t ncol;
	bool valid;
} st_sys_gpu_header;

typedef struct st_sys_gpu_row {
	int y, m, d, secs;          /* y 0: no date column */
	int gpu;
	int64_t pid;                /* -1: '-' (no process) */
	double sm, mem, fb;         /* -1: '-' */
	const char *cmd;            /* borrowed */
	size_t cmdlen;
} st_sys_gpu_row;

/* 1 a row, 2 a header (into H), 0 other comment lines, -1 damaged. */
int st_sys_gpu_parse(const char *line, size_t len, st_sys_gpu_header *h,
		     st_sys_gpu_row *r);

/* An MLPerf ":::MLLOG {json}" line, anywhere in LINE (a prefix such as
 * "0: " is allowed).  KEY and the event type are copied into the
 * record. */
enum st_sys_ml_type { ST_ML_START, ST_ML_END, ST_ML_POINT };

typedef struct st_sys_mllog {
	int64_t time_ms;
	enum st_sys_ml_type type;
	char key[64];
	int64_t num;                /* metadata.epoch_num (or first_epoch_num),
				     * -1 */
	char value[64];             /* the value, as text ("" none) */
	bool prefixed;              /* text before the marker (a launcher's
				     * "0: "): maybe relayed by another
				     * process */
} st_sys_mllog;

/* 1 with M filled, 0 when there is no MLLOG marker, -1 when the JSON
 * after it is damaged (WHY, static). */
int st_sys_mllog_parse(const char *line, size_t len, st_sys_mllog *m,
		       const char **why);

/* strace -ttt -f: "[PID ]SECS.USEC NAME(ARGS) = RET [<DUR>]". */
typedef struct st_sys_strace {
	int64_t pid;                /* -1 when the line has none */
	int64_t t_us;               /* UNIX µs */
	const char *name;           /* borrowed */
	size_t nlen;
	const char *args;           /* inside the parentheses */
	size_t alen;
	int64_t ret;                /* -1 with ERR set: an error */
	bool has_ret, err, unfinished, resumed;
	int64_t dur_us;             /* -T, else -1 */
	bool exited;                /* "+++ exited" / "+++ killed" */
} st_sys_strace;

/* 1 a call (complete, unfinished or resumed) or an exit, 0 other lines
 * (signals), -1 damaged. */
int st_sys_strace_parse(const char *line, size_t len, st_sys_strace *s);

/* trace_proc.out (trace record): "TIMESTAMP EVENT PID PPID COMM". */
typedef struct st_sys_proc {
	int64_t ts, pid, ppid;
	char event;                 /* 'f' fork, 'e' exec, 'x' exit */
	const char *comm;
	size_t clen;
} st_sys_proc;

/* 1, 0 a header or blank line, -1 damaged. */
int st_sys_proc_parse(const char *line, size_t len, st_sys_proc *p);

/* ps.out, a `ps` snapshot: the header names the columns (PID, PPID, and
 * CMD, COMMAND, ARGS or COMM, the last column, free text), as `ps -ef`,
 * `ps -eo pid,ppid,args` or `ps -eo pid,ppid,comm` write them. */
typedef struct st_sys_ps_header {
	int8_t pid, ppid, cmd;      /* column, -1 absent */
	uint8_t ncol;
	bool valid;
} st_sys_ps_header;

typedef struct st_sys_ps_row {
	int64_t pid, ppid;          /* ppid -1: no column */
	const char *cmd;            /* borrowed, the rest of the line */
	size_t cmdlen;
} st_sys_ps_row;

/* 1 a row (into R, under H), 2 the header (into H), 0 a blank line, -1
 * damaged (or a row before any header). */
int st_sys_ps_parse(const char *line, size_t len, st_sys_ps_header *h,
		    st_sys_ps_row *r);

/* ---- the set --------------------------------------------------------- */

typedef struct st_systrace_opts {
	const char *date;           /* --date YYYY-MM-DD, or NULL */
	const st_tz *tz;            /* --tz; NULL: UTC (or the manifest's) */
	bool tz_given;
	const char *names;          /* --names FILE, or NULL */
	size_t max_bad;             /* bad lines kept by number */
} st_systrace_opts;

/* How nsecs became UTC: utc_ns = mono_ns + offset_ns (+ slope for the
 * manifest's two measurements), true within bound_ns; bound_ns < 0 when
 * only one side is bounded (then lo_ns or hi_ns is INT64_MIN/MAX). */
typedef struct st_sys_align {
	char method[400];
	int64_t offset_ns, bound_ns;
	int64_t lo_ns, hi_ns;       /* the offset lies in [lo, hi] */
	double slope;               /* per ns of mono after mono0 */
	int64_t mono0;
	uint64_t align_lines, mllog_writes, strace_pairs;
	int64_t seed_offset_ns;     /* the seed's method, for comparison; 0 */
	bool known;                 /* false: no clock relation at all
				     * (times are since boot) */
} st_sys_align;

typedef struct st_sys_phase {
	char name[80];              /* "init", "epoch 3", "eval 3", ... */
	int64_t s_ns, e_ns;         /* UTC; e_ns < 0 when never closed */
	int64_t num;
	/* CPU "all" averages over the samples in the phase (nan none) */
	double cpu_usr, cpu_sys, cpu_iowait, cpu_idle;
	uint64_t cpu_samples;
	double *gpu_sm, *gpu_mem, *gpu_fb;   /* by GPU index, ngpu of them */
	uint64_t *gpu_samples;
} st_sys_phase;

typedef struct st_sys_instant {
	char key[64], value[64];
	int64_t t_ns;
} st_sys_instant;

typedef struct st_sys_proc_name {
	int64_t pid, ppid;           /* ppid -1: unknown */
	char name[64];
	const char *source;          /* "--names", "exec", "strace", "comm" */
	int prio;
} st_sys_proc_name;

/* Per file: what its reading found. */
typedef struct st_sys_file_stat {
	char *path;
	enum st_sys_file kind;
	uint64_t lines, events, bad, lat_wrapped, path_cut, errors;
} st_sys_file_stat;

typedef struct st_sys_bad {
	size_t file;
	uint64_t line;
	const char *why;            /* static */
} st_sys_bad;

/* What a trace record manifest says of the recording, and whether its
 * unsplit bpftrace output was read instead of trace_*.out files. */
typedef struct st_sys_record {
	bool manifest;              /* a manifest with "complete" was read */
	bool complete;              /* false: trace record was killed or
				     * failed before it ended */
	uint64_t lost_events;       /* bpftrace's "Lost N events" */
	uint64_t bad_lines;         /* its lines that fit no trace file */
	bool recovered;             /* .bpftrace.out split here (into a
				     * temporary directory, removed by
				     * st_systrace_free) */
} st_sys_record;

typedef struct st_systrace st_systrace;

/* Read directory DIR as a system-trace set: its small files are read now.
 * NULL with ERR set: 65 when DIR holds no system-trace file (or a known
 * file is of the wrong kind: file and line named), 64 when a time-align
 * trace needs a date and none is given or found (says --date/--tz), 66
 * when a file cannot be read, 74 out of memory. */
st_systrace *st_systrace_open(const char *dir, const st_systrace_opts *o,
			      st_error *err);
void st_systrace_free(st_systrace *s);

/* Does DIR hold a system-trace file? */
bool st_systrace_is_set(const char *dir);

/* The files the trace summary reads as events: the bpftrace call files,
 * or strace's when there are none (paths owned by the set). */
size_t st_systrace_event_files(const st_systrace *s, const char *const **v);

/* Open PATH as st_pfw_open does; a call file of the set is read by its
 * line parser, each call an event: name read/write/openat/close/mmap/
 * munmap/mkdir/rmdir/unlink/bio_read/bio_write, category syscall,
 * memory or block, ts = UTC of TIMESTAMP - LAT (µs), dur, pid, tid (the
 * pid when the layout has none), file, bytes = the return value (-1 for
 * an error or none).  TRACKS (the timeline): the tid is
 * ST_SYS_TRACK_BASE + the kind of call, a track per kind.  Thread-safe for
 * distinct paths. */
st_pfw_reader *st_systrace_open_file(const st_systrace *s, const char *path,
				     bool tracks, st_error *err);

/* Is R a reader of st_systrace_open_file?  Then write the args of the
 * event it returned last (fd, tid, latency, return value or error). */
bool st_systrace_event_args(const st_pfw_reader *r, st_ctrace *w);

/* The name of a track of st_systrace_open_file (TRACKS), or NULL. */
const char *st_systrace_track_name(int64_t tid);

const st_sys_align *st_systrace_align(const st_systrace *s);
const st_sys_record *st_systrace_record(const st_systrace *s);
size_t st_systrace_phases(const st_systrace *s, const st_sys_phase **v,
			  size_t *ngpu);
size_t st_systrace_instants(const st_systrace *s, const st_sys_instant **v);
/* By pid; NULL when unknown. */
const st_sys_proc_name *st_systrace_name(const st_systrace *s, int64_t pid);
size_t st_systrace_names(const st_systrace *s, const st_sys_proc_name **v);
/* The host (the manifest's), "" unknown. */
const char *st_systrace_host(const st_systrace *s);
const char *st_systrace_dir(const st_systrace *s);
/* The files read (the set's and, after the summary, the call files'). */
size_t st_systrace_file_stats(const st_systrace *s,
			      const st_sys_file_stat **v);
size_t st_systrace_bad(const st_systrace *s, const st_sys_bad **v);

/* The timeline's extras: the application's phases and instants, the CPU
 * and GPU counters, on processes numbered from PID0 (returns how many it
 * used), and the alignment as JSON (for otherData). */
int st_systrace_write_extras(const st_systrace *s, st_ctrace *w,
			     int64_t pid0, int64_t *used, st_error *err);

/* One CPU or GPU sample of a set, as st_systrace_each_sample gives it. */
typedef struct st_sys_sample {
	int64_t t_ns;               /* UTC: a CPU row at the middle of the
				     * second it averages, a GPU row at its
				     * time */
	int gpu;                    /* -1: mpstat's "all" row; else the GPU */
	double usr, nice, sys, iowait, idle; /* CPU %, 0 where mpstat has
					      * none */
	double sm, mem, fb;         /* GPU: sm %, mem %, fb MB, summed over
				     * its processes */
} st_sys_sample;

typedef int (*st_sys_sample_fn)(void *ctx, const st_sys_sample *x,
				st_error *err);

/* Each CPU sample of cpu.out ("all" rows), then each GPU sample of
 * gpu.out (the rows of one time and GPU summed), in the files' order, to
 * FN, which returns 0 or -1 with ERR set.  Streamed: nothing is kept
 * (memory is the longest line).  The samples are those the phases'
 * figures average (no date: none).  0, or -1 with ERR set: FN's, 66 a
 * file gone, 74 a read error. */
int st_systrace_each_sample(const st_systrace *s, st_sys_sample_fn fn,
			    void *ctx, st_error *err);

/* ---- sets as a trace source ------------------------------------------ */

struct st_trace_source;
struct st_trace_summary;

/* The sets of one command (borrowed). */
typedef struct st_systrace_list {
	st_systrace **v;
	size_t n;
} st_systrace_list;

/* L as the trace summary's and timeline's source (trace.h): its call
 * files read by their parsers, its processes named (children after their
 * parents), tracks per kind of call, the application's phases and the
 * CPU/GPU counters after the slices, the alignment in otherData. */
void st_systrace_source(const st_systrace_list *l,
			struct st_trace_source *src);

/* The set that holds PATH, or NULL. */
const st_systrace *st_systrace_owner(const st_systrace_list *l,
				     const char *path);

/* The bounds of every phase of L's sets in µs, sorted, distinct (for
 * st_trace_opts.seg_us); *N of them.  0, or -1 out of memory. */
int st_systrace_segments(const st_systrace_list *l, int64_t **seg,
			 size_t *n);

/* The phase of each of the N segments of SEG (st_trace_opts.seg_phase)
 * from L's phases: of those that hold the segment's start, the one that
 * began last (then the one that ends first; a phase never closed runs on),
 * by time alone, whatever the host; NULL where none does.  NULL when
 * memory runs out; the names are L's. */
const char **st_systrace_phase_names(const st_systrace_list *l,
				     const int64_t *seg, size_t n);

/* A phase's I/O from the summary's segments (SEG, N as above). */
typedef struct st_sys_phase_io {
	uint64_t events, reads, writes;
	int64_t io_us, read_bytes, write_bytes;
} st_sys_phase_io;

void st_systrace_phase_io(const st_sys_phase *p, const int64_t *seg,
			  size_t n, const struct st_trace_summary *s,
			  st_sys_phase_io *io);

/* The track id of a call of name NAME in the timeline: a track per
 * syscall kind (the summary keeps the real tid). */
#define ST_SYS_TRACK_BASE (INT64_C(1) << 40)

#endif
