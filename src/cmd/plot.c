/* plot.c - `streamtime plot`: the paper's figures, and two new ones, as
 * PNG, SVG and PDF from the results of `reproduce` (SPEC 5.9, issue 7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/figures.h"

static const struct st_cmd_desc plot_desc = {
	.path = "streamtime plot",
	.description =
	"Draw the figures from what `streamtime reproduce --out DIR` wrote:\n"
	"  transfer_hist_{size}    file-transfer vs streaming time per size,\n"
	"                          with an inset on streaming\n"
	"  transfer_hist_combined  the per-size histograms in one figure\n"
	"  queue_hist              Slurm queue time, inset without outliers\n"
	"  queue_by_index          queue time per job\n"
	"  queue_by_date           queue time by submit date\n"
	"  streaming_box           streaming latency per size (box plot)\n"
	"  experiment_timeline     every scan's stages as bars\n"
	"\n"
	"File-transfer time = Elapsed + offload time - 2 x (Real - Blank mean\n"
	"save_time), as in `stats transfers`; histograms leave IQR outliers out.\n",
};

const char *const st_plot_format_choices[] = {
	"png", "svg", "pdf", "png,svg", "png,pdf", "svg,pdf", "png,svg,pdf",
	NULL
};

/* Parse a comma-separated list of "png", "svg" and "pdf" (any order) into
 * a mask; 0 when S is not such a list. */
static unsigned parse_formats(const char *s)
{
	unsigned mask = 0;
	char buf[64], *p, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return 0;
	strcpy(buf, s);
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (strcmp(p, "png") == 0)
			mask |= ST_PLOT_PNG;
		else if (strcmp(p, "svg") == 0)
			mask |= ST_PLOT_SVG;
		else if (strcmp(p, "pdf") == 0)
			mask |= ST_PLOT_PDF;
		else
			return 0;
	}
	return mask;
}

int st_opt_plot_formats(const struct st_option *o, char *arg, st_error *err)
{
	unsigned *mask = o->target;

	*mask = parse_formats(arg);
	if (!*mask)
		return st_error_set(err, ST_EXIT_USAGE, "--format '%s': expected "
				    "png, svg, pdf or a list of them such as "
				    "png,pdf", arg);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cmd_plot(int argc, char **argv)
{
	const char *results = NULL, *data = NULL, *config = NULL, *outdir = NULL;
	unsigned formats = ST_PLOT_PNG | ST_PLOT_SVG;
	const struct st_option opts[] = {
		{ ST_O("results", 0, ST_OPT_PATH, &results, "DIR",
		       "reproduce's output: DIR/file_transfer/merged_job_info.csv, "
		       "ncem_offload_times.csv, DIR/streaming/streaming_times_*.csv",
		       ST_OPT_REQUIRED) },
		{ ST_O("data", 0, ST_OPT_PATH, &data, "DIR",
		       "the dataset (DIR/file_transfer/save_time_stats.csv)",
		       ST_OPT_REQUIRED) },
		ST_ROW_CONFIG(config),
		ST_ROW_OUT_DIR(outdir, "where NAME.png, NAME.svg and NAME.pdf "
			       "go (created if needed)"),
		ST_ROW_PLOT_FORMAT(formats),
		ST_OPT_END_ROW,
	};
	st_experiments ex = { 0 };
	st_figures *set;
	char *made, *own;
	st_error err;
	size_t files = 0;
	double t0 = now_ms(), t1;
	int n, rc;

	if (!st_opt_go(&plot_desc, opts, argc, argv, &n, &rc))
		return rc;
	if (st_load_experiments(config, data, &ex, &err) < 0)
		return st_msg_fail(&err);
	/* save_time_stats.csv: the dataset's, else the one reproduce made
	 * from the save-time records into RESULTS */
	made = st_path_join(results, "file_transfer/save_time_stats.csv");
	own = st_path_join(data, "file_transfer/save_time_stats.csv");
	set = st_figures_build(&(st_figures_input){
		.results = results, .data = data, .ex = &ex,
		.save_stats = made && own && !st_path_is_file(own) &&
			      st_path_is_file(made) ? made : NULL,
	}, &err);
	free(made);
	free(own);
	if (!set) {
		rc = st_msg_fail(&err);
		goto out;
	}
	t1 = now_ms();
	st_msg_verbose("plot: inputs read, %zu figures built (%.1f ms)",
		       st_figures_count(set), t1 - t0);
	if (st_figures_write(set, outdir, formats, &files, &err) < 0) {
		rc = st_msg_fail(&err);
	} else {
		st_msg_info("plot: %zu figures (%zu files) written to %s in %.0f ms",
			    st_figures_count(set), files, outdir, now_ms() - t0);
		rc = ST_EXIT_OK;
	}
	st_figures_free(set);
out:
	st_experiments_release(&ex);
	return st_finish_stdout(rc);
}
