/* report.c - `streamtime report` (SPEC 5.9): one self-contained report.html
 * over the results directory of `reproduce`. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/report.h"

static const char usage[] =
	"usage: streamtime report --results DIR [--out FILE]\n"
	"\n"
	"Write one self-contained HTML page over DIR, the output directory of\n"
	"`streamtime reproduce`: a summary, the comparison table, per-size and\n"
	"queue-time statistics, the worst queue days, the figures of\n"
	"DIR/figures (embedded), links to every CSV and to DIR/timeline.json,\n"
	"and the formulas.  The page loads nothing from the network.  Parts\n"
	"whose files are missing or empty say \"no data\".\n"
	"\n"
	"  --results DIR         what `reproduce --out DIR` wrote\n"
	"  --out FILE            the page (default DIR/report.html; - for\n"
	"                        stdout); links are relative to its directory\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "results", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime report";
	const char *results = NULL, *out = NULL;
	char *def_out = NULL, *copy = NULL;
	st_atomic_file af;
	st_report_info info;
	st_error err;
	struct stat st;
	double t0 = now_ms();
	bool to_stdout;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'r': results = optarg; break;
		case 'o': out = optarg; break;
		case 'h':
			fputs(usage, stdout);
			return st_finish_stdout(ST_EXIT_OK);
		default:
			if (st_common_option(c))
				break;
			return st_msg_usage(prog, "bad option");
		}
	}
	if (optind < argc)
		return st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
	if (!results)
		return st_msg_usage(prog, "--results is required");
	if (!*results || (out && !*out))
		return st_msg_usage(prog, "empty path");
	/* before the output: its default place is inside DIR */
	if (stat(results, &st) < 0) {
		st_msg_error("report: results directory '%s': %s", results,
			     strerror(errno));
		return ST_EXIT_NOINPUT;
	}
	if (!S_ISDIR(st.st_mode)) {
		st_msg_error("report: results directory '%s': not a directory",
			     results);
		return ST_EXIT_NOINPUT;
	}
	if (!out) {
		def_out = st_path_join(results, "report.html");
		if (!def_out) {
			st_msg_error("report: out of memory");
			return ST_EXIT_IOERR;
		}
		out = def_out;
	}
	to_stdout = strcmp(out, "-") == 0;
	copy = strdup(out);
	if (!copy) {
		free(def_out);
		st_msg_error("report: out of memory");
		return ST_EXIT_IOERR;
	}
	if (st_atomic_open(&af, out, &err) < 0) {
		rc = st_msg_fail(&err);
	} else if (st_report_write(af.fp, results,
				   to_stdout ? "." : dirname(copy), &info,
				   &err) < 0) {
		st_atomic_abort(&af);
		rc = st_msg_fail(&err);
	} else if (st_atomic_commit(&af, &err) < 0) {
		rc = st_msg_fail(&err);
	} else {
		st_msg_info("report: %zu sizes, %zu figures, %zu CSV files, "
			    "%s; written to %s in %.1f ms", info.sizes,
			    info.figures, info.csvs,
			    info.timeline ? "timeline linked" : "no timeline",
			    to_stdout ? "stdout" : out, now_ms() - t0);
		rc = ST_EXIT_OK;
	}
	free(copy);
	free(def_out);
	/* AF is released by now: whether it was stdout is TO_STDOUT */
	return to_stdout ? st_finish_stdout(rc) : rc;
}
