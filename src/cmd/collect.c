/* collect.c - `streamtime collect receivers|h5` (SPEC 5.1, 5.2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "streamtime/clock.h"
#include "streamtime/collect.h"
#include "streamtime/num.h"
#include "streamtime/tz.h"

/* What both collectors do for cron (collect.h). */
#define ST_COLLECT_CRON_HELP                                                 \
	"A run that finds the lock held exits 75, silently under -q until runs\n" \
	"have found it held for 15 minutes (a stuck run); each adds a line to\n"  \
	"FILE.skipped, which the next run that gets the lock counts and removes.\n" \
	"FILE's directory is made when missing and its parent exists.\n"

static const struct st_cmd_desc receivers_desc = {
	.path = "streamtime collect receivers",
	.args = "DIR",
	.min_args = 1,
	.max_args = 1,
	.args_missing = "DIR is required",
	.args_complete = ST_COMPLETE_DIR,
	.description =
	"Append one row per newly complete scan of acquisition directory DIR:\n"
	"scan_number,time0,...,time{N-1},time_last_written.  time_r is receiver\n"
	"r's status 'time' in UTC; time_last_written the newest data-file mtime at\n"
	"full resolution.  A scan is complete when all N status files parse, it\n"
	"has data files, and none changed for SECONDS.  Other scans are retried\n"
	"next run; scans already in FILE are never looked at again.  Made for\n"
	"cron: safe to kill, one run at a time (a lock on FILE).\n"
	ST_COLLECT_CRON_HELP,
	.verbose_help = " (why scans are pending)",
};

static const struct st_cmd_desc h5_desc = {
	.path = "streamtime collect h5",
	ST_DESC_ARGS_ANY("DIR...", "DIR is required",
			 ST_COMPLETE_DIR),
	.description =
	"Record the mtime of each counted file FOURD_{date}_{time}_{id}_{scan}[_x].h5\n"
	"of the DIRs: distiller_id,scan_number,datetime, sorted by distiller_id\n"
	"then scan.  distiller_id 00000 (unknown) is skipped; variants of one scan\n"
	"give one row with the earliest mtime.  Rows already in FILE are kept (also\n"
	"when their files are gone) and new ones merged in; the file is replaced\n"
	"atomically, one run at a time (FILE.lock).\n"
	ST_COLLECT_CRON_HELP,
};

/* Shared option values of both collectors. */
struct common {
	const char *dir, *out, *tz;
	st_duration settle;
	bool wait, strict;
};

/* "N runs found the lock held since T" of S into BUF, "" for none. */
static void skipped_text(const st_collect_summary *s, char *buf, size_t size)
{
	char since[48] = "";

	buf[0] = '\0';
	if (!s->skipped)
		return;
	if (s->skipped_since)
		st_time_format_utc(s->skipped_since, since, sizeof(since));
	snprintf(buf, size, "%zu run%s found the lock held%s%s", s->skipped,
		 s->skipped == 1 ? "" : "s", since[0] ? " since " : "", since);
}

/* A collector failed with ERR.  A held lock (75) is the normal overlap of
 * two cron runs: under -q it is said only once runs have found it held for
 * ST_COLLECT_OVERLAP_QUIET (a stuck run), or when the count is unknown. */
static int fail(const st_error *err, const st_collect_summary *s, st_instant now)
{
	char more[160];
	bool long_held = !s->skipped_since ||
			 now - s->skipped_since >= ST_COLLECT_OVERLAP_QUIET;

	if (err->code != ST_EXIT_TEMPFAIL)
		return st_msg_fail(err);
	if (st_verbosity < 0 && !long_held)
		return ST_EXIT_TEMPFAIL;
	skipped_text(s, more, sizeof(more));
	st_msg_error("%s%s%s%s%s", err->text, more[0] ? " (" : "", more,
		     more[0] ? ")" : "", long_held && s->skipped_since ?
		     ": is the run that holds it stuck?" : "");
	return ST_EXIT_TEMPFAIL;
}

static int finish(const char *what, const char *out, const st_collect_summary *s,
		  bool strict)
{
	char more[160];
	int rc;

	if (s->dropped)
		st_msg_warn("%s: cut a torn last line (%zu bytes) left by a killed "
			    "run; its scan is written again", out, s->dropped);
	if (s->completed)
		st_msg_warn("%s: its last row lacked a newline; added", out);
	if (s->made_dir)
		st_msg_info("collect %s: made the missing directory of %s", what,
			    out);
	skipped_text(s, more, sizeof(more));
	if (strcmp(out, "-") == 0)
		st_msg_info("collect %s: %zu written to stdout, %zu pending, %zu bad",
			    what, s->written, s->pending, s->bad);
	else
		st_msg_info("collect %s: %zu written, %zu pending, %zu bad, %zu "
			    "already in %s%s%s", what, s->written, s->pending,
			    s->bad, s->known, out, more[0] ? "; " : "", more);
	rc = st_finish_stdout(ST_EXIT_OK);
	if (rc == ST_EXIT_OK && strict && s->bad) {
		st_msg_error("%zu scan(s) or file(s) unusable (named above) and "
			     "--strict", s->bad);
		return ST_EXIT_DATAERR;
	}
	return rc;
}

static int collect_receivers(int argc, char **argv)
{
	struct common co = { .tz = "UTC", .settle = 30 * ST_NS_PER_SEC };
	st_receivers_opts o = { .receivers = 4, .data = true, .since = INT64_MIN };
	int64_t receivers = o.receivers;
	const struct st_option opts[] = {
		{ ST_O("out", 0, ST_OPT_PATH, &co.out, "FILE",
		       "the CSV to append to (created with its header); '-' prints "
		       "every complete scan and keeps no state", ST_OPT_REQUIRED) },
		{ ST_O("receivers", 0, ST_OPT_INT, &receivers, "N",
		       "status files per scan (default 4)", 0), .min = 1,
		  .max = ST_RECEIVERS_MAX },
		{ ST_O("no-data", 0, ST_OPT_UNSET, &o.data, NULL,
		       "no data files needed, no time_last_written column", 0) },
		{ ST_O("settle", 0, ST_OPT_SECONDS, &co.settle, "SECONDS",
		       "quiet time of all the scan's files before it counts "
		       "(default 30; on NFS make it longer than the attribute "
		       "cache, acregmax)", ST_OPT_ZERO_OK), .max = 1000000000,
		  .expect = "seconds >= 0" },
		{ ST_O("since", 0, ST_OPT_INT, &o.since, "N",
		       "ignore scans below N", 0), .min = INT64_MIN,
		  .max = INT64_MAX, .expect = "a scan number" },
		{ ST_O("tz", 0, ST_OPT_ZONE, &co.tz, "ZONE",
		       "zone of status times written without an offset (default "
		       "UTC)", 0) },
		{ ST_O("wait", 0, ST_OPT_FLAG, &co.wait, NULL,
		       "wait for a run that holds the lock (default: exit 75)", 0) },
		{ ST_O("strict", 0, ST_OPT_FLAG, &co.strict, NULL,
		       "exit 65 when a file was unusable (rows are still written)",
		       0) },
		ST_OPT_END_ROW,
	};
	st_log notes, log;
	st_collect_summary sum;
	st_tz *tz = NULL;
	st_error err;
	int n, rc;

	if (!st_opt_go(&receivers_desc, opts, argc, argv, &n, &rc))
		return rc;
	co.dir = argv[1];
	o.receivers = (int)receivers;
	tz = st_tz_load(co.tz, &err);
	if (!tz)
		return st_msg_fail(&err);
	st_log_stderr(&log);
	st_log_verbose(&notes);
	o.tz = tz;
	o.settle = co.settle;
	o.now = st_clock_now();
	o.notes = &notes;
	if (st_collect_receivers(co.dir, co.out, co.wait, &o, &sum, &log, &err) < 0)
		rc = fail(&err, &sum, o.now);
	else
		rc = finish("receivers", co.out, &sum, co.strict);
	st_tz_free(tz);
	return rc;
}

/* --range FIRST-LAST (or N) into the h5 options at TARGET. */
static int set_h5_range(const struct st_option *o, char *arg,
                        st_error *err)
{
	st_collect_h5_opts *h5 = o->target;
	int64_t size;
	st_range r;
	char buf[128];

	/* reuse the SIZE:FIRST-LAST parser with a dummy size; a single N is
	 * N-N */
	if (snprintf(buf, sizeof(buf), strchr(arg, '-') ? "1:%s" : "1:%s-%s",
		     arg, arg) >= (int)sizeof(buf) ||
	    st_parse_size_range(buf, &size, &r) < 0)
		return st_error_set(err, ST_EXIT_USAGE, "--range '%s': expected "
				    "FIRST-LAST", arg);
	h5->h5.has_range = true;
	h5->h5.first = r.first;
	h5->h5.last = r.last;
	return 0;
}

static int collect_h5(int argc, char **argv)
{
	struct common co = { .settle = 30 * ST_NS_PER_SEC };
	st_collect_h5_opts o = { 0 };
	const struct st_option opts[] = {
		{ ST_O("out", 0, ST_OPT_PATH, &co.out, "FILE",
		       "the CSV ('-' for stdout, no state)", ST_OPT_REQUIRED) },
		{ ST_O("range", 0, ST_OPT_CALLBACK, &o, "FIRST-LAST",
		       "only these scan numbers (or one: --range N)", 0),
		  .cb = set_h5_range },
		{ ST_O("tz", 0, ST_OPT_ZONE, &co.tz, "ZONE",
		       "with --naive: the zone to write local time in", 0) },
		{ ST_O("naive", 0, ST_OPT_FLAG, &o.naive, NULL,
		       "write naive local time in --tz ZONE, the paper's form "
		       "('2023-10-13 09:45:14'); default UTC ISO 8601", 0) },
		{ ST_O("settle", 0, ST_OPT_SECONDS, &co.settle, "SECONDS",
		       "files changed more recently are left for the next run "
		       "(default 30)", ST_OPT_ZERO_OK), .max = 1000000000,
		  .expect = "seconds >= 0" },
		{ ST_O("wait", 0, ST_OPT_FLAG, &co.wait, NULL,
		       "wait for a run that holds the lock (default: exit 75)", 0) },
		{ ST_O("strict", 0, ST_OPT_FLAG, &co.strict, NULL,
		       "exit 65 when a file could not be examined", 0) },
		ST_OPT_END_ROW,
	};
	const char *prog = h5_desc.path;
	st_log notes, log;
	st_collect_summary sum;
	st_error err;
	int n, rc;

	if (!st_opt_go(&h5_desc, opts, argc, argv, &n, &rc))
		return rc;
	if (o.naive && !co.tz)
		return st_msg_usage(prog, "--naive needs --tz ZONE (the zone to "
				    "write local time in)");
	if (co.tz && !o.naive)
		return st_msg_usage(prog, "--tz only applies with --naive (the "
				    "default output is UTC)");
	if (co.tz) {
		o.tz = st_tz_load(co.tz, &err);
		if (!o.tz)
			return st_msg_fail(&err);
	}
	st_log_stderr(&log);
	st_log_verbose(&notes);
	o.wait = co.wait;
	o.h5.settle = co.settle;
	o.h5.now = st_clock_now();
	o.h5.notes = &notes;
	if (st_collect_h5((const char *const *)argv + 1, (size_t)n,
			  co.out, &o, &sum, &log, &err) < 0) {
		rc = fail(&err, &sum, o.h5.now);
	} else {
		if (sum.unknown)
			st_msg_verbose("%zu file(s) with distiller_id 00000 skipped",
				       sum.unknown);
		rc = finish("h5", co.out, &sum, co.strict);
	}
	st_tz_free((st_tz *)o.tz);
	return rc;
}

static const struct st_cmd subcommands[] = {
	{ "h5", collect_h5, "mtimes of counted HDF5 files (cron, NERSC)", NULL },
	{ "receivers", collect_receivers,
	  "receiver status times and data mtimes (cron, acquisition host)", NULL },
};

ST_CMD_GROUP_FN(cmd_collect, st_collect_group,
		"streamtime collect", subcommands)
