/* http_text.c - what the REST client does with text alone, without
 * libcurl: header values, sizes, the userinfo of URLs, escaping.  Built
 * with or without the http feature. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/http.h"

bool st_http_header_safe(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

int st_http_parse_size(const char *s, size_t *out)
{
	unsigned long long v = 0, unit = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > (1ULL << 40))
			return -1;
	}
	switch (*p) {
	case '\0': break;
	case 'k': case 'K': unit = 1ULL << 10; p++; break;
	case 'm': case 'M': unit = 1ULL << 20; p++; break;
	case 'g': case 'G': unit = 1ULL << 30; p++; break;
	default: return -1;
	}
	if (*p || v == 0 || v > (1ULL << 40) / unit || v * unit > SIZE_MAX)
		return -1;
	*out = (size_t)(v * unit);
	return 0;
}

/* The userinfo of URL's authority: from *AUTH (just after "://") to *AT
 * (its last '@' before the path).  False when there is none. */
static bool userinfo_span(const char *url, const char **auth, const char **at)
{
	const char *a = strstr(url, "://"), *end;

	if (!a)
		return false;
	a += 3;
	end = a + strcspn(a, "/?#");
	*at = NULL;
	for (const char *p = a; p < end; p++)
		if (*p == '@')
			*at = p;
	*auth = a;
	return *at != NULL;
}

bool st_http_url_password(const char *url, size_t *off, size_t *len)
{
	const char *auth, *at, *colon;

	if (!userinfo_span(url, &auth, &at))
		return false;
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (!colon || colon + 1 == at)
		return false;
	*off = (size_t)(colon + 1 - url);
	*len = (size_t)(at - colon - 1);
	return true;
}

char *st_http_url_shown(const char *base)
{
	const char *auth, *at;
	char *s;

	if (!userinfo_span(base, &auth, &at))
		return strdup(base);
	if (!(s = malloc(strlen(base) + 1)))
		return NULL;
	memcpy(s, base, (size_t)(auth - base));
	strcpy(s + (auth - base), at + 1);
	return s;
}

char *st_http_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *out = malloc(3 * n + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
		    c == '~') {
			*o++ = (char)c;
		} else {
			*o++ = '%';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	*o = '\0';
	return out;
}
