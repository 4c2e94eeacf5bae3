/* stats.c - `streamtime stats queue|transfers` (SPEC 5.7). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "streamtime/num.h"
#include "streamtime/pipeline.h"

static const char queue_usage[] =
	"usage: streamtime stats queue --merged FILE --out-dir DIR [--tz ZONE]\n"
	"\n"
	"Queue time = Start - Submit of each merged job, in seconds.  Writes\n"
	"queue_time_statistics.csv (with and without IQR outliers),\n"
	"ranked_days.csv and ranked_days_by_month.csv.\n"
	"\n"
	"  --merged FILE         merged_job_info.csv (merge transfer)\n"
	"  --out-dir DIR         where the files go (created if needed)\n"
	"  --tz ZONE             IANA zone of sacct's naive times (default UTC);\n"
	"                        matters for jobs queued across a DST change\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

static int stats_queue(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "merged", required_argument, NULL, 'm' },
		{ "out-dir", required_argument, NULL, 'o' },
		{ "tz", required_argument, NULL, 'z' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime stats queue";
	const char *merged = NULL, *outdir = NULL, *tz = "UTC";
	st_queue_result res;
	st_error err;
	int c;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'm': merged = optarg; break;
		case 'o': outdir = optarg; break;
		case 'z': tz = optarg; break;
		case 'h':
			fputs(queue_usage, stdout);
			return st_finish_stdout(ST_EXIT_OK);
		default:
			if (st_common_option(c))
				break;
			return st_msg_usage(prog, "bad option");
		}
	}
	if (optind < argc)
		return st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
	if (!merged || !outdir)
		return st_msg_usage(prog, "--merged and --out-dir are required");
	if (st_run_stats_queue(merged, tz, outdir, &res, &err) < 0)
		return st_msg_fail(&err);
	st_msg_info("stats queue: %zu jobs (%zu without outliers), %zu days, "
		    "written to %s", res.with_outliers.n, res.without_outliers.n,
		    res.days, outdir);
	return st_finish_stdout(ST_EXIT_OK);
}

static const char transfers_usage[] =
	"usage: streamtime stats transfers --merged FILE --offload FILE\n"
	"                                  --save-stats FILE --streaming-dir DIR\n"
	"                                  --out-dir DIR [--size N...]\n"
	"\n"
	"File transfer time = job Elapsed + offload time - 2 x (Real - Blank mean\n"
	"save_time); streaming time = time_difference_seconds.  Writes\n"
	"statistics_transfers_{size}.csv and statistics_table.{csv,md,tex}, and\n"
	"prints the comparison table.\n"
	"\n"
	"  --merged FILE         merged_job_info.csv (merge transfer)\n"
	"  --offload FILE        ncem_offload_times.csv (merge offload)\n"
	"  --save-stats FILE     save_time_stats.csv (Size,Type,Stat,...,save_time)\n"
	"  --streaming-dir DIR   holds streaming_times_{size}.csv (merge streaming)\n"
	"  --out-dir DIR         where the files go (created if needed)\n"
	"  --size N              only these sizes (repeatable; default: every size\n"
	"                        of the offload file)\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

static int stats_transfers(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "merged", required_argument, NULL, 'm' },
		{ "offload", required_argument, NULL, 'f' },
		{ "save-stats", required_argument, NULL, 's' },
		{ "streaming-dir", required_argument, NULL, 'd' },
		{ "out-dir", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 'n' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime stats transfers";
	const char *merged = NULL, *offload = NULL, *save = NULL, *sdir = NULL;
	const char *outdir = NULL;
	int64_t *sizes = NULL;
	size_t nsizes = 0, nrows = 0;
	st_compare_row *rows = NULL;
	st_error err;
	int c, rc = ST_EXIT_USAGE;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'm': merged = optarg; break;
		case 'f': offload = optarg; break;
		case 's': save = optarg; break;
		case 'd': sdir = optarg; break;
		case 'o': outdir = optarg; break;
		case 'n': {
			int64_t *nv = realloc(sizes, (nsizes + 1) * sizeof(*nv));

			if (!nv)
				goto out;
			sizes = nv;
			if (st_num_parse_int(optarg, &sizes[nsizes]) < 0 ||
			    sizes[nsizes] <= 0) {
				st_msg_usage(prog, "--size '%s': expected a positive "
					     "integer", optarg);
				goto out;
			}
			nsizes++;
			break;
		}
		case 'h':
			fputs(transfers_usage, stdout);
			rc = ST_EXIT_OK;
			goto out;
		default:
			if (st_common_option(c))
				break;
			st_msg_usage(prog, "bad option");
			goto out;
		}
	}
	if (optind < argc) {
		st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
	} else if (!merged || !offload || !save || !sdir || !outdir) {
		st_msg_usage(prog, "--merged, --offload, --save-stats, "
			     "--streaming-dir and --out-dir are required");
	} else if (st_run_stats_transfers(merged, offload, save, sdir, sizes,
					  nsizes, outdir, &rows, &nrows, &err) < 0) {
		rc = st_msg_fail(&err);
	} else {
		st_compare_write_md(stdout, rows, nrows);
		rc = ST_EXIT_OK;
	}
out:
	free(sizes);
	free(rows);
	return st_finish_stdout(rc);
}

static const struct st_cmd stats_cmds[] = {
	{ "queue", stats_queue, "Slurm queue-time statistics and worst days" },
	{ "transfers", stats_transfers, "file transfer vs streaming statistics" },
};

int cmd_stats(int argc, char **argv)
{
	return st_cmd_dispatch("streamtime stats", stats_cmds,
			       sizeof(stats_cmds) / sizeof(stats_cmds[0]), argc,
			       argv);
}
