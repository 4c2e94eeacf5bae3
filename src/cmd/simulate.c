/* simulate.c - `streamtime simulate`: a synthetic dataset in the paper's
 * layout, deterministic for a seed (issue 9). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "streamtime/num.h"
#include "streamtime/simulate.h"

static const struct st_cmd_desc simulate_desc = {
	.path = "streamtime simulate",
	.description =
	"Write a synthetic dataset in the paper's layout, byte for byte the same\n"
	"for the same seed and scale: DIR/experiments.json,\n"
	"DIR/file_transfer/{slurm_job_info,write_times,save_time_stats}.csv,\n"
	"DIR/file_transfer/distiller_db/{N}_{N}.csv,\n"
	"DIR/streaming/ncem_file_created_times.csv and\n"
	"DIR/streaming/scan_times_{first}_{last}.csv.  Magnitudes are the\n"
	"paper's (offload, streaming latency, job run and queue times, scan\n"
	"intervals); the sacct rows include noise that `slurm jobs` drops, the\n"
	"Distiller rows NULLs and scans counted twice.  Give DIR to `streamtime\n"
	"reproduce` as its data.\n",
	.required_msg = "--out is required",
};

/* An unsigned 64-bit decimal seed. */
static int parse_seed(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int set_seed(const struct st_option *o, char *arg,
                    st_error *err)
{
	if (parse_seed(arg, o->target) < 0)
		return st_error_set(err, ST_EXIT_USAGE, "--seed '%s': expected a "
				    "whole number from 0 to 2^64-1", arg);
	return 0;
}

int cmd_simulate(int argc, char **argv)
{
	const char *out = NULL;
	st_sim_opts o = { .seed = 1, .scale = 1 };
	int64_t scale = 1, files = 0;
	const struct st_option opts[] = {
		{ ST_O("out", 0, ST_OPT_PATH, &out, "DIR",
		       "the dataset; must be missing or empty", ST_OPT_REQUIRED) },
		{ ST_O("seed", 0, ST_OPT_CALLBACK, &o.seed, "N",
		       "the random seed, 0 to 2^64-1 (default 1)", 0),
		  .cb = set_seed },
		{ ST_O("scale", 0, ST_OPT_INT, &scale, "K",
		       "row counts x K, 1 to 10000 (default 1: per size 24 count "
		       "jobs, 12 streamed scans (14 of 128), 8 offloaded scans)", 0),
		  .min = 1, .max = ST_SIM_SCALE_MAX },
		{ ST_O("acquisition", 0, ST_OPT_PATH, &o.acquisition, "DIR",
		       "also write the receivers' directory of the offloaded "
		       "scans, for `collect receivers`: status JSON and empty data "
		       "files with their mtimes, and one scan still being acquired",
		       0) },
		{ ST_O("counted", 0, ST_OPT_PATH, &o.counted, "DIR",
		       "also write the empty counted FOURD_*.h5 files of the "
		       "streamed scans with their mtimes, for `collect h5`", 0) },
		{ ST_O("files-per-scan", 0, ST_OPT_INT, &files, "N",
		       "data files per scan in --acquisition (default: 72, 288 for "
		       "1024x1024)", 0), .min = 1, .max = ST_SIM_FILES_MAX },
		{ ST_O("force", 0, ST_OPT_FLAG, &o.force, NULL,
		       "write into non-empty directories, replacing files of the "
		       "same names", 0) },
		ST_OPT_END_ROW,
	};
	const char *prog = simulate_desc.path;
	st_sim_summary sum;
	st_error err;
	int n, rc;

	if (!st_opt_go(&simulate_desc, opts, argc, argv, &n, &rc))
		return rc;
	o.scale = (unsigned)scale;
	o.files_per_scan = (int)files;
	if (!out || !*out)
		return st_msg_usage(prog, "--out is required");
	if ((o.acquisition && !*o.acquisition) || (o.counted && !*o.counted))
		return st_msg_usage(prog, "--acquisition and --counted need a "
				    "directory");
	if (!strcmp(out, "-"))
		return st_msg_usage(prog, "--out is a directory, not '-'");
	if (st_sim_write(out, &o, &sum, &err) < 0)
		return st_msg_fail(&err);
	st_msg_info("simulate: seed %llu, scale %u: %zu count jobs (+%zu noise "
		    "rows), %zu distiller rows, %zu offloaded scans, %zu streamed "
		    "scans (%zu created rows) in %s", (unsigned long long)o.seed,
		    o.scale, sum.jobs, sum.noise, sum.db_rows, sum.offload_scans,
		    sum.streaming_scans, sum.created_rows, out);
	if (o.acquisition)
		st_msg_info("simulate: %zu files in %s", sum.acquisition_files,
			    o.acquisition);
	if (o.counted)
		st_msg_info("simulate: %zu files in %s", sum.counted_files,
			    o.counted);
	return ST_EXIT_OK;
}
