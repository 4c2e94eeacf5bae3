/* trace.c - `streamtime trace summary|timeline` (SPEC 5.10): options,
 * the library's calls in order, what became of the inputs, the exit
 * status. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "meter.h"
#include "streamtime/sum_partial.h"
#include "streamtime/systrace_render.h"
#include "streamtime/trace.h"
#include "streamtime/trace_render.h"
#include "streamtime/trace_timeline.h"
#include "trace_inputs.h"

#define MAX_JOBS 256

static const struct st_cmd_desc summary_desc = {
	.path = "streamtime trace summary",
	ST_DESC_ARGS_ANY("FILE...", "no trace file given",
			 ST_COMPLETE_FILE),
	.description =
	"Summarise DFTracer traces (.pfw, .pfw.gz; a directory means its\n"
	"*.pfw and *.pfw.gz; '-' is standard input): events, hosts,\n"
	"processes, threads, files, span, time and bytes per category and\n"
	"function, I/O and compute time per process (exact unions of the\n"
	"events' intervals), overlapped and not.  A directory of system\n"
	"traces (bpftrace, mpstat, nvidia-smi pmon, MLPerf logs, strace:\n"
	"docs/systrace.md) adds its calls as events, and its clock\n"
	"alignment with a stated bound, processes and per-phase figures.\n",
	.epilogue =
	"Corrupt lines are counted and skipped (the first ten named on stderr).\n"
	"Exit 0, also when the filter keeps no event (a zero summary); 65 when\n"
	"an input is not a trace (empty, no event, only corrupt lines) or its\n"
	"gzip stream is damaged, or a directory holds no trace; 66 an input\n"
	"missing or unreadable; 74 a read error; 64 a time-align trace with no\n"
	"date (--date).  On 65, 66 and 74 nothing is written (--out FILE is\n"
	"left as it was).  --save-partial FILE writes the mergeable state\n"
	"instead, under the same rule, for `trace merge`\n"
	"(docs/slurm-array.md); 64 with a system-trace directory.\n",
};

static const struct st_cmd_desc timeline_desc = {
	.path = "streamtime trace timeline",
	ST_DESC_ARGS_ANY("FILE...", "no trace file given",
			 ST_COMPLETE_FILE),
	.required_msg = "--out FILE is required ('-' for stdout)",
	.description =
	"One Chrome trace (open it in https://ui.perfetto.dev) of DFTracer\n"
	"traces: a process per (host, pid), a track per thread, a slice per\n"
	"event (args: file, bytes).  Slices of a thread that overlap without\n"
	"nesting go on extra tracks next to it, \"tid T (2)\", ...  System\n"
	"traces: a track per kind of call, the application's phases, CPU and\n"
	"GPU counters, the clock alignment in otherData.\n",
	.epilogue =
	"Exit status as for `trace summary`: no event kept by the filter is an\n"
	"empty trace (0); on 65, 66 and 74 --out FILE is left as it was.\n",
};

static const char *const group_choices[] = {
	"host", "pid", "thread", "name", "cat", "file", "basename", "pattern",
	"prefix:", "phase", NULL,
};

static const char filter_help[] =
	"only events where F holds: TERM[,TERM...], all of them (AND; repeat "
	"--filter to add more).  TERM is FIELD OP VALUE.  Text fields name, "
	"cat, host, file, basename, pattern (the basename with each run of "
	"digits and '-' as '*'): = (equal), ~ (contains), ^ (starts with), $ "
	"(ends with), =~ (POSIX extended regular expression).  Numbers pid, "
	"tid, dur, ts (microseconds), bytes: = < <= > >= and an integer.  '!' "
	"before the operator negates (name!~read, pid!=0).\ne.g. "
	"cat=POSIX,name=~^p?write,file^/p/lustre,dur>1000";

/* --group-by KEYS or --per KEYS into the st_trace_keys at TARGET; the
 * text stays for the output. */
struct group_sel {
	const char *text;
	st_trace_keys *k;
};

static int set_keys(const struct st_option *o, char *arg,
		    st_error *err)
{
	struct group_sel *g = o->target;

	if (st_trace_keys_parse(g->k, arg, err) < 0)
		return -1;
	if (!g->k->n)
		return st_error_set(err, ST_EXIT_USAGE, "no key given "
				    "(KEY[,KEY...])");
	g->text = arg;
	return 0;
}

/* --io-cat and --compute-cat: the last given of each (NULL: not given),
 * checked once the options are read (--help first); then their lists
 * (NULL: not given). */
struct cats {
	const char *io_arg, *comp_arg;
	const char **io, **comp;
	size_t n_io, n_comp;
};

/* C's lists from the texts given; 0, or the exit status of PROG. */
static int cats_parse(const char *prog, struct cats *c)
{
	st_error err;

	/* the texts are argv's: theirs to cut */
	if ((c->io_arg && st_trace_cats_parse("io-cat", (char *)c->io_arg,
					      &c->io, &c->n_io, &err) < 0) ||
	    (c->comp_arg && st_trace_cats_parse("compute-cat",
						(char *)c->comp_arg,
						&c->comp, &c->n_comp,
						&err) < 0))
		return st_msg_fail_usage(prog, &err);
	return 0;
}

/* The paths (DFTracer files, system-trace directories) and the sets. */
struct inputs {
	struct st_trace_inputs in;
	struct st_trace_sets ts;
};

static void inputs_release(struct inputs *in)
{
	st_trace_inputs_release(&in->in);
	st_trace_sets_release(&in->ts);
}

int trace_summary_emit(const char *what, const st_trace_summary *s,
		       const st_trace_render *r, bool json,
		       const st_systrace_list *sets, st_sum_partial *p,
		       const char *out)
{
	st_trace_notes nt = { 0 };
	st_error err;
	int rc = trace_notes_said(&nt, st_trace_sets_output_notes(s, sets, what,
				  &nt, &err), &err);

	if (rc)
		return rc;
	if (s->saturated)
		st_msg_warn("trace summary: a total of bytes or time passed %"
			    PRId64 " and is shown as that (capped, not "
			    "wrapped)", INT64_MAX);
	if (st_systrace_render_save(out, s, r, json, sets, p, &err) < 0)
		return st_msg_fail(&err);
	return st_finish_stdout(ST_EXIT_OK);
}

/* Summarise IN with R's options (through the cache C when not NULL), a
 * meter on the terminal, and write it to OUT (the partial instead when
 * PARTIAL).  The exit status. */
static int run_summary(const struct inputs *in, const st_trace_render *r,
		       bool json, bool partial, const char *out,
		       st_trace_cache *c)
{
	const char *const *paths = (const char *const *)in->in.v;
	st_trace_summary s = { 0 };
	st_sum_partial *p = NULL;
	struct meter m;
	st_error err;
	int rc = 0;

	meter_start(&m, r->o->progress, "trace summary", in->in.v, in->in.n);
	if (partial)
		rc = (p = st_sum_partial_new(paths, in->in.n, r->o, r->group,
					     r->per, &s, &err)) ? 0 : -1;
	else if (c)
		rc = st_trace_cache_summarize(c, paths, in->in.n, r->o,
					      r->group, r->per, &s, &err);
	else
		rc = st_trace_summarize(paths, in->in.n, r->o, &s, &err);
	meter_stop(&m);
	rc = rc < 0 ? st_msg_fail(&err)
		    : trace_summary_emit("trace summary", &s, r, json,
					 &in->ts.sets, p, out);
	st_sum_partial_free(p);
	st_trace_summary_release(&s);
	return rc;
}

static int run_timeline(const struct inputs *in,
			const st_trace_timeline_opts *o, const char *out,
			bool experiment, bool offsets)
{
	st_trace_timeline_counts n;
	st_trace_notes nt = { 0 };
	st_log log = ST_LOG_STDERR;
	struct meter m;
	st_error err;
	int rc;

	meter_start(&m, o->progress, "trace timeline", in->in.v, in->in.n);
	rc = st_trace_timeline_run((const char *const *)in->in.v, in->in.n, o,
				   &in->ts.sets, out, &n, &log, &nt, &err);
	meter_stop(&m);
	if ((rc = trace_notes_said(&nt, rc, &err)))
		return rc;
	st_msg_info("trace timeline: %" PRIu64 " processes, %" PRIu64
		    " slices%s%s in %s", n.processes, n.written,
		    experiment ? " and the experiment's stages" : "",
		    offsets ? ", clock-corrected" : "",
		    strcmp(out, "-") ? out : "stdout");
	return st_finish_stdout(ST_EXIT_OK);
}

/* --save-partial refused with system traces among IN; else O set to
 * read them (st_trace_sets_summary_opts).  The exit status. */
static int summary_setup(const char *prog, struct inputs *in,
			 st_trace_opts *o, const char *partial)
{
	st_error err;

	if (in->ts.sets.n && partial)
		return st_msg_usage(prog, "--save-partial takes DFTracer files "
				    "only, not a system-trace directory (%s): "
				    "summarise it in one process",
				    in->in.sysdirs[0]);
	if (st_trace_sets_summary_opts(&in->ts, o, &err) < 0)
		return st_msg_fail(&err);
	return 0;
}

int cmd_trace_summary(int argc, char **argv)
{
	const char *prog = summary_desc.path, *out = "-", *partial = NULL;
	bool json = false;
	st_trace_filter filter = { 0 };
	st_trace_opts o = { 0 };
	struct group_sel group = { .k = &o.group }, per = { .k = &o.per };
	struct st_trace_sys_opts sys = { 0 };
	struct cats cats = { 0 };
	struct trace_cache_opt co = { 0 };
	int64_t jobs = st_trace_jobs_default(MAX_JOBS);
	const struct st_option opts[] = {
		{ ST_O("json", 0, ST_OPT_FLAG, &json, NULL,
		       "the summary as JSON", 0) },
		{ ST_O("group-by", 0, ST_OPT_CALLBACK, &group, "KEYS",
		       "a table of groups, one per distinct value of KEYS "
		       "(KEY[,KEY...]; several keys: their values joined by ','): "
		       "count, dur, bytes, and the largest sum of dur and of "
		       "bytes over the --per units inside it.  Keys: host, pid "
		       "(host:pid), thread (host:pid:tid), name, cat, file, "
		       "basename, pattern (the basename with each run of digits "
		       "and '-' as '*'), prefix:N (the file's first N path "
		       "components), phase (the system traces' application "
		       "phase the event starts in, the innermost; DFTracer "
		       "alone: (none)).  No value (no file, no phase): (none); "
		       "no host: ''", 0),
		  .choices = group_choices, .cb = set_keys },
		{ ST_O("per", 0, ST_OPT_CALLBACK, &per, "KEYS",
		       "the unit of the groups' maxima (default pid; e.g. thread: "
		       "the busiest thread of each group)", 0),
		  .choices = group_choices, .cb = set_keys },
		{ ST_O("filter", 0, ST_OPT_CALLBACK, &filter, "F", filter_help,
		       ST_OPT_REPEAT), .cb = trace_opt_filter },
		{ ST_O("io-cat", 0, ST_OPT_STRING, &cats.io_arg, "LIST",
		       "categories that are I/O (default POSIX,STDIO; '' for "
		       "none)", 0) },
		{ ST_O("compute-cat", 0, ST_OPT_STRING, &cats.comp_arg, "LIST",
		       "categories that are compute (default compute; '' for "
		       "none)", 0) },
		{ ST_O("time-granularity", 0, ST_OPT_INT, &o.granularity_us, "US",
		       "also a table of time bins US microseconds wide: events, "
		       "bytes, bytes read, bytes written, I/O and compute time "
		       "(bins that hold nothing are left out)", 0),
		  .min = 1, .max = INT64_MAX,
		  .expect = "a positive number of microseconds" },
		{ ST_O("jobs", 'j', ST_OPT_INT, &jobs, "N",
		       "files read in parallel (default: the cores)", 0),
		  .min = 1, .max = MAX_JOBS },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "write the summary there (default '-': stdout)", 0) },
		{ ST_O("save-partial", 0, ST_OPT_PATH, &partial, "FILE",
		       "write the mergeable state there instead of the "
		       "summary, for `trace merge` (a share of a Slurm job "
		       "array; DFTracer files only)", 0) },
		ST_TRACE_SYS_OPT_ROWS(sys),
		ST_TRACE_CACHE_OPT_ROWS(co),
		ST_OPT_END_ROW,
	};
	st_trace_progress prog_c = { 0 };
	st_trace_cache cache;
	struct inputs in = { 0 };
	int nargs, rc, on = 0;

	if (!st_opt_go(&summary_desc, opts, argc, argv, &nargs, &rc) ||
	    (rc = cats_parse(prog, &cats)))
		goto out;
	if (!*out) {
		rc = st_msg_usage(prog, "--out needs a file name or '-'");
		goto out;
	}
	if (partial && (json || strcmp(out, "-") != 0)) {
		rc = st_msg_usage(prog, "--save-partial writes the partial, "
				  "not the summary: no --json or --out with "
				  "it");
		goto out;
	}
	o.io_cats = cats.io;
	o.n_io = cats.n_io;
	o.compute_cats = cats.comp;
	o.n_compute = cats.n_comp;
	o.max_bad = st_verbosity > 0 ? 1000 : 10;
	o.filter = filter.n ? &filter : NULL;
	o.jobs = (int)jobs;
	o.progress = &prog_c;
	if ((rc = trace_inputs_open(&in.in, &in.ts, argv + 1, (size_t)nargs,
				    &sys, o.max_bad)) ||
	    (rc = summary_setup(prog, &in, &o, partial)))
		goto out;
	if (per.text && !group.text) {
		rc = st_msg_usage(prog, "--per needs --group-by");
		goto out;
	}
	on = !partial && trace_cache_begin(&cache, &co, "trace summary");
	rc = run_summary(&in, &(st_trace_render){ &o, group.text, per.text },
			 json, partial != NULL, partial ? partial : out,
			 on ? &cache : NULL);
	trace_cache_end(&cache, on, "trace summary");
out:
	st_trace_filter_release(&filter);
	inputs_release(&in);
	free(cats.io);
	free(cats.comp);
	return rc;
}

/* ---- timeline -------------------------------------------------------- */

/* --format's values: auto (by the output's name) first. */
static const char *const trace_formats[] = { "auto", "perfetto", "json",
					     NULL };

int cmd_trace_timeline(int argc, char **argv)
{
	const char *prog = timeline_desc.path;
	const char *out = NULL, *offsets_path = NULL, *exp_dir = NULL;
	const char *data = NULL, *config = NULL;
	st_trace_filter filter = { 0 };
	st_trace_timeline_opts o = { .max_events = 1000000 };
	struct st_trace_sys_opts sys = { 0 };
	int64_t jobs = st_trace_jobs_default(MAX_JOBS), max_events = -1;
	int format = 0;
	const struct st_option opts[] = {
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "the trace ('-' for stdout): Chrome's JSON, gzipped when "
		       "FILE ends in .gz; Perfetto's protobuf when it ends in "
		       ".pftrace or .perfetto-trace", ST_OPT_REQUIRED) },
		{ ST_O("format", 0, ST_OPT_CHOICE, &format, "F",
		       "the trace's format whatever --out's name: perfetto "
		       "(protobuf, every event, one track per thread) or json "
		       "(default auto: by --out's name)", 0),
		  .choices = trace_formats },
		{ ST_O("max-events", 0, ST_OPT_INT, &max_events, "N",
		       "at most N slices (default 1000000 in JSON, every event "
		       "in Perfetto's protobuf; 0: all): beyond it every k-th "
		       "event is kept, evenly, and the JSON's "
		       "otherData.sampled says so", 0), .min = 0,
		  .max = INT64_MAX, .expect = "a number (0: no limit)" },
		{ ST_O("clock-offsets", 0, ST_OPT_PATH, &offsets_path, "FILE",
		       "a `streamtime clock probe` file: each host's times are "
		       "moved to the reference clock with its nearest measurement "
		       "(targets named as the traces' hostnames)", 0) },
		{ ST_O("experiment", 0, ST_OPT_PATH, &exp_dir, "DIR",
		       "add the streaming experiment's timeline from `streamtime "
		       "reproduce --out DIR` (with --data, its receivers and "
		       "offload too; --config as for `streamtime timeline`)", 0) },
		{ ST_O("data", 0, ST_OPT_PATH, &data, "DIR",
		       "with --experiment: the dataset", 0) },
		ST_ROW_CONFIG(config),
		{ ST_O("filter", 0, ST_OPT_CALLBACK, &filter, "F",
		       "as for `trace summary`", ST_OPT_REPEAT),
		  .cb = trace_opt_filter },
		{ ST_O("jobs", 'j', ST_OPT_INT, &jobs, "N",
		       "files read in parallel by the first pass (Perfetto's "
		       "protobuf: written in parallel, each file a part)", 0),
		  .min = 1, .max = MAX_JOBS },
		ST_TRACE_SYS_OPT_ROWS(sys),
		ST_OPT_END_ROW,
	};
	st_trace_progress prog_c = { 0 };
	st_trace_timeline_extras x = { 0 };
	st_trace_notes nt = { 0 };
	struct inputs in = { 0 };
	st_error err;
	int nargs, rc;

	if (!st_opt_go(&timeline_desc, opts, argc, argv, &nargs, &rc))
		goto out;
	rc = ST_EXIT_OK;
	if (!*out) {
		rc = st_msg_usage(prog, "%s", timeline_desc.required_msg);
		goto out;
	}
	if (st_ctrace_format_of(out, format ? trace_formats[format] : NULL,
				&o.format, &o.gzip, &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	if (max_events >= 0)
		o.max_events = (uint64_t)max_events;
	else if (o.format == ST_CTRACE_PERFETTO)
		o.max_events = 0;
	for (int i = 1; i <= nargs; i++)
		if (strcmp(argv[i], "-") == 0) {
			rc = st_msg_usage(prog, "the traces are read twice: "
					  "'-' (standard input) cannot be one");
			goto out;
		}
	if ((data || config) && !exp_dir) {
		rc = st_msg_usage(prog, "--data and --config go with "
				  "--experiment");
		goto out;
	}
	o.max_bad = st_verbosity > 0 ? 1000 : 10;
	if ((rc = trace_inputs_open(&in.in, &in.ts, argv + 1, (size_t)nargs,
				    &sys, o.max_bad)))
		goto out;
	if (in.ts.sets.n)
		o.src = &in.ts.src;
	if ((rc = trace_notes_said(&nt, st_trace_timeline_extras_load(&x, &o,
			offsets_path, exp_dir, data, config, &nt, &err), &err)))
		goto out;
	o.filter = filter.n ? &filter : NULL;
	o.jobs = (int)jobs;
	o.progress = &prog_c;
	rc = run_timeline(&in, &o, out, exp_dir, offsets_path);
out:
	st_trace_filter_release(&filter);
	st_trace_timeline_extras_release(&x);
	inputs_release(&in);
	return rc;
}
