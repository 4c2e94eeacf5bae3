/* clock_run.h - `clock probe` as a whole: every target probed in turn,
 * the rows appended to the offsets file under its lock (SPEC 5.3;
 * clock_run.c). */
#ifndef STREAMTIME_CLOCK_RUN_H
#define STREAMTIME_CLOCK_RUN_H

#include <stddef.h>

#include "streamtime/clock_net.h"
#include "streamtime/error.h"
#include "streamtime/time.h"

#define ST_CLOCK_OFFSETS_HEADER \
	"measured_at,reference,target,offset_ms,delay_ms,bound_ms,samples,method"

/* What one target gave: R when it was measured (ERR NULL), else ERR. */
typedef void (*st_clock_report)(void *ctx, const st_clock_target *t,
				const st_clock_result *r, const st_error *err);

typedef struct st_clock_run_opts {
	st_clock_probe_opts probe;      /* its ssh_argv is made from SSH */
	const char *ssh;                /* ssh and its options, split at
					 * blanks */
	char *const *targets;           /* [NAME=]TARGET, as parsed by
					 * st_clock_target_parse */
	size_t ntargets;
	const char *reference;          /* NULL: this host's name */
	st_clock_report report;         /* called once per target, in order */
	void *report_ctx;
} st_clock_run_opts;

typedef struct st_clock_run_result {
	char *rows;             /* CSV rows without the header (free it) */
	size_t len;
	size_t failed;          /* targets not measured or short of samples */
} st_clock_run_result;

/* Probe every target in turn; one row per target measured.  Returns 0, or
 * -1 with ERR set: 64 a bad target or an empty SSH, 74 out of memory. */
int st_clock_probe_run(const st_clock_run_opts *o, st_clock_run_result *res,
		       st_error *err);

/* Append ROWS (LEN bytes, LEN > 0) to the offsets file PATH under its lock:
 * created with ST_CLOCK_OFFSETS_HEADER, a torn last line cut off; error 65
 * when PATH has another header. */
int st_clock_offsets_append(const char *path, const char *rows, size_t len,
			    st_error *err);

/* D in milliseconds, exact: "-1.234567". */
void st_clock_format_ms(char *buf, size_t size, st_duration d);

#endif
