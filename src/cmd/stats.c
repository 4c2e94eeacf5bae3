/* stats.c - `streamtime stats queue|transfers` (SPEC 5.7). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "streamtime/num.h"
#include "streamtime/pipeline.h"

static const struct st_cmd_desc queue_desc = {
	.path = "streamtime stats queue",
	.description =
	"Queue time = Start - Submit of each merged job, in seconds.  Writes\n"
	"queue_time_statistics.csv (with and without IQR outliers),\n"
	"ranked_days.csv and ranked_days_by_month.csv (the paper's files), and\n"
	"queue_time_median.csv: the median with a distribution-free 95 %\n"
	"interval (order statistics).  Warns when the IQR rule drops more than\n"
	"10 % of the jobs or the IQR is 0.\n",
};

static int stats_queue(int argc, char **argv)
{
	const char *merged = NULL, *outdir = NULL, *tz = "UTC";
	const struct st_option opts[] = {
		{ ST_O("merged", 0, ST_OPT_PATH, &merged, "FILE",
		  "merged_job_info.csv (merge transfer)", ST_OPT_REQUIRED) },
		ST_ROW_OUT_DIR(outdir, ST_OUT_DIR_HELP),
		{ ST_O("tz", 0, ST_OPT_ZONE, &tz, "ZONE",
		  "IANA zone of sacct's naive times (default UTC); matters for "
		  "jobs queued across a DST change", 0) },
		ST_OPT_END_ROW,
	};
	st_queue_result res;
	st_error err;
	st_log log = ST_LOG_STDERR;
	int n, rc;

	if (!st_opt_go(&queue_desc, opts, argc, argv, &n, &rc))
		return rc;
	if (st_stats_queue_run(merged, tz, outdir, &res, &err) < 0)
		return st_msg_fail(&err);
	st_robust_warns_queue(&log, &res, outdir);
	st_msg_info("stats queue: %zu jobs (%zu without outliers), %zu days, "
		    "written to %s", res.with_outliers.n, res.without_outliers.n,
		    res.days, outdir);
	return st_finish_stdout(ST_EXIT_OK);
}

static const struct st_cmd_desc transfers_desc = {
	.path = "streamtime stats transfers",
	.description =
	"File transfer time = job Elapsed + offload time - 2 x (Real - Blank mean\n"
	"save_time); streaming time = time_difference_seconds.  Writes\n"
	"statistics_transfers_{size}.csv and statistics_table.{csv,md,tex} (the\n"
	"paper's files), medians.csv (each group's median with a distribution-\n"
	"free 95 % interval from order statistics, the step of its inputs and\n"
	"what the IQR rule drops), and prints the comparison table.  Warns when\n"
	"the IQR rule drops more than 10 % of a group or its IQR is 0.\n",
};

/* --size N: a positive whole number appended to the list. */
static int push_size(const struct st_option *o, char *arg,
                     st_error *err)
{
	int64_t x;

	if (st_num_parse_int(arg, &x) < 0 || x <= 0)
		return st_error_set(err, ST_EXIT_USAGE, "--size '%s': expected a "
				    "positive integer", arg);
	return st_i64list_push(o->target, x, err);
}

static int stats_transfers(int argc, char **argv)
{
	const char *merged = NULL, *offload = NULL, *save = NULL, *sdir = NULL;
	const char *outdir = NULL;
	struct st_i64list sizes = { 0 };
	const struct st_option opts[] = {
		{ ST_O("merged", 0, ST_OPT_PATH, &merged, "FILE",
		  "merged_job_info.csv (merge transfer)", ST_OPT_REQUIRED) },
		{ ST_O("offload", 0, ST_OPT_PATH, &offload, "FILE",
		  "ncem_offload_times.csv (merge offload)", ST_OPT_REQUIRED) },
		{ ST_O("save-stats", 0, ST_OPT_PATH, &save, "FILE",
		  "save_time_stats.csv (Size,Type,Stat,...,save_time)",
		  ST_OPT_REQUIRED) },
		{ ST_O("streaming-dir", 0, ST_OPT_PATH, &sdir, "DIR",
		  "holds streaming_times_{size}.csv (merge streaming)",
		  ST_OPT_REQUIRED) },
		ST_ROW_OUT_DIR(outdir, ST_OUT_DIR_HELP),
		{ ST_O("size", 0, ST_OPT_CALLBACK, &sizes, "N",
		  "only these sizes (repeatable; default: every size of the "
		  "offload file)", ST_OPT_REPEAT), .cb = push_size },
		ST_OPT_END_ROW,
	};
	size_t nrows = 0;
	st_compare_row *rows = NULL;
	st_error err;
	int n, rc;

	if (!st_opt_go(&transfers_desc, opts, argc, argv, &n, &rc))
		goto out;
	if (st_stats_transfers_run(&(st_stats_transfers_opts){
					.merged = merged, .offload = offload,
					.save_stats = save, .streaming_dir = sdir,
					.sizes = sizes.v, .nsizes = sizes.n,
					.outdir = outdir,
				   }, &rows, &nrows, &err) < 0) {
		rc = st_msg_fail(&err);
	} else {
		st_log log = ST_LOG_STDERR;

		st_robust_warns_transfers(&log, rows, nrows, outdir);
		st_compare_write_md(stdout, rows, nrows);
		rc = ST_EXIT_OK;
	}
out:
	free(sizes.v);
	free(rows);
	return st_finish_stdout(rc);
}

static const struct st_cmd stats_cmds[] = {
	{ "queue", stats_queue, "Slurm queue-time statistics and worst days",
	  NULL },
	{ "transfers", stats_transfers, "file transfer vs streaming statistics",
	  NULL },
};

ST_CMD_GROUP_FN(cmd_stats, st_stats_group, "streamtime stats", stats_cmds)
