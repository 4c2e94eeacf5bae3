/* Unit tests: what trace summary says of system-trace sets
 * (systrace_render.h), on a set written here: a ps snapshot whose
 * parent relations make a tree (a parent never seen counts as none), a
 * parent cycle, and a name that is not UTF-8.  The text's process tree
 * and files' table and the JSON's processes and files against the
 * relations and lines the test wrote. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "streamtime/systrace_render.h"

#define TMPDIR_NAME "sysrender"
#include "tmpdir.h"

/* The snapshot: pid, ppid, name; 1 and 99 are never seen. */
static const struct {
	int pid, ppid;
	const char *name;
} ps[] = {
	{ 10, 1, "top" }, { 11, 10, "child" }, { 12, 11, "grandchild" },
	{ 13, 10, "bad\xff\xfe" }, { 20, 21, "cyc_a" }, { 21, 20, "cyc_b" },
};
#define NPS (sizeof(ps) / sizeof(ps[0]))

/* The set directory DIR/NAME with ps.out, opened into *S. */
static char *set_open(const char *name, st_systrace **s)
{
	static char d[128];
	char p[160];
	st_systrace_opts o = { .max_bad = 10 };
	st_error err;
	FILE *f;

	snprintf(d, sizeof(d), "%s/%s", dir, name);
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(p, sizeof(p), "%s/ps.out", d);
	assert_non_null(f = fopen(p, "w"));
	fputs("    PID    PPID COMMAND\n", f);
	for (size_t i = 0; i < NPS; i++)
		fprintf(f, "%7d %7d %s\n", ps[i].pid, ps[i].ppid, ps[i].name);
	fclose(f);
	*s = st_systrace_open(d, &o, &err);
	if (!*s)
		fail_msg("%s", err.text);
	return d;
}

/* The tree line of ps[I] at DEPTH, as the text shows a process. */
static void tree_line(char *b, size_t size, size_t i, int depth,
		      const char *shown)
{
	size_t n = strlen(b);

	snprintf(b + n, size - n, "  %*s%-8d %s  (child of %d)  [ps]\n",
		 2 * depth, "", ps[i].pid, shown, ps[i].ppid);
}

static void test_systrace_render_text_tree(void **state)
{
	st_systrace *s;
	st_systrace_list l = { &s, 1 };
	char *buf = NULL, want[1024] = "", files[256];
	size_t len = 0;
	st_error err = { 0 };
	FILE *f = open_memstream(&buf, &len);
	const char *d = set_open("text", &s);

	(void)state;
	assert_non_null(f);
	assert_int_equal(st_systrace_text(f, &l, NULL, NULL, 0, &err), 0);
	assert_int_equal(fclose(f), 0);
	/* the heading names the directory */
	snprintf(want, sizeof(want), "\nsystem traces %s\nalignment   ", d);
	assert_memory_equal(buf, want, strlen(want));
	/* ps.out: its header and a line per process */
	snprintf(files, sizeof(files), "\nps.out                   %-20s %10d ",
		 "ps snapshot", (int)NPS + 1);
	if (!strstr(buf, files))
		fail_msg("no '%s' in:\n%s", files, buf);
	/* 10's parent is never seen: a root; 11 and 13 under it, 12 under
	 * 11; the cycle 20 <-> 21 from its first process */
	strcpy(want, "\nprocesses (children under their parents)\n");
	tree_line(want, sizeof(want), 0, 0, "top");
	tree_line(want, sizeof(want), 1, 1, "child");
	tree_line(want, sizeof(want), 2, 2, "grandchild");
	tree_line(want, sizeof(want), 3, 1, "bad\\xff\\xfe");
	tree_line(want, sizeof(want), 4, 0, "cyc_a");
	tree_line(want, sizeof(want), 5, 1, "cyc_b");
	if (!strstr(buf, want))
		fail_msg("no tree\n%s\nin:\n%s", want, buf);
	free(buf);
	st_systrace_free(s);
}

static void test_systrace_render_json(void **state)
{
	st_systrace *s;
	st_systrace_list l = { &s, 1 };
	json_t *a, *procs, *fj;
	char hex[32] = "";

	(void)state;
	set_open("json", &s);
	assert_non_null(a = st_systrace_json(&l, NULL, NULL, 0));
	assert_int_equal(json_array_size(a), 1);
	procs = json_object_get(json_array_get(a, 0), "processes");
	assert_int_equal(json_array_size(procs), NPS);
	for (size_t i = 0; i < NPS; i++) {
		json_t *p = json_array_get(procs, i);

		assert_int_equal(json_integer_value(json_object_get(p, "pid")),
				 ps[i].pid);
		assert_int_equal(json_integer_value(json_object_get(p, "ppid")),
				 ps[i].ppid);
		assert_string_equal(json_string_value(json_object_get(
			p, "source")), "ps");
	}
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(procs, 1), "name")), "child");
	assert_null(json_object_get(json_array_get(procs, 1), "name_hex"));
	/* not UTF-8: the escaped text, and the bytes in hex beside it */
	for (const unsigned char *c = (const unsigned char *)ps[3].name; *c;
	     c++)
		snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex), "%02x",
			 *c);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(procs, 3), "name")), "bad\\xff\\xfe");
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(procs, 3), "name_hex")), hex);
	fj = json_array_get(json_object_get(json_array_get(a, 0), "files"), 0);
	assert_string_equal(json_string_value(json_object_get(fj, "file")),
			    "ps.out");
	assert_string_equal(json_string_value(json_object_get(fj, "kind")),
			    "ps snapshot");
	assert_int_equal(json_integer_value(json_object_get(fj, "lines")),
			 NPS + 1);
	assert_int_equal(json_integer_value(json_object_get(fj, "bad_lines")),
			 0);
	assert_true(json_is_false(json_object_get(json_object_get(
		json_array_get(a, 0), "alignment"), "known")));
	assert_int_equal(json_array_size(json_object_get(json_array_get(a, 0),
							 "phases")), 0);
	json_decref(a);
	st_systrace_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systrace_render_text_tree),
		cmocka_unit_test(test_systrace_render_json),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
