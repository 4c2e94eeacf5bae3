/* Unit tests: the helpers of the HTTP client that need no server (the
 * requests themselves run against stand-in servers in tests/cli/). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_url_password),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
