/* figures_none.c - the figures in a build without the figures feature
 * (meson -Dfigures=disabled): no cairo, no libpng.  `plot` fails with 69
 * (st_figures_build); `reproduce` goes on without figures (st_figures_run
 * writes none) and its report says why there are none (report.c). */
#include "streamtime/features.h"
#include "streamtime/figures.h"

st_figures *st_figures_build(const st_figures_input *in, st_error *err)
{
	st_feature_missing(err, ST_FEATURE_FIGURES);
	return NULL;
}

size_t st_figures_count(const st_figures *set)
{
	return 0;
}

const char *st_figures_name(const st_figures *set, size_t i)
{
	return NULL;
}

const st_plot_fig *st_figures_get(const st_figures *set, size_t i)
{
	return NULL;
}

int st_figures_write(const st_figures *set, const char *outdir,
		     unsigned formats, size_t *files, st_error *err)
{
	return st_feature_missing(err, ST_FEATURE_FIGURES);
}

void st_figures_free(st_figures *set)
{
}

int st_figures_run(const st_figures_input *in, const char *outdir,
		   unsigned formats, size_t *figures, st_error *err)
{
	if (figures)
		*figures = 0;
	return 0;
}
