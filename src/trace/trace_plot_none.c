/* trace_plot_none.c - `trace plot` on DFTracer traces in a build without
 * the figures feature: it fails with 69 (features.h). */
#include <string.h>

#include "streamtime/features.h"
#include "streamtime/trace_plot.h"

int st_trace_plot_scan(const char *const *paths, size_t n,
		       const st_trace_plot_opts *o, st_trace_plot_result *res,
		       st_error *err)
{
	(void)paths;
	(void)n;
	(void)o;
	memset(res, 0, sizeof(*res));
	return st_feature_missing(err, ST_FEATURE_FIGURES);
}

int st_trace_plot_write(const char *const *paths, size_t n,
			const st_trace_plot_opts *o,
			const st_systrace_list *sets,
			const st_sysplot_opts *so, const char *out_dir,
			unsigned formats, st_trace_plot_result *res,
			st_sysplot_result *sres, size_t *files, st_error *err)
{
	(void)paths;
	(void)n;
	(void)o;
	(void)sets;
	(void)so;
	(void)out_dir;
	(void)formats;
	(void)res;
	(void)sres;
	(void)files;
	return st_feature_missing(err, ST_FEATURE_FIGURES);
}

void st_trace_plot_result_release(st_trace_plot_result *res)
{
	(void)res;
}
