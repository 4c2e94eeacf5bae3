/* merge.c - `streamtime merge transfer|offload|streaming` (SPEC 5.6). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "streamtime/pipeline.h"

static const struct st_cmd_desc transfer_desc = {
	.path = "streamtime merge transfer",
	.description =
	"Join Slurm accounting rows (slurm jobs / sacct) with Distiller's job table\n"
	"on Job ID = slurm_id.  Jobs without a Distiller row are dropped; a job with\n"
	"several rows is kept once per row; rows whose Distiller elapsed is empty or\n"
	"over the limit are dropped.\n",
};

/* --max-elapsed DUR: a duration (29:00, 1740s, ...), not negative. */
static int parse_max_elapsed(const struct st_option *o, char *arg,
                             st_error *err)
{
	if (st_duration_parse(arg, o->target, err) < 0)
		return st_error_set(err, ST_EXIT_USAGE, "--max-elapsed: %s",
				    err->text);
	if (*(st_duration *)o->target < 0)
		return st_error_set(err, ST_EXIT_USAGE, "--max-elapsed: '%s' is "
				    "negative: no job would be kept", arg);
	return 0;
}

static int merge_transfer(int argc, char **argv)
{
	const char *jobs = NULL, *out = NULL;
	struct st_strlist db = { 0 };
	st_duration max_elapsed = 29 * 60 * ST_NS_PER_SEC;
	const struct st_option opts[] = {
		{ ST_O("jobs", 0, ST_OPT_PATH, &jobs, "FILE",
		  "slurm_job_info.csv (header 'Job Name,Job ID,...')",
		  ST_OPT_REQUIRED) },
		{ ST_O("db", 0, ST_OPT_LIST, &db, "FILE_OR_DIR",
		  "a Distiller export {N}_{N}.csv (id,slurm_id,elapsed; size "
		  "from the name or a 'size' column) or a directory of them; "
		  "repeatable", ST_OPT_REQUIRED | ST_OPT_FILES) },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		  "merged_job_info.csv ('-' for stdout)", ST_OPT_REQUIRED) },
		{ ST_O("max-elapsed", 0, ST_OPT_CALLBACK, &max_elapsed, "DUR",
		  "keep rows with elapsed <= DUR (default 29:00)", 0),
		  .cb = parse_max_elapsed },
		ST_OPT_END_ROW,
	};
	size_t rows = 0;
	st_error err;
	int n, rc;

	if (!st_opt_go(&transfer_desc, opts, argc, argv, &n, &rc))
		goto out;
	if (st_merge_transfer_run(jobs, db.v, db.n, max_elapsed, out, &rows,
				  &err) < 0) {
		rc = st_msg_fail(&err);
	} else {
		st_msg_info("merge transfer: %zu rows written to %s", rows, out);
		rc = ST_EXIT_OK;
	}
out:
	st_strlist_release(&db);
	return st_finish_stdout(rc);
}

/* The rows of the clock correction, the same in offload and streaming. */
#define CLOCK_ROWS(c)                                                        \
	{ ST_O("clock-offsets", 0, ST_OPT_PATH, &(c).offsets, "FILE",        \
	       "correct each time for its host's clock with the "            \
	       "nearest-in-time row of FILE (clock probe); adds "            \
	       "clock_correction_seconds and clock_bound_seconds columns",   \
	       0) },                                                         \
	{ ST_O("receiver-hosts", 0, ST_OPT_STRING, &(c).receiver_hosts,      \
	       "H0,H1,...", "the hosts (FILE's target names) whose clocks "  \
	       "stamped time0, time1, ...", 0) }

/* The row of --NAME H: the host whose clock stamped WHAT (a string). */
#define CLOCK_HOST_ROW(name, field, what)                                   \
	{ ST_O(name, 0, ST_OPT_STRING, &(field), "H",                        \
	       "the host whose clock stamped " what " (default: the "        \
	       "reference clock, no correction)", 0) }

static const struct st_cmd_desc offload_desc = {
	.path = "streamtime merge offload",
	.description =
	"Offload time of a scan = time_last_written - min(time0..timeR-1), in\n"
	"seconds; written per size as the mean over the scans of its range.\n"
	"Warns (naming up to 5 scans) when an offload time is negative or longer\n"
	"than a day: the data files' mtimes are not the acquisition's (a copy or\n"
	"a checkout sets them) or a clock is wrong.  With --clock-offsets, warns\n"
	"when a time is corrected with a measurement more than a day away.\n",
};

static int merge_offload(int argc, char **argv)
{
	st_clock_options clock = { 0 };
	const char *wt = NULL, *out = NULL, *per_scan = NULL;
	struct st_size_ranges ranges = { 0 };
	const struct st_option opts[] = {
		{ ST_O("write-times", 0, ST_OPT_PATH, &wt, "FILE",
		  "scan_number,time0,...,time_last_written (written by "
		  "'collect receivers')", ST_OPT_REQUIRED) },
		{ ST_O("range", 0, ST_OPT_SIZE_RANGE, &ranges, "SIZE:FIRST-LAST",
		  "scans FIRST..LAST (inclusive) are the SIZE experiment; "
		  "repeatable, in output order", ST_OPT_REQUIRED) },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		  "size,offload_time ('-' for stdout)", ST_OPT_REQUIRED) },
		{ ST_O("per-scan", 0, ST_OPT_PATH, &per_scan, "FILE",
		  "also write size,scan_number,offload_time", 0) },
		CLOCK_ROWS(clock),
		CLOCK_HOST_ROW("data-host", clock.data_host,
			       "time_last_written"),
		ST_OPT_END_ROW,
	};
	const char *prog = offload_desc.path;
	st_error err;
	st_log log = ST_LOG_STDERR;
	int n, rc;

	if (!st_opt_go(&offload_desc, opts, argc, argv, &n, &rc))
		goto out;
	rc = ST_EXIT_USAGE;
	if (!clock.offsets && (clock.receiver_hosts || clock.data_host))
		st_msg_usage(prog, "--receiver-hosts and --data-host need "
			     "--clock-offsets");
	else if (st_merge_offload_run(wt, ranges.v, ranges.n, &clock, out,
				      per_scan, &log, &err) < 0)
		rc = st_msg_fail_usage(prog, &err);
	else {
		st_msg_info("merge offload: %zu sizes written to %s", ranges.n,
			    out);
		rc = ST_EXIT_OK;
	}
out:
	st_size_ranges_release(&ranges);
	return st_finish_stdout(rc);
}

static const struct st_cmd_desc streaming_desc = {
	.path = "streamtime merge streaming",
	.description =
	"Streaming latency of a scan = NERSC write time (H5 mtime) - NCEM created\n"
	"time (earliest receiver status time).  Writes streaming_times_{size}.csv:\n"
	"distiller_id,scan_number,nersc_write_time,ncem_created_time,\n"
	"time_difference_seconds (|latency|, the paper's column),latency_seconds.\n",
};

/* --h5 SIZE:FILE, appended to a list of st_sized_path. */
struct sized_paths {
	st_sized_path *v;
	size_t n;
};

static int push_h5(const struct st_option *o, char *arg,
                   st_error *err)
{
	struct sized_paths *h = o->target;
	st_sized_path *nv = realloc(h->v, (h->n + 1) * sizeof(*nv));

	if (!nv)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	h->v = nv;
	if (st_parse_size_path(arg, &nv[h->n].size, &nv[h->n].path) < 0)
		return st_error_set(err, ST_EXIT_USAGE, "--h5 '%s': expected "
				    "SIZE:FILE", arg);
	h->n++;
	return 0;
}

static int merge_streaming(int argc, char **argv)
{
	st_clock_options clock = { 0 };
	const char *created = NULL, *outdir = NULL, *tz = "UTC";
	struct sized_paths h5 = { 0 };
	struct st_size_ranges ranges = { 0 };
	const struct st_option opts[] = {
		{ ST_O("created", 0, ST_OPT_PATH, &created, "FILE",
		  "scan_number,time0,...  (collect receivers --no-data)",
		  ST_OPT_REQUIRED) },
		{ ST_O("h5", 0, ST_OPT_CALLBACK, &h5, "SIZE:FILE",
		  "distiller_id,scan_number,datetime (collect h5); repeatable",
		  ST_OPT_REQUIRED | ST_OPT_REPEAT), .cb = push_h5 },
		{ ST_O("range", 0, ST_OPT_SIZE_RANGE, &ranges, "SIZE:FIRST-LAST",
		  "only scans FIRST..LAST for SIZE; give one per size or none", 0) },
		{ ST_O("tz", 0, ST_OPT_ZONE, &tz, "ZONE",
		  "IANA zone of naive H5 times (default UTC; the paper's NERSC "
		  "times are America/Los_Angeles)", 0) },
		ST_ROW_OUT_DIR(outdir, ST_OUT_DIR_HELP),
		CLOCK_ROWS(clock),
		CLOCK_HOST_ROW("nersc-host", clock.nersc_host, "the H5 times"),
		ST_OPT_END_ROW,
	};
	const char *prog = streaming_desc.path;
	st_streaming_result res;
	st_log log = ST_LOG_STDERR;
	st_error err;
	int n, rc;

	if (!st_opt_go(&streaming_desc, opts, argc, argv, &n, &rc))
		goto out;
	rc = ST_EXIT_USAGE;
	if (!clock.offsets && (clock.receiver_hosts || clock.nersc_host)) {
		st_msg_usage(prog, "--receiver-hosts and --nersc-host need "
			     "--clock-offsets");
	} else if (st_merge_streaming_run(&(st_merge_streaming_opts){
						.created = created, .h5 = h5.v,
						.nh5 = h5.n, .ranges = ranges.v,
						.nranges = ranges.n, .tz = tz,
						.clock = &clock, .outdir = outdir,
					  }, &res, &log, &err) < 0) {
		rc = st_msg_fail_usage(prog, &err);
	} else {
		st_streaming_warn_negative(&log, &res, "give --tz ZONE, the "
					   "zone of the H5 times (America/"
					   "Los_Angeles for NERSC's)");
		st_msg_info("merge streaming: %zu rows in %zu files in %s "
			    "(%zu H5 rows without created time)", res.rows, h5.n,
			    outdir, res.unmatched);
		rc = ST_EXIT_OK;
	}
out:
	free(h5.v);
	st_size_ranges_release(&ranges);
	return st_finish_stdout(rc);
}

static const struct st_cmd merge_cmds[] = {
	{ "offload", merge_offload, "mean offload time per scan size", NULL },
	{ "streaming", merge_streaming, "streaming latency per scan", NULL },
	{ "transfer", merge_transfer,
	  "join Slurm jobs with Distiller's job table", NULL },
};

ST_CMD_GROUP_FN(cmd_merge, st_merge_group, "streamtime merge", merge_cmds)
