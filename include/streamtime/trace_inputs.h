/* trace_inputs.h - the inputs of the trace commands: the FILE arguments
 * expanded and checked, and what there is to say about them after
 * reading, as notes (rows of {path, exit code, reason}) that the command
 * prints.
 *
 * The one rule of every trace command about its inputs (README, trace):
 * corrupt lines are counted and named as warnings, never fatal; an input
 * that is missing, was not read to its end (74 a read error, 66 gone or
 * unreadable, 65 a damaged or cut gzip stream) or that is not a trace at
 * all (no line is an event: empty, only "[" and "]", only corrupt lines;
 * 65) is an error naming the file.  The exit status of a list of notes is
 * 74 before 66 before 65, 0 when no note is an error; the command writes
 * nothing when it is not 0. */
#ifndef STREAMTIME_TRACE_INPUTS_H
#define STREAMTIME_TRACE_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/systrace.h"
#include "streamtime/trace.h"

enum st_trace_note_level {
	ST_NOTE_ERROR,        /* the input fails the command: code is set
			       * (0: said as an error, after one that set
			       * it, such as "nothing written") */
	ST_NOTE_WARN,         /* said always, never fatal */
	ST_NOTE_VERBOSE,      /* said with -v */
	ST_NOTE_INFO,         /* said unless -q: what a command did */
};

/* One thing to say about an input. */
typedef struct st_trace_note {
	enum st_trace_note_level level;
	int code;             /* ERROR: the exit status it asks for (65, 66,
			       * 74); else 0 */
	char *path;           /* the input it is about (owned); NULL: about
			       * several (a count of corrupt lines) */
	char *reason;         /* what to say, the path named in it (owned;
			       * lower-case, no full stop) */
} st_trace_note;

typedef struct st_trace_notes {
	st_trace_note *v;
	size_t n;
} st_trace_notes;

/* Add a note of LEVEL and CODE about PATH (may be NULL) to NT, its reason
 * from FMT.  0, or -1 with ERR set (74) when memory runs out. */
int st_trace_notes_add(st_trace_notes *nt, enum st_trace_note_level level,
		       int code, const char *path, st_error *err,
		       const char *fmt, ...) ST_PRINTF(6, 7);

/* ERR, a failure of the command's work, as an error note of NT (its
 * code, 74 when it has none; "unknown error" when it has no text).  0,
 * or -1 with ERR reset to out of memory. */
int st_trace_notes_fail(st_trace_notes *nt, st_error *err);

/* The exit status NT asks for: 74 before 66 before 65 (the worst code
 * among its errors), 0 when it holds no error. */
int st_trace_notes_status(const st_trace_notes *nt);

/* Free the notes' texts and empty NT (it may be reused). */
void st_trace_notes_release(st_trace_notes *nt);

/* The inputs of a command: trace files, and the directories of system
 * traces among the arguments. */
struct st_trace_inputs {
	char **v;          /* owned */
	size_t n;
	char **sysdirs;    /* directories of system traces (owned) */
	size_t nsys;
};

/* Every FILE argument of ARGS[0..N) into IN: a directory replaced by its
 * *.pfw and *.pfw.gz (sorted), '-' kept, each checked before anything is
 * read or written; a directory of system traces (st_systrace_is_set) is
 * kept in IN->sysdirs as well.  An input missing or unreadable is an
 * error note (66) naming it, a directory that holds no trace at all (not
 * a trace set) one of 65; the others are collected still.  0, or -1 with
 * ERR set (74) when memory runs out. */
int st_trace_inputs_collect(struct st_trace_inputs *in, char *const *args,
			    size_t n, st_trace_notes *nt, st_error *err);

void st_trace_inputs_release(struct st_trace_inputs *in);

/* Can PATH, an input file, be read?  An error note (66) naming it when it
 * is missing, unreadable, a directory (DIR_MEMBER: found in a directory
 * given, which is not searched further) or a symbolic link that leads
 * nowhere or in a circle (ELOOP, said as such).  A pipe or device is not
 * opened here: the reader says what it finds.  Returns 0 when it opens,
 * 66 when not, -1 with ERR set (74) when memory runs out. */
int st_trace_input_check(const char *path, bool dir_member,
			 st_trace_notes *nt, st_error *err);

/* What is to be said about the inputs read, FILES[0..NFILES): the corrupt
 * lines BAD[0..NBAD) as warnings and the rest counted (BAD_LINES in all);
 * an input not read to its end or not a trace at all as an error; an
 * input without X events as a warning; each input's counts (verbose).
 * The call files of SETS (may be NULL) are never "not a trace": an empty
 * one has no calls.  0, or -1 with ERR set (74) when memory runs out. */
int st_trace_inputs_report(const st_trace_file *files, size_t nfiles,
			   const st_trace_bad *bad, size_t nbad,
			   uint64_t bad_lines, const st_systrace_list *sets,
			   st_trace_notes *nt, st_error *err);

/* The corrupt lines BAD[0..NBAD) of the files PATHS (BAD[i].file an
 * index of them), BAD_LINES in all, as warnings in NT, as
 * st_trace_inputs_report says them.  0, or -1 with ERR set (74). */
int st_trace_bad_notes(const char *const *paths, const st_trace_bad *bad,
		       size_t nbad, uint64_t bad_lines, st_trace_notes *nt,
		       st_error *err);

/* Inputs whose events lie more than a day apart are most likely of
 * unrelated runs (a trace with times since boot or 1970 beside one of
 * this year): their summary spans the gap, so a warning says so
 * (st_trace_span_gap).  0, or -1 with ERR set (74). */
int st_trace_span_report(const st_trace_summary *s, st_trace_notes *nt,
			 st_error *err);

#endif
