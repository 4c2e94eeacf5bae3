/* trace_sys.c - what the trace commands say of system-trace sets on
 * stderr (SPEC 5.11); their part of `trace summary`'s output is
 * systrace_render.h's. */
#include <inttypes.h>

#include "cmd.h"
#include "trace_sys.h"

void trace_sys_report(const st_systrace_list *l)
{
	uint64_t shown = 0, all = 0;

	for (size_t i = 0; i < l->n; i++) {
		const st_sys_bad *b;
		const st_sys_file_stat *fs;
		size_t nb = st_systrace_bad(l->v[i], &b);

		st_systrace_file_stats(l->v[i], &fs);
		for (size_t k = 0; k < nb && shown < 10; k++, shown++)
			st_msg_warn("%s:%" PRIu64 ": corrupt line skipped: %s",
				    fs[b[k].file].path, b[k].line, b[k].why);
		for (size_t k = 0; st_systrace_file_stats(l->v[i], &fs) > k; k++)
			if (!st_sys_is_calls(fs[k].kind) &&
			    fs[k].kind != ST_SYS_STRACE)
				all += fs[k].bad;
	}
	if (all > shown)
		st_msg_warn("%" PRIu64 " more corrupt lines skipped in the system "
			    "traces (%" PRIu64 " in all)", all - shown, all);
}
