/* The result cache's key (trace_cache.h): the digest against SHA-256's
 * published test vectors (FIPS 180-2), a file's identity against what
 * stat(2) says and the head and tail hashed here with the digest of the
 * known vectors, and each part of the identity changing with what it
 * stands for: a rewrite in the middle with size and mtime set back
 * (ctime), a change in the head, a file replaced (inode); standard input
 * and a directory cannot be cached. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "streamtime/sum_partial.h"
#include "streamtime/trace_cache.h"
#include "streamtime/trace_render.h"

#define TMPDIR_NAME "trace_cache"
#include "tmpdir.h"

static void test_digest_vectors(void **state)
{
	char h[65];

	(void)state;
	st_trace_cache_digest("abc", 3, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223"
			    "b00361a396177a9cb410ff61f20015ad");
	st_trace_cache_digest("", 0, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb924"
			    "27ae41e4649b934ca495991b7852b855");
}

/* A file of N bytes 'a'..'z' repeated, at PATH in dir. */
static void make(char *path, size_t size, const char *name, size_t n)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), f);
	fclose(f);
}

static void test_file_id_fields(void **state)
{
	char path[128], id[200], want[200], h[65];
	char *buf = malloc(8192);
	struct stat sb;

	(void)state;
	make(path, sizeof(path), "small", 100);
	assert_int_equal(st_trace_cache_file_id(path, id, sizeof(id)), 0);
	assert_int_equal(stat(path, &sb), 0);
	/* a file under 4 KiB: its whole bytes hashed once */
	for (size_t i = 0; i < 100; i++)
		buf[i] = (char)('a' + (int)(i % 26));
	st_trace_cache_digest(buf, 100, h);
	snprintf(want, sizeof(want), "%ju %ju 100 %jd.%09ld %jd.%09ld %s",
		 (uintmax_t)sb.st_dev, (uintmax_t)sb.st_ino,
		 (intmax_t)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec,
		 (intmax_t)sb.st_ctim.tv_sec, sb.st_ctim.tv_nsec, h);
	assert_string_equal(id, want);
	/* 10000 bytes: the first 4096 and the last 4096 */
	make(path, sizeof(path), "big", 10000);
	assert_int_equal(st_trace_cache_file_id(path, id, sizeof(id)), 0);
	for (size_t i = 0; i < 4096; i++)
		buf[i] = (char)('a' + (int)(i % 26));
	for (size_t i = 0; i < 4096; i++)
		buf[4096 + i] = (char)('a' + (int)((10000 - 4096 + i) % 26));
	st_trace_cache_digest(buf, 8192, h);
	assert_non_null(strstr(id, h));
	free(buf);
}

static void test_inplace_rewrite_changes_key(void **state)
{
	char path[128], a[200], b[200];
	struct stat sb;
	struct timespec ts[2];
	FILE *f;

	(void)state;
	make(path, sizeof(path), "mid", 20000);
	assert_int_equal(st_trace_cache_file_id(path, a, sizeof(a)), 0);
	assert_int_equal(st_trace_cache_file_id(path, b, sizeof(b)), 0);
	assert_string_equal(a, b);          /* unchanged: the same key */
	assert_int_equal(stat(path, &sb), 0);
	usleep(20000);
	assert_non_null(f = fopen(path, "r+"));
	fseek(f, 10000, SEEK_SET);
	fputc('Z', f);                      /* outside the head and tail */
	fclose(f);
	ts[0] = sb.st_atim;
	ts[1] = sb.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_int_equal(st_trace_cache_file_id(path, b, sizeof(b)), 0);
	assert_string_not_equal(a, b);      /* ctime moved */
	/* the head: the hash part differs even with every time kept */
	assert_int_equal(stat(path, &sb), 0);
	assert_non_null(f = fopen(path, "r+"));
	fputc('Z', f);
	fclose(f);
	ts[0] = sb.st_atim;
	ts[1] = sb.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_int_equal(st_trace_cache_file_id(path, a, sizeof(a)), 0);
	assert_string_not_equal(strrchr(a, ' '), strrchr(b, ' '));
}

static void test_replaced_changes_inode(void **state)
{
	char path[128], other[128], a[200], b[200];

	(void)state;
	make(path, sizeof(path), "r", 500);
	assert_int_equal(st_trace_cache_file_id(path, a, sizeof(a)), 0);
	make(other, sizeof(other), "r.new", 500);
	assert_int_equal(rename(other, path), 0);
	assert_int_equal(st_trace_cache_file_id(path, b, sizeof(b)), 0);
	assert_string_not_equal(a, b);
	assert_string_not_equal(strchr(a, ' '), strchr(b, ' '));
}

static void test_not_cacheable(void **state)
{
	char id[200], path[128];

	(void)state;
	assert_int_equal(st_trace_cache_file_id("-", id, sizeof(id)), 1);
	assert_int_equal(st_trace_cache_file_id(dir, id, sizeof(id)), 1);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(st_trace_cache_file_id(path, id, sizeof(id)), 1);
}

/* The summary S as its JSON text (trace_render.h) into *TEXT. */
static void render(const st_trace_summary *s, char **text)
{
	size_t len;
	FILE *f = open_memstream(text, &len);
	st_trace_opts o = { 0 };
	st_trace_render r = { &o, NULL, NULL };
	st_error err;

	assert_non_null(f);
	assert_int_equal(st_trace_summary_text(f, s, &r, &err), 0);
	assert_int_equal(st_trace_json_write(f, st_trace_summary_json(s, &r),
					     "the summary", &err), 0);
	fclose(f);
}

/* The binary entry of a file: the whole of it merges into the summary
 * st_trace_summarize gives; every shorter prefix, and every byte
 * changed, is refused (65) or merges without a fault (under ASan). */
static void test_binary_entry_checked(void **state)
{
	static const char lines[] =
		"[\n"
		"{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,"
		"\"ts\":100,\"dur\":10,\"ph\":\"X\",\"args\":{\"hostname\":"
		"\"h\",\"fname\":\"/a/b1.npz\",\"ret\":64}}\n"
		"{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":3,"
		"\"ts\":105,\"dur\":20,\"ph\":\"X\",\"args\":{\"hostname\":"
		"\"h\",\"fname\":\"/a/b2.npz\",\"ret\":32}}\n"
		"{\"name\":\"compute\",\"cat\":\"compute\",\"pid\":2,"
		"\"tid\":2,\"ts\":90,\"dur\":50,\"ph\":\"X\"}\n"
		"{\"bad\n";
	char path[128], *bin = NULL, *want = NULL, *got = NULL;
	const char *pp = path;
	size_t len = 0;
	st_trace_opts o = { .max_bad = 10, .jobs = 1 };
	st_trace_summary s, ref, m;
	st_sum_partial *p;
	st_sum_merge mg = { 0 };
	st_error err;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/b.pfw", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(lines, f);
	fclose(f);
	assert_non_null(p = st_sum_partial_new(&pp, 1, &o, NULL, NULL, &s,
					       &err));
	assert_non_null(f = open_memstream(&bin, &len));
	assert_int_equal(st_sum_partial_write_bin(f, p, &s), 0);
	fclose(f);
	st_sum_partial_free(p);
	st_trace_summary_release(&s);
	assert_int_equal(st_sum_merge_add_bin(&mg, bin, len, "e", &err), 0);
	assert_int_equal(st_sum_merge_finish(&mg, 10, &m, &err), 0);
	assert_int_equal(st_trace_summarize(&pp, 1, &o, &ref, &err), 0);
	m.files_in[0].path = path;
	render(&m, &got);
	render(&ref, &want);
	assert_string_equal(got, want);
	assert_int_equal(m.events, 3);
	assert_int_equal(m.bad_lines, 1);
	free(got);
	free(want);
	st_trace_summary_release(&m);
	st_trace_summary_release(&ref);
	st_sum_merge_release(&mg);
	for (size_t k = 0; k < len; k++) {
		st_sum_merge cut = { 0 };

		assert_int_equal(st_sum_merge_add_bin(&cut, bin, k, "e", &err),
				 -1);
		assert_int_equal(err.code, ST_EXIT_DATAERR);
		assert_null(cut.state);
		st_sum_merge_release(&cut);
	}
	for (size_t k = 0; k < len; k++) {
		st_sum_merge x = { 0 };

		bin[k] ^= 0x5a;
		(void)st_sum_merge_add_bin(&x, bin, len, "e", &err);
		st_sum_merge_release(&x);
		bin[k] ^= 0x5a;
	}
	free(bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digest_vectors),
		cmocka_unit_test(test_file_id_fields),
		cmocka_unit_test(test_inplace_rewrite_changes_key),
		cmocka_unit_test(test_replaced_changes_inode),
		cmocka_unit_test(test_not_cacheable),
		cmocka_unit_test(test_binary_entry_checked),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
