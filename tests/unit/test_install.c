/* test_install.c - unit tests for include/streamtime/install.h: where an
 * installed streamtime finds its sample and docs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/install.h"

#include "st_config.h"

static char root[64];   /* a temporary directory per test */

static void mkdirs(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	assert_true(mkdir(p, 0755) == 0);
}

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/st_test_install_XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Check st_install_dir_for(ROOT/EXE, BUILD) for ITEM against WANT (below
 * ROOT when it does not start with '/'). */
static void expect(const char *exe, const char *build,
		   enum st_install_item item, const char *want)
{
	char e[256], w[256], *got;

	snprintf(e, sizeof(e), "%s/%s", root, exe);
	if (want[0] == '/')
		snprintf(w, sizeof(w), "%s", want);
	else
		snprintf(w, sizeof(w), "%s/%s", root, want);
	got = st_install_dir_for(e, build, item);
	assert_non_null(got);
	assert_string_equal(got, w);
	free(got);
}

/* The bug "installed reproduce needs the source tree": the sample's path
 * was the source tree's, compiled in.  Now the prefix above bin/ decides. */
static void test_installed_reproduce_needs_the_source_tree(void **state)
{
	(void)state;
	mkdirs("opt/st/bin");
	mkdirs("opt/st/share/streamtime/data");
	mkdirs("opt/st/share/doc/streamtime");
	mkdirs("opt/st/share/streamtime/bpftrace");
	expect("opt/st/bin/streamtime", NULL, ST_INSTALL_DATA,
	       "opt/st/share/streamtime/data");
	expect("opt/st/bin/streamtime", NULL, ST_INSTALL_DOC,
	       "opt/st/share/doc/streamtime");
	expect("opt/st/bin/streamtime", NULL, ST_INSTALL_SCRIPTS,
	       "opt/st/share/streamtime/bpftrace");
}

/* Run from the build directory: the source tree, installed or not. */
static void test_build_tree_reads_the_source(void **state)
{
	char build[128];

	(void)state;
	mkdirs("build");
	mkdirs("share/streamtime/data");
	snprintf(build, sizeof(build), "%s/build", root);
	expect("build/streamtime", build, ST_INSTALL_DATA,
	       ST_SOURCE_ROOT "/data");
	expect("build/streamtime", build, ST_INSTALL_DOC, ST_SOURCE_ROOT);
	expect("build/streamtime", build, ST_INSTALL_SCRIPTS,
	       ST_SOURCE_ROOT "/data/bpftrace");
	/* the same directory by another name */
	expect("build/../build/streamtime", build, ST_INSTALL_DATA,
	       ST_SOURCE_ROOT "/data");
}

/* Nothing beside the binary: the configured path when it exists, else the
 * one beside the binary, to name in "missing"; never the source tree. */
static void test_nothing_installed_beside(void **state)
{
	bool abs = is_dir(ST_INSTALL_DATA_ABS);

	(void)state;
	mkdirs("x/bin");
	expect("x/bin/streamtime", NULL, ST_INSTALL_DATA,
	       abs ? ST_INSTALL_DATA_ABS : "x/share/streamtime/data");
	/* not in a bindir: only the configured path is left */
	mkdirs("tools");
	expect("tools/streamtime", NULL, ST_INSTALL_DATA, ST_INSTALL_DATA_ABS);
	{
		char *got = st_install_dir_for(NULL, NULL, ST_INSTALL_DOC);

		assert_non_null(got);
		assert_string_equal(got, ST_INSTALL_DOC_ABS);
		free(got);
	}
	/* "bin" must be a whole component */
	mkdirs("sbin");
	expect("sbin/streamtime", NULL, ST_INSTALL_DATA, ST_INSTALL_DATA_ABS);
}

/* This process is a test in the build directory's tests/: not the build
 * directory itself, so not the source tree. */
static void test_this_process(void **state)
{
	const char *d = st_install_dir(ST_INSTALL_DATA);

	(void)state;
	assert_non_null(d);
	assert_string_not_equal(d, ST_SOURCE_ROOT "/data");
	assert_ptr_equal(d, st_install_dir(ST_INSTALL_DATA));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_installed_reproduce_needs_the_source_tree, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_build_tree_reads_the_source, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_nothing_installed_beside, setup, teardown),
		cmocka_unit_test(test_this_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
