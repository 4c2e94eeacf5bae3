/* tmpdir.h - a test program's temporary directory: `dir`, made by setup
 * and removed with everything in it by teardown, the CMocka group setup
 * and teardown (cmocka_run_group_tests(tests, setup, teardown)).  Define
 * TMPDIR_NAME ("pfw" gives /tmp/st-pfw-XXXXXX) before including it, once,
 * in the test's .c file. */
#ifndef STREAMTIME_TEST_TMPDIR_H
#define STREAMTIME_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/st-" TMPDIR_NAME "-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

#endif
