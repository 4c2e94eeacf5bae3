/* filter.c - --filter expressions and --group-by (SPEC 5.10). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

static const char *const field_names[ST_TRACE_FIELD_N] = {
	"name", "cat", "host", "file", "pid", "tid",
};

void st_trace_filter_release(st_trace_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].value);
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

static int filter_term(st_trace_filter *f, const char *t, size_t len,
		       st_error *err)
{
	st_trace_term term = { 0 };
	size_t k = 0, fl;
	st_trace_term *nv;
	int field;

	while (k < len && t[k] >= 'a' && t[k] <= 'z')
		k++;
	fl = k;
	for (field = 0; field < ST_TRACE_FIELD_N; field++)
		if (strlen(field_names[field]) == fl &&
		    memcmp(field_names[field], t, fl) == 0)
			break;
	if (field == ST_TRACE_FIELD_N)
		return st_error_set(err, ST_EXIT_USAGE, "--filter: '%.*s': the "
				    "field must be name, cat, host, file, pid "
				    "or tid", (int)len, t);
	term.field = (enum st_trace_field)field;
	if (k < len && t[k] == '!') {
		term.neg = true;
		k++;
	}
	if (k >= len || !strchr("=~^", t[k]))
		return st_error_set(err, ST_EXIT_USAGE, "--filter: '%.*s': "
				    "expected FIELD=VALUE, FIELD~VALUE or "
				    "FIELD^VALUE", (int)len, t);
	term.op = t[k] == '=' ? ST_TRACE_EQ : t[k] == '~' ? ST_TRACE_SUB
							  : ST_TRACE_PREFIX;
	k++;
	if (!(term.value = strndup(t + k, len - k)))
		return OOM(err);
	if (term.field == ST_TRACE_PID || term.field == ST_TRACE_TID) {
		char *end;

		errno = 0;
		term.num = strtoll(term.value, &end, 10);
		if (term.op != ST_TRACE_EQ || !*term.value || *end || errno) {
			free(term.value);
			return st_error_set(err, ST_EXIT_USAGE, "--filter: "
					    "'%.*s': %s takes =INTEGER",
					    (int)len, t, field_names[field]);
		}
	}
	if (!(nv = realloc(f->v, (f->n + 1) * sizeof(*nv)))) {
		free(term.value);
		return OOM(err);
	}
	f->v = nv;
	f->v[f->n++] = term;
	return 0;
}

int st_trace_filter_parse(st_trace_filter *f, const char *expr, st_error *err)
{
	const char *p = expr;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == 0)
			return st_error_set(err, ST_EXIT_USAGE, "--filter: an "
					    "empty term in '%s'", expr);
		if (filter_term(f, p, len, err) < 0)
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static bool term_match(const st_trace_term *t, const char *s, size_t len)
{
	size_t vl = strlen(t->value);

	if (!s)
		return false;
	switch (t->op) {
	case ST_TRACE_EQ:
		return len == vl && memcmp(s, t->value, vl) == 0;
	case ST_TRACE_SUB:
		return memmem(s, len, t->value, vl) != NULL;
	default:
		return len >= vl && memcmp(s, t->value, vl) == 0;
	}
}

bool st_trace_filter_field(const st_trace_filter *f, enum st_trace_field field,
			   const char *s, size_t len)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].field == field &&
		    term_match(&f->v[i], s, len) == f->v[i].neg)
			return false;
	return true;
}

bool st_trace_filter_ids(const st_trace_filter *f, int64_t pid, int64_t tid)
{
	for (size_t i = 0; f && i < f->n; i++) {
		const st_trace_term *t = &f->v[i];

		if ((t->field == ST_TRACE_PID && (t->num == pid) == t->neg) ||
		    (t->field == ST_TRACE_TID && (t->num == tid) == t->neg))
			return false;
	}
	return true;
}

/* ---- grouping -------------------------------------------------------- */

int st_trace_group_parse(const char *s, enum st_trace_group *g, int *depth,
			 st_error *err)
{
	static const struct { const char *name; enum st_trace_group g; } k[] = {
		{ "name", ST_TRACE_GROUP_NAME }, { "cat", ST_TRACE_GROUP_CAT },
		{ "pid", ST_TRACE_GROUP_PID }, { "host", ST_TRACE_GROUP_HOST },
		{ "file", ST_TRACE_GROUP_FILE },
	};

	*depth = 0;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(s, k[i].name) == 0) {
			*g = k[i].g;
			return 0;
		}
	if (strncmp(s, "prefix:", 7) == 0) {
		char *end;
		long d;

		errno = 0;
		d = strtol(s + 7, &end, 10);
		if (s[7] >= '0' && s[7] <= '9' && !*end && !errno && d >= 1 &&
		    d <= 64) {
			*g = ST_TRACE_GROUP_PREFIX;
			*depth = (int)d;
			return 0;
		}
	}
	return st_error_set(err, ST_EXIT_USAGE, "--group-by: '%s': expected "
			    "name, cat, pid, host, file or prefix:DEPTH "
			    "(1-64)", s);
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


bool trace_filter_has(const st_trace_filter *f, enum st_trace_field field)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].field == field)
			return true;
	return false;
}
