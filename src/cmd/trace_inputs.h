/* trace_inputs.h - what the trace commands share about their inputs:
 * the FILE arguments expanded and checked, and what is said about them
 * after reading.  (trace.c's summary and timeline still hold their own
 * copies, inputs_collect and report_inputs, of the same rules.) */
#ifndef STREAMTIME_CMD_TRACE_INPUTS_H
#define STREAMTIME_CMD_TRACE_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/trace.h"

struct st_trace_inputs {
	char **v;          /* owned */
	size_t n;
};

/* Every FILE argument of ARGS[0..N), a directory replaced by its *.pfw
 * and *.pfw.gz (sorted), '-' kept, each checked before anything is read
 * or written.  Exit 66 when one is missing or unreadable (every such
 * input is named on stderr), 74 out of memory, 0 when all are there. */
int st_trace_inputs_collect(struct st_trace_inputs *in, char **args, size_t n);

void st_trace_inputs_release(struct st_trace_inputs *in);

/* The rule of every trace command about what it read (README, trace):
 * the corrupt lines BAD[0..NBAD) named as warnings and the rest counted
 * (BAD_LINES in all), never fatal; an input not read to its end (74 a
 * read error, 66 gone or unreadable, 65 a damaged or cut gzip stream) or
 * not a trace at all (65) said as an error naming it.  Returns the exit
 * status (74 before 66 before 65), 0 when every input is a trace read
 * to its end; the caller says what became of its output. */
int st_trace_inputs_report(const st_trace_file *files, size_t nfiles,
			   const st_trace_bad *bad, size_t nbad,
			   uint64_t bad_lines);

#endif
