/* filter.c - --filter expressions and --group-by (SPEC 5.10). */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/suggest.h"
#include "streamtime/trace_keys.h"
#include "trace_int.h"

static const char *const field_names[ST_TRACE_FIELD_N] = {
	"name", "cat", "host", "file", "pid", "tid", "basename", "pattern",
	"dur", "bytes", "ts",
};

const char *trace_field_name(enum st_trace_field f)
{
	return field_names[f];
}

static bool is_num_field(enum st_trace_field f)
{
	return f == ST_TRACE_PID || f == ST_TRACE_TID || f == ST_TRACE_DUR ||
	       f == ST_TRACE_BYTES || f == ST_TRACE_TS;
}

static void term_release(st_trace_term *t)
{
	free(t->value);
	if (t->re) {
		regfree(t->re);
		free(t->re);
	}
}

void st_trace_filter_release(st_trace_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		term_release(&f->v[i]);
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

/* The operator at T: its length, 0 when there is none.  Longest first. */
static size_t op_at(const char *t, size_t len, enum st_trace_op *op)
{
	static const struct { const char *s; enum st_trace_op op; } ops[] = {
		{ "=~", ST_TRACE_REGEX }, { "<=", ST_TRACE_LE },
		{ ">=", ST_TRACE_GE }, { "=", ST_TRACE_EQ },
		{ "~", ST_TRACE_SUB }, { "^", ST_TRACE_PREFIX },
		{ "$", ST_TRACE_SUFFIX }, { "<", ST_TRACE_LT },
		{ ">", ST_TRACE_GT },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t l = strlen(ops[i].s);

		if (len >= l && memcmp(t, ops[i].s, l) == 0) {
			*op = ops[i].op;
			return l;
		}
	}
	return 0;
}

/* The field named T[0..LEN): 0 with *FIELD, else -1 with ERR naming the
 * term TERM[0..TLEN) and the nearest field. */
static int field_of(const char *t, size_t len, const char *term, size_t tlen,
		    enum st_trace_field *field, st_error *err)
{
	char name[32];
	const char *near;

	for (int k = 0; k < ST_TRACE_FIELD_N; k++)
		if (strlen(field_names[k]) == len &&
		    memcmp(field_names[k], t, len) == 0) {
			*field = (enum st_trace_field)k;
			return 0;
		}
	snprintf(name, sizeof(name), "%.*s", (int)(len < 31 ? len : 31), t);
	near = st_suggest(name, field_names, ST_TRACE_FIELD_N);
	return st_error_set(err, ST_EXIT_USAGE, "--filter: '%.*s': unknown "
			    "field '%s'%s%s%s; the fields are name, cat, host, "
			    "file, basename, pattern, pid, tid, dur, bytes, ts",
			    (int)tlen, term, name, near ? " (did you mean '" : "",
			    near ? near : "", near ? "'?)" : "");
}

static int filter_term(st_trace_filter *f, const char *t, size_t len,
		       st_error *err)
{
	st_trace_term term = { 0 };
	size_t k = 0, ol;
	st_trace_term *nv;
	bool num;

	while (k < len && ((t[k] >= 'a' && t[k] <= 'z') || t[k] == '_'))
		k++;
	if (field_of(t, k, t, len, &term.field, err) < 0)
		return -1;
	num = is_num_field(term.field);
	if (k < len && t[k] == '!') {
		term.neg = true;
		k++;
	}
	if (!(ol = op_at(t + k, len - k, &term.op)))
		return st_error_set(err, ST_EXIT_USAGE, "--filter: '%.*s': no "
				    "operator after '%s' (%s)", (int)len, t,
				    field_names[term.field], num ?
				    "= < <= > >=, '!' before = to negate" :
				    "= ~ ^ $ =~, '!' before one to negate");
	k += ol;
	if (k < len && t[k] == '=' && term.op == ST_TRACE_EQ)
		return st_error_set(err, ST_EXIT_USAGE, "--filter: '%.*s': '==' "
				    "is not an operator (did you mean '%s%s=%.*s'?)",
				    (int)len, t, field_names[term.field],
				    term.neg ? "!" : "", (int)(len - k - 1),
				    t + k + 1);
	if ((num && term.op != ST_TRACE_EQ && term.op < ST_TRACE_LT) ||
	    (!num && term.op >= ST_TRACE_LT) ||
	    (num && term.neg && term.op != ST_TRACE_EQ))
		return st_error_set(err, ST_EXIT_USAGE, "--filter: '%.*s': %s "
				    "takes %s", (int)len, t,
				    field_names[term.field], num ?
				    "= < <= > >= and an integer (!= negates)" :
				    "= ~ ^ $ =~ and text (< and > are for pid, "
				    "tid, dur, bytes, ts)");
	if (!(term.value = strndup(t + k, len - k)))
		return OOM(err);
	if (num) {
		char *end;

		errno = 0;
		term.num = strtoll(term.value, &end, 10);
		if (!*term.value || *end || errno) {
			free(term.value);
			return st_error_set(err, ST_EXIT_USAGE, "--filter: "
					    "'%.*s': %s takes an integer%s",
					    (int)len, t, field_names[term.field],
					    term.field == ST_TRACE_DUR ||
					    term.field == ST_TRACE_TS ?
					    " (microseconds)" : "");
		}
	}
	if (term.op == ST_TRACE_REGEX) {
		int rc;

		if (!(term.re = malloc(sizeof(regex_t)))) {
			free(term.value);
			return OOM(err);
		}
		if ((rc = regcomp(term.re, term.value, REG_EXTENDED |
				  REG_NOSUB)) != 0) {
			char why[128];

			regerror(rc, term.re, why, sizeof(why));
			free(term.re);
			free(term.value);
			return st_error_set(err, ST_EXIT_USAGE, "--filter: "
					    "'%.*s': a bad regular expression: "
					    "%s", (int)len, t, why);
		}
	}
	if (!(nv = realloc(f->v, (f->n + 1) * sizeof(*nv)))) {
		term_release(&term);
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

static bool regex_match(const st_trace_term *t, const char *s, size_t len)
{
	char small[256], *buf = len < sizeof(small) ? small : malloc(len + 1);
	bool m;

	if (!buf)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* a NUL inside S ends the text the expression sees */
	m = regexec(t->re, buf, 0, NULL, 0) == 0;
	if (buf != small)
		free(buf);
	return m;
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
	case ST_TRACE_PREFIX:
		return len >= vl && memcmp(s, t->value, vl) == 0;
	case ST_TRACE_SUFFIX:
		return len >= vl && memcmp(s + len - vl, t->value, vl) == 0;
	default:
		return regex_match(t, s, len);
	}
}

/* Does term T on the file's basename or pattern hold for file S? */
static bool derived_match(const st_trace_term *t, const char *s, size_t len)
{
	char small[256], *buf;
	size_t off, bl, pl;
	bool m;

	if (!s)
		return false;
	bl = st_trace_basename(s, len, &off);
	if (t->field == ST_TRACE_BASENAME)
		return term_match(t, s + off, bl);
	buf = bl <= sizeof(small) ? small : malloc(bl);
	if (!buf)
		return false;
	pl = st_trace_pattern(s + off, bl, buf, bl);
	m = term_match(t, buf, pl);
	if (buf != small)
		free(buf);
	return m;
}

bool st_trace_filter_field(const st_trace_filter *f, enum st_trace_field field,
			   const char *s, size_t len)
{
	for (size_t i = 0; f && i < f->n; i++) {
		const st_trace_term *t = &f->v[i];

		if (t->field == field) {
			if (term_match(t, s, len) == t->neg)
				return false;
		} else if (field == ST_TRACE_FILE &&
			   (t->field == ST_TRACE_BASENAME ||
			    t->field == ST_TRACE_PATTERN)) {
			if (derived_match(t, s, len) == t->neg)
				return false;
		}
	}
	return true;
}

static bool num_match(const st_trace_term *t, int64_t v)
{
	switch (t->op) {
	case ST_TRACE_LT:
		return v < t->num;
	case ST_TRACE_LE:
		return v <= t->num;
	case ST_TRACE_GT:
		return v > t->num;
	case ST_TRACE_GE:
		return v >= t->num;
	default:
		return v == t->num;
	}
}

bool st_trace_filter_nums(const st_trace_filter *f, int64_t pid, int64_t tid,
			  int64_t ts, int64_t dur, int64_t bytes)
{
	for (size_t i = 0; f && i < f->n; i++) {
		const st_trace_term *t = &f->v[i];
		bool m;

		switch (t->field) {
		case ST_TRACE_PID:
			m = num_match(t, pid);
			break;
		case ST_TRACE_TID:
			m = num_match(t, tid);
			break;
		case ST_TRACE_TS:
			m = num_match(t, ts);
			break;
		case ST_TRACE_DUR:
			m = num_match(t, dur);
			break;
		case ST_TRACE_BYTES:
			m = bytes >= 0 && num_match(t, bytes);
			break;
		default:
			continue;
		}
		if (m == t->neg)
			return false;
	}
	return true;
}

/* ---- prefixes ------------------------------------------------------- */

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
		if (f->v[i].field == field ||
		    (field == ST_TRACE_FILE &&
		     (f->v[i].field == ST_TRACE_BASENAME ||
		      f->v[i].field == ST_TRACE_PATTERN)))
			return true;
	return false;
}
