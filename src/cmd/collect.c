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

static const char receivers_usage[] =
	"usage: streamtime collect receivers DIR --out FILE [--receivers N]\n"
	"                                  [--no-data] [--settle SECONDS] [--since N]\n"
	"                                  [--tz ZONE] [--wait] [--strict]\n"
	"\n"
	"Append one row per newly complete scan of acquisition directory DIR:\n"
	"scan_number,time0,...,time{N-1},time_last_written.  time_r is receiver\n"
	"r's status 'time' in UTC; time_last_written the newest data-file mtime at\n"
	"full resolution.  A scan is complete when all N status files parse, it\n"
	"has data files, and none changed for SECONDS.  Other scans are retried\n"
	"next run; scans already in FILE are never looked at again.  Made for\n"
	"cron: safe to kill, one run at a time (a lock on FILE).\n"
	"\n"
	"  --out FILE            the CSV to append to (created with its header);\n"
	"                        '-' prints every complete scan and keeps no state\n"
	"  --receivers N         status files per scan (default 4)\n"
	"  --no-data             no data files needed, no time_last_written column\n"
	"  --settle SECONDS      quiet time of all the scan's files before it counts\n"
	"                        (default 30; on NFS make it longer than the\n"
	"                        attribute cache, acregmax)\n"
	"  --since N             ignore scans below N\n"
	"  --tz ZONE             zone of status times written without an offset\n"
	"                        (default UTC)\n"
	"  --wait                wait for a run that holds the lock (default: exit 75)\n"
	"  --strict              exit 65 when a file was unusable (rows are still\n"
	"                        written)\n"
	"  -q, --quiet / -v, --verbose (why scans are pending) / -h, --help\n";

static const char h5_usage[] =
	"usage: streamtime collect h5 DIR... --out FILE [--range FIRST-LAST]\n"
	"                            [--tz ZONE --naive] [--settle SECONDS]\n"
	"                            [--wait] [--strict]\n"
	"\n"
	"Record the mtime of each counted file FOURD_{date}_{time}_{id}_{scan}[_x].h5\n"
	"of the DIRs: distiller_id,scan_number,datetime, sorted by distiller_id\n"
	"then scan.  distiller_id 00000 (unknown) is skipped; variants of one scan\n"
	"give one row with the earliest mtime.  Rows already in FILE are kept (also\n"
	"when their files are gone) and new ones merged in; the file is replaced\n"
	"atomically, one run at a time (FILE.lock).\n"
	"\n"
	"  --out FILE            the CSV ('-' for stdout, no state)\n"
	"  --range FIRST-LAST    only these scan numbers (or one: --range N)\n"
	"  --tz ZONE --naive     write naive local time in ZONE, the paper's form\n"
	"                        ('2023-10-13 09:45:14'); default UTC ISO 8601\n"
	"  --settle SECONDS      files changed more recently are left for the next\n"
	"                        run (default 30)\n"
	"  --wait                wait for a run that holds the lock (default: exit 75)\n"
	"  --strict              exit 65 when a file could not be examined\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

/* Shared option values of both collectors. */
struct common {
	const char *dir, *out, *tz;
	st_duration settle;
	bool wait, strict;
};

static int finish(const char *what, const char *out, const st_collect_summary *s,
		  bool strict)
{
	int rc;

	if (s->dropped)
		st_msg_warn("%s: cut a torn last line (%zu bytes) left by a killed "
			    "run; its scan is written again", out, s->dropped);
	if (s->completed)
		st_msg_warn("%s: its last row lacked a newline; added", out);
	if (strcmp(out, "-") == 0)
		st_msg_info("collect %s: %zu written to stdout, %zu pending, %zu bad",
			    what, s->written, s->pending, s->bad);
	else
		st_msg_info("collect %s: %zu written, %zu pending, %zu bad, %zu "
			    "already in %s", what, s->written, s->pending, s->bad,
			    s->known, out);
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
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "receivers", required_argument, NULL, 'r' },
		{ "no-data", no_argument, NULL, 'n' },
		{ "settle", required_argument, NULL, 's' },
		{ "since", required_argument, NULL, 'S' },
		{ "tz", required_argument, NULL, 'z' },
		{ "wait", no_argument, NULL, 'w' },
		{ "strict", no_argument, NULL, 'x' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime collect receivers";
	struct common co = { .tz = "UTC", .settle = 30 * ST_NS_PER_SEC };
	st_receivers_opts o = { .receivers = 4, .data = true, .since = INT64_MIN };
	st_log notes, log;
	st_collect_summary sum;
	st_tz *tz = NULL;
	st_error err;
	int64_t v;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'o': co.out = optarg; break;
		case 'n': o.data = false; break;
		case 'z': co.tz = optarg; break;
		case 'w': co.wait = true; break;
		case 'x': co.strict = true; break;
		case 'r':
			if (st_num_parse_int(optarg, &v) < 0 || strchr(optarg, '.') ||
			    v < 1 || v > ST_RECEIVERS_MAX)
				return st_msg_usage(prog, "--receivers '%s': expected "
						    "1 to %d", optarg, ST_RECEIVERS_MAX);
			o.receivers = (int)v;
			break;
		case 's':
			if (st_parse_seconds(optarg, true, 1e9, &co.settle) < 0)
				return st_msg_usage(prog, "--settle '%s': expected "
						    "seconds >= 0", optarg);
			break;
		case 'S':
			if (st_num_parse_int(optarg, &o.since) < 0 || strchr(optarg, '.'))
				return st_msg_usage(prog, "--since '%s': expected a "
						    "scan number", optarg);
			break;
		case 'h':
			fputs(receivers_usage, stdout);
			return st_finish_stdout(ST_EXIT_OK);
		default:
			if (st_common_option(c))
				break;
			return st_msg_usage(prog, "bad option");
		}
	}
	if (optind >= argc)
		return st_msg_usage(prog, "DIR is required");
	co.dir = argv[optind++];
	if (optind < argc)
		return st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
	if (!co.out)
		return st_msg_usage(prog, "--out is required");
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
		rc = st_msg_fail(&err);
	else
		rc = finish("receivers", co.out, &sum, co.strict);
	st_tz_free(tz);
	return rc;
}

static int collect_h5(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "range", required_argument, NULL, 'R' },
		{ "tz", required_argument, NULL, 'z' },
		{ "naive", no_argument, NULL, 'N' },
		{ "settle", required_argument, NULL, 's' },
		{ "wait", no_argument, NULL, 'w' },
		{ "strict", no_argument, NULL, 'x' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime collect h5";
	struct common co = { .settle = 30 * ST_NS_PER_SEC };
	st_collect_h5_opts o = { 0 };
	st_log notes, log;
	st_collect_summary sum;
	st_error err;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'o': co.out = optarg; break;
		case 'z': co.tz = optarg; break;
		case 'N': o.naive = true; break;
		case 'w': co.wait = true; break;
		case 'x': co.strict = true; break;
		case 'R': {
			int64_t size;
			st_range r;
			char buf[128];

			/* reuse the SIZE:FIRST-LAST parser with a dummy size; a
			 * single N is N-N */
			if (snprintf(buf, sizeof(buf), strchr(optarg, '-') ? "1:%s" :
				     "1:%s-%s", optarg, optarg) >= (int)sizeof(buf) ||
			    st_parse_size_range(buf, &size, &r) < 0)
				return st_msg_usage(prog, "--range '%s': expected "
						    "FIRST-LAST", optarg);
			o.h5.has_range = true;
			o.h5.first = r.first;
			o.h5.last = r.last;
			break;
		}
		case 's':
			if (st_parse_seconds(optarg, true, 1e9, &co.settle) < 0)
				return st_msg_usage(prog, "--settle '%s': expected "
						    "seconds >= 0", optarg);
			break;
		case 'h':
			fputs(h5_usage, stdout);
			return st_finish_stdout(ST_EXIT_OK);
		default:
			if (st_common_option(c))
				break;
			return st_msg_usage(prog, "bad option");
		}
	}
	if (optind >= argc)
		return st_msg_usage(prog, "DIR is required");
	if (!co.out)
		return st_msg_usage(prog, "--out is required");
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
	if (st_collect_h5((const char *const *)argv + optind, (size_t)(argc - optind),
			  co.out, &o, &sum, &log, &err) < 0) {
		rc = st_msg_fail(&err);
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

ST_CMD_GROUP(st_collect_group, "streamtime collect", subcommands);

int cmd_collect(int argc, char **argv)
{
	return st_cmd_dispatch(&st_collect_group, argc, argv);
}
