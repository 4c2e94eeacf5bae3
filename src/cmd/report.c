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

static const struct st_cmd_desc report_desc = {
	.path = "streamtime report",
	.description =
	"Write one self-contained HTML page over DIR, the output directory of\n"
	"`streamtime reproduce`: a summary, the comparison table, per-size and\n"
	"queue-time statistics, the worst queue days, the figures of\n"
	"DIR/figures (embedded), links to every CSV and to DIR/timeline.json,\n"
	"and the formulas.  The page loads nothing from the network.  Parts\n"
	"whose files are missing or empty say \"no data\".  Only the files\n"
	"named in DIR/manifest.txt (written by reproduce) are shown; without\n"
	"it, every file found, with a note on the page and on stderr.\n",
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cmd_report(int argc, char **argv)
{
	const char *results = NULL, *out = NULL;
	const struct st_option opts[] = {
		{ ST_O("results", 0, ST_OPT_PATH, &results, "DIR",
		       "what `reproduce --out DIR` wrote", ST_OPT_REQUIRED) },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "the page (default DIR/report.html; - for stdout); links "
		       "are relative to its directory", 0) },
		ST_OPT_END_ROW,
	};
	const char *prog = report_desc.path;
	char *def_out = NULL, *copy = NULL;
	st_atomic_file af;
	st_report_info info;
	st_error err;
	struct stat st;
	double t0 = now_ms();
	bool to_stdout;
	int n, rc;

	if (!st_opt_go(&report_desc, opts, argc, argv, &n, &rc))
		return rc;
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
		if (!info.manifest)
			st_msg_warn("report: no %s in %s: listing every CSV file "
				    "found below it, some may be from other runs",
				    ST_MANIFEST, results);
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
