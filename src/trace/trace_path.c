/* trace_path.c - the pieces of a file path that keys and filters name
 * (trace_path.h). */
#include <stdbool.h>
#include <stddef.h>

#include "streamtime/trace_path.h"

size_t st_trace_basename(const char *path, size_t len, size_t *off)
{
	size_t end = len, b;

	while (end > 0 && path[end - 1] == '/')
		end--;
	if (end == 0) {
		/* "" or slashes only */
		*off = 0;
		return len ? 1 : 0;
	}
	b = end;
	while (b > 0 && path[b - 1] != '/')
		b--;
	*off = b;
	return end - b;
}

size_t st_trace_pattern(const char *s, size_t len, char *out, size_t cap)
{
	size_t n = 0;
	bool run = false;

	for (size_t i = 0; i < len; i++) {
		bool in = (s[i] >= '0' && s[i] <= '9') || s[i] == '-';

		if (!in || !run) {
			if (n < cap)
				out[n] = in ? '*' : s[i];
			n++;
		}
		run = in;
	}
	return n;
}

size_t st_trace_prefix_len(const char *path, size_t len, int depth)
{
	size_t i = 0;
	int c = 0;

	while (i < len) {
		while (i < len && path[i] == '/')
			i++;
		if (i == len)
			break;
		while (i < len && path[i] != '/')
			i++;
		if (++c == depth)
			return i;
	}
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}
