/* trace_events.c - `streamtime trace events` (issue 16): the selected
 * events of traces as CSV or JSON lines. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "trace_inputs.h"
#include "streamtime/atomic.h"
#include "streamtime/trace_events.h"

static const struct st_cmd_desc events_desc = {
	.path = "streamtime trace events",
	ST_DESC_ARGS_ANY("FILE...", "no trace file given",
			 ST_COMPLETE_FILE),
	.description =
	"The events of DFTracer traces (.pfw, .pfw.gz; a directory means its\n"
	"*.pfw and *.pfw.gz; '-' is standard input) and of system-trace\n"
	"directories (their calls, as `trace summary DIR` reads them; see\n"
	"docs/systrace.md) that --filter keeps, as a table with a row per\n"
	"event, in the order of the files and of their lines: ts and dur (microseconds, as in the trace), start and end\n"
	"(UTC), host, pid, tid, name, cat, file, bytes, then the keys asked\n"
	"with --keys.  A value the event lacks is an empty cell (CSV) or null\n"
	"(JSON).  In text, a control character is written \\u00XX and a\n"
	"backslash \\\\, so every row is one line and the text comes back\n"
	"exactly.\n",
	.epilogue =
	"Corrupt lines are counted and skipped (the first ten named on stderr).\n"
	"Exit 0, also when the filter keeps no event (only the CSV header); 65\n"
	"when an input is not a trace (empty, no event, only corrupt lines) or\n"
	"its gzip stream is damaged; 66 an input missing or unreadable (said\n"
	"before anything is read); 74 a read or write error.  On 65, 66 and 74\n"
	"--out FILE is left as it was; standard output has had the rows before\n"
	"the fault.\n",
};

static const char *const format_choices[] = { "csv", "jsonl", NULL };

static const char *const key_choices[] = {
	"thread", "basename", "pattern", "prefix:", "phase", NULL,
};

/* --keys LIST into the st_trace_keys at TARGET. */
static int set_keys(const struct st_option *o, char *arg, st_error *err)
{
	return st_trace_events_keys_parse(o->target, arg, err);
}

/* Write the rows of IN with O to OUT (atomically; '-' streams to stdout)
 * and say what became of the inputs (SETS: the system traces among them,
 * whose call files may hold no call).  Returns the exit status. */
static int run_events(const struct st_trace_inputs *in,
		      const st_trace_events_opts *o, const char *out,
		      const st_systrace_list *sets)
{
	st_atomic_file af = { 0 };
	st_trace_events_result res = { 0 };
	st_trace_notes nt = { 0 };
	st_error err;
	bool to_stdout = strcmp(out, "-") == 0;
	int r, rc;

	if (st_atomic_open(&af, out, &err) < 0)
		return st_msg_fail(&err);
	r = st_trace_events_save(&af, out, (const char *const *)in->v, in->n,
				 o, sets, &res, &nt, &err);
	rc = trace_notes_say(&nt);
	if (r < 0 && ((r = st_msg_fail(&err)) == ST_EXIT_IOERR || !rc))
		rc = r;
	if (rc && to_stdout && !res.write_failed && res.rows)
		st_msg_error("trace events: standard output got the first %"
			     PRIu64 " rows only", res.rows);
	else if (rc && !to_stdout)
		st_msg_error("trace events: nothing written (%s is left as "
			     "it was)", out);
	if (!rc) {
		if (res.limited)
			st_msg_info("trace events: stopped at --limit %" PRIu64
				    " rows (the rest not read)", o->limit);
		st_msg_verbose("trace events: %" PRIu64 " rows of %" PRIu64
			       " events", res.rows, res.events);
	}
	if (to_stdout && !res.write_failed)
		rc = st_finish_stdout(rc);
	st_trace_events_result_release(&res);
	return rc;
}

int cmd_trace_events(int argc, char **argv)
{
	const char *out = "-";
	st_trace_filter filter = { 0 };
	st_trace_keys keys = { 0 };
	struct st_trace_sys_opts sys = { 0 };
	int format = 0;
	int64_t limit = 0;
	const struct st_option opts[] = {
		{ ST_O("filter", 0, ST_OPT_CALLBACK, &filter, "F",
		       "as for `trace summary`", ST_OPT_REPEAT),
		  .cb = trace_opt_filter },
		{ ST_O("format", 0, ST_OPT_CHOICE, &format, "F",
		       "CSV with a header (RFC 4180, the default) or a JSON "
		       "object per line", 0), .choices = format_choices },
		{ ST_O("keys", 0, ST_OPT_CALLBACK, &keys, "LIST",
		       "derived columns after bytes (default basename,pattern; "
		       "'' for none): thread (host:pid:tid), basename (the "
		       "file's last component), pattern (the basename with each "
		       "run of digits and '-' as '*'), prefix:N (the file's "
		       "first N path components), phase", 0),
		  .choices = key_choices, .cb = set_keys },
		{ ST_O("limit", 0, ST_OPT_INT, &limit, "N",
		       "stop after N rows (the rest is not read)", 0),
		  .min = 1, .max = INT64_MAX },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "write the table there, whole or not at all (default "
		       "'-': stdout, as the rows come)", 0) },
		ST_TRACE_SYS_OPT_ROWS(sys),
		ST_OPT_END_ROW,
	};
	struct st_trace_sets ts = { 0 };
	bool keys_given;
	st_trace_events_opts o = { 0 };
	struct st_trace_inputs in = { 0 };
	int nargs, rc;

	/* the default unless --keys is given ('' then means none) */
	keys.n = SIZE_MAX;
	if (!st_opt_go(&events_desc, opts, argc, argv, &nargs, &rc))
		goto out;
	keys_given = keys.n != SIZE_MAX;
	if (!keys_given &&
	    st_trace_keys_parse(&keys, "basename,pattern", NULL) < 0) {
		rc = ST_EXIT_IOERR;
		goto out;
	}
	if (!*out) {
		rc = st_msg_usage(events_desc.path, "--out needs a file name or "
				  "'-'");
		goto out;
	}
	o.max_bad = st_verbosity > 0 ? 1000 : 10;
	if ((rc = trace_inputs_open(&in, &ts, argv + 1, (size_t)nargs, &sys,
				    o.max_bad)) ||
	    (ts.sets.n && (rc = trace_sets_phases(&ts))))
		goto out;
	o.src = ts.sets.n ? &ts.src : NULL;
	o.seg_us = ts.seg;
	o.nseg = ts.nseg;
	o.seg_phase = (const char *const *)ts.phase;
	o.filter = filter.n ? &filter : NULL;
	o.keys = &keys;
	o.format = format ? ST_TRACE_EVENTS_JSONL : ST_TRACE_EVENTS_CSV;
	o.limit = (uint64_t)limit;
	rc = run_events(&in, &o, out, &ts.sets);
out:
	st_trace_sets_release(&ts);
	st_trace_filter_release(&filter);
	st_trace_inputs_release(&in);
	return rc;
}
