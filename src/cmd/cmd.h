/* cmd.h - the command layer: option parsing, dispatch and messages.
 *
 * Every command is `int cmd_<name>(int argc, char **argv)` in its own file
 * and returns its exit status (an enum st_exit value).  Subcommands live in
 * nested tables handled by st_cmd_dispatch(), like git's OPT_SUBCOMMAND.
 */
#ifndef STREAMTIME_CMD_H
#define STREAMTIME_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "streamtime/error.h"
#include "streamtime/time.h"
#include "streamtime/session.h"
#include "streamtime/install.h"

#include "options.h"

struct st_cmd_group;

/* A command: parses ARGV (ARGV[0] its name), returns its exit status. */
typedef int st_cmd_fn(int argc, char **argv);

/* One entry of a dispatch table: a leaf command (GROUP NULL; FN parses its
 * options with st_opt_parse) or a command with subcommands (GROUP). */
struct st_cmd {
	const char *name;
	st_cmd_fn *fn;
	const char *summary;
	const struct st_cmd_group *group;
};

/* A command with subcommands: its path ("streamtime merge") and table,
 * sorted by name. */
struct st_cmd_group {
	const char *path;
	const struct st_cmd *cmds;
	size_t n;
};

#define ST_CMD_GROUP(var, path, table) \
	const struct st_cmd_group var = { path, table, \
		sizeof(table) / sizeof(table[0]) }

/* The group VAR and the command FN that runs its subcommands. */
#define ST_CMD_GROUP_FN(fn, var, path, table) \
	ST_CMD_GROUP(var, path, table); \
	int fn(int argc, char **argv) \
	{ \
		return st_cmd_dispatch(&var, argc, argv); \
	}

/* Run the subcommand of G named by ARGV[1].  Handles -h/--help and an
 * unknown (with a suggestion) or missing subcommand (exit 64). */
int st_cmd_dispatch(const struct st_cmd_group *g, int argc, char **argv);

/* Write G's list of commands (its --help) to F. */
void st_cmd_group_help(FILE *f, const struct st_cmd_group *g);

/* `streamtime --dump-options`: every command of G and below, with its
 * descriptor and option table, as JSON on stdout.  Returns the exit
 * status. */
int st_cmd_dump(const struct st_cmd_group *g);

/* Messages: all go to stderr, prefixed "streamtime: ". */
extern int st_verbosity;          /* -1 quiet, 0 normal, 1 verbose */
/* The whole command line, as main got it (for provenance.json). */
extern int st_main_argc;
extern char **st_main_argv;
void st_msg_error(const char *fmt, ...) ST_PRINTF(1, 2);
void st_msg_warn(const char *fmt, ...) ST_PRINTF(1, 2);
void st_msg_info(const char *fmt, ...) ST_PRINTF(1, 2);
void st_msg_verbose(const char *fmt, ...) ST_PRINTF(1, 2);

/* Print ERR and return its exit code. */
int st_msg_fail(const st_error *err);

/* As st_msg_fail, but a usage error (64) of the command PROG is said as
 * st_msg_usage says it. */
int st_msg_fail_usage(const char *prog, const st_error *err);

/* A usage error: the message, a pointer to --help, exit 64. */
int st_msg_usage(const char *prog, const char *fmt, ...) ST_PRINTF(2, 3);

/* A st_log that prints warnings through st_msg_warn: st_log_stderr(&log),
 * or st_log log = ST_LOG_STDERR. */
void st_log_stderr(st_log *log);
void st_log_warn_stderr(void *ctx, const char *msg);
#define ST_LOG_STDERR ((st_log){ .warn = st_log_warn_stderr })

/* A st_log for notes shown only with -v (st_msg_verbose). */
void st_log_verbose(st_log *log);

/* Parse S, a decimal number of seconds (no hex, nan or inf), into *OUT.
 * Zero is accepted only with ZERO_OK; at most MAX.  0 or -1. */
int st_parse_seconds(const char *s, bool zero_ok, double max, st_duration *out);

/* Flush and check stdout; a failure becomes exit 74 (unless RC is already
 * an error). */
int st_finish_stdout(int rc);

/* Parse "SIZE:FIRST-LAST" and "SIZE:PATH" option values. */
int st_parse_size_range(const char *s, int64_t *size, st_range *r);
int st_parse_size_path(const char *s, int64_t *size, const char **path);

/* Parse ARG as SIZE:FIRST-LAST and append it to *V (*N entries).  Returns
 * 0, or -1 when ARG is malformed or memory runs out (*V stays valid). */
struct st_size_range;
int st_push_size_range(struct st_size_range **v, size_t *n, const char *arg);

/* The experiments: CONFIG, else DATA/experiments.json when DATA (may be
 * NULL) has one, else the paper's, built in; -v says which.  Returns 0 or
 * -1 with ERR set. */
int st_load_experiments(const char *config, const char *data,
			st_experiments *ex, st_error *err);

/* The secret (token, key) in the file at PATH, trailing CR/LF removed, or
 * NULL with ERR set (66 missing, 74 unreadable, 65 empty).  Wipe it with
 * explicit_bzero before free. */
char *st_secret_read(const char *path, st_error *err);

/* Wipe the secret S (NULL: nothing) with explicit_bzero and free it. */
void st_secret_free(char *s);

/* The URL given to option OPT as ARG (a string of argv), as a new copy
 * (NULL: out of memory; wipe with explicit_bzero before free).  When ARG
 * holds a password ("http://user:PW@host"), it is overwritten with '*' in
 * ARG, so that the process list shows it no more, and a warning says to
 * use INSTEAD ("a token file"). */
char *st_url_arg_take(const char *opt, char *arg, const char *instead);

/* Append V to a growable array of strings. */
int st_strv_push(const char ***v, size_t *n, const char *s);

/* The commands (main.c's table). */
st_cmd_fn cmd_clock, cmd_collect, cmd_distiller, cmd_merge, cmd_plot,
	cmd_report, cmd_timeline, cmd_trace, cmd_stats, cmd_reproduce,
	cmd_simulate, cmd_slurm;

/* trace subcommands (trace_group.c's table); summary and timeline are in
 * trace.c, the others in files of their own */
st_cmd_fn cmd_trace_summary;
st_cmd_fn cmd_trace_timeline;
st_cmd_fn cmd_trace_compare;
st_cmd_fn cmd_trace_events;
st_cmd_fn cmd_trace_merge;
/* trace.c: the summary S (of the inputs or of merged partials), what
 * became of its inputs said as WHAT first (SETS: the system traces among
 * them, may be NULL), then written as `trace summary` writes it (R, JSON;
 * P: the partial instead) to OUT, whole or not at all.  The exit
 * status. */
struct st_trace_summary;
struct st_trace_render;
struct st_sum_partial;
struct st_systrace_list;
int trace_summary_emit(const char *what, const struct st_trace_summary *s,
		       const struct st_trace_render *r, bool json,
		       const struct st_systrace_list *sets,
		       struct st_sum_partial *p, const char *out);
st_cmd_fn cmd_trace_record;
st_cmd_fn cmd_trace_plot;

/* --format of the figure commands: "png", "svg" or "png,svg" into the
 * unsigned mask of plot.h's formats at O->target (64 otherwise). */
extern const char *const st_plot_format_choices[];
int st_opt_plot_formats(const struct st_option *o, char *arg, st_error *err);

extern const struct st_cmd_group st_clock_group, st_collect_group,
	st_distiller_group, st_merge_group, st_slurm_group, st_stats_group,
	st_trace_group;

#endif
