/* Unit tests: `trace summary`'s output (trace_render.h) from a summary
 * built here by hand, the expected text and JSON written out from the
 * numbers put in (seconds from microseconds by hand, the layout of the
 * README's example); and what the trace commands say about their inputs
 * (trace_inputs.h, trace_sets.h): the notes of missing, empty and
 * damaged inputs and the exit status they ask for, corrupt lines named
 * then counted (a command's and a system-trace set's), a set not opened
 * when an input is missing; the summary written to a file whole
 * (systrace_render.h), an output that cannot be made leaving nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "streamtime/atomic.h"
#include "streamtime/file.h"
#include "streamtime/systrace_render.h"
#include "streamtime/trace_inputs.h"
#include "streamtime/trace_render.h"
#include "streamtime/trace_sets.h"

#define TMPDIR_NAME "render"
#include "tmpdir.h"

#define T0 INT64_C(1700000000000000)   /* 2023-11-14T22:13:20Z in µs */

static const char *const group_keys_a[] = { "/a", NULL };
static const size_t group_lens_a[] = { 2 };
static const char *const group_keys_x[] = { "\xff", NULL };
static const size_t group_lens_x[] = { 1 };
static const char *const compute_cats[] = { "compute", "gpu" };

/* The summary of the test, its stats sorted by key as st_trace_summarize
 * gives them. */
static void make(st_trace_summary *s, st_trace_stat cat[2],
		 st_trace_stat name[4], st_trace_stat grp[2],
		 st_trace_bin bin[2])
{
	*s = (st_trace_summary){
		.n_files = 2, .bad_lines = 3, .events = 7, .hosts = 1,
		.processes = 2, .threads = 3, .files = 2,
		.first_us = T0, .end_us = T0 + 2500000,
		.io_us = 1250000, .io_unoverlapped_us = 250000,
		.io_max_us = 1000000, .compute_us = 3000001,
		.compute_unoverlapped_us = 2000001, .compute_max_us = 2000000,
		.by_cat = cat, .n_cat = 2, .by_name = name, .n_name = 4,
		.groups = grp, .n_groups = 2, .bins = bin, .n_bins = 2,
	};
	cat[0] = (st_trace_stat){ .key = "POSIX", .count = 5, .dur_us = 1250000 };
	cat[1] = (st_trace_stat){ .key = "compute", .count = 2,
				  .dur_us = 3000001 };
	name[0] = (st_trace_stat){ .key = "open", .count = 1, .dur_us = 250000 };
	name[1] = (st_trace_stat){ .key = "read", .count = 4, .dur_us = 1000000,
				   .bytes = 4096, .sized = 4, .q1 = 256.25,
				   .median = 1024, .q3 = 1536.5 };
	name[2] = (st_trace_stat){ .key = "step", .count = 2, .dur_us = 3000001 };
	name[3] = (st_trace_stat){ .key = "write", .count = 1, .dur_us = 250000 };
	grp[0] = (st_trace_stat){ .key = "/a", .count = 3, .dur_us = 500000,
				  .bytes = 100, .max_proc_dur_us = 300000,
				  .max_per_bytes = 60, .max_dur_key = "h:1",
				  .max_bytes_key = "h:2", .keys = group_keys_a,
				  .key_lens = group_lens_a };
	grp[1] = (st_trace_stat){ .key = "\\xff", .count = 1, .dur_us = 700000,
				  .max_proc_dur_us = 700000,
				  .max_dur_key = "h:2", .keys = group_keys_x,
				  .key_lens = group_lens_x };
	bin[0] = (st_trace_bin){ .start_us = T0, .events = 5, .bytes = 4096,
				 .bytes_read = 1024, .bytes_written = 3000,
				 .io_us = 1000000, .compute_us = 500000 };
	bin[1] = (st_trace_bin){ .start_us = T0 + 2000000, .events = 2,
				 .compute_us = 1 };
}

/* R's text of S, whole (new). */
static char *text_of(const st_trace_summary *s, const st_trace_render *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_error err;

	assert_non_null(f);
	assert_int_equal(st_trace_summary_text(f, s, r, &err), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static const char want_text[] =
	"inputs      2 (3 corrupt lines skipped)\n"
	"events      7\n"
	"hosts       1\n"
	"processes   2\n"
	"threads     3\n"
	"files       2\n"
	"span        2.500000 s (2023-11-14T22:13:20+00:00 to "
	"2023-11-14T22:13:22.500000+00:00)\n"
	"I/O         1.250000 s, not overlapped by compute 0.250000 s, "
	"largest process 1.000000 s  [POSIX,STDIO]\n"
	"compute     3.000001 s, not overlapped by I/O 2.000001 s, "
	"largest process 2.000000 s  [compute,gpu]\n"
	"            (time summed over processes; each process's events as "
	"a union of intervals)\n"
	"\n"
	"category       events          dur (s)\n"
	"compute             2         3.000001\n"
	"POSIX               5         1.250000\n"
	"\n"
	"function       events          dur (s)            bytes  bytes per "
	"call: q1 / median / q3\n"
	"step                2         3.000001                0\n"
	"read                4         1.000000             4096  256.25 / "
	"1024 / 1536.50 (4 calls)\n"
	"open                1         0.250000                0\n"
	"write               1         0.250000                0\n"
	"\n"
	"file           events          dur (s)            bytes      max pid "
	"dur (s)        max pid bytes  its dur's unit\n"
	"\\xff                1         0.700000                0             "
	"0.700000                    0  h:2\n"
	"/a                  3         0.500000              100             "
	"0.300000                   60  h:1\n"
	"\n"
	"bin start (UTC)                        events            bytes       "
	"bytes read    bytes written          I/O (s)      compute (s)\n"
	"2023-11-14T22:13:20+00:00                   5             4096       "
	"      1024             3000         1.000000         0.500000\n"
	"2023-11-14T22:13:22+00:00                   2                0       "
	"         0                0         0.000000         0.000001\n";

/* The text: seconds exact to the microsecond, tables by dur (ties by
 * key: open before write), the categories named, groups with per's
 * headings, bins in UTC. */
static void test_summary_text(void **state)
{
	st_trace_summary s;
	st_trace_stat cat[2], name[4], grp[2];
	st_trace_bin bin[2];
	st_trace_opts o = { .compute_cats = compute_cats, .n_compute = 2,
			    .granularity_us = 1000000 };
	char *t;

	(void)state;
	make(&s, cat, name, grp, bin);
	t = text_of(&s, &(st_trace_render){ &o, "file", NULL });
	assert_string_equal(t, want_text);
	free(t);
}

/* No event: a span of 0 s and no times; no groups and no bins unless
 * asked; '' as the I/O categories is "none". */
static void test_summary_text_empty(void **state)
{
	st_trace_summary s = { .n_files = 1 };
	static const char *const none[] = { "" };
	st_trace_opts o = { .io_cats = none, .n_io = 0 };
	char *t;

	(void)state;
	t = text_of(&s, &(st_trace_render){ &o, NULL, NULL });
	assert_non_null(strstr(t, "\nspan        0 s\n"));
	assert_non_null(strstr(t, "largest process 0.000000 s  [none]\n"));
	assert_null(strstr(t, "its dur's unit"));
	assert_null(strstr(t, "bin start"));
	assert_non_null(strstr(t, "\nfunction       events"));
	free(t);
}

static json_int_t int_at(json_t *o, const char *path)
{
	char buf[128], *save = NULL;
	json_t *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); k && v;
	     k = strtok_r(NULL, "/", &save))
		v = json_object_get(v, k);
	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

/* The JSON: every number as put in, bytes only where they are counted,
 * a group's keys as text with their bytes in hex when not UTF-8,
 * max_process_dur_us only when the unit is the process. */
static void test_summary_json(void **state)
{
	st_trace_summary s;
	st_trace_stat cat[2], name[4], grp[2];
	st_trace_bin bin[2];
	st_trace_opts o = { .granularity_us = 1000000 };
	json_t *j, *g, *b;
	char *text;
	json_error_t je;
	FILE *f;
	size_t len;
	st_error err;

	(void)state;
	make(&s, cat, name, grp, bin);
	/* written as the command writes it, and read back */
	assert_non_null(f = open_memstream(&text, &len));
	assert_int_equal(st_trace_json_write(f, st_trace_summary_json(&s,
			 &(st_trace_render){ &o, "file", NULL }), "the summary",
			 &err), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(text[len - 1], '\n');
	assert_non_null(j = json_loads(text, 0, &je));
	free(text);
	assert_int_equal(int_at(j, "events"), 7);
	assert_int_equal(int_at(j, "bad_lines"), 3);
	assert_int_equal(int_at(j, "threads"), 3);
	assert_int_equal(int_at(j, "span_us"), 2500000);
	assert_int_equal(int_at(j, "io_unoverlapped_us"), 250000);
	assert_int_equal(int_at(j, "compute_us"), 3000001);
	assert_int_equal(int_at(j, "by_cat/compute/dur_us"), 3000001);
	assert_int_equal(int_at(j, "by_cat/POSIX/count"), 5);
	assert_null(json_object_get(json_object_get(json_object_get(j,
		"by_cat"), "POSIX"), "bytes"));
	assert_int_equal(int_at(j, "by_name/read/bytes"), 4096);
	assert_string_equal(json_string_value(json_object_get(j, "group_by")),
			    "file");
	assert_string_equal(json_string_value(json_object_get(j, "per")), "pid");
	assert_int_equal(int_at(j, "groups/\\xff/max_process_dur_us"), 700000);
	assert_int_equal(int_at(j, "groups/\\xff/max_per_dur_us"), 700000);
	g = json_object_get(json_object_get(j, "groups"), "\\xff");
	assert_string_equal(json_string_value(json_array_get(json_object_get(g,
		"keys"), 0)), "\\xff");
	assert_string_equal(json_string_value(json_array_get(json_object_get(g,
		"keys_hex"), 0)), "ff");
	assert_true(json_is_null(json_object_get(g, "max_per_bytes_key")));
	g = json_object_get(json_object_get(j, "groups"), "/a");
	assert_null(json_object_get(g, "keys_hex"));
	assert_int_equal(int_at(g, "max_per_bytes"), 60);
	assert_string_equal(json_string_value(json_object_get(g,
		"max_per_bytes_key")), "h:2");
	assert_int_equal(int_at(j, "time_granularity_us"), 1000000);
	b = json_object_get(j, "bins");
	assert_int_equal(json_array_size(b), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 1),
		"start_us")), T0 + 2000000);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 0),
		"io_us")), 1000000);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 0),
		"bytes_read")), 1024);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 0),
		"bytes_written")), 3000);
	json_decref(j);

	/* --per thread: the process's maximum is not named so */
	j = st_trace_summary_json(&s, &(st_trace_render){ &o, "file",
							 "thread" });
	g = json_object_get(json_object_get(j, "groups"), "/a");
	assert_null(json_object_get(g, "max_process_dur_us"));
	assert_int_equal(json_integer_value(json_object_get(g,
		"max_per_dur_us")), 300000);
	json_decref(j);

	/* no --group-by, no bins */
	o.granularity_us = 0;
	j = st_trace_summary_json(&s, &(st_trace_render){ &o, NULL, NULL });
	assert_null(json_object_get(j, "groups"));
	assert_null(json_object_get(j, "bins"));
	json_decref(j);
}

/* A name as JSON: UTF-8 as it is, else its escaped text and the hex of
 * its bytes beside it. */
static void test_name_json(void **state)
{
	json_t *hex = json_array(), *v;

	(void)state;
	v = st_trace_name_json("caf\xc3\xa9", 5, hex);
	assert_string_equal(json_string_value(v), "caf\xc3\xa9");
	json_decref(v);
	v = st_trace_name_json("a\xfe\nb", 4, hex);
	assert_string_equal(json_string_value(v), "a\\xfe\\u000ab");
	json_decref(v);
	assert_int_equal(json_array_size(hex), 2);
	assert_string_equal(json_string_value(json_array_get(hex, 1)),
			    "61fe0a62");
	json_decref(hex);
}

/* ---- notes about the inputs ------------------------------------------ */

static char *put(const char *name, const char *text)
{
	char *p = st_path_join(dir, name);
	FILE *f;

	assert_non_null(p);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
	return p;
}

/* Collection: a missing input and a directory without traces are error
 * notes (66 and 65, 66 the status), the traces of a directory sorted,
 * the others collected still. */
static void test_inputs_collect_notes(void **state)
{
	char *a = put("b.pfw", "[\n"), *b = put("a.pfw.gz", ""),
	     *c = put("c.txt", "x"), *missing = st_path_join(dir, "nope.pfw"),
	     *empty = st_path_join(dir, "empty");
	char *args[] = { dir, missing, empty };
	struct st_trace_inputs in = { 0 };
	st_trace_notes nt = { 0 };
	st_error err;
	char want[256];

	(void)state;
	assert_int_equal(mkdir(empty, 0755), 0);
	assert_int_equal(st_trace_inputs_collect(&in, args, 3, &nt, &err), 0);
	assert_int_equal(in.n, 2);
	assert_string_equal(in.v[0], b);
	assert_string_equal(in.v[1], a);
	assert_int_equal(nt.n, 2);
	assert_int_equal(nt.v[0].level, ST_NOTE_ERROR);
	assert_int_equal(nt.v[0].code, ST_EXIT_NOINPUT);
	assert_string_equal(nt.v[0].path, missing);
	snprintf(want, sizeof(want), "cannot read %s: No such file or "
		 "directory", missing);
	assert_string_equal(nt.v[0].reason, want);
	assert_int_equal(nt.v[1].code, ST_EXIT_DATAERR);
	assert_string_equal(nt.v[1].path, empty);
	assert_non_null(strstr(nt.v[1].reason, ": not a trace set: "));
	assert_int_equal(st_trace_notes_status(&nt), ST_EXIT_NOINPUT);
	st_trace_notes_release(&nt);
	assert_int_equal(nt.n, 0);
	assert_int_equal(st_trace_notes_status(&nt), 0);
	st_trace_inputs_release(&in);
	remove(c);
	rmdir(empty);
	free(a);
	free(b);
	free(c);
	free(missing);
	free(empty);
}

/* The report: corrupt lines named, then counted; a read error (74), a
 * file that is no trace (65), one without X events (a warning), and a
 * line of counts per file (verbose); 74 wins. */
static void test_inputs_report_notes(void **state)
{
	st_trace_file f[3] = {
		{ .path = "x.pfw", .not_trace = true,
		  .st = { .lines = 4, .bad = 4 } },
		{ .path = "y.pfw", .err_code = ST_EXIT_IOERR,
		  .err_text = "y.pfw: read error" },
		{ .path = "-", .st = { .lines = 2, .meta = 2 } },
	};
	st_trace_bad bad[1] = { { .file = 0, .line = 3, .why = "not JSON" } };
	st_trace_notes nt = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(st_trace_inputs_report(f, 3, bad, 1, 4, NULL, &nt,
						&err), 0);
	assert_int_equal(nt.n, 8);
	assert_int_equal(nt.v[0].level, ST_NOTE_WARN);
	assert_string_equal(nt.v[0].reason, "x.pfw:3: corrupt line skipped: "
			    "not JSON");
	assert_string_equal(nt.v[1].reason, "3 more corrupt lines skipped "
			    "(4 in all)");
	assert_null(nt.v[1].path);
	assert_int_equal(nt.v[2].code, ST_EXIT_DATAERR);
	assert_string_equal(nt.v[2].reason, "x.pfw: not a DFTracer trace: "
			    "none of its 4 lines is an event");
	assert_int_equal(nt.v[3].level, ST_NOTE_VERBOSE);
	assert_int_equal(nt.v[4].code, ST_EXIT_IOERR);
	assert_string_equal(nt.v[4].reason, "y.pfw: read error");
	assert_int_equal(nt.v[6].level, ST_NOTE_WARN);
	assert_string_equal(nt.v[6].reason, "standard input: no X events "
			    "(only metadata or other phases)");
	assert_string_equal(nt.v[7].reason, "-: 2 lines, 0 X events, 2 M, 0 "
			    "other, 0 corrupt; 0 by the fast scanner");
	assert_int_equal(st_trace_notes_status(&nt), ST_EXIT_IOERR);
	st_trace_notes_release(&nt);
}

/* trace plot's directories: a missing one (66), a file and a directory
 * without system traces (65), a set (none); 66 the status. */
static void test_sets_check_notes(void **state)
{
	char *set = st_path_join(dir, "set"), *cpu = st_path_join(dir,
								   "set/cpu.out");
	char *file = put("plain.txt", "x"), *none = st_path_join(dir, "none");
	char *missing = st_path_join(dir, "gone");
	char *args[] = { set, missing, file, none };
	st_trace_notes nt = { 0 };
	st_error err;
	FILE *f;

	(void)state;
	assert_int_equal(mkdir(set, 0755), 0);
	assert_int_equal(mkdir(none, 0755), 0);
	assert_non_null(f = fopen(cpu, "w"));
	fclose(f);
	assert_int_equal(st_trace_sets_check(args, 4, &nt, &err), 0);
	assert_int_equal(nt.n, 3);
	assert_int_equal(nt.v[0].code, ST_EXIT_NOINPUT);
	assert_string_equal(nt.v[0].path, missing);
	assert_int_equal(nt.v[1].code, ST_EXIT_DATAERR);
	assert_string_equal(nt.v[1].path, file);
	assert_int_equal(nt.v[2].code, ST_EXIT_DATAERR);
	assert_non_null(strstr(nt.v[2].reason, "none: not a trace set: no "
			       "system-trace file"));
	assert_int_equal(st_trace_notes_status(&nt), ST_EXIT_NOINPUT);
	st_trace_notes_release(&nt);
	remove(cpu);
	remove(file);
	rmdir(set);
	rmdir(none);
	free(set);
	free(cpu);
	free(file);
	free(none);
	free(missing);
}

/* Corrupt lines named by their file's path (an index), then the rest
 * counted. */
static void test_bad_notes(void **state)
{
	const char *const paths[] = { "p0.out", "p1.out" };
	st_trace_bad bad[1] = { { .file = 1, .line = 7,
				  .why = "not a number" } };
	st_trace_notes nt = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(st_trace_bad_notes(paths, bad, 1, 3, &nt, &err), 0);
	assert_int_equal(nt.n, 2);
	assert_int_equal(nt.v[0].level, ST_NOTE_WARN);
	assert_string_equal(nt.v[0].path, "p1.out");
	assert_string_equal(nt.v[0].reason, "p1.out:7: corrupt line skipped: "
			    "not a number");
	assert_null(nt.v[1].path);
	assert_string_equal(nt.v[1].reason, "2 more corrupt lines skipped "
			    "(3 in all)");
	assert_int_equal(st_trace_notes_status(&nt), 0);
	st_trace_notes_release(&nt);
	assert_int_equal(st_trace_bad_notes(paths, bad, 1, 1, &nt, &err), 0);
	assert_int_equal(nt.n, 1);
	st_trace_notes_release(&nt);
}

/* A set whose ps.out has 12 lines that are no process: the first ten
 * named (lines 2 to 11), the other two counted; with a missing input
 * beside it the set is not opened (66). */
static void test_sets_collect_notes(void **state)
{
	char *set = st_path_join(dir, "pset"), *proc, *ps, *missing;
	char text[512] = "    PID    PPID COMMAND\n", want[256];
	char *args[2];
	struct st_trace_inputs in = { 0 };
	struct st_trace_sets ts = { 0 };
	struct st_trace_sys_opts so = { 0 };
	st_trace_notes nt = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(mkdir(set, 0755), 0);
	for (int i = 0; i < 12; i++)
		strcat(text, "garbage\n");
	proc = put("pset/trace_proc.out", "TIMESTAMP EVENT PID PPID COMM\n"
		   "1000 exec 4242 -1 python3\n");
	ps = put("pset/ps.out", text);
	missing = st_path_join(dir, "gone.pfw");
	args[0] = missing;
	args[1] = set;
	assert_int_equal(st_trace_sets_collect(&in, &ts, args, 2, &so, 10,
					       &nt, &err), 0);
	assert_int_equal(st_trace_notes_status(&nt), ST_EXIT_NOINPUT);
	assert_int_equal(ts.sets.n, 0);
	st_trace_notes_release(&nt);
	st_trace_inputs_release(&in);
	memset(&in, 0, sizeof(in));
	assert_int_equal(st_trace_sets_collect(&in, &ts, args + 1, 1, &so, 10,
					       &nt, &err), 0);
	assert_int_equal(st_trace_notes_status(&nt), 0);
	assert_int_equal(ts.sets.n, 1);
	st_trace_notes_release(&nt);
	assert_int_equal(st_trace_sets_notes(&ts.sets, &nt, &err), 0);
	assert_int_equal(nt.n, 11);
	for (int i = 0; i < 10; i++) {
		snprintf(want, sizeof(want), "%s:%d: corrupt line skipped: ",
			 ps, i + 2);
		assert_int_equal(nt.v[i].level, ST_NOTE_WARN);
		assert_memory_equal(nt.v[i].reason, want, strlen(want));
	}
	assert_string_equal(nt.v[10].reason, "2 more corrupt lines skipped in "
			    "the system traces (12 in all)");
	st_trace_notes_release(&nt);
	st_trace_sets_release(&ts);
	st_trace_inputs_release(&in);
	free(set);
	free(proc);
	free(ps);
	free(missing);
}

/* The summary written to a file: the text by hand (want_text); in a
 * folder that is not there, -1 and nothing made. */
static void test_summary_save(void **state)
{
	st_trace_summary s;
	st_trace_stat cat[2], name[4], grp[2];
	st_trace_bin bin[2];
	st_trace_opts o = { .compute_cats = compute_cats, .n_compute = 2,
			    .granularity_us = 1000000 };
	st_trace_render r = { &o, "file", NULL };
	char *out = st_path_join(dir, "summary.txt"), *bad, *got;
	size_t len;
	st_error err;

	(void)state;
	make(&s, cat, name, grp, bin);
	assert_int_equal(st_systrace_render_save(out, &s, &r, false, NULL,
						 NULL, &err), 0);
	assert_non_null(got = st_file_read(out, &len, &err));
	assert_string_equal(got, want_text);
	free(got);
	bad = st_path_join(dir, "nowhere/summary.txt");
	assert_int_equal(st_systrace_render_save(bad, &s, &r, false, NULL,
						 NULL, &err), -1);
	assert_int_not_equal(err.code, 0);
	assert_false(st_path_is_file(bad));
	free(bad);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_text),
		cmocka_unit_test(test_summary_text_empty),
		cmocka_unit_test(test_summary_json),
		cmocka_unit_test(test_name_json),
		cmocka_unit_test(test_inputs_collect_notes),
		cmocka_unit_test(test_inputs_report_notes),
		cmocka_unit_test(test_sets_check_notes),
		cmocka_unit_test(test_bad_notes),
		cmocka_unit_test(test_sets_collect_notes),
		cmocka_unit_test(test_summary_save),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
