/* Unit tests: the helpers of the HTTP client that need no server (the
 * requests themselves run against stand-in servers in tests/cli/). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "streamtime/http.h"

static void test_parse_size(void **state)
{
	static const struct {
		const char *s;
		int ok;
		size_t v;
	} cases[] = {
		{ "1", 1, 1 }, { "65536", 1, 65536 }, { "64K", 1, 65536 },
		{ "64k", 1, 65536 }, { "256M", 1, (size_t)256 << 20 },
		{ "1G", 1, (size_t)1 << 30 }, { "1024G", 1, (size_t)1 << 40 },
		{ "0", 0, 0 }, { "0M", 0, 0 }, { "", 0, 0 }, { "M", 0, 0 },
		{ "-1", 0, 0 }, { "+1", 0, 0 }, { " 1", 0, 0 }, { "1 ", 0, 0 },
		{ "1.5M", 0, 0 }, { "1T", 0, 0 }, { "1MB", 0, 0 },
		{ "1025G", 0, 0 }, { "99999999999999999999999", 0, 0 },
	};
	size_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 7;
		assert_int_equal(st_http_parse_size(cases[i].s, &v),
				 cases[i].ok ? 0 : -1);
		assert_int_equal(v, cases[i].ok ? cases[i].v : 7);
	}
}

/* issue 13: the password of --rest/--api URLs stayed in the process list;
 * this finds the span the command overwrites. */
static void test_url_password(void **state)
{
	static const struct {
		const char *url;
		const char *pw;         /* NULL: none */
	} cases[] = {
		{ "http://alice:s3cret@h:6820/x", "s3cret" },
		{ "https://a:b@c@h/", "b@c" },          /* the last '@' ends it */
		{ "http://a:p:q@h", "p:q" },
		{ "http://a:pw@h/path@x", "pw" },       /* '@' past the host */
		{ "http://a@h", NULL },                 /* no password */
		{ "http://a:@h", NULL },                /* an empty one */
		{ "http://h:6820/", NULL },             /* a port, no '@' */
		{ "http://h/a:b@c", NULL },             /* in the path */
		{ "http://h?x=a:b@c", NULL },           /* in the query */
		{ "a:b@h", NULL },                      /* no scheme */
		{ "", NULL },
	};
	size_t off, len;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool has = st_http_url_password(cases[i].url, &off, &len);

		assert_int_equal(has, cases[i].pw != NULL);
		if (has) {
			assert_int_equal(len, strlen(cases[i].pw));
			assert_memory_equal(cases[i].url + off, cases[i].pw,
					    len);
		}
	}
}

/* st_http_escape encodes as curl_easy_escape did (RFC 3986 unreserved
 * kept, every other byte %XX in capitals): slurmrestd's time windows and
 * the Distiller API's job_type went through curl_easy_escape before. */
static void test_escape(void **state)
{
	static const char *const cases[][2] = {
		{ "", "" },
		{ "count", "count" },
		{ "2023-03-01T00:00:00", "2023-03-01T00%3A00%3A00" },
		{ "a b/c~d_e.f-g", "a%20b%2Fc~d_e.f-g" },
		{ "u1,u2&x=y?#", "u1%2Cu2%26x%3Dy%3F%23" },
		{ "\xc3\xa9\x7f\x01%", "%C3%A9%7F%01%25" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = st_http_escape(cases[i][0]);

		assert_non_null(e);
		assert_string_equal(e, cases[i][1]);
		free(e);
	}
}

/* The URL for messages: the userinfo goes, an '@' after the authority
 * stays. */
static void test_url_shown(void **state)
{
	static const char *const cases[][2] = {
		{ "http://u:pw@h:8080/p", "http://h:8080/p" },
		{ "https://u@h/", "https://h/" },
		{ "http://h/a@b", "http://h/a@b" },
		{ "http://a@b@h?q=@", "http://h?q=@" },
		{ "h:1", "h:1" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = st_http_url_shown(cases[i][0]);

		assert_non_null(s);
		assert_string_equal(s, cases[i][1]);
		free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_url_password),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_url_shown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
