/* figures.h - the paper's figures (and two new ones) from the results of
 * `streamtime reproduce`, drawn with plot.h.
 *
 * Inputs, by the layout reproduce writes:
 *   RESULTS/file_transfer/merged_job_info.csv    Slurm jobs (queue, run)
 *   RESULTS/file_transfer/ncem_offload_times.csv offload time per size
 *   RESULTS/streaming/streaming_times_{size}.csv streaming latencies
 *   DATA/file_transfer/save_time_stats.csv       HDF5 save overhead
 * and the experiments (sizes, in order; slurm_tz for naive Slurm times).
 *
 * Figures (each NAME.png, NAME.svg, NAME.pdf as asked): transfer_hist_{size},
 * transfer_hist_combined, queue_hist, queue_by_index, queue_by_date,
 * streaming_box, experiment_timeline.
 */
#ifndef STREAMTIME_FIGURES_H
#define STREAMTIME_FIGURES_H

#include <stddef.h>

#include "streamtime/error.h"
#include "streamtime/experiments.h"
#include "streamtime/plot.h"

typedef struct st_figures_input {
	const char *results;          /* reproduce's --out directory */
	const char *data;             /* the dataset (for save_time_stats.csv) */
	const st_experiments *ex;     /* sizes and slurm_tz (borrowed) */
	const char *save_stats;       /* that file elsewhere; NULL: DATA's */
	const char *acq, *compute;    /* the sites' names in the labels;
				       * NULL: NCEM, NERSC */
} st_figures_input;

typedef struct st_figures st_figures;

/* Read the inputs and build every figure; nothing is written.  Returns a
 * new set (free with st_figures_free), or NULL with ERR set: 66 an input
 * file is missing (named), 65 a bad CSV (file, line, column), 78 a bad
 * slurm_tz, 74 out of memory.  Inputs with headers only give figures that
 * say "no data". */
st_figures *st_figures_build(const st_figures_input *in, st_error *err);

/* How many figures SET holds, and the name (borrowed, no extension) and
 * figure (borrowed) of the I-th. */
size_t st_figures_count(const st_figures *set);
const char *st_figures_name(const st_figures *set, size_t i);
const st_plot_fig *st_figures_get(const st_figures *set, size_t i);

/* Write every figure of SET into OUTDIR (created if needed) as NAME.png,
 * NAME.svg and/or NAME.pdf (FORMATS: a mask of plot.h's formats), each
 * file atomically, all of them published together or none.  *FILES (may
 * be NULL) gets how many files were written.  Errors 73 (cannot create), 74 (cannot write). */
int st_figures_write(const st_figures *set, const char *outdir,
		     unsigned formats, size_t *files, st_error *err);

void st_figures_free(st_figures *set);

/* Build and write in one call (what `plot` and `reproduce` do); *FIGURES
 * (may be NULL) gets the number of figures.
 *
 * In a build without the figures feature (meson -Dfigures=disabled,
 * output/figures_none.c) st_figures_build and st_figures_write fail with
 * 69 (features.h), and st_figures_run writes nothing and returns 0 with
 * *FIGURES 0: reproduce does the rest, its report says why. */
int st_figures_run(const st_figures_input *in, const char *outdir,
		   unsigned formats, size_t *figures, st_error *err);

#endif
