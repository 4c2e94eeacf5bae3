/* cmd.h - the command layer: what every command file includes (options,
 * dispatch, messages, option arguments, secrets) and the commands.
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

#include "args.h"
#include "dispatch.h"
#include "msg.h"
#include "options.h"
#include "secret.h"

struct st_cmd_group;

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

/* --format of the figure commands: "png", "svg", "pdf" or a list of them
 * ("png,pdf") into the unsigned mask of plot.h's formats at O->target (64
 * otherwise); the row of both commands' tables. */
extern const char *const st_plot_format_choices[];
int st_opt_plot_formats(const struct st_option *o, char *arg, st_error *err);
#define ST_ROW_PLOT_FORMAT(var) \
	{ ST_O("format", 0, ST_OPT_CALLBACK, &(var), "LIST", \
	       "png, svg, pdf or a comma-separated list of them (default " \
	       "png,svg)", 0), \
	  .choices = st_plot_format_choices, .cb = st_opt_plot_formats }

extern const struct st_cmd_group st_clock_group, st_collect_group,
	st_distiller_group, st_merge_group, st_slurm_group, st_stats_group,
	st_trace_group;

#endif
