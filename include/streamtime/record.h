/* record.h - `trace record`: run a command under the system tracers.
 *
 * st_trace_record_run() is the harness of SPEC 5.11: it starts COMMAND
 * stopped before its exec, starts bpftrace (the tracepoint scripts in
 * data/bpftrace/, following COMMAND's pid and its descendants), mpstat and
 * `nvidia-smi pmon` where there is one, releases COMMAND once the probes
 * are attached, passes its output through while saving it, stops every
 * tracer when it ends (or when we are interrupted) and leaves DIR in the
 * layout of docs/systrace.md with a manifest.json.  It never prints: what
 * it has to say goes to the caller's st_log.
 */
#ifndef STREAMTIME_RECORD_H
#define STREAMTIME_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"

/* The tracers --tracers chooses among. */
enum st_record_tracer {
	ST_REC_IO,      /* bpftrace io.bt: trace_{read,write,openat,close}.out */
	ST_REC_PROC,    /* bpftrace proc.bt: trace_proc.out */
	ST_REC_CPU,     /* mpstat: cpu.out */
	ST_REC_GPU,     /* nvidia-smi pmon: gpu.out, where nvidia-smi exists */
	ST_REC_NTRACERS
};

/* "io", "proc", "cpu", "gpu" (a NULL-terminated table, for did-you-mean). */
extern const char *const st_record_tracer_names[ST_REC_NTRACERS + 1];

/* --tracers LIST, names of st_record_tracer_names joined by commas, into
 * *SET (bits 1 << enum st_record_tracer).  0, or -1 with ERR set: 64 an
 * unknown name (with a did-you-mean) or none at all, 74 out of memory. */
int st_record_tracers_parse(const char *list, unsigned *set, st_error *err);

typedef struct st_record_opts {
	const char *dir;              /* DIR: created, or an empty directory */
	char *const *argv;            /* COMMAND and its arguments, NULL-ended */
	unsigned tracers;             /* bits 1 << enum st_record_tracer */
	int interval_s;               /* mpstat and pmon interval, >= 1 */
	const char *script_dir;       /* where io.bt and proc.bt are; NULL:
				       * st_record_script_dir(exe), looked up
				       * once the tracers can run */
	const char *exe;              /* this executable's path, or NULL */
	bool follow_children;         /* record until COMMAND's last process
				       * ends, not COMMAND itself */
	const char *version;          /* streamtime's, for the manifest */
	st_log *log;                  /* notes for people (may be NULL) */
} st_record_opts;

typedef struct st_record_result {
	int status;                   /* COMMAND's: exit code, 128 + signal */
	int signal;                   /* the signal that interrupted us, or 0 */
	int64_t startup_ns;           /* from the call to COMMAND's exec */
	uint64_t lost_events;         /* bpftrace's "Lost N events" */
	uint64_t bad_lines;           /* bpftrace lines of no known kind */
	int left_running;             /* COMMAND's processes still running
				       * when the record stopped (untraced
				       * from then on), -1 not known */
} st_record_result;

/* Run O->argv under the tracers O asks for, into O->dir.  Returns 0 with
 * *RES filled (COMMAND's status there, whatever it is), or -1 with ERR:
 * 69 a tracer that was asked for cannot run (not root, bpftrace or mpstat
 * missing, tracefs not mounted and not mountable; ERR names it and the
 * --tracers that would run; checked before anything else), 66 the
 * bpftrace scripts are not found, 73 DIR cannot be created or is not empty,
 * 74 an I/O error on DIR, 127/126 COMMAND not found / not executable.
 * The record ends when COMMAND ends; processes it started that still run
 * then are counted (a warning names them) and run on untraced, unless
 * O->follow_children: then it ends when the last of them does (we are
 * their subreaper, PR_SET_CHILD_SUBREAPER, so daemonised ones stay in
 * reach).
 * SIGINT, SIGTERM and SIGHUP are ours while it runs: sent by a process,
 * they are passed on to COMMAND (a third one kills it); from the terminal
 * COMMAND had its own.  Either way the tracers are stopped after COMMAND
 * ends and DIR is left readable, the signal in its manifest. */
int st_trace_record_run(const st_record_opts *o, st_record_result *res,
			st_error *err);

/* The directory of the bpftrace scripts for the executable EXE (a path,
 * e.g. /proc/self/exe resolved), as st_install_dir_for finds
 * ST_INSTALL_SCRIPTS: the source tree's data/bpftrace for an executable in
 * the build tree, else PREFIX/share/streamtime/bpftrace next to it or as
 * configured.  Returns a new string, or NULL with ERR: 66 when it holds no
 * io.bt, 74 out of memory. */
char *st_record_script_dir(const char *exe, st_error *err);

/* bpftrace's combined output in a record's directory, split into the
 * trace_*.out files when the record ends (left whole by a killed one). */
#define ST_RECORD_RAW ".bpftrace.out"

/* Split bpftrace's combined output IN (lines "R ...", "W ...", "O ...",
 * "C ...", "P ...") into OUT[kind] (NULL: drop those lines), each given
 * its header line first, after the "Attaching N probes..." line when IN
 * has one.  Counts "Lost N events" into *LOST and lines of no known kind
 * into *BAD (blank lines and the maps bpftrace prints as it ends, "@...",
 * are not).  Returns 0, or -1 with ERR (74) on a read or write error. */
enum st_record_file {
	ST_RF_READ, ST_RF_WRITE, ST_RF_OPENAT, ST_RF_CLOSE, ST_RF_PROC,
	ST_RF_COUNT
};
extern const char *const st_record_file_names[ST_RF_COUNT];
int st_record_split(FILE *in, FILE *const out[ST_RF_COUNT], uint64_t *lost,
		    uint64_t *bad, st_error *err);

/* One measurement of CLOCK_REALTIME against CLOCK_MONOTONIC: the realtime
 * read between two monotonic reads of least width of TRIES; MONO the
 * middle of the pair, BOUND half its width plus the clocks' resolution. */
typedef struct st_clock_pair {
	int64_t mono_ns, real_ns, bound_ns;
} st_clock_pair;
void st_record_clock_pair(int tries, st_clock_pair *p);

#endif
