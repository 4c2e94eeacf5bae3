/* Unit tests: the system-trace readers (systrace.h).  Each line parser on
 * the layouts of docs/systrace.md and on the faults of real
 * traces (interleaved lines, two stamps on a line, wrong field counts,
 * a truncated last line, negative 32-bit latencies, 63-character paths);
 * the set on directories written here (trace record's layout with its
 * manifest, the seed's with a time-align trace and MLLOG writes, bad
 * input) and on the real pmon sample in ../shared/fixtures/systrace. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/systrace.h"
#include "streamtime/time.h"

#define PMON "../../../shared/fixtures/systrace/gpu_pmon_dgx.out"

#define TMPDIR_NAME "systrace"
#include "tmpdir.h"

/* A fresh directory DIR/NAME. */
static char *subdir(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(mkdir(p, 0755), 0);
	return p;
}

static void put(const char *d, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", d, name);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

static int header(const char *text, st_sys_header *h)
{
	return st_sys_header_parse(text, strlen(text), h);
}

static int call(const st_sys_header *h, const char *line, st_sys_call *c,
		const char **why)
{
	*why = NULL;
	return st_sys_call_parse(h, line, strlen(line), c, why);
}

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(st_sys_classify("trace_read.out"), ST_SYS_READ);
	assert_int_equal(st_sys_classify("trace_create_del.out"),
			 ST_SYS_CREATE_DEL);
	assert_int_equal(st_sys_classify("trace_time_align.out"),
			 ST_SYS_TIME_ALIGN);
	assert_int_equal(st_sys_classify("gpu.out"), ST_SYS_GPU);
	assert_int_equal(st_sys_classify("unet3d.log"), ST_SYS_LOG);
	assert_int_equal(st_sys_classify("command.stdout.log"), ST_SYS_LOG);
	assert_int_equal(st_sys_classify("command.stderr.log"), ST_SYS_LOG);
	assert_int_equal(st_sys_classify("run.strace"), ST_SYS_STRACE);
	assert_int_equal(st_sys_classify("trace_foo.out"), ST_SYS_NONE);
	assert_int_equal(st_sys_classify("a.pfw"), ST_SYS_NONE);
	assert_true(st_sys_is_calls(ST_SYS_BIO));
	assert_false(st_sys_is_calls(ST_SYS_TIME_ALIGN));
}

/* The columns of every layout are found by name, the two-word ones
 * ("RET (B)", "BUFFER ADDR") as one. */
static void test_headers(void **state)
{
	st_sys_header h;

	(void)state;
	assert_int_equal(header("TIMESTAMP PID FD RET (B) LAT(ns) FILENAME",
				&h), 1);
	assert_int_equal(h.ncol, 6);
	assert_int_equal(h.pos[ST_SC_RET], 3);
	assert_int_equal(h.pos[ST_SC_LAT], 4);
	assert_true(h.free_last);
	assert_int_equal(header("TIMESTAMP PID FD BUFFER ADDR OFFSET REQ (B) "
				"RET (B) LAT(ns) FILENAME", &h), 1);
	assert_int_equal(h.ncol, 9);
	assert_int_equal(h.pos[ST_SC_BUF], 3);
	assert_int_equal(h.pos[ST_SC_REQ], 5);
	assert_int_equal(h.pos[ST_SC_RET], 6);
	assert_int_equal(header("TIMESTAMP   PID  TID  FD  RET (B)  LAT(ns) "
				" FILENAME", &h), 1);
	assert_int_equal(h.pos[ST_SC_TID], 2);
	assert_int_equal(header("TIMESTAMP PID COMM DONEPID DONECOMM DISK "
				"T(R/W) SECTOR BYTES LAT(ns)", &h), 1);
	assert_int_equal(h.ncol, 10);
	assert_false(h.free_last);
	assert_int_equal(h.pos[ST_SC_BYTES], 8);
	assert_int_equal(header("Attaching 4 probes...", &h), 0);
	assert_int_equal(header("TIMESTAMP TIME", &h), 0);   /* no PID */
}

static void test_call_lines(void **state)
{
	st_sys_header h;
	st_sys_call c;
	const char *why;

	(void)state;
	header("TIMESTAMP PID FD RET (B) LAT(ns) FILENAME", &h);
	assert_int_equal(call(&h, "10463877049228   4242  3  65536  38277   "
			      "/data/train 01.npz", &c, &why), 0);
	assert_int_equal(c.ts, INT64_C(10463877049228));
	assert_int_equal(c.pid, 4242);
	assert_int_equal(c.tid, -1);
	assert_int_equal(c.fd, 3);
	assert_int_equal(c.ret, 65536);
	assert_int_equal(c.lat, 38277);
	assert_int_equal(c.flen, strlen("/data/train 01.npz"));
	assert_memory_equal(c.file, "/data/train 01.npz", c.flen);
	/* an empty name (an fd opened before tracing) */
	assert_int_equal(call(&h, "10463877049228 4242 1 2 13611   ", &c,
			      &why), 0);
	assert_int_equal(c.flen, 0);
	/* a read error: kept as the return value */
	assert_int_equal(call(&h, "10463877049228 4242 9 -9 1000 x", &c,
			      &why), 0);
	assert_int_equal(c.ret, -9);
	header("TIMESTAMP PID FD BUFFER ADDR OFFSET REQ (B) RET (B) LAT(ns) "
	       "FILENAME", &h);
	assert_int_equal(call(&h, "10671385042392 8188 1 0x7f0a9065a270 0 2 2 "
			      "47811 ", &c, &why), 0);
	assert_int_equal(c.req, 2);
	assert_int_equal(c.ret, 2);
	assert_int_equal(call(&h, "10671385042392 8188 1 zz 0 2 2 47811 ", &c,
			      &why), -1);
	header("TIMESTAMP PID COMM DONEPID DONECOMM DISK T(R/W) BYTES LAT(ns)",
	       &h);
	assert_int_equal(call(&h, "10671385042392 8188 python 0 swapper sda "
			      "WS 4096 120000", &c, &why), 0);
	assert_int_equal(c.rw, 'W');
	assert_int_equal(c.bytes, 4096);
	assert_memory_equal(c.comm, "python", 6);
	assert_memory_equal(c.file, "sda", 3);
}

/* The faults of real traces: each a bad line with a reason, or (latency,
 * path) a flag on a good one. */
static void test_call_faults(void **state)
{
	st_sys_header h;
	st_sys_call c;
	const char *why;
	char path[80];

	(void)state;
	header("TIMESTAMP PID FD RET (B) LAT(ns) FILENAME", &h);
	/* two CPUs' lines interleaved: a second stamp in the name */
	assert_int_equal(call(&h, "10463877049228 4242 3 65536 38277 /d/a "
			      "10463877051234 4242 3 10 99 /d/b", &c, &why), -1);
	assert_non_null(strstr(why, "two timestamps"));
	/* ... or in a field */
	assert_int_equal(call(&h, "10463877049228 4242 10463877051234 4242 3 "
			      "10 99 /d/b", &c, &why), -1);
	assert_non_null(strstr(why, "two timestamps"));
	/* a line cut short (the last line of a killed tracer) */
	assert_int_equal(call(&h, "10463877049228 4242 3", &c, &why), -1);
	assert_non_null(strstr(why, "too few fields"));
	/* a field that is no number, a pid beyond PID_MAX_LIMIT */
	assert_int_equal(call(&h, "10463877049228 42x2 3 1 1 a", &c, &why), -1);
	assert_int_equal(call(&h, "10463877049228 99999999 3 1 1 a", &c, &why),
			 -1);
	/* a latency printed as a negative 32-bit number: 2^32 added */
	assert_int_equal(call(&h, "10463877049228 4242 3 1 -2147483000 a", &c,
			      &why), 0);
	assert_true(c.lat_wrapped);
	assert_int_equal(c.lat, INT64_C(2147484296));
	assert_int_equal(call(&h, "10463877049228 4242 3 1 -5000000000 a", &c,
			      &why), -1);
	/* a latency longer than the time since boot */
	assert_int_equal(call(&h, "1000 4242 3 1 2000 a", &c, &why), -1);
	/* a path of 63 bytes: bpftrace's string limit, flagged */
	memset(path, 'p', 63);
	path[0] = '/';
	path[63] = 0;
	{
		char line[160];

		snprintf(line, sizeof(line), "10463877049228 4242 3 1 1 %s",
			 path);
		assert_int_equal(call(&h, line, &c, &why), 0);
		assert_true(c.path_cut);
		assert_int_equal(call(&h, "10463877049228 4242 3 1 1 /short",
				      &c, &why), 0);
		assert_false(c.path_cut);
	}
	/* a fixed layout: one field too many */
	header("TIMESTAMP PID COMM DONEPID DONECOMM DISK T(R/W) BYTES LAT(ns)",
	       &h);
	assert_int_equal(call(&h, "10671385042392 8188 python 0 swapper sda WS "
			      "4096 120000 7", &c, &why), -1);
	assert_non_null(strstr(why, "more fields"));
}

static void test_align(void **state)
{
	int64_t ns;
	int secs;
	const char *l;

	(void)state;
	l = "10463877049228     00:25:39";
	assert_int_equal(st_sys_align_parse(l, strlen(l), &ns, &secs), 1);
	assert_int_equal(ns, INT64_C(10463877049228));
	assert_int_equal(secs, 25 * 60 + 39);
	l = "TIMESTAMP          TIME";
	assert_int_equal(st_sys_align_parse(l, strlen(l), &ns, &secs), 0);
	l = "Attaching 2 probes...";
	assert_int_equal(st_sys_align_parse(l, strlen(l), &ns, &secs), 0);
	l = "10463877049228 00:25:39 10463878049824";   /* interleaved */
	assert_int_equal(st_sys_align_parse(l, strlen(l), &ns, &secs), -1);
	l = "10463877049228 00:25";                      /* truncated */
	assert_int_equal(st_sys_align_parse(l, strlen(l), &ns, &secs), -1);
	l = "10463877049228 25:00:00";
	assert_int_equal(st_sys_align_parse(l, strlen(l), &ns, &secs), -1);
}

static int cpu(const char *l, st_sys_cpu_header *h, st_sys_cpu_row *r,
	       int *y, int *m, int *d)
{
	return st_sys_cpu_parse(l, strlen(l), h, r, y, m, d);
}

static void test_mpstat(void **state)
{
	st_sys_cpu_header h = { 0 };
	st_sys_cpu_row r;
	int y = 0, m = 0, d = 0;

	(void)state;
	assert_int_equal(cpu("Linux 6.1.0-18-amd64 (node1) \t11/23/26 \t"
			     "_x86_64_\t(2 CPU)", &h, &r, &y, &m, &d), 3);
	assert_int_equal(y, 2026);
	assert_int_equal(m, 11);
	assert_int_equal(d, 23);
	/* a row before any header is damaged */
	assert_int_equal(cpu("00:15:02 all 0.50 0.00 0.50 0.00 0.00 0.00 0.00 "
			     "0.00 0.00 99.00", &h, &r, &y, &m, &d), -1);
	assert_int_equal(cpu("00:15:01     CPU    %usr   %nice    %sys "
			     "%iowait    %irq   %soft  %steal  %guest  %gnice "
			     "  %idle", &h, &r, &y, &m, &d), 2);
	assert_int_equal(cpu("00:15:02     all    0.50    0.00    1.50    "
			     "2.00    0.00    0.00    0.00    0.00    0.00   "
			     "96.00", &h, &r, &y, &m, &d), 1);
	assert_true(r.all);
	assert_int_equal(r.secs, 15 * 60 + 2);
	assert_true(r.usr == 0.5 && r.sys == 1.5 && r.iowait == 2.0 &&
		    r.idle == 96.0);
	assert_int_equal(cpu("00:15:02       1    0.50    0.00    1.50    "
			     "2.00    0.00    0.00    0.00    0.00    0.00   "
			     "96.00", &h, &r, &y, &m, &d), 1);
	assert_false(r.all);
	assert_int_equal(r.cpu, 1);
	assert_int_equal(cpu("Average:     all    0.50    0.00    1.50    "
			     "2.00    0.00    0.00    0.00    0.00    0.00   "
			     "96.00", &h, &r, &y, &m, &d), 0);
	/* a 12-hour clock: 12:xx AM is 00:xx, 01:00 PM is 13:00 */
	assert_int_equal(cpu("12:15:01 AM  CPU    %usr   %nice    %sys "
			     "%iowait    %irq   %soft  %steal  %guest  %gnice "
			     "  %idle", &h, &r, &y, &m, &d), 2);
	assert_int_equal(cpu("12:15:02 AM  all 1,00 0,00 0,00 0,00 0,00 0,00 "
			     "0,00 0,00 0,00 99,00", &h, &r, &y, &m, &d), 1);
	assert_int_equal(r.secs, 15 * 60 + 2);
	assert_true(r.usr == 1.0 && r.idle == 99.0);
	assert_int_equal(cpu("01:00:00 PM  all 1 0 0 0 0 0 0 0 0 99", &h, &r,
			     &y, &m, &d), 1);
	assert_int_equal(r.secs, 13 * 3600);
	/* cut short, a value beyond 100 */
	assert_int_equal(cpu("01:00:00 PM  all 1 0 0", &h, &r, &y, &m, &d), -1);
	assert_int_equal(cpu("01:00:00 PM  all 1 0 0 0 0 0 0 0 0 199", &h, &r,
			     &y, &m, &d), -1);
}

static int gpu(const char *l, st_sys_gpu_header *h, st_sys_gpu_row *r)
{
	return st_sys_gpu_parse(l, strlen(l), h, r);
}

static void test_pmon_lines(void **state)
{
	st_sys_gpu_header h = { 0 };
	st_sys_gpu_row r;

	(void)state;
	assert_int_equal(gpu(" 20230211   08:11:18      4          -     -", &h,
			     &r), -1);   /* before the header */
	assert_int_equal(gpu("#Date       Time        gpu        pid  type    "
			     "sm   mem   enc   dec    fb   command", &h, &r), 2);
	assert_int_equal(gpu("#YYYYMMDD   HH:MM:SS    Idx          #   C/G     "
			     "%     %     %     %    MB   name", &h, &r), 0);
	assert_int_equal(gpu(" 20230211   08:11:19      1    2720661     C    "
			     "37     12     -     - 16678   python         ", &h,
			     &r), 1);
	assert_int_equal(r.y, 2023);
	assert_int_equal(r.m, 2);
	assert_int_equal(r.d, 11);
	assert_int_equal(r.secs, 8 * 3600 + 11 * 60 + 19);
	assert_int_equal(r.gpu, 1);
	assert_int_equal(r.pid, 2720661);
	assert_true(r.sm == 37 && r.mem == 12 && r.fb == 16678);
	assert_memory_equal(r.cmd, "python", 6);
	/* '-' everywhere: no process, no value */
	assert_int_equal(gpu(" 20230211   08:11:18      4          -     -     "
			     "-     -     -     -     -   -", &h, &r), 1);
	assert_int_equal(r.pid, -1);
	assert_true(r.sm < 0 && r.fb < 0);
	/* a process with no values, no command */
	assert_int_equal(gpu(" 20230211   08:11:27      2    2720663     -     "
			     "-     -     -     -     -", &h, &r), 1);
	assert_int_equal(r.pid, 2720663);
	/* damaged: a gpu that is '-', a bad date, a cut line */
	assert_int_equal(gpu(" 20230211   08:11:27      -    2720663", &h, &r),
			 -1);
	assert_int_equal(gpu(" 2023021   08:11:27 0 1 C 0 0 - - 1 p", &h, &r),
			 -1);
	assert_int_equal(gpu(" 20230211   08:11", &h, &r), -1);
}

static void test_mllog(void **state)
{
	st_sys_mllog m;
	const char *why, *l;

	(void)state;
	l = "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1795480148535, "
	    "\"event_type\": \"INTERVAL_START\", \"key\": \"epoch_start\", "
	    "\"value\": null, \"metadata\": {\"epoch_num\": 3}}";
	assert_int_equal(st_sys_mllog_parse(l, strlen(l), &m, &why), 1);
	assert_int_equal(m.time_ms, INT64_C(1795480148535));
	assert_int_equal(m.type, ST_ML_START);
	assert_string_equal(m.key, "epoch_start");
	assert_int_equal(m.num, 3);
	l = ":::MLLOG {\"time_ms\": 1.5e12, \"event_type\": \"POINT_IN_TIME\", "
	    "\"key\": \"seed\", \"value\": 42}";
	assert_int_equal(st_sys_mllog_parse(l, strlen(l), &m, &why), 1);
	assert_int_equal(m.type, ST_ML_POINT);
	assert_string_equal(m.value, "42");
	l = "Epoch 1: loss 0.3";
	assert_int_equal(st_sys_mllog_parse(l, strlen(l), &m, &why), 0);
	l = ":::MLLOG {\"time_ms\": 15, \"event_type\": \"INTERVAL_ST";
	assert_int_equal(st_sys_mllog_parse(l, strlen(l), &m, &why), -1);
	l = ":::MLLOG {\"time_ms\": 15, \"event_type\": \"OTHER\", \"key\": "
	    "\"x\"}";
	assert_int_equal(st_sys_mllog_parse(l, strlen(l), &m, &why), -1);
}

static int strc(const char *l, st_sys_strace *s)
{
	return st_sys_strace_parse(l, strlen(l), s);
}

static void test_strace(void **state)
{
	st_sys_strace s;

	(void)state;
	assert_int_equal(strc("8237  1732406400.123456 read(3, \"x\"..., 65536)"
			      " = 65536 <0.000042>", &s), 1);
	assert_int_equal(s.pid, 8237);
	assert_int_equal(s.t_us, INT64_C(1732406400123456));
	assert_memory_equal(s.name, "read", 4);
	assert_int_equal(s.ret, 65536);
	assert_int_equal(s.dur_us, 42);
	assert_int_equal(strc("1732406400.123456 openat(AT_FDCWD, \"/x\", "
			      "O_RDONLY) = -1 ENOENT (No such file or "
			      "directory)", &s), 1);
	assert_int_equal(s.pid, -1);
	assert_true(s.err);
	assert_int_equal(strc("8237  1732406400.123456 execve(\"/usr/bin/"
			      "python3\", [\"python3\"], 0x7ffc /* 20 vars */) "
			      "= 0", &s), 1);
	assert_int_equal(s.ret, 0);
	assert_true(s.alen > 0 && s.args[0] == '"');
	assert_int_equal(strc("8237  1732406400.123456 read(3,  <unfinished "
			      "...>", &s), 1);
	assert_true(s.unfinished);
	assert_int_equal(strc("8237  1732406400.223456 <... read resumed>"
			      "\"ab\", 2) = 2", &s), 1);
	assert_true(s.resumed);
	assert_int_equal(s.ret, 2);
	assert_int_equal(strc("8237  1732406400.3 +++ exited with 0 +++", &s),
			 -1);   /* -ttt has six digits */
	assert_int_equal(strc("8237  1732406400.300000 +++ exited with 0 +++",
			      &s), 1);
	assert_true(s.exited);
	assert_int_equal(strc("8237  1732406400.300000 --- SIGCHLD {si_signo="
			      "SIGCHLD} ---", &s), 0);
	assert_int_equal(strc("8237  1732406400.300000 read(3", &s), -1);
	assert_int_equal(strc("8237 x.300000 read(3) = 1", &s), -1);
}

static void test_proc(void **state)
{
	st_sys_proc p;
	const char *l;

	(void)state;
	l = "1000 fork 100 50 bash";
	assert_int_equal(st_sys_proc_parse(l, strlen(l), &p), 1);
	assert_int_equal(p.event, 'f');
	assert_int_equal(p.pid, 100);
	assert_int_equal(p.ppid, 50);
	assert_memory_equal(p.comm, "bash", 4);
	l = "1100 exec 100 -1 python3 worker";
	assert_int_equal(st_sys_proc_parse(l, strlen(l), &p), 1);
	assert_int_equal(p.clen, strlen("python3 worker"));
	l = "TIMESTAMP EVENT PID PPID COMM";
	assert_int_equal(st_sys_proc_parse(l, strlen(l), &p), 0);
	l = "1100 spawn 100 -1 x";
	assert_int_equal(st_sys_proc_parse(l, strlen(l), &p), -1);
}

/* Issue 15 item 3: names from a ps snapshot (ps -ef, ps -eo pid,ppid,args),
 * below exec's and above the COMM columns; children under their
 * parents. */
static void test_ps(void **state)
{
	st_sys_ps_header h = { 0 };
	st_sys_ps_row r;
	const char *l;
	st_systrace_opts o = { .max_bad = 10 };
	st_error err;
	st_systrace *s;
	char *d;

	(void)state;
	l = "root 1 0 0 Nov23 ? 00:00:01 /sbin/init";
	assert_int_equal(st_sys_ps_parse(l, strlen(l), &h, &r), -1);
	l = "UID          PID    PPID  C STIME TTY          TIME CMD";
	assert_int_equal(st_sys_ps_parse(l, strlen(l), &h, &r), 2);
	l = "root        4242    4200  9 10:15 pts/0    00:00:03 python3 "
	    "train.py --epochs 3  ";
	assert_int_equal(st_sys_ps_parse(l, strlen(l), &h, &r), 1);
	assert_int_equal(r.pid, 4242);
	assert_int_equal(r.ppid, 4200);
	assert_int_equal(r.cmdlen, strlen("python3 train.py --epochs 3"));
	assert_memory_equal(r.cmd, "python3 train.py --epochs 3", r.cmdlen);
	l = "root  x  4200  9 10:15 pts/0 00:00:03 python3";
	assert_int_equal(st_sys_ps_parse(l, strlen(l), &h, &r), -1);
	l = "root  4242  4200";           /* no command */
	assert_int_equal(st_sys_ps_parse(l, strlen(l), &h, &r), -1);
	l = "    PID    PPID COMMAND";
	assert_int_equal(st_sys_ps_parse(l, strlen(l), &h, &r), 2);
	l = "   4243    4242 pt_data_worker";
	assert_int_equal(st_sys_ps_parse(l, strlen(l), &h, &r), 1);
	assert_int_equal(r.pid, 4243);
	assert_int_equal(r.ppid, 4242);
	l = "PID COMMAND PPID";          /* the command must be last */
	assert_int_equal(st_sys_ps_parse(l, strlen(l), &h, &r), -1);
	assert_int_equal(st_sys_ps_parse("  ", 2, &h, &r), 0);
	/* in a set: the snapshot names the pids, exec wins over it */
	d = subdir("ps");
	put(d, "trace_proc.out", "TIMESTAMP EVENT PID PPID COMM\n"
	    "1000 exec 4242 -1 python3\n");
	put(d, "ps.out", "    PID    PPID COMMAND\n"
	    "   4242    4200 python3 train.py\n"
	    "   4243    4242 pt_data_worker\n"
	    "garbage\n");
	assert_non_null(s = st_systrace_open(d, &o, &err));
	assert_string_equal(st_systrace_name(s, 4243)->name, "pt_data_worker");
	assert_int_equal(st_systrace_name(s, 4243)->ppid, 4242);
	assert_string_equal(st_systrace_name(s, 4243)->source, "ps");
	assert_string_equal(st_systrace_name(s, 4242)->name, "python3");
	{
		const st_sys_bad *b;

		assert_int_equal(st_systrace_bad(s, &b), 1);
		assert_int_equal(b[0].line, 4);
	}
	st_systrace_free(s);
	/* a ps.out without a header: 65 naming it */
	d = subdir("psbad");
	put(d, "ps.out", "4242 4200 python3\n");
	assert_null(st_systrace_open(d, &o, &err));
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "ps.out:1:"));
}

/* trace record's layout: TID, a manifest with two clock measurements,
 * trace_proc.out; every fault of a real trace in trace_read.out. */
static void test_set_record(void **state)
{
	char *d = subdir("rec");
	st_systrace_opts o = { .max_bad = 10 };
	st_systrace *s;
	st_error err;
	st_pfw_reader *r;
	st_pfw_event ev;
	const st_sys_align *a;
	const st_sys_proc_name *n;
	const st_sys_file_stat *fs;
	char path[512];
	size_t len, nf;
	int rc, events = 0, bad = 0;

	(void)state;
	put(d, "manifest.json", "{\"streamtime_record\": 1, \"host\": \"node1\","
	    " \"tz\": \"Europe/Berlin\", \"clock\": [{\"when\": \"start\", "
	    "\"mono_ns\": 1000, \"real_ns\": 1700000000000001000, \"bound_ns\":"
	    " 80}, {\"when\": \"end\", \"mono_ns\": 1000001000, \"real_ns\": "
	    "1700000001000002000, \"bound_ns\": 75}]}\n");
	put(d, "trace_proc.out", "TIMESTAMP EVENT PID PPID COMM\n"
	    "1000 fork 100 50 bash\n1100 exec 100 -1 python3\n"
	    "1200 fork 101 100 python3\nnot a line\n");
	put(d, "trace_read.out", "Attaching 4 probes...\n"
	    "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
	    "500001000 100 101 3 4096 1000 /data/a b.bin\n"
	    "5000002000 100 101 3 10 -2147483000 x\n"
	    "5000003000 100 101 3 10 1000 /d 5000003100 100 101 3 1 1 /e\n"
	    "5000004000 100 101 3 -5 1000 /d\n"
	    "5000005000 100 10");
	put(d, "trace_bio.out", "TIMESTAMP PID COMM DONEPID DONECOMM DISK "
	    "T(R/W) BYTES LAT(ns)\n5000000000 300 kworker/u8:2 0 swapper sda "
	    "W 4096 1000\n5000000100 100 other 0 swapper sda R 512 1000\n");
	s = st_systrace_open(d, &o, &err);
	assert_non_null(s);
	a = st_systrace_align(s);
	assert_true(a->known);
	assert_int_equal(a->offset_ns, INT64_C(1700000000000000000));
	assert_int_equal(a->bound_ns, 80 + 1000);
	assert_string_equal(st_systrace_host(s), "node1");
	n = st_systrace_name(s, 100);
	assert_non_null(n);
	assert_string_equal(n->name, "python3");
	assert_int_equal(n->ppid, 50);
	assert_non_null(n = st_systrace_name(s, 101));
	assert_int_equal(n->ppid, 100);
	assert_string_equal(n->name, "python3");
	snprintf(path, sizeof(path), "%s/trace_read.out", d);
	assert_non_null(r = st_systrace_open_file(s, path, false, &err));
	while ((rc = st_pfw_next(r, &ev, &err)) > 0) {
		if (rc == ST_PFW_BAD) {
			bad++;
			continue;
		}
		if (events == 0) {
			/* start 500000000 + offset (slope 1e-6: +500 ns) */
			assert_int_equal(ev.ts, INT64_C(1700000000500000));
			assert_int_equal(ev.dur, 1);
			assert_int_equal(ev.pid, 100);
			assert_int_equal(ev.tid, 101);
			assert_int_equal(ev.bytes, 4096);
			assert_string_equal(st_pfw_str(r, ev.file, &len),
					    "/data/a b.bin");
			assert_string_equal(st_pfw_str(r, ev.name, &len), "read");
			assert_string_equal(st_pfw_str(r, ev.cat, &len),
					    "syscall");
			assert_string_equal(st_pfw_str(r, ev.host, &len),
					    "node1");
		}
		/* 2^32 added to the latency: start 5000002000 - 2147484296
		 * = 2852517704 ns, offsets there and at the end (slope
		 * 1e-6) +2853 and +5000 ns: 2852520 to 5000007 µs */
		if (events == 1)
			assert_int_equal(ev.dur, 5000007 - 2852520);
		if (events == 2)   /* an error: no bytes */
			assert_int_equal(ev.bytes, -1);
		events++;
	}
	assert_int_equal(rc, ST_PFW_EOF);
	assert_int_equal(events, 3);
	assert_int_equal(bad, 2);   /* interleaved, cut short */
	st_pfw_close(r);
	/* COMM columns name the pids once their file has been read */
	snprintf(path, sizeof(path), "%s/trace_bio.out", d);
	assert_null(st_systrace_name(s, 300));
	assert_non_null(r = st_systrace_open_file(s, path, false, &err));
	assert_int_equal(st_pfw_next(r, &ev, &err), ST_PFW_EVENT);
	assert_string_equal(st_pfw_str(r, ev.name, &len), "bio_write");
	assert_int_equal(ev.bytes, 4096);
	st_pfw_close(r);
	assert_non_null(n = st_systrace_name(s, 300));
	assert_string_equal(n->name, "kworker/u8:2");
	assert_string_equal(st_systrace_name(s, 100)->name, "python3");
	nf = st_systrace_file_stats(s, &fs);
	for (size_t i = 0; i < nf; i++)
		if (fs[i].kind == ST_SYS_READ) {
			assert_int_equal(fs[i].bad, 2);
			assert_int_equal(fs[i].events, 3);
			assert_int_equal(fs[i].lat_wrapped, 1);
			assert_int_equal(fs[i].errors, 1);
		} else if (fs[i].kind == ST_SYS_PROC) {
			assert_int_equal(fs[i].bad, 1);
		}
	st_systrace_free(s);
}

/* The seed's layout: a time-align trace (10:00:00 printed at 0.999 s
 * after mono M, 10:00:01 at 1.002 s), two MLLOG lines at 10:00:02.000 and
 * .005 (each PREFIX first) written by traced writes on fd 1 starting at
 * M + 2.0003 s and M + 2.0052 s (100 µs each).  Returns the directory;
 * *E and *M the wall and mono origins. */
static char *seed_dir_as(const char *name, const char *prefix, bool split,
			 int64_t *e, int64_t *m);

static char *seed_dir(const char *name, const char *prefix, int64_t *e,
		      int64_t *m)
{
	return seed_dir_as(name, prefix, false, e, m);
}

/* The same, SPLIT: each line written as print(..., flush=True) does, its
 * text (100 µs) and then its "\n" (10 µs, 10 µs later). */
static char *seed_dir_as(const char *name, const char *prefix, bool split,
			 int64_t *e, int64_t *m)
{
	char *d = subdir(name);
	const int64_t E = (st_days_from_civil(2026, 1, 15) * 86400 + 36000) *
			  INT64_C(1000000000);   /* 10:00:00 UTC */
	const int64_t M = INT64_C(5000000000000);
	char l1[200], l2[200], text[1024];
	int n1, n2;

	snprintf(text, sizeof(text), "Attaching 2 probes...\nTIMESTAMP TIME\n"
		 "%lld 10:00:00\n%lld 10:00:01\n",
		 (long long)(M + 999000000), (long long)(M + 1002000000));
	put(d, "trace_time_align.out", text);
	n1 = snprintf(l1, sizeof(l1), "%s:::MLLOG {\"time_ms\": %lld, "
		      "\"event_type\": \"INTERVAL_START\", \"key\": "
		      "\"epoch_start\", \"metadata\": {\"epoch_num\": 1}}\n",
		      prefix, (long long)(E / 1000000 + 2000));
	n2 = snprintf(l2, sizeof(l2), "%s:::MLLOG {\"time_ms\": %lld, "
		      "\"event_type\": \"INTERVAL_END\", \"key\": "
		      "\"epoch_stop\", \"metadata\": {\"epoch_num\": 1}}\n",
		      prefix, (long long)(E / 1000000 + 2005));
	snprintf(text, sizeof(text), "%s%s", l1, l2);
	put(d, "app.log", text);
	if (split)
		snprintf(text, sizeof(text), "Attaching 6 probes...\n"
			 "TIMESTAMP PID FD BUFFER ADDR OFFSET REQ (B) RET (B) "
			 "LAT(ns) FILENAME\n%lld 42 1 0x7f00 0 %d %d 100000 \n"
			 "%lld 42 1 0x7f00 0 1 1 10000 \n"
			 "%lld 42 1 0x7f00 0 %d %d 100000 \n"
			 "%lld 42 1 0x7f00 0 1 1 10000 \n",
			 (long long)(M + 2000400000), n1 - 1, n1 - 1,
			 (long long)(M + 2000420000),
			 (long long)(M + 2005300000), n2 - 1, n2 - 1,
			 (long long)(M + 2005320000));
	else
		snprintf(text, sizeof(text), "Attaching 6 probes...\n"
			 "TIMESTAMP PID FD BUFFER ADDR OFFSET REQ (B) RET (B) "
			 "LAT(ns) FILENAME\n%lld 42 1 0x7f00 0 %d %d 100000 \n"
			 "%lld 42 1 0x7f00 0 %d %d 100000 \n",
			 (long long)(M + 2000400000), n1, n1,
			 (long long)(M + 2005300000), n2, n2);
	put(d, "trace_write.out", text);
	*e = E;
	*m = M;
	return d;
}

/* The offset bounded from below by each MLLOG line's time_ms against the
 * start of its write (E + 2.005 s - 0.5 ms - (M + 2.0052 s): OFF - 0.7
 * ms), from above by the second line against the end of the first write
 * (E + 2.006 s - (M + 2.0004 s): OFF + 5.6 ms) and by the time-align
 * trace (E + 1 s + 10 ms - (M + 0.999 s): OFF + 11 ms). */
static void test_set_seed_alignment(void **state)
{
	st_systrace_opts o = { .date = "2026-01-15", .max_bad = 10 };
	int64_t E, M, OFF;
	char *d = seed_dir("seed", "", &E, &M);
	st_systrace *s;
	st_error err;
	const st_sys_align *a;
	const st_sys_phase *ph;
	size_t ng;

	(void)state;
	OFF = E - M;
	s = st_systrace_open(d, &o, &err);
	assert_non_null(s);
	a = st_systrace_align(s);
	assert_true(a->known);
	assert_int_equal(a->mllog_writes, 2);
	assert_int_equal(a->lo_ns, OFF - 700000);
	assert_int_equal(a->hi_ns, OFF + 5600000);
	assert_int_equal(a->offset_ns, OFF + 2450000);
	assert_int_equal(a->bound_ns, 3150000);
	/* the seed: the 3 ms transition's midpoint taken as 10:00:01 */
	assert_int_equal(a->seed_offset_ns, OFF - 500000);
	assert_int_equal(st_systrace_phases(s, &ph, &ng), 1);
	assert_string_equal(ph[0].name, "epoch 1");
	assert_int_equal(ph[0].e_ns - ph[0].s_ns, 5000000);
	st_systrace_free(s);

	/* the same without a date: exit 64 naming --date */
	o.date = NULL;
	assert_null(st_systrace_open(d, &o, &err));
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_non_null(strstr(err.text, "--date"));
	assert_non_null(strstr(err.text, "--tz"));
}

/* MLLOG lines written in two parts (print(..., flush=True): the text,
 * then "\n") bound the offset as whole lines do: from below by the second
 * line's time_ms against the start of its text (E + 2.005 s - 0.5 ms -
 * (M + 2.0052 s): OFF - 0.7 ms), from above by it against the end of the
 * first line's "\n" (E + 2.006 s - (M + 2.00042 s): OFF + 5.58 ms). */
static void test_set_seed_mllog_split_writes(void **state)
{
	st_systrace_opts o = { .date = "2026-01-15", .max_bad = 10 };
	int64_t E, M, OFF;
	char *d = seed_dir_as("split", "", true, &E, &M);
	st_systrace *s;
	st_error err;
	const st_sys_align *a;

	(void)state;
	OFF = E - M;
	assert_non_null(s = st_systrace_open(d, &o, &err));
	a = st_systrace_align(s);
	assert_true(a->known);
	assert_int_equal(a->mllog_writes, 2);
	assert_int_equal(a->lo_ns, OFF - 700000);
	assert_int_equal(a->hi_ns, OFF + 5580000);
	assert_int_equal(a->bound_ns, 3140000);
	st_systrace_free(s);
}

/* The seed's trace_write.bt names 8 columns (no FILENAME) and prints the
 * file's name as a 9th field; before 44fc0ff its scripts printed TID
 * where PID is now; its trace_read.bt prints RET with %lu (an error as
 * 2^64 - errno).  The headers and lines as its printf formats write
 * them ("%-17s %-6s %-4s " "%-13s %-8s %-10s %-10s %-8s\n"; "%-17lu
 * %-6d %-4d 0x%-13lx %-8d %-10d " "%-10d %-10d %s\n"). */
static void test_seed_write_filename_9th_field(void **state)
{
	st_sys_header h;
	st_sys_call c;
	const char *why;
	char hl[160], line[200];

	(void)state;
	snprintf(hl, sizeof(hl), "%-17s %-6s %-4s %-13s %-8s %-10s %-10s %-8s",
		 "TIMESTAMP", "PID", "FD", "BUFFER ADDR", "OFFSET", "REQ (B)",
		 "RET (B)", "LAT(ns)");
	assert_int_equal(header(hl, &h), 1);
	assert_int_equal(h.ncol, 9);
	assert_int_equal(h.pos[ST_SC_FILENAME], 8);
	assert_true(h.free_last);
	snprintf(line, sizeof(line), "%-17llu %-6d %-4d 0x%-13lx %-8d %-10d "
		 "%-10d %-10d %s", 10671385042392ULL, 8188, 7, 0x7f0a9065a270UL,
		 0, 4096, 4096, 47811, "model epoch 1.pt");
	assert_int_equal(call(&h, line, &c, &why), 0);
	assert_int_equal(c.pid, 8188);
	assert_int_equal(c.fd, 7);
	assert_int_equal(c.ret, 4096);
	assert_int_equal(c.lat, 47811);
	assert_int_equal(c.flen, strlen("model epoch 1.pt"));
	assert_memory_equal(c.file, "model epoch 1.pt", c.flen);
	/* no name: the line ends after LAT(ns) */
	snprintf(line, sizeof(line), "%-17llu %-6d %-4d 0x%-13lx %-8d %-10d "
		 "%-10d %-10d %s", 10671385042392ULL, 8188, 2, 0x7f0aUL, 0, 80,
		 80, 9000, "");
	assert_int_equal(call(&h, line, &c, &why), 0);
	assert_int_equal(c.flen, 0);
	assert_int_equal(c.ret, 80);
	/* the TID form: the TID stands for the process */
	snprintf(hl, sizeof(hl), "%-17s %-6s %-4s %-10s %-10s %s", "TIMESTAMP",
		 "TID", "FD", "RET (B)", "LAT(ns)", "FILENAME");
	assert_int_equal(header(hl, &h), 1);
	assert_int_equal(h.pos[ST_SC_PID], -1);
	assert_int_equal(call(&h, "10671385042392 8190 3 10 100 a.npz", &c,
			      &why), 0);
	assert_int_equal(c.pid, 8190);
	assert_int_equal(c.tid, 8190);
	/* RET printed %lu: 2^64 - 11 is -EAGAIN; 2^64 - 4096 no errno */
	header("TIMESTAMP PID FD RET (B) LAT(ns) FILENAME", &h);
	assert_int_equal(call(&h, "10671385042392 8188 3 18446744073709551605 "
			      "5000 speed", &c, &why), 0);
	assert_int_equal(c.ret, -11);
	assert_int_equal(call(&h, "10671385042392 8188 3 18446744073709547520 "
			      "5000 speed", &c, &why), -1);
	assert_int_equal(call(&h, "10671385042392 8188 3 18446744073709551616 "
			      "5000 speed", &c, &why), -1);
	/* openat: FULLPATH (spaces kept) and then the dentry's name */
	header("TIMESTAMP PID FD LAT(ns) FULLPATH FILENAME", &h);
	assert_int_equal(call(&h, "10671385042392 8188 6 25000 /ckpt/model "
			      "epoch 1.pt model epoch 1.pt", &c, &why), 0);
	assert_int_equal(c.flen, strlen("/ckpt/model epoch 1.pt"));
	assert_memory_equal(c.file, "/ckpt/model epoch 1.pt", c.flen);
	assert_int_equal(call(&h, "10671385042392 8188 6 25000 data/a.npz "
			      "a.npz", &c, &why), 0);
	assert_int_equal(c.flen, strlen("data/a.npz"));
	assert_int_equal(call(&h, "10671385042392 8188 -2 25000 no/such.npz ",
			      &c, &why), 0);
	assert_int_equal(c.flen, strlen("no/such.npz"));
	assert_int_equal(call(&h, "10671385042392 8188 6 25000 my  d/x y   "
			      "x y", &c, &why), 0);
	assert_int_equal(c.flen, strlen("my  d/x y"));
	assert_memory_equal(c.file, "my  d/x y", c.flen);
	/* a symlink: the dentry's name is the target's; the first word */
	assert_int_equal(call(&h, "10671385042392 8188 6 25000 /d/link.npz "
			      "target.npz", &c, &why), 0);
	assert_int_equal(c.flen, strlen("/d/link.npz"));
}

/* A header of more columns than are read: -1, not "no header". */
static void test_header_too_many_columns(void **state)
{
	char hl[4000];
	size_t k;
	st_sys_header h;

	(void)state;
	k = (size_t)snprintf(hl, sizeof(hl), "TIMESTAMP PID");
	for (int i = 0; i < 298; i++)
		k += (size_t)snprintf(hl + k, sizeof(hl) - k, " C%d", i);
	assert_int_equal(header(hl, &h), -1);
}

/* Prefixed MLLOG lines ("0: ", a launcher's) may be another process's
 * copy, written after the application's: they bound the offset from
 * below only, the time-align trace from above. */
static void test_set_seed_relayed_lines_bound_below_only(void **state)
{
	st_systrace_opts o = { .date = "2026-01-15", .max_bad = 10 };
	int64_t E, M, OFF;
	char *d = seed_dir("relayed", "0: ", &E, &M);
	st_systrace *s;
	st_error err;
	const st_sys_align *a;

	(void)state;
	OFF = E - M;
	assert_non_null(s = st_systrace_open(d, &o, &err));
	a = st_systrace_align(s);
	assert_int_equal(a->mllog_writes, 2);
	assert_int_equal(a->lo_ns, OFF - 700000);
	assert_int_equal(a->hi_ns, OFF + 11000000);
	assert_int_equal(a->bound_ns, 5850000);
	st_systrace_free(s);
}

/* strace's stamps against bpftrace's calls (strace at E + 2.0003 s,
 * .0005, .0007; the reads from M + 2.0004 s to .00045 and from .0006 to
 * .00065): each read starts 100 µs after its stamp (lower bound OFF - 100
 * µs) and ends 51 µs before the next stamp + 1 µs (upper bound OFF + 51
 * µs).  A bad line in the bpftrace file makes the order unsure: then no
 * pair counts. */
static void test_set_strace_bounds(void **state)
{
	char *d = subdir("strace");
	st_systrace_opts o = { .max_bad = 10 };
	const int64_t E = INT64_C(1768471200) * 1000000000,
		      M = INT64_C(5000000000000), OFF = E - M;
	const char *st = "42  1768471202.000300 read(3, \"abcdefghij\", 10) = "
			 "10\n42  1768471202.000500 read(3, \"\", 10) = 0\n"
			 "42  1768471202.000700 close(3) = 0\n";
	char text[512];
	st_systrace *s;
	st_error err;
	const st_sys_align *a;

	(void)state;
	put(d, "strace.out", st);
	snprintf(text, sizeof(text), "TIMESTAMP PID FD RET (B) LAT(ns) "
		 "FILENAME\n%lld 42 3 10 50000 /x\n%lld 42 3 0 50000 /x\n",
		 (long long)(M + 2000450000), (long long)(M + 2000650000));
	put(d, "trace_read.out", text);
	assert_non_null(s = st_systrace_open(d, &o, &err));
	a = st_systrace_align(s);
	assert_int_equal(a->strace_pairs, 2);
	assert_int_equal(a->lo_ns, OFF - 100000);
	assert_int_equal(a->hi_ns, OFF + 51000);
	assert_int_equal(a->offset_ns, OFF - 24500);
	assert_int_equal(a->bound_ns, 75500);
	st_systrace_free(s);

	d = subdir("strace-bad");
	put(d, "strace.out", st);
	snprintf(text, sizeof(text), "TIMESTAMP PID FD RET (B) LAT(ns) "
		 "FILENAME\n%lld 42 3 10 50000 /x\n%lld 42 3 0 50000 /x\n"
		 "%lld 42 3\n", (long long)(M + 2000450000),
		 (long long)(M + 2000650000), (long long)(M + 2000850000));
	put(d, "trace_read.out", text);
	assert_non_null(s = st_systrace_open(d, &o, &err));
	a = st_systrace_align(s);
	assert_int_equal(a->strace_pairs, 0);
	assert_false(a->known);
	st_systrace_free(s);
}

/* Times of day are local: on the day New York springs forward, 03:00:00
 * is EDT (07:00Z), an hour after 01:59:59 EST (06:59:59Z).  With only the
 * time-align trace the offset is its upper bound: the second printed,
 * + 1 s + 10 ms, minus the line's nsecs. */
static void test_set_time_align_dst(void **state)
{
	char *d = subdir("dst");
	st_systrace_opts o = { .date = "2026-03-08", .max_bad = 10,
			       .tz_given = true };
	const int64_t day = st_days_from_civil(2026, 3, 8) * 86400;
	st_systrace *s;
	st_error err;
	const st_sys_align *a;

	(void)state;
	assert_non_null(o.tz = st_tz_load("America/New_York", &err));
	put(d, "trace_time_align.out", "TIMESTAMP TIME\n"
	    "5000000000 01:59:59\n6500000000 03:00:00\n");
	assert_non_null(s = st_systrace_open(d, &o, &err));
	a = st_systrace_align(s);
	assert_true(a->known);
	assert_true(a->bound_ns < 0);   /* one side only */
	/* min(06:59:59Z + 1.01 s - 5 s, 07:00:00Z + 1.01 s - 6.5 s): the
	 * second (taking 03:00 for EST would make it 08:00Z, and the first
	 * the smaller) */
	assert_int_equal(a->offset_ns, (day + 7 * 3600 + 1) *
			 INT64_C(1000000000) + 10000000 - INT64_C(6500000000));
	assert_int_equal(a->hi_ns, a->offset_ns);
	assert_non_null(strstr(a->method, "upper bound"));
	st_systrace_free(s);
	st_tz_free((st_tz *)o.tz);
}

/* trace_mmap.out and trace_create_del.out: sections, each with its own
 * header, name their calls. */
static void test_sections(void **state)
{
	char *d = subdir("sections");
	st_systrace_opts o = { .max_bad = 10 };
	st_systrace *s;
	st_error err;
	st_pfw_reader *r;
	st_pfw_event ev;
	char path[512];
	const char *want[] = { "mmap", "munmap", "unlink" };
	size_t len;
	int n = 0, rc;

	(void)state;
	put(d, "trace_mmap.out", "Attaching 4 probes...\nmmap():\n"
	    "TIMESTAMP PID LEN LAT(ns) FILENAME\n5000000000 7 8192 100 /m\n"
	    "munmap():\nTIMESTAMP PID LEN LAT(ns)\n5000001000 7 8192 50\n");
	put(d, "trace_create_del.out", "unlink():\n"
	    "TIMESTAMP PID LAT(ns) FILENAME\n5000002000 7 10 /tmp/x\n");
	assert_non_null(s = st_systrace_open(d, &o, &err));
	for (int f = 0; f < 2; f++) {
		snprintf(path, sizeof(path), "%s/%s", d,
			 f ? "trace_mmap.out" : "trace_create_del.out");
		assert_non_null(r = st_systrace_open_file(s, path, false, &err));
		while ((rc = st_pfw_next(r, &ev, &err)) == ST_PFW_EVENT) {
			const char *nm = st_pfw_str(r, ev.name, &len);

			assert_string_equal(nm, want[f ? n - 1 : 2]);
			if (f)
				assert_int_equal(ev.bytes, 8192);
			assert_string_equal(st_pfw_str(r, ev.cat, &len),
					    f ? "memory" : "syscall");
			n++;
		}
		assert_int_equal(rc, ST_PFW_EOF);
		st_pfw_close(r);
	}
	assert_int_equal(n, 3);
	st_systrace_free(s);
}

static void test_set_bad_input(void **state)
{
	char *d = subdir("empty");
	st_systrace_opts o = { .max_bad = 10 };
	st_error err;

	(void)state;
	put(d, "notes.txt", "hello\n");
	assert_false(st_systrace_is_set(d));
	assert_null(st_systrace_open(d, &o, &err));
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "not a trace set"));
	/* a DFTracer trace under a bpftrace name: 65, file and line */
	d = subdir("wrong");
	put(d, "trace_read.out", "Attaching 1 probe...\n"
	    "{\"name\":\"read\",\"ph\":\"X\"}\n");
	assert_true(st_systrace_is_set(d));
	assert_null(st_systrace_open(d, &o, &err));
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "trace_read.out:2:"));
	d = subdir("wrongcpu");
	put(d, "cpu.out", "this is not mpstat\n");
	assert_null(st_systrace_open(d, &o, &err));
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "cpu.out:1:"));
	/* the bug "a short trace record is not a trace set": a command
	 * shorter than mpstat's interval leaves only mpstat's first line */
	d = subdir("shortcpu");
	put(d, "cpu.out", "Linux 6.1.0 (vm) \t11/24/26 \t_x86_64_\t(2 CPU)\n");
	put(d, "trace_read.out", "Attaching 1 probe...\n"
	    "TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
	    "1000000 7 7 3 10 100 a.txt\n");
	{
		st_systrace *s = st_systrace_open(d, &o, &err);

		assert_non_null(s);
		st_systrace_free(s);
	}
	/* --names: a line that is not PID NAME */
	d = subdir("names");
	put(d, "trace_proc.out", "1000 exec 7 -1 a\n");
	put(dir, "names.txt", "# pid name\n7 trainer\nx y\n");
	{
		char np[256];

		snprintf(np, sizeof(np), "%s/names.txt", dir);
		o.names = np;
		assert_null(st_systrace_open(d, &o, &err));
		assert_int_equal(err.code, ST_EXIT_DATAERR);
		assert_non_null(strstr(err.text, "names.txt:3:"));
		put(dir, "names.txt", "# pid name\n7 trainer rank 0\n");
		st_systrace *s = st_systrace_open(d, &o, &err);

		assert_non_null(s);
		assert_string_equal(st_systrace_name(s, 7)->name,
				    "trainer rank 0");
		st_systrace_free(s);
	}
}

/* The real pmon sample of an 8-GPU DGX: every GPU found, two processes
 * on GPU 0 summed, '-' rows as idle, the date from its Date column;
 * figures worked out with awk on the file. */
static void test_pmon_fixture(void **state)
{
	char *d = subdir("gpu");
	st_systrace_opts o = { .max_bad = 10 };
	char cmd[512];
	st_systrace *s;
	st_error err;
	const st_sys_phase *ph;
	const st_sys_file_stat *fs;
	size_t ng, nf;

	(void)state;
	if (access(PMON, R_OK) != 0) {
		if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
			fail_msg("no %s (../shared beside the checkout)", PMON);
		skip();
	}
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/gpu.out'", PMON, d);
	assert_int_equal(system(cmd), 0);
	/* a run over the whole sample (UTC: 08:11:00 to 08:12:00) */
	put(d, "train.log", ":::MLLOG {\"time_ms\": 1676103060000, "
	    "\"event_type\": \"INTERVAL_START\", \"key\": \"run_start\"}\n"
	    ":::MLLOG {\"time_ms\": 1676103120000, \"event_type\": "
	    "\"INTERVAL_END\", \"key\": \"run_stop\"}\n");
	assert_non_null(s = st_systrace_open(d, &o, &err));
	assert_int_equal(st_systrace_phases(s, &ph, &ng), 1);
	assert_int_equal(ng, 8);
	assert_int_equal(ph[0].gpu_samples[0], 10);
	assert_int_equal(ph[0].gpu_samples[7], 11);
	assert_true(ph[0].gpu_fb[0] == 26172);   /* 2 x 13086 at 08:11:21 */
	assert_true(ph[0].gpu_fb[1] == 16678);
	assert_true(ph[0].gpu_fb[5] == 0);
	assert_true(ph[0].gpu_sm[0] == 0 && ph[0].gpu_mem[1] == 0);
	assert_string_equal(st_systrace_name(s, 2720661)->name, "python");
	nf = st_systrace_file_stats(s, &fs);
	for (size_t i = 0; i < nf; i++)
		if (fs[i].kind == ST_SYS_GPU) {
			assert_int_equal(fs[i].lines, 92);   /* 4 headers */
			assert_int_equal(fs[i].events, 88);
			assert_int_equal(fs[i].bad, 0);
		}
	st_systrace_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_call_lines),
		cmocka_unit_test(test_call_faults),
		cmocka_unit_test(test_align),
		cmocka_unit_test(test_mpstat),
		cmocka_unit_test(test_pmon_lines),
		cmocka_unit_test(test_mllog),
		cmocka_unit_test(test_strace),
		cmocka_unit_test(test_proc),
		cmocka_unit_test(test_ps),
		cmocka_unit_test(test_set_record),
		cmocka_unit_test(test_set_seed_alignment),
		cmocka_unit_test(test_set_seed_relayed_lines_bound_below_only),
		cmocka_unit_test(test_set_seed_mllog_split_writes),
		cmocka_unit_test(test_seed_write_filename_9th_field),
		cmocka_unit_test(test_header_too_many_columns),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_set_time_align_dst),
		cmocka_unit_test(test_set_strace_bounds),
		cmocka_unit_test(test_set_bad_input),
		cmocka_unit_test(test_pmon_fixture),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
