/* trace_inputs.h - what the trace commands share about their inputs:
 * the FILE arguments expanded and checked, and what is said about them
 * after reading. */
#ifndef STREAMTIME_CMD_TRACE_INPUTS_H
#define STREAMTIME_CMD_TRACE_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/systrace.h"
#include "streamtime/trace.h"
#include "streamtime/tz.h"

struct st_trace_inputs {
	char **v;          /* owned */
	size_t n;
	char **sysdirs;    /* directories of system traces (owned) */
	size_t nsys;
};

/* The system-trace options of the trace commands. */
struct st_trace_sys_opts {
	const char *date, *tz, *names;
};

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

/* System-trace sets open, as a trace source. */
struct st_trace_sets {
	st_systrace_list sets;
	st_trace_source src;
	st_tz *tz;         /* --tz, used by the sets while they live */
	/* st_trace_sets_phases: the phases' segments and their names
	 * (st_trace_opts.seg_us, nseg, seg_phase), owned */
	int64_t *seg;
	size_t nseg;
	const char **phase;
};

/* Open DIRS[0..N) as system-trace sets with SO (their small files read
 * now), each set's call files appended to *PATHS (*NPATHS of them, owned
 * by the caller; PATHS may be NULL), TS->src their source.  Returns the
 * exit status (the first set's failure said on stderr), 0 when all
 * opened. */
int st_trace_sets_open(struct st_trace_sets *ts, char *const *dirs, size_t n,
		       const struct st_trace_sys_opts *so, size_t max_bad,
		       char ***paths, size_t *npaths);

/* The phase key's segments of TS's sets into TS->seg, nseg and phase
 * (st_systrace_segments, st_systrace_phase_names): the phase of an
 * event of inputs read with these sets is from these sets' phases only.
 * Returns the exit status (74 out of memory, said). */
int st_trace_sets_phases(struct st_trace_sets *ts);

void st_trace_sets_release(struct st_trace_sets *ts);

/* Every FILE argument of ARGS[0..N), a directory replaced by its *.pfw
 * and *.pfw.gz (sorted), '-' kept, each checked before anything is read
 * or written; a directory of system traces (st_systrace_is_set) is
 * kept in IN->sysdirs as well.  Exit 66 when one is missing or
 * unreadable (every such input is named on stderr), 65 when a directory
 * holds no trace at all (not a trace set), 74 out of memory, 0 when all
 * are there. */
int st_trace_inputs_collect(struct st_trace_inputs *in, char **args, size_t n);

void st_trace_inputs_release(struct st_trace_inputs *in);

/* Can PATH, an input file, be read?  Exit 66 naming it when it is
 * missing, unreadable, a directory (DIR_MEMBER: found in a directory given,
 * which is not searched further) or a symbolic link that leads nowhere or
 * in a circle (ELOOP, said as such); 0 when it opens.  A pipe or device is
 * not opened here: the reader says what it finds. */
int st_trace_input_check(const char *path, bool dir_member);

/* The rule of every trace command about what it read (README, trace):
 * the corrupt lines BAD[0..NBAD) named as warnings and the rest counted
 * (BAD_LINES in all), never fatal; an input not read to its end (74 a
 * read error, 66 gone or unreadable, 65 a damaged or cut gzip stream) or
 * not a trace at all (65) said as an error naming it.  Returns the exit
 * status (74 before 66 before 65), 0 when every input is a trace read
 * to its end; the caller says what became of its output.  The call files
 * of SETS (may be NULL) are never "not a trace": an empty one has no
 * calls. */
int st_trace_inputs_report(const st_trace_file *files, size_t nfiles,
			   const st_trace_bad *bad, size_t nbad,
			   uint64_t bad_lines, const st_systrace_list *sets);

#endif
