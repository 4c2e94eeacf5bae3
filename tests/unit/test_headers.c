/* Unit test: every public header can be included twice in one file (each
 * has a whole include guard), and this file really includes them all.
 * A header with a broken guard fails to compile here. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "streamtime/analysis.h"
#include "streamtime/atomic.h"
#include "streamtime/civil.h"
#include "streamtime/clock.h"
#include "streamtime/clock_net.h"
#include "streamtime/clock_run.h"
#include "streamtime/clockfix.h"
#include "streamtime/collect.h"
#include "streamtime/compare_cases.h"
#include "streamtime/compare_events.h"
#include "streamtime/compare_out.h"
#include "streamtime/compare_render.h"
#include "streamtime/csv.h"
#include "streamtime/ctrace.h"
#include "streamtime/distiller.h"
#include "streamtime/distiller_api.h"
#include "streamtime/error.h"
#include "streamtime/experiments.h"
#include "streamtime/features.h"
#include "streamtime/file.h"
#include "streamtime/figures.h"
#include "streamtime/grow.h"
#include "streamtime/h5.h"
#include "streamtime/heap.h"
#include "streamtime/http.h"
#include "streamtime/install.h"
#include "streamtime/interval.h"
#include "streamtime/merge.h"
#include "streamtime/num.h"
#include "streamtime/outbuf.h"
#include "streamtime/pairmap.h"
#include "streamtime/pftrace.h"
#include "streamtime/pfw.h"
#include "streamtime/pipeline.h"
#include "streamtime/png.h"
#include "streamtime/provenance.h"
#include "streamtime/plot.h"
#include "streamtime/receivers.h"
#include "streamtime/record.h"
#include "streamtime/report.h"
#include "streamtime/sacct.h"
#include "streamtime/savetimes.h"
#include "streamtime/search.h"
#include "streamtime/session.h"
#include "streamtime/simulate.h"
#include "streamtime/slurm.h"
#include "streamtime/slurmrest.h"
#include "streamtime/slurm_run.h"
#include "streamtime/spawn.h"
#include "streamtime/stats.h"
#include "streamtime/strtab.h"
#include "streamtime/suggest.h"
#include "streamtime/sum_partial.h"
#include "streamtime/sysplot.h"
#include "streamtime/systrace.h"
#include "streamtime/systrace_render.h"
#include "streamtime/text.h"
#include "streamtime/time.h"
#include "streamtime/timeline.h"
#include "streamtime/trace.h"
#include "streamtime/trace_cache.h"
#include "streamtime/trace_compare.h"
#include "streamtime/trace_events.h"
#include "streamtime/trace_filter.h"
#include "streamtime/trace_inputs.h"
#include "streamtime/trace_keys.h"
#include "streamtime/trace_merge.h"
#include "streamtime/trace_path.h"
#include "streamtime/trace_plot.h"
#include "streamtime/trace_render.h"
#include "streamtime/trace_sets.h"
#include "streamtime/trace_timeline.h"
#include "streamtime/traceset.h"
#include "streamtime/tz.h"

#include "streamtime/analysis.h"
#include "streamtime/atomic.h"
#include "streamtime/civil.h"
#include "streamtime/clock.h"
#include "streamtime/clock_net.h"
#include "streamtime/clock_run.h"
#include "streamtime/clockfix.h"
#include "streamtime/collect.h"
#include "streamtime/compare_cases.h"
#include "streamtime/compare_events.h"
#include "streamtime/compare_out.h"
#include "streamtime/compare_render.h"
#include "streamtime/csv.h"
#include "streamtime/ctrace.h"
#include "streamtime/distiller.h"
#include "streamtime/distiller_api.h"
#include "streamtime/error.h"
#include "streamtime/experiments.h"
#include "streamtime/features.h"
#include "streamtime/file.h"
#include "streamtime/figures.h"
#include "streamtime/grow.h"
#include "streamtime/h5.h"
#include "streamtime/heap.h"
#include "streamtime/http.h"
#include "streamtime/install.h"
#include "streamtime/interval.h"
#include "streamtime/merge.h"
#include "streamtime/num.h"
#include "streamtime/outbuf.h"
#include "streamtime/pairmap.h"
#include "streamtime/pftrace.h"
#include "streamtime/pfw.h"
#include "streamtime/pipeline.h"
#include "streamtime/png.h"
#include "streamtime/provenance.h"
#include "streamtime/plot.h"
#include "streamtime/receivers.h"
#include "streamtime/record.h"
#include "streamtime/report.h"
#include "streamtime/sacct.h"
#include "streamtime/savetimes.h"
#include "streamtime/search.h"
#include "streamtime/session.h"
#include "streamtime/simulate.h"
#include "streamtime/slurm.h"
#include "streamtime/slurmrest.h"
#include "streamtime/slurm_run.h"
#include "streamtime/spawn.h"
#include "streamtime/stats.h"
#include "streamtime/strtab.h"
#include "streamtime/suggest.h"
#include "streamtime/sum_partial.h"
#include "streamtime/sysplot.h"
#include "streamtime/systrace.h"
#include "streamtime/systrace_render.h"
#include "streamtime/text.h"
#include "streamtime/time.h"
#include "streamtime/timeline.h"
#include "streamtime/trace.h"
#include "streamtime/trace_cache.h"
#include "streamtime/trace_compare.h"
#include "streamtime/trace_events.h"
#include "streamtime/trace_filter.h"
#include "streamtime/trace_inputs.h"
#include "streamtime/trace_keys.h"
#include "streamtime/trace_merge.h"
#include "streamtime/trace_path.h"
#include "streamtime/trace_plot.h"
#include "streamtime/trace_render.h"
#include "streamtime/trace_sets.h"
#include "streamtime/trace_timeline.h"
#include "streamtime/traceset.h"
#include "streamtime/tz.h"

static const char *const included[] = {
	"analysis.h",
	"atomic.h",
	"civil.h",
	"clock.h",
	"clock_net.h",
	"clock_run.h",
	"clockfix.h",
	"collect.h",
	"compare_cases.h",
	"compare_events.h",
	"compare_out.h",
	"compare_render.h",
	"csv.h",
	"ctrace.h",
	"distiller.h",
	"distiller_api.h",
	"dynlib.h",
	"error.h",
	"experiments.h",
	"features.h",
	"figures.h",
	"file.h",
	"grow.h",
	"h5.h",
	"heap.h",
	"http.h",
	"install.h",
	"interval.h",
	"merge.h",
	"num.h",
	"outbuf.h",
	"pairmap.h",
	"pftrace.h",
	"pfw.h",
	"pipeline.h",
	"png.h",
	"provenance.h",
	"plot.h",
	"receivers.h",
	"record.h",
	"report.h",
	"sacct.h",
	"savetimes.h",
	"search.h",
	"session.h",
	"simulate.h",
	"slurm.h",
	"slurmrest.h",
	"slurm_run.h",
	"spawn.h",
	"stats.h",
	"strtab.h",
	"suggest.h",
	"sum_partial.h",
	"sysplot.h",
	"systrace.h",
	"systrace_render.h",
	"text.h",
	"time.h",
	"timeline.h",
	"trace.h",
	"trace_cache.h",
	"trace_compare.h",
	"trace_events.h",
	"trace_filter.h",
	"trace_inputs.h",
	"trace_keys.h",
	"trace_merge.h",
	"trace_path.h",
	"trace_plot.h",
	"trace_render.h",
	"trace_sets.h",
	"trace_timeline.h",
	"traceset.h",
	"tz.h",
};

/* clock.h ended its guard before the transport declarations (issue 13):
 * including it twice redefined st_clock_target. */
static void test_headers_included_twice_clock_h_guard(void **state)
{
	st_clock_target t = { .kind = ST_CLOCK_EXEC };

	(void)state;
	assert_int_equal(t.kind, ST_CLOCK_EXEC);
	assert_int_equal(ST_CLOCK_REPLY_LEN, 40);
}

/* Every header in include/streamtime is in the list above. */
static void test_headers_all_listed(void **state)
{
	DIR *d = opendir("../../include/streamtime");
	struct dirent *e;
	size_t seen = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		bool found = false;

		if (n < 3 || strcmp(e->d_name + n - 2, ".h") != 0)
			continue;
		seen++;
		for (size_t i = 0; i < sizeof(included) / sizeof(included[0]); i++)
			found = found || strcmp(included[i], e->d_name) == 0;
		if (!found)
			fail_msg("include/streamtime/%s is not included twice by "
				 "test_headers.c", e->d_name);
	}
	closedir(d);
	assert_int_equal(seen, sizeof(included) / sizeof(included[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers_included_twice_clock_h_guard),
		cmocka_unit_test(test_headers_all_listed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
