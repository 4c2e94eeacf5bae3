/* text.c - names as text (text.h). */
#include <stdint.h>
#include <stdlib.h>

#include "streamtime/text.h"

static const char hexdig[] = "0123456789abcdef";

size_t st_utf8_seq(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	if (!len)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, cp = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, cp = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, cp = u[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool st_utf8_valid(const char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n) {
		if ((unsigned char)s[i] < 0x80) {
			n = 1;
			continue;
		}
		if (!(n = st_utf8_seq(s + i, len - i)))
			return false;
	}
	return true;
}

/* "\u00XX" of control character C at P; 6. */
static size_t put_u(char *p, unsigned c)
{
	p[0] = '\\';
	p[1] = 'u';
	p[2] = '0';
	p[3] = '0';
	p[4] = hexdig[c >> 4];
	p[5] = hexdig[c & 15];
	return 6;
}

size_t st_text_escape(char *dst, const char *s, size_t len, unsigned flags)
{
	char *p = dst;

	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n;

		if (c == '\\' || (c == ',' && (flags & ST_TEXT_COMMA))) {
			*p++ = '\\';
			*p++ = (char)c;
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			p += put_u(p, c);
			i++;
		} else if (c < 0x80) {
			*p++ = (char)c;
			i++;
		} else if (!(n = st_utf8_seq(s + i, len - i))) {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hexdig[c >> 4];
			*p++ = hexdig[c & 15];
			i++;
		} else if (c == 0xc2 && (unsigned char)s[i + 1] <= 0x9f) {
			p += put_u(p, (unsigned char)s[i + 1]);
			i += 2;
		} else {
			for (size_t k = 0; k < n; k++)
				*p++ = s[i + k];
			i += n;
		}
	}
	return (size_t)(p - dst);
}

char *st_text_escape_dup(const char *s, size_t len, unsigned flags)
{
	char *t;

	if (len > (SIZE_MAX - 1) / ST_TEXT_GROWTH ||
	    !(t = malloc(ST_TEXT_GROWTH * len + 1)))
		return NULL;
	t[st_text_escape(t, s, len, flags)] = '\0';
	return t;
}

void st_text_hex(char *dst, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		dst[2 * i] = hexdig[(unsigned char)s[i] >> 4];
		dst[2 * i + 1] = hexdig[(unsigned char)s[i] & 15];
	}
	dst[2 * len] = '\0';
}
