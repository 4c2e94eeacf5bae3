/* sysplot_none.c - `trace plot` in a build without the figures feature:
 * it fails with 69 (features.h). */
#include <string.h>

#include "streamtime/features.h"
#include "streamtime/sysplot.h"

int st_sysplot_write(const st_systrace_list *l, const st_sysplot_opts *o,
		     const char *out_dir, st_sysplot_result *res,
		     st_error *err)
{
	(void)l;
	(void)o;
	(void)out_dir;
	memset(res, 0, sizeof(*res));
	return st_feature_missing(err, ST_FEATURE_FIGURES);
}

void st_sysplot_result_release(st_sysplot_result *res)
{
	(void)res;
}
