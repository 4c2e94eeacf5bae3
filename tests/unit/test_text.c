/* test_text.c - names as text (text.h): UTF-8 validity against jansson's
 * own check, the escaped text undone by an unescaper written here, and
 * st_outbuf_json's output read back by jansson whatever the bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/outbuf.h"
#include "streamtime/text.h"
#include "unescape.h"

#include "rnd.h"

/* Does jansson take S[0..N) as a string (its UTF-8 check)? */
static bool jansson_utf8(const unsigned char *s, size_t n)
{
	json_t *j = json_stringn((const char *)s, n);

	json_decref(j);
	return j != NULL;
}

/* Every string of 1 and 2 bytes, every 3-byte string led by 0xe0-0xef,
 * and 4-byte strings led by 0xf0-0xf7 over the continuation bytes'
 * edges: st_utf8_valid says what jansson says. */
static void test_utf8_valid_as_jansson(void **state)
{
	static const unsigned char edge[] = { 0x00, 0x41, 0x7f, 0x80, 0x8f,
		0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff };
	unsigned char s[4];

	(void)state;
	for (unsigned a = 0; a < 256; a++) {
		s[0] = (unsigned char)a;
		assert_int_equal(st_utf8_valid((char *)s, 1), jansson_utf8(s, 1));
		for (unsigned b = 0; b < 256; b++) {
			s[1] = (unsigned char)b;
			assert_int_equal(st_utf8_valid((char *)s, 2),
					 jansson_utf8(s, 2));
		}
	}
	for (unsigned a = 0xe0; a < 0xf0; a++)
		for (unsigned b = 0; b < 256; b++)
			for (unsigned c = 0; c < 256; c++) {
				s[0] = (unsigned char)a;
				s[1] = (unsigned char)b;
				s[2] = (unsigned char)c;
				assert_int_equal(st_utf8_valid((char *)s, 3),
						 jansson_utf8(s, 3));
			}
	for (unsigned a = 0xf0; a < 0xf8; a++)
		for (size_t b = 0; b < sizeof(edge); b++)
			for (size_t c = 0; c < sizeof(edge); c++)
				for (size_t d = 0; d < sizeof(edge); d++) {
					s[0] = (unsigned char)a;
					s[1] = edge[b];
					s[2] = edge[c];
					s[3] = edge[d];
					assert_int_equal(
						st_utf8_valid((char *)s, 4),
						jansson_utf8(s, 4));
				}
}


/* A random name: bytes from a mix of ASCII, controls, backslashes,
 * commas, valid sequences and stray bytes. */
static size_t random_name(char *s)
{
	static const char *const pieces[] = {
		"a", "/", ",", "\\", "\\x41", "\\u0000", "\"", " ", "\x01",
		"\x1b", "\x7f", "\xc2\x85", "\xc3\xa9", "\xe4\xb8\xad",
		"\xf0\x9f\x98\x80", "\xe9", "\xff", "\xc0\xaf", "\xed\xa0\x80",
		"\xe4\xb8", "\x80", "\0",
	};
	size_t n = 0, parts = rnd() % 8;

	for (size_t i = 0; i < parts; i++) {
		size_t p = rnd() % (sizeof(pieces) / sizeof(*pieces));
		size_t l = p == sizeof(pieces) / sizeof(*pieces) - 1 ? 1
			   : strlen(pieces[p]);

		memcpy(s + n, pieces[p], l);
		n += l;
	}
	return n;
}

/* The escaped text: within ST_TEXT_GROWTH per byte, valid UTF-8 with no
 * control byte, and undone to the same bytes (so two names never share
 * it); with ST_TEXT_COMMA no bare ','. */
static void test_escape_round_trip(void **state)
{
	char s[64], t[64 * ST_TEXT_GROWTH], back[64 * ST_TEXT_GROWTH];

	(void)state;
	for (int i = 0; i < 200000; i++) {
		size_t n = random_name(s), m;
		unsigned flags = i % 2 ? ST_TEXT_COMMA : 0;

		m = st_text_escape(t, s, n, flags);
		assert_true(m <= ST_TEXT_GROWTH * n);
		assert_true(st_utf8_valid(t, m));
		assert_int_equal(unescape(t, m, back), (long)n);
		assert_memory_equal(back, s, n);
		for (size_t k = 0; flags && k < m; k++) {
			if (t[k] == '\\')
				k++;
			else
				assert_int_not_equal(t[k], ',');
		}
	}
	/* the escapes themselves */
	{
		char *e = st_text_escape_dup("a\\b\x1b\xe9,\xc2\x85\xc3\xa9\0z",
					     12, ST_TEXT_COMMA);

		assert_non_null(e);
		assert_string_equal(e, "a\\\\b\\u001b\\xe9\\,\\u0085\xc3\xa9"
				       "\\u0000z");
		free(e);
	}
}

/* st_outbuf_json: jansson reads every output back; a UTF-8 name as it
 * is, any other as its escaped text. */
static void test_outbuf_json_any_bytes(void **state)
{
	char s[64], back[64 * ST_TEXT_GROWTH];
	st_outbuf *o = malloc(sizeof(*o));

	(void)state;
	assert_non_null(o);
	for (int i = 0; i < 50000; i++) {
		size_t n = random_name(s);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		json_t *j;
		json_error_t e;

		assert_non_null(f);
		st_outbuf_init(o, f);
		st_outbuf_json(o, s, n);
		st_outbuf_flush(o);
		fclose(f);
		j = json_loadb(buf, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
		if (!j)
			fail_msg("%s: %.*s", e.text, (int)len, buf);
		assert_true(json_is_string(j));
		if (st_utf8_valid(s, n)) {
			assert_int_equal(json_string_length(j), n);
			assert_memory_equal(json_string_value(j), s, n);
		} else {
			assert_int_equal(unescape(json_string_value(j),
						  json_string_length(j), back),
					 (long)n);
			assert_memory_equal(back, s, n);
		}
		json_decref(j);
		free(buf);
	}
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_valid_as_jansson),
		cmocka_unit_test(test_escape_round_trip),
		cmocka_unit_test(test_outbuf_json_any_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
