/* outbuf.c - the out-of-line parts of the output buffer. */
#include "streamtime/outbuf.h"
#include "streamtime/text.h"

void st_outbuf_init(st_outbuf *o, FILE *f)
{
	o->f = f;
	o->n = 0;
	o->failed = false;
}

void st_outbuf_flush(st_outbuf *o)
{
	if (o->n && fwrite(o->b, 1, o->n, o->f) != o->n)
		o->failed = true;
	o->n = 0;
}

void st_outbuf_put_slow(st_outbuf *o, const char *s, size_t len)
{
	st_outbuf_flush(o);
	if (len > sizeof(o->b)) {
		if (fwrite(s, 1, len, o->f) != len)
			o->failed = true;
		return;
	}
	memcpy(o->b, s, len);
	o->n = len;
}

/* S[0..LEN), not UTF-8, as the JSON string of its escaped text
 * (text.h), in pieces that never cut a UTF-8 sequence. */
static void json_escaped(st_outbuf *o, const char *s, size_t len)
{
	char t[ST_TEXT_GROWTH * 64];

	st_outbuf_put(o, "\"", 1);
	for (size_t i = 0; i < len;) {
		size_t k = len - i < 64 ? len - i : 64, n, run = 0;

		for (int b = 0; b < 3 && i + k < len &&
		     ((unsigned char)s[i + k] & 0xc0) == 0x80; b++)
			k--;
		n = st_text_escape(t, s + i, k, 0);
		for (size_t j = 0; j < n; j++)
			if (t[j] == '\\' || t[j] == '"') {
				st_outbuf_put(o, t + run, j - run);
				st_outbuf_put(o, "\\", 1);
				run = j;
			}
		st_outbuf_put(o, t + run, n - run);
		i += k;
	}
	st_outbuf_put(o, "\"", 1);
}

void st_outbuf_json(st_outbuf *o, const char *s, size_t len)
{
	size_t run = 0;

	if (!st_utf8_valid(s, len)) {
		json_escaped(o, s, len);
		return;
	}
	st_outbuf_put(o, "\"", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		st_outbuf_put(o, s + run, i - run);
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			st_outbuf_put(o, esc, 2);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			st_outbuf_put(o, esc, 6);
		}
		run = i + 1;
	}
	st_outbuf_put(o, s + run, len - run);
	st_outbuf_put(o, "\"", 1);
}
