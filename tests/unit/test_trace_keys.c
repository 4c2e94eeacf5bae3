/* Unit tests: the keys of trace events (trace_keys.h): the list parser
 * (errors naming the key, did-you-mean), basename, pattern and prefix on
 * edge cases (empty file name, no basename, a path ending in '/', only
 * digits, UTF-8 names, a depth beyond the path's), composite keys, values
 * that do not fit the buffer, and events without a host or file. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "streamtime/trace_keys.h"

static void parse_ok(const char *list, size_t n)
{
	st_trace_keys k;
	st_error err = { 0 };

	assert_int_equal(st_trace_keys_parse(&k, list, &err), 0);
	assert_int_equal(k.n, n);
}

/* The usage error of LIST holds each of the NULL-terminated pieces. */
static void parse_bad(const char *list, ...)
{
	st_trace_keys k;
	st_error err = { 0 };
	va_list ap;
	const char *want;

	assert_int_equal(st_trace_keys_parse(&k, list, &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	va_start(ap, list);
	while ((want = va_arg(ap, const char *))) {
		if (!strstr(err.text, want))
			fail_msg("'%s': '%s' lacks '%s'", list, err.text, want);
	}
	va_end(ap);
}

static void test_parse(void **state)
{
	st_trace_keys k;
	st_error err = { 0 };
	char name[16];

	(void)state;
	assert_int_equal(st_trace_keys_parse(&k, "pattern,pid,prefix:2,thread",
					     &err), 0);
	assert_int_equal(k.n, 4);
	assert_int_equal(k.v[0].kind, ST_TRACE_KEY_PATTERN);
	assert_int_equal(k.v[1].kind, ST_TRACE_KEY_PID);
	assert_int_equal(k.v[2].kind, ST_TRACE_KEY_PREFIX);
	assert_int_equal(k.v[2].depth, 2);
	assert_int_equal(k.v[3].kind, ST_TRACE_KEY_THREAD);
	assert_string_equal(st_trace_key_name(&k.v[2], name, sizeof(name)),
			    "prefix:2");
	assert_string_equal(st_trace_key_name(&k.v[0], name, sizeof(name)),
			    "pattern");
	parse_ok("", 0);
	parse_ok("host,pid,thread,name,cat,file,basename,pattern,prefix:1,"
		 "prefix:64,phase", 11);
	/* prefix at two depths are two keys */
	parse_ok("prefix:1,prefix:2", 2);

	parse_bad("patern", "'patern': not a key", "did you mean 'pattern'",
		  NULL);
	parse_bad("pid,threads", "'threads'", "did you mean 'thread'", NULL);
	parse_bad("prefx:2", "'prefx:2'", "did you mean 'prefix:N'", NULL);
	parse_bad("frobnicate", "'frobnicate': not a key (keys: host", NULL);
	parse_bad("pid,", "an empty key", NULL);
	parse_bad(",pid", "an empty key", NULL);
	parse_bad("pid,,name", "an empty key", NULL);
	parse_bad("prefix", "prefix:N", NULL);
	parse_bad("prefix:", "'prefix:'", NULL);
	parse_bad("prefix:0", "'prefix:0'", "1-64", NULL);
	parse_bad("prefix:65", "'prefix:65'", NULL);
	parse_bad("prefix:-1", "'prefix:-1'", NULL);
	parse_bad("prefix:2x", "'prefix:2x'", NULL);
	parse_bad("prefix:99999999999999999999", "prefix:N", NULL);
	parse_bad("pid,name,pid", "'pid' given twice", NULL);
	parse_bad("PID", "'PID'", NULL);
	parse_bad("name ", "'name '", NULL);
	parse_bad("host,pid,thread,name,cat,file,basename,pattern,prefix:1,"
		  "prefix:2,prefix:3,prefix:4,prefix:5,prefix:6,prefix:7,"
		  "prefix:8,prefix:9", "more than 16 keys", NULL);
}

/* An event on FILE (NULL: none) of host "h1", pid 7, tid 9. */
static st_trace_rec rec(const char *file)
{
	st_trace_rec e = {
		.name = "write", .name_len = 5, .cat = "POSIX", .cat_len = 5,
		.host = "h1", .host_len = 2, .file = file,
		.file_len = file ? strlen(file) : 0, .pid = 7, .tid = 9,
	};

	return e;
}

/* The value of KEY (a one-key list) for FILE, or NULL for none. */
static const char *value(const char *key, const char *file)
{
	static char buf[256];
	st_trace_keys k;
	st_trace_rec e = rec(file);
	size_t n;

	assert_int_equal(st_trace_keys_parse(&k, key, NULL), 0);
	n = st_trace_key_format(&k.v[0], &e, buf, sizeof(buf));
	if (n == ST_TRACE_KEY_NONE) {
		assert_string_equal(buf, "");
		return NULL;
	}
	assert_int_equal(n, strlen(buf));
	return buf;
}

static void test_basename(void **state)
{
	(void)state;
	assert_string_equal(value("basename", "/a/b/c.pt"), "c.pt");
	assert_string_equal(value("basename", "c.pt"), "c.pt");
	assert_string_equal(value("basename", "/dlio/data1/train/"), "train");
	assert_string_equal(value("basename", "/a//b//"), "b");
	assert_string_equal(value("basename", "/"), "/");
	assert_string_equal(value("basename", "///"), "/");
	assert_string_equal(value("basename", ""), "");
	assert_string_equal(value("basename", "./x"), "x");
	assert_string_equal(value("basename", "/données/été-01.npz"),
			    "été-01.npz");
	assert_null(value("basename", NULL));
}

static void test_pattern(void **state)
{
	(void)state;
	assert_string_equal(value("pattern", "/ckpt/ckpt-00012_rank3.pt"),
			    "ckpt*_rank*.pt");
	assert_string_equal(value("pattern", "/data/img_0001_of_1024.npz"),
			    "img_*_of_*.npz");
	assert_string_equal(value("pattern", "/x/0042"), "*");
	assert_string_equal(value("pattern", "/x/12-34--56"), "*");
	assert_string_equal(value("pattern", "a-b"), "a*b");
	assert_string_equal(value("pattern", "file_0-40.bat"), "file_*.bat");
	assert_string_equal(value("pattern", "/x/y9/"), "y*");
	assert_string_equal(value("pattern", "/x/plain.txt"), "plain.txt");
	assert_string_equal(value("pattern", ""), "");
	assert_string_equal(value("pattern", "/"), "/");
	/* UTF-8 bytes are never digits: names stay valid */
	assert_string_equal(value("pattern", "/d/été2024-résumé7.txt"),
			    "été*résumé*.txt");
	/* the directory's digits do not count */
	assert_string_equal(value("pattern", "/run42/a.pt"), "a.pt");
	assert_null(value("pattern", NULL));
}

static void test_prefix(void **state)
{
	(void)state;
	assert_string_equal(value("prefix:2", "/p/lustre1/x/y"), "/p/lustre1");
	assert_string_equal(value("prefix:1", "/p/lustre1/x/y"), "/p");
	assert_string_equal(value("prefix:2", "a//b/c"), "a//b");
	assert_string_equal(value("prefix:5", "/a/b/"), "/a/b");
	assert_string_equal(value("prefix:64", "/a/b"), "/a/b");
	assert_string_equal(value("prefix:2", "/"), "/");
	assert_string_equal(value("prefix:2", ""), "");
	assert_string_equal(value("prefix:1", "rel"), "rel");
	assert_null(value("prefix:3", NULL));
}

static void test_others(void **state)
{
	st_trace_rec e = rec("/f");
	st_trace_keys k;
	char buf[64];

	(void)state;
	assert_string_equal(value("pid", "/f"), "h1:7");
	assert_string_equal(value("thread", "/f"), "h1:7:9");
	assert_string_equal(value("host", "/f"), "h1");
	assert_string_equal(value("name", "/f"), "write");
	assert_string_equal(value("cat", "/f"), "POSIX");
	assert_string_equal(value("file", "/a/b"), "/a/b");
	assert_string_equal(value("file", ""), "");
	assert_null(value("file", NULL));
	assert_null(value("phase", "/f"));

	/* no host: none for host, "?" in pid and thread; negative ids */
	e.host = NULL;
	e.pid = -3;
	assert_int_equal(st_trace_keys_parse(&k, "host,pid,thread,phase", NULL),
			 0);
	assert_int_equal(st_trace_key_format(&k.v[0], &e, buf, sizeof(buf)),
			 ST_TRACE_KEY_NONE);
	assert_int_equal(st_trace_key_format(&k.v[1], &e, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "?:-3");
	assert_int_equal(st_trace_key_format(&k.v[2], &e, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "?:-3:9");
	e.phase = "epoch 1";
	e.phase_len = 7;
	assert_int_equal(st_trace_key_format(&k.v[3], &e, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "epoch 1");
}

/* A value longer than the buffer: cut and NUL-terminated, its whole
 * length returned (snprintf's contract), for every kind of key. */
static void test_short_buffer(void **state)
{
	const char *file = "/some/dir/checkpoint-000123_rank-7.pt";
	st_trace_rec e = rec(file);
	st_trace_keys k;
	char full[128], cut[6];

	(void)state;
	e.host = "a-long-host-name";
	e.host_len = strlen(e.host);
	assert_int_equal(st_trace_keys_parse(&k, "host,pid,thread,name,cat,"
					     "file,basename,pattern,prefix:2",
					     NULL), 0);
	for (size_t i = 0; i < k.n; i++) {
		size_t n = st_trace_key_format(&k.v[i], &e, full, sizeof(full));

		assert_true(n < sizeof(full));
		memset(cut, 'X', sizeof(cut));
		assert_int_equal(st_trace_key_format(&k.v[i], &e, cut,
						     sizeof(cut)), n);
		assert_int_equal(strlen(cut), n < sizeof(cut) ? n
							     : sizeof(cut) - 1);
		assert_memory_equal(cut, full, strlen(cut));
		/* no room at all: only the length */
		assert_int_equal(st_trace_key_format(&k.v[i], &e, NULL, 0), n);
	}
	assert_int_equal(st_trace_key_format(&k.v[7], &e, full, sizeof(full)),
			 strlen("checkpoint*_rank*.pt"));
	assert_string_equal(full, "checkpoint*_rank*.pt");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_basename),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
