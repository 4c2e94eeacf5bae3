/* test_file.c - unit tests for include/streamtime/file.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "streamtime/file.h"

/* A temporary file holding LEN bytes of DATA; its path in PATH. */
static void make_file(char *path, const char *data, size_t len)
{
	int fd;

	strcpy(path, "/tmp/st_test_file_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void test_read_fd_whole_file_any_hint(void **state)
{
	static const size_t hints[] = { 0, 1, 5, 11, 12, 100000 };
	char path[64], *buf;
	size_t len;

	(void)state;
	make_file(path, "hello\0world", 11);
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		int fd = open(path, O_RDONLY);

		assert_true(fd >= 0);
		assert_int_equal(st_file_read_fd(fd, hints[i], SIZE_MAX, &buf, &len), 0);
		close(fd);
		assert_int_equal(len, 11);
		assert_memory_equal(buf, "hello\0world", 12);  /* and the NUL */
		free(buf);
	}
	unlink(path);
}

static void test_read_fd_more_than_max_is_efbig(void **state)
{
	char path[64], *buf = (char *)1;
	size_t len = 7;
	int fd;

	(void)state;
	make_file(path, "0123456789", 10);
	fd = open(path, O_RDONLY);
	/* MAX = the size fstat said, the file has grown since: refused */
	assert_int_equal(st_file_read_fd(fd, 9, 9, &buf, &len), -1);
	assert_int_equal(errno, EFBIG);
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(st_file_read_fd(fd, 10, 10, &buf, &len), 0);
	assert_int_equal(len, 10);
	free(buf);
	close(fd);
	unlink(path);
}

static void test_read_fd_pipe_larger_than_first_buffer(void **state)
{
	size_t big = 300000, len;
	char *data = malloc(big), *buf;
	int p[2];
	pid_t pid;

	(void)state;
	for (size_t i = 0; i < big; i++)
		data[i] = (char)('a' + i % 26);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		for (size_t off = 0; off < big;) {
			ssize_t n = write(p[1], data + off, big - off);

			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(st_file_read_fd(p[0], 0, SIZE_MAX, &buf, &len), 0);
	close(p[0]);
	assert_int_equal(len, big);
	assert_memory_equal(buf, data, big);
	assert_int_equal(buf[big], '\0');
	free(buf);
	free(data);
	waitpid(pid, NULL, 0);
}

static void test_file_read_errors_name_the_file(void **state)
{
	char path[64], *buf;
	size_t len;
	st_error err;

	(void)state;
	assert_null(st_file_read("/nonexistent/st_file", &len, &err));
	assert_int_equal(err.code, 66);
	assert_non_null(strstr(err.text, "cannot open /nonexistent/st_file"));
	assert_null(st_file_read("/tmp", &len, &err));
	assert_int_equal(err.code, 66);
	assert_non_null(strstr(err.text, "cannot read /tmp"));
	make_file(path, "a,b\n1,2\n", 8);
	buf = st_file_read(path, &len, &err);
	assert_non_null(buf);
	assert_int_equal(len, 8);
	assert_string_equal(buf, "a,b\n1,2\n");
	free(buf);
	unlink(path);
}

static void test_dir_read_lists_then_ends(void **state)
{
	char dir[] = "/tmp/st_test_dir_XXXXXX", path[64];
	struct dirent *de;
	size_t seen = 0;
	st_error err;
	DIR *d;
	int r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a", dir);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	d = opendir(dir);
	assert_non_null(d);
	while ((r = st_dir_read(d, dir, &de, &err)) == 1)
		seen += strcmp(de->d_name, "a") == 0;
	assert_int_equal(r, 0);
	assert_int_equal(seen, 1);
	closedir(d);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_fd_whole_file_any_hint),
		cmocka_unit_test(test_read_fd_more_than_max_is_efbig),
		cmocka_unit_test(test_read_fd_pipe_larger_than_first_buffer),
		cmocka_unit_test(test_file_read_errors_name_the_file),
		cmocka_unit_test(test_dir_read_lists_then_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
