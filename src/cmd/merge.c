/* merge.c - `streamtime merge transfer|offload|streaming` (SPEC 5.6). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "streamtime/pipeline.h"

static const char transfer_usage[] =
	"usage: streamtime merge transfer --jobs FILE --db FILE_OR_DIR... --out FILE\n"
	"                                 [--max-elapsed DURATION]\n"
	"\n"
	"Join Slurm accounting rows (slurm jobs / sacct) with Distiller's job table\n"
	"on Job ID = slurm_id.  Jobs without a Distiller row are dropped; a job with\n"
	"several rows is kept once per row; rows whose Distiller elapsed is empty or\n"
	"over the limit are dropped.\n"
	"\n"
	"  --jobs FILE           slurm_job_info.csv (header 'Job Name,Job ID,...')\n"
	"  --db FILE_OR_DIR      a Distiller export {N}_{N}.csv (id,slurm_id,elapsed;\n"
	"                        size from the name or a 'size' column) or a directory\n"
	"                        of them; repeatable\n"
	"  --out FILE            merged_job_info.csv ('-' for stdout)\n"
	"  --max-elapsed DUR     keep rows with elapsed <= DUR (default 29:00)\n"
	"  -q, --quiet           no summary line\n"
	"  -v, --verbose         more detail\n"
	"  -h, --help            this help\n";

static int merge_transfer(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },
		{ "max-elapsed", required_argument, NULL, 'm' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime merge transfer";
	const char *jobs = NULL, *out = NULL, **db = NULL;
	size_t ndb = 0, rows = 0;
	st_duration max_elapsed = 29 * 60 * ST_NS_PER_SEC;
	st_error err;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'j': jobs = optarg; break;
		case 'o': out = optarg; break;
		case 'd':
			if (st_strv_push(&db, &ndb, optarg) < 0)
				return ST_EXIT_IOERR;
			break;
		case 'm':
			if (st_duration_parse(optarg, &max_elapsed, &err) < 0) {
				free(db);
				return st_msg_usage(prog, "--max-elapsed: %s", err.text);
			}
			if (max_elapsed < 0) {
				free(db);
				return st_msg_usage(prog, "--max-elapsed: '%s' is "
						    "negative: no job would be "
						    "kept", optarg);
			}
			break;
		case 'h':
			free(db);
			fputs(transfer_usage, stdout);
			return st_finish_stdout(ST_EXIT_OK);
		default:
			if (st_common_option(c))
				break;
			free(db);
			return st_msg_usage(prog, "bad option");
		}
	}
	rc = ST_EXIT_USAGE;
	if (optind < argc)
		st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
	else if (!jobs || !out || ndb == 0)
		st_msg_usage(prog, "--jobs, --db and --out are required");
	else if (st_run_merge_transfer(jobs, db, ndb, max_elapsed, out, &rows,
				       &err) < 0)
		rc = st_msg_fail(&err);
	else {
		st_msg_info("merge transfer: %zu rows written to %s", rows, out);
		rc = ST_EXIT_OK;
	}
	free(db);
	return st_finish_stdout(rc);
}

static const char offload_usage[] =
	"usage: streamtime merge offload --write-times FILE --range SIZE:FIRST-LAST...\n"
	"                                --out FILE [--per-scan FILE]\n"
	"\n"
	"Offload time of a scan = time_last_written - min(time0..timeR-1), in\n"
	"seconds; written per size as the mean over the scans of its range.\n"
	"\n"
	"  --write-times FILE    scan_number,time0,...,time_last_written\n"
	"                        (written by 'collect receivers')\n"
	"  --range SIZE:A-B      scans A..B (inclusive) are the SIZE experiment;\n"
	"                        repeatable, in output order\n"
	"  --out FILE            size,offload_time ('-' for stdout)\n"
	"  --per-scan FILE       also write size,scan_number,offload_time\n"
	"  --clock-offsets FILE  correct each time for its host's clock with the\n"
	"                        nearest-in-time row of FILE (clock probe);\n"
	"                        adds clock_correction_seconds and\n"
	"                        clock_bound_seconds columns\n"
	"  --receiver-hosts H0,H1,...  the hosts (FILE's target names) whose\n"
	"                        clocks stamped time0, time1, ...\n"
	"  --data-host H         the host whose clock stamped time_last_written\n"
	"                        (default: the reference clock, no correction)\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

static int merge_offload(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "write-times", required_argument, NULL, 'w' },
		{ "range", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "per-scan", required_argument, NULL, 'p' },
		{ "clock-offsets", required_argument, NULL, 'C' },
		{ "receiver-hosts", required_argument, NULL, 'H' },
		{ "data-host", required_argument, NULL, 'D' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime merge offload";
	st_clock_options clock = { 0 };
	const char *wt = NULL, *out = NULL, *per_scan = NULL;
	st_size_range *ranges = NULL;
	size_t nr = 0;
	st_error err;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'w': wt = optarg; break;
		case 'o': out = optarg; break;
		case 'p': per_scan = optarg; break;
		case 'C': clock.offsets = optarg; break;
		case 'H': clock.receiver_hosts = optarg; break;
		case 'D': clock.data_host = optarg; break;
		case 'r':
			if (st_push_size_range(&ranges, &nr, optarg) < 0) {
				free(ranges);
				return st_msg_usage(prog, "--range '%s': expected "
						    "SIZE:FIRST-LAST, e.g. 128:4858-4887",
						    optarg);
			}
			break;
		case 'h':
			free(ranges);
			fputs(offload_usage, stdout);
			return st_finish_stdout(ST_EXIT_OK);
		default:
			if (st_common_option(c))
				break;
			free(ranges);
			return st_msg_usage(prog, "bad option");
		}
	}
	rc = ST_EXIT_USAGE;
	if (optind < argc)
		st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
	else if (!wt || !out || nr == 0)
		st_msg_usage(prog, "--write-times, --range and --out are required");
	else if (!clock.offsets && (clock.receiver_hosts || clock.data_host))
		st_msg_usage(prog, "--receiver-hosts and --data-host need "
			     "--clock-offsets");
	else if (st_run_merge_offload(wt, ranges, nr, &clock, out, per_scan,
				      &err) < 0)
		rc = err.code == ST_EXIT_USAGE ? st_msg_usage(prog, "%s", err.text) :
		     st_msg_fail(&err);
	else {
		st_msg_info("merge offload: %zu sizes written to %s", nr, out);
		rc = ST_EXIT_OK;
	}
	free(ranges);
	return st_finish_stdout(rc);
}

static const char streaming_usage[] =
	"usage: streamtime merge streaming --created FILE --h5 SIZE:FILE...\n"
	"                                  [--range SIZE:FIRST-LAST...] [--tz ZONE]\n"
	"                                  --out-dir DIR\n"
	"\n"
	"Streaming latency of a scan = NERSC write time (H5 mtime) - NCEM created\n"
	"time (earliest receiver status time).  Writes streaming_times_{size}.csv:\n"
	"distiller_id,scan_number,nersc_write_time,ncem_created_time,\n"
	"time_difference_seconds (|latency|, the paper's column),latency_seconds.\n"
	"\n"
	"  --created FILE        scan_number,time0,...  (collect receivers --no-data)\n"
	"  --h5 SIZE:FILE        distiller_id,scan_number,datetime (collect h5);\n"
	"                        repeatable\n"
	"  --range SIZE:A-B      only scans A..B for SIZE; give one per size or none\n"
	"  --tz ZONE             IANA zone of naive H5 times (default UTC; the\n"
	"                        paper's NERSC times are America/Los_Angeles)\n"
	"  --out-dir DIR         where the files go (created if needed)\n"
	"  --clock-offsets FILE  correct each time for its host's clock with the\n"
	"                        nearest-in-time row of FILE (clock probe);\n"
	"                        adds clock_correction_seconds and\n"
	"                        clock_bound_seconds columns\n"
	"  --receiver-hosts H0,H1,...  the hosts (FILE's target names) whose\n"
	"                        clocks stamped time0, time1, ...\n"
	"  --nersc-host H        the host whose clock stamped the H5 times\n"
	"                        (default: the reference clock, no correction)\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

static int merge_streaming(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "created", required_argument, NULL, 'c' },
		{ "h5", required_argument, NULL, '5' },
		{ "range", required_argument, NULL, 'r' },
		{ "tz", required_argument, NULL, 'z' },
		{ "out-dir", required_argument, NULL, 'o' },
		{ "clock-offsets", required_argument, NULL, 'C' },
		{ "receiver-hosts", required_argument, NULL, 'H' },
		{ "nersc-host", required_argument, NULL, 'N' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime merge streaming";
	st_clock_options clock = { 0 };
	const char *created = NULL, *outdir = NULL, *tz = "UTC";
	st_sized_path *h5 = NULL;
	st_size_range *ranges = NULL;
	size_t nh5 = 0, nr = 0;
	st_streaming_result res;
	st_log log;
	st_error err;
	int c, rc = ST_EXIT_USAGE;

	st_log_stderr(&log);
	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'c': created = optarg; break;
		case 'o': outdir = optarg; break;
		case 'z': tz = optarg; break;
		case 'C': clock.offsets = optarg; break;
		case 'H': clock.receiver_hosts = optarg; break;
		case 'N': clock.nersc_host = optarg; break;
		case '5': {
			st_sized_path *nv = realloc(h5, (nh5 + 1) * sizeof(*nv));

			if (!nv)
				goto out;
			h5 = nv;
			if (st_parse_size_path(optarg, &h5[nh5].size,
					       &h5[nh5].path) < 0) {
				st_msg_usage(prog, "--h5 '%s': expected SIZE:FILE",
					     optarg);
				goto out;
			}
			nh5++;
			break;
		}
		case 'r':
			if (st_push_size_range(&ranges, &nr, optarg) < 0) {
				st_msg_usage(prog, "--range '%s': expected "
					     "SIZE:FIRST-LAST", optarg);
				goto out;
			}
			break;
		case 'h':
			fputs(streaming_usage, stdout);
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
	} else if (!created || !outdir || nh5 == 0) {
		st_msg_usage(prog, "--created, --h5 and --out-dir are required");
	} else if (!clock.offsets && (clock.receiver_hosts || clock.nersc_host)) {
		st_msg_usage(prog, "--receiver-hosts and --nersc-host need "
			     "--clock-offsets");
	} else if (st_run_merge_streaming(created, h5, nh5, ranges, nr, tz, &clock,
					  outdir, &res, &log, &err) < 0) {
		rc = err.code == ST_EXIT_USAGE ? st_msg_usage(prog, "%s", err.text)
					       : st_msg_fail(&err);
	} else {
		if (res.negative)
			st_msg_warn("%zu negative latencies: the NERSC and NCEM "
				    "clocks disagree (measure them with 'streamtime "
				    "clock probe')", res.negative);
		st_msg_info("merge streaming: %zu rows in %zu files in %s "
			    "(%zu H5 rows without created time)", res.rows, nh5,
			    outdir, res.unmatched);
		rc = ST_EXIT_OK;
	}
out:
	free(h5);
	free(ranges);
	return st_finish_stdout(rc);
}

static const struct st_cmd merge_cmds[] = {
	{ "offload", merge_offload, "mean offload time per scan size" },
	{ "streaming", merge_streaming, "streaming latency per scan" },
	{ "transfer", merge_transfer, "join Slurm jobs with Distiller's job table" },
};

int cmd_merge(int argc, char **argv)
{
	return st_cmd_dispatch("streamtime merge", merge_cmds,
			       sizeof(merge_cmds) / sizeof(merge_cmds[0]), argc,
			       argv);
}
