/* test_spawn.c - unit tests for include/streamtime/spawn.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "streamtime/spawn.h"

static int collect_sh(const char *script, const char *const *env, char **out,
		      size_t *outlen, char **errtxt, st_error *err)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	st_spawn_opts o = { 0, env };

	return st_spawn_collect(argv, &o, out, outlen, errtxt, err);
}

static void test_collect_stdout_stderr_and_status(void **state)
{
	char *out, *errtxt;
	size_t len;
	st_error err;

	(void)state;
	assert_int_equal(collect_sh("echo out; echo err >&2; exit 3", NULL, &out,
				    &len, &errtxt, &err), 3);
	assert_string_equal(out, "out\n");
	assert_int_equal(len, 4);
	assert_string_equal(errtxt, "err\n");
	free(out);
	free(errtxt);
	/* nothing said: empty strings, not NULL */
	assert_int_equal(collect_sh("exit 0", NULL, &out, &len, &errtxt, &err), 0);
	assert_string_equal(out, "");
	assert_string_equal(errtxt, "");
	free(out);
	free(errtxt);
	/* killed by a signal: 128 + its number, as a shell says */
	assert_int_equal(collect_sh("kill -9 $$", NULL, &out, &len, &errtxt, &err),
			 128 + SIGKILL);
	free(out);
	free(errtxt);
}

static void test_collect_both_streams_past_the_pipe_buffer(void **state)
{
	char *out, *errtxt;
	size_t len;
	st_error err;

	(void)state;
	/* 300 kB on each: reading one stream to its end first would hang */
	assert_int_equal(collect_sh("i=0; while [ $i -lt 3 ]; do "
				    "head -c 100000 /dev/zero | tr '\\0' e >&2; "
				    "head -c 100000 /dev/zero | tr '\\0' o; "
				    "i=$((i+1)); done", NULL, &out, &len, &errtxt,
				    &err), 0);
	assert_int_equal(len, 300000);
	assert_int_equal(strlen(out), 300000);
	assert_int_equal(strspn(out, "o"), 300000);
	assert_int_equal(strlen(errtxt), 300000);
	assert_int_equal(strspn(errtxt, "e"), 300000);
	free(out);
	free(errtxt);
}

static void test_collect_environment_set_and_removed(void **state)
{
	static const char *const env[] = { "ST_SPAWN_TEST=1", "HOME", NULL };
	char *out, *errtxt;
	size_t len;
	st_error err;

	(void)state;
	setenv("ST_SPAWN_TEST", "0", 1);
	assert_int_equal(collect_sh("echo \"$ST_SPAWN_TEST-${HOME-unset}-${PATH:+path}\"",
				    env, &out, &len, &errtxt, &err), 0);
	assert_string_equal(out, "1-unset-path\n");
	free(out);
	free(errtxt);
	/* ours is left alone */
	assert_string_equal(getenv("ST_SPAWN_TEST"), "0");
}

static void test_missing_program_cannot_run(void **state)
{
	char *argv[] = { "/nonexistent/st-prog", NULL };
	st_spawn_opts o = { ST_SPAWN_STDIN | ST_SPAWN_STDOUT, NULL };
	char *out = (char *)1, *errtxt = (char *)1;
	size_t len;
	st_child c;
	st_error err;

	(void)state;
	assert_int_equal(st_spawn(&c, argv, &o, &err), -1);
	assert_int_equal(err.code, 69);
	assert_string_equal(err.text, "cannot run /nonexistent/st-prog: "
			    "No such file or directory");
	assert_int_equal(c.pid, -1);
	assert_int_equal(c.in, -1);
	assert_int_equal(c.out, -1);
	assert_int_equal(st_spawn_collect(argv, NULL, &out, &len, &errtxt, &err), -1);
	assert_int_equal(err.code, 69);
	assert_null(out);
	assert_null(errtxt);
}

static void test_pipes_talk_both_ways(void **state)
{
	char *argv[] = { "cat", NULL };
	st_spawn_opts o = { ST_SPAWN_STDIN | ST_SPAWN_STDOUT, NULL };
	char buf[16];
	size_t have = 0;
	st_child c;
	st_error err;

	(void)state;
	assert_int_equal(st_spawn(&c, argv, &o, &err), 0);
	assert_true(c.pid > 0 && c.in >= 0 && c.out >= 0);
	assert_int_equal(c.err, -1);
	assert_int_equal(write(c.in, "ping", 4), 4);
	while (have < 4) {
		ssize_t n = read(c.out, buf + have, sizeof(buf) - have);

		assert_true(n > 0);
		have += (size_t)n;
	}
	assert_memory_equal(buf, "ping", 4);
	/* closing its stdin ends cat */
	assert_int_equal(st_child_wait(&c), 0);
	assert_int_equal(c.pid, -1);
	assert_int_equal(c.in, -1);
}

/* PID no longer runs: no such process, or a zombie. */
static int gone(pid_t pid)
{
	char path[64], state = 0;
	FILE *f;

	if (kill(pid, 0) != 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 1;
	if (fscanf(f, "%*d %*s %c", &state) != 1)
		state = 0;
	fclose(f);
	return state == 'Z';
}

static void test_stop_kills_the_whole_group(void **state)
{
	char *argv[] = { "sh", "-c", "sleep 30 & echo $!; wait", NULL };
	st_spawn_opts o = { ST_SPAWN_STDOUT | ST_SPAWN_GROUP, NULL };
	char buf[32] = { 0 };
	struct timespec t0, t1;
	pid_t sleeper;
	st_child c;
	st_error err;

	(void)state;
	assert_int_equal(st_spawn(&c, argv, &o, &err), 0);
	assert_true(read(c.out, buf, sizeof(buf) - 1) > 0);
	sleeper = (pid_t)atol(buf);
	assert_true(sleeper > 0);
	assert_int_equal(getpgid(c.pid), c.pid);
	assert_int_equal(getpgid(sleeper), c.pid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st_child_stop(&c, 200);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(c.pid, -1);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	/* the shell's child went with it (a zombie until init reaps it) */
	for (int i = 0; i < 200 && !gone(sleeper); i++)
		usleep(10000);
	assert_true(gone(sleeper));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect_stdout_stderr_and_status),
		cmocka_unit_test(test_collect_both_streams_past_the_pipe_buffer),
		cmocka_unit_test(test_collect_environment_set_and_removed),
		cmocka_unit_test(test_missing_program_cannot_run),
		cmocka_unit_test(test_pipes_talk_both_ways),
		cmocka_unit_test(test_stop_kills_the_whole_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
