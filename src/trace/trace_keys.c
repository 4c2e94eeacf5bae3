/* trace_keys.c - the keys of trace events (trace_keys.h, SPEC 5.12). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/suggest.h"
#include "streamtime/trace.h"
#include "streamtime/trace_keys.h"

static const char *const key_names[ST_TRACE_KEY_N] = {
	"host", "pid", "thread", "name", "cat", "file", "basename",
	"pattern", "prefix", "phase",
};

#define KEY_LIST "host, pid, thread, name, cat, file, basename, pattern, " \
		 "prefix:N or phase"

/* One key, T[0..LEN), into *K.  Error 64 naming it. */
static int key_parse(const char *t, size_t len, st_trace_key *k,
		     st_error *err)
{
	char word[64];
	const char *near;
	size_t wl;

	for (int i = 0; i < ST_TRACE_KEY_N; i++)
		if (i != ST_TRACE_KEY_PREFIX && strlen(key_names[i]) == len &&
		    memcmp(key_names[i], t, len) == 0) {
			*k = (st_trace_key){ (enum st_trace_key_kind)i, 0 };
			return 0;
		}
	if (len >= 6 && memcmp(t, "prefix", 6) == 0 &&
	    (len == 6 || t[6] == ':')) {
		char num[8];
		char *end;
		long d = 0;

		if (len > 7 && len - 7 < sizeof(num) && t[7] >= '0' &&
		    t[7] <= '9') {
			memcpy(num, t + 7, len - 7);
			num[len - 7] = 0;
			errno = 0;
			d = strtol(num, &end, 10);
			if (*end || errno)
				d = 0;
		}
		if (d < 1 || d > 64)
			return st_error_set(err, ST_EXIT_USAGE, "'%.*s': prefix "
					    "takes a depth, prefix:N with N "
					    "1-64 (prefix:2 of /p/lustre1/x "
					    "is /p/lustre1)", (int)len, t);
		*k = (st_trace_key){ ST_TRACE_KEY_PREFIX, (int)d };
		return 0;
	}
	/* did you mean: the word before any ':' against the names */
	wl = memchr(t, ':', len) ? (size_t)((const char *)memchr(t, ':', len) - t)
				 : len;
	if (wl >= sizeof(word))
		wl = sizeof(word) - 1;
	memcpy(word, t, wl);
	word[wl] = 0;
	near = st_suggest(word, key_names, ST_TRACE_KEY_N);
	if (near)
		return st_error_set(err, ST_EXIT_USAGE, "'%.*s': not a key; did "
				    "you mean '%s%s'? (keys: %s)", (int)len, t,
				    near, near == key_names[ST_TRACE_KEY_PREFIX]
				    ? ":N" : "", KEY_LIST);
	return st_error_set(err, ST_EXIT_USAGE, "'%.*s': not a key (keys: %s)",
			    (int)len, t, KEY_LIST);
}

int st_trace_keys_parse(st_trace_keys *k, const char *list, st_error *err)
{
	const char *p = list;

	k->n = 0;
	if (!*list)
		return 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		st_trace_key key;

		if (len == 0)
			return st_error_set(err, ST_EXIT_USAGE, "'%s': an empty "
					    "key in the list (KEY[,KEY...])",
					    list);
		if (key_parse(p, len, &key, err) < 0)
			return -1;
		for (size_t i = 0; i < k->n; i++)
			if (k->v[i].kind == key.kind &&
			    k->v[i].depth == key.depth)
				return st_error_set(err, ST_EXIT_USAGE, "'%s': "
						    "'%.*s' given twice", list,
						    (int)len, p);
		if (k->n == ST_TRACE_KEYS_MAX)
			return st_error_set(err, ST_EXIT_USAGE, "'%s': more "
					    "than %d keys", list,
					    ST_TRACE_KEYS_MAX);
		k->v[k->n++] = key;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

const char *st_trace_key_name(const st_trace_key *k, char *buf, size_t size)
{
	if (k->kind == ST_TRACE_KEY_PREFIX)
		snprintf(buf, size, "prefix:%d", k->depth);
	else
		snprintf(buf, size, "%s", key_names[k->kind]);
	return buf;
}

/* Copy S[0..LEN) into BUF as snprintf would; returns LEN. */
static size_t put(char *buf, size_t size, const char *s, size_t len)
{
	if (size) {
		size_t m = len < size - 1 ? len : size - 1;

		memcpy(buf, s, m);
		buf[m] = 0;
	}
	return len;
}

/* "HOST:PID" or "HOST:PID:TID" as snprintf. */
static size_t proc_text(const st_trace_rec *e, bool thread, char *buf,
			size_t size)
{
	char num[48];
	int nl = thread ? snprintf(num, sizeof(num), ":%" PRId64 ":%" PRId64,
				   e->pid, e->tid)
			: snprintf(num, sizeof(num), ":%" PRId64, e->pid);
	const char *h = e->host ? e->host : "?";
	size_t hl = e->host ? e->host_len : 1;

	if (hl + (size_t)nl < size) {
		memcpy(buf, h, hl);
		memcpy(buf + hl, num, (size_t)nl + 1);
	} else if (size) {
		put(buf, size, h, hl);
		if (hl < size - 1)
			put(buf + hl, size - hl, num, (size_t)nl);
	}
	return hl + (size_t)nl;
}

size_t st_trace_key_format(const st_trace_key *k, const st_trace_rec *e,
			   char *buf, size_t size)
{
	size_t off, len;

	switch (k->kind) {
	case ST_TRACE_KEY_PID:
	case ST_TRACE_KEY_THREAD:
		return proc_text(e, k->kind == ST_TRACE_KEY_THREAD, buf, size);
	case ST_TRACE_KEY_NAME:
		return put(buf, size, e->name, e->name_len);
	case ST_TRACE_KEY_CAT:
		return put(buf, size, e->cat, e->cat_len);
	case ST_TRACE_KEY_HOST:
		if (!e->host)
			break;
		return put(buf, size, e->host, e->host_len);
	case ST_TRACE_KEY_PHASE:
		if (!e->phase)
			break;
		return put(buf, size, e->phase, e->phase_len);
	default:
		if (!e->file)
			break;
		if (k->kind == ST_TRACE_KEY_FILE)
			return put(buf, size, e->file, e->file_len);
		if (k->kind == ST_TRACE_KEY_PREFIX)
			return put(buf, size, e->file,
				   st_trace_prefix_len(e->file, e->file_len,
						       k->depth));
		len = st_trace_basename(e->file, e->file_len, &off);
		if (k->kind == ST_TRACE_KEY_BASENAME)
			return put(buf, size, e->file + off, len);
		len = st_trace_pattern(e->file + off, len, buf,
				       size ? size - 1 : 0);
		if (size)
			buf[len < size ? len : size - 1] = 0;
		return len;
	}
	if (size)
		buf[0] = 0;
	return ST_TRACE_KEY_NONE;
}
