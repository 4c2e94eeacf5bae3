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

static const char simulate_usage[] =
	"usage: streamtime simulate --out DIR [--seed N] [--scale K]\n"
	"                           [--acquisition DIR] [--counted DIR]\n"
	"                           [--files-per-scan N] [--force]\n"
	"\n"
	"Write a synthetic dataset in the paper's layout, byte for byte the same\n"
	"for the same seed and scale: DIR/experiments.json,\n"
	"DIR/file_transfer/{slurm_job_info,write_times,save_time_stats}.csv,\n"
	"DIR/file_transfer/distiller_db/{N}_{N}.csv,\n"
	"DIR/streaming/ncem_file_created_times.csv and\n"
	"DIR/streaming/scan_times_{first}_{last}.csv.  Magnitudes are the\n"
	"paper's (offload, streaming latency, job run and queue times, scan\n"
	"intervals); the sacct rows include noise that `slurm jobs` drops, the\n"
	"Distiller rows NULLs and scans counted twice.  Give DIR to `streamtime\n"
	"reproduce` as its data.\n"
	"\n"
	"  --out DIR            the dataset; must be missing or empty\n"
	"  --seed N             the random seed, 0 to 2^64-1 (default 1)\n"
	"  --scale K            row counts x K, 1 to 10000 (default 1: per size\n"
	"                       24 count jobs, 12 streamed scans (14 of 128),\n"
	"                       8 offloaded scans)\n"
	"  --acquisition DIR    also write the receivers' directory of the\n"
	"                       offloaded scans, for `collect receivers`: status\n"
	"                       JSON and empty data files with their mtimes, and\n"
	"                       one scan still being acquired\n"
	"  --counted DIR        also write the empty counted FOURD_*.h5 files of\n"
	"                       the streamed scans with their mtimes, for\n"
	"                       `collect h5`\n"
	"  --files-per-scan N   data files per scan in --acquisition (default:\n"
	"                       72, 288 for 1024x1024)\n"
	"  --force              write into non-empty directories, replacing\n"
	"                       files of the same names\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

/* Parse the value S of option OPT, a whole number in [LO, HI], into *OUT.
 * Returns 0, or the usage error's exit code after saying what is wrong. */
static int parse_count(const char *prog, const char *opt, const char *s,
		       int64_t lo, int64_t hi, int64_t *out)
{
	if (st_num_parse_int(s, out) == 0 && *out >= lo && *out <= hi)
		return 0;
	return st_msg_usage(prog, "%s '%s': expected a whole number from %" PRId64
			    " to %" PRId64, opt, s, lo, hi);
}

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

int cmd_simulate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "scale", required_argument, NULL, 'k' },
		{ "acquisition", required_argument, NULL, 'a' },
		{ "counted", required_argument, NULL, 'c' },
		{ "files-per-scan", required_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime simulate", *out = NULL;
	st_sim_opts o = { .seed = 1, .scale = 1 };
	st_sim_summary sum;
	st_error err;
	int64_t v;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'a': o.acquisition = optarg; break;
		case 'c': o.counted = optarg; break;
		case 'F': o.force = true; break;
		case 's':
			if (parse_seed(optarg, &o.seed) < 0)
				return st_msg_usage(prog, "--seed '%s': expected a whole "
						    "number from 0 to 2^64-1", optarg);
			break;
		case 'k':
			if ((rc = parse_count(prog, "--scale", optarg, 1,
					      ST_SIM_SCALE_MAX, &v)) != 0)
				return rc;
			o.scale = (unsigned)v;
			break;
		case 'f':
			if ((rc = parse_count(prog, "--files-per-scan", optarg, 1,
					      ST_SIM_FILES_MAX, &v)) != 0)
				return rc;
			o.files_per_scan = (int)v;
			break;
		case 'h':
			fputs(simulate_usage, stdout);
			return st_finish_stdout(ST_EXIT_OK);
		default:
			if (st_common_option(c))
				break;
			return st_msg_usage(prog, "bad option");
		}
	}
	if (optind < argc)
		return st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
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
