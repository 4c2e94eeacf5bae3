/* libFuzzer target: the system-trace line parsers (systrace.h).  The
 * input's first byte picks the header a call line is read under (the
 * layouts of docs/systrace.md); every following line goes
 * through every parser, each in a buffer of its own exact size (so that a
 * read past the line is caught).  Beyond "no crash": what a parser
 * returns lies inside its line and within its stated ranges (times that
 * fit in int64 ns, dates that exist, GPU shares within 100 %). */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/systrace.h"
#include "streamtime/time.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const headers[] = {
	"TIMESTAMP PID FD RET (B) LAT(ns) FILENAME",
	"TIMESTAMP PID FD BUFFER ADDR OFFSET REQ (B) RET (B) LAT(ns) FILENAME",
	"TIMESTAMP PID FD LAT(ns) FULLPATH FILENAME",
	"TIMESTAMP PID TID FD RET LAT(ns) FILENAME",
	"TIMESTAMP PID COMM DONEPID DONECOMM DISK T(R/W) BYTES LAT(ns)",
	/* the seed's trace_write.bt: no FILENAME named; before 44fc0ff TID */
	"TIMESTAMP PID FD BUFFER ADDR OFFSET REQ (B) RET (B) LAT(ns)",
	"TIMESTAMP TID FD RET (B) LAT(ns) FILENAME",
	/* its create_del's unlink, its first bio */
	"TIMESTAMP PID FUNCTION LAT(ns) FILENAME FULLPATH",
	"TIMESTAMP COMM PID CALLER? CALLING PID DISK T SECTOR BYTES LAT(ns)",
};
#define NH (sizeof(headers) / sizeof(headers[0]))

static int inside(const char *p, size_t n, const char *line, size_t len)
{
	return n == 0 || (p >= line && p + n <= line + len);
}

static void one(const st_sys_header *h, const char *line, size_t len)
{
	st_sys_call c;
	st_sys_cpu_header ch = { 0 };
	st_sys_cpu_row cr;
	st_sys_gpu_header gh = { 0 };
	st_sys_gpu_row gr;
	st_sys_mllog m;
	st_sys_strace t;
	st_sys_proc p;
	static st_sys_ps_header psh;
	st_sys_ps_row psr;
	st_sys_header h2;
	const char *why;
	int64_t ns;
	int secs, y, mo, d;

	if (st_sys_call_parse(h, line, len, &c, &why) == 0) {
		assert(c.ts > 0 && c.pid >= 0 && c.pid <= 4194304);
		assert(c.lat >= 0 && c.lat <= c.ts);
		assert(inside(c.file, c.flen, line, len));
		assert(inside(c.comm, c.clen, line, len));
		assert(inside(c.func, c.fnlen, line, len));
	} else {
		assert(why && *why);
	}
	if (st_sys_ps_parse(line, len, &psh, &psr) == 1)
		assert(psr.pid >= 0 && psr.cmdlen > 0 &&
		       inside(psr.cmd, psr.cmdlen, line, len));
	if (st_sys_align_parse(line, len, &ns, &secs) == 1)
		assert(ns > 0 && secs >= 0 && secs <= 86400);
	switch (st_sys_cpu_parse(line, len, &ch, &cr, &y, &mo, &d)) {
	case 1:
		assert(cr.secs >= 0 && cr.secs < 86401);
		break;
	case 3:   /* a date that exists */
		assert(mo >= 1 && mo <= 12 && d >= 1 &&
		       d <= (int)st_days_in_month(y, (unsigned)mo));
		break;
	default:
		break;
	}
	if (st_sys_gpu_parse(line, len, &gh, &gr) == 1) {
		assert(gr.gpu >= 0 && inside(gr.cmd, gr.cmdlen, line, len));
		/* shares of the GPU in %, -1 for '-' */
		assert(gr.sm >= -1 && gr.sm <= 100);
		assert(gr.mem >= -1 && gr.mem <= 100);
		assert(gr.pid >= -1 && gr.pid <= 4194304);
		assert(!gr.y || (gr.m >= 1 && gr.m <= 12 && gr.d >= 1 &&
				 gr.d <= (int)st_days_in_month(gr.y,
							       (unsigned)gr.m)));
	}
	/* time_ms as ns, and the alignment's 1 ms beyond it, fit in int64 */
	if (st_sys_mllog_parse(line, len, &m, &why) == 1)
		assert(m.time_ms > 0 && m.time_ms < INT64_MAX / 1000000 - 1 &&
		       memchr(m.key, 0, sizeof(m.key)));
	if (st_sys_strace_parse(line, len, &t) == 1 && !t.exited) {
		assert(inside(t.name, t.nlen, line, len));
		assert(!t.args || inside(t.args, t.alen, line, len));
		assert(t.t_us >= 0 && t.dur_us >= -1 &&
		       t.dur_us <= INT64_C(10000000000) * 1000000 + 999999);
	}
	if (st_sys_proc_parse(line, len, &p) == 1)
		assert(inside(p.comm, p.clen, line, len) && p.pid >= 0);
	if (st_sys_header_parse(line, len, &h2) == 1)
		assert(h2.ncol >= 2 && h2.ncol <= ST_SYS_MAXCOL &&
		       (h2.pos[ST_SC_PID] >= 0 || h2.pos[ST_SC_TID] >= 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_sys_header h;
	size_t i = 1;

	if (size == 0)
		return 0;
	if (st_sys_header_parse(headers[data[0] % NH],
				strlen(headers[data[0] % NH]), &h) != 1)
		abort();
	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
		char *line = malloc(len ? len : 1);

		if (!line)
			return 0;
		memcpy(line, data + i, len);
		one(&h, line, len);
		free(line);
		i += len + 1;
	}
	return 0;
}
