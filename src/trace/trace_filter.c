/* trace_filter.c - --filter expressions (trace_filter.h, SPEC 5.10). */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <inttypes.h>
#include <limits.h>
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
	free(t->text);
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

/* The index of the ']' that closes the bracket expression opening at
 * RE[I] (RE[0..N) compiled by glibc, so the bracket closes): ']' first is
 * itself, and "[:", "[.", "[=" run to their own close. */
static size_t bracket_end(const char *re, size_t n, size_t i)
{
	size_t j = i + 1;

	if (j < n && re[j] == '^')
		j++;
	if (j < n && re[j] == ']')
		j++;
	while (j < n && re[j] != ']') {
		if (re[j] == '[' && j + 1 < n && (re[j + 1] == ':' ||
		    re[j + 1] == '.' || re[j + 1] == '=')) {
			char end = re[j + 1];

			j += 2;
			while (j + 1 < n && !(re[j] == end && re[j + 1] == ']'))
				j++;
			j += 2;
		} else {
			j++;
		}
	}
	return j < n ? j : n - 1;
}

/* Roughly how many nodes glibc's regcomp makes of RE[*I..N), up to the
 * ')' closing DEPTH (or the end): regcomp copies the operand of '+' and
 * of {m,n} once per repetition, so a+++...+ and ((a{99}){99}){9} grow
 * exponentially (a+ twenty times over: 700 MB; the latter: 23 GB and
 * 219 s on a 200 KB name), and the epsilon closures of optional copies
 * grow with their square (a{1,30000}: 7 GB), as do stacked '*' and '?'.  At REGEX_NODES_MAX nodes,
 * regcomp takes well under 100 MB (a{1,3000}: 73 MB, 0.05 s).  Counted
 * in double: it only has to be compared with REGEX_NODES_MAX. */
#define REGEX_NODES_MAX 4096.0

static double regex_nodes(const char *re, size_t n, size_t *i, int depth)
{
	double total = 0, branch = 0;

	while (*i < n) {
		char c = re[*i];
		double a = 1;

		if (c == '|') {
			total += branch + 1;
			branch = 0;
			(*i)++;
			continue;
		}
		if (c == ')' && depth > 0)
			break;
		if (c == '(') {
			(*i)++;
			a = regex_nodes(re, n, i, depth + 1) + 1;
			if (*i < n)
				(*i)++;
		} else if (c == '[') {
			*i = bracket_end(re, n, *i) + 1;
		} else {
			*i += c == '\\' && *i + 1 < n ? 2 : 1;
		}
		while (*i < n && strchr("*+?{", re[*i])) {
			unsigned long lo = 0, hi = 0;
			char *e;

			if (re[*i] == '{') {
				lo = strtoul(re + *i + 1, &e, 10);
				hi = lo;
				if (*e == ',')
					hi = e[1] == '}' ? lo + 1 :
					     strtoul(e + 1, &e, 10);
				if (*e == ',')
					e = strchr(e, '}');
				if (!e || !(e = strchr(e, '}')))
					break;
				*i = (size_t)(e - re) + 1;
				a = a * (double)(hi > lo ? hi : lo) + 2;
			} else {
				/* each '*' or '?' on an operand that
				 * repeats already adds closures of its
				 * size (p?**...* 80 times: 1.3 s) */
				a = 2 * a + 1;
				(*i)++;
			}
		}
		branch += a;
	}
	return total + branch;
}

/* The expression RE as it is searched: "^.*(" RE ")", with each ')' that
 * closes no '(' written "\)" (glibc takes it as itself) and each '^'
 * outside brackets written "\`" (the start of the text: glibc's '^'
 * would also match after a newline taken by ".*").  glibc's regexec
 * tries an unanchored expression at every start in turn, each try running
 * on to the end of the text: (a+)+$ on 200 KB of 'a' took minutes.
 * Anchored behind ".*", the same expression is one pass of glibc's cached
 * DFA states, at most one new state per byte (O(length x expression)).
 * '.' takes every byte but NUL in the C locale streamtime runs in, and a
 * NUL ends the text anyway, so the two find the same.  Back-references
 * ("\1".."\9" outside brackets) have no such bound in glibc (a
 * 1,000-byte name took 15 s and 3 GB): they are refused, error 64 naming
 * the term TERM[0..TLEN).  0 with *OUT new, or -1 with ERR set. */
static int regex_anchored(const char *re, const char *term, size_t tlen,
			  char **out, st_error *err)
{
	size_t n = strlen(re), k = 0, depth = 0;
	char *o = malloc(2 * n + 6);

	if (!o)
		return OOM(err);
	memcpy(o, "^.*(", 4);
	k = 4;
	for (size_t i = 0; i < n; i++) {
		char c = re[i];

		if (c == '\\' && i + 1 < n) {
			if (re[i + 1] >= '1' && re[i + 1] <= '9') {
				free(o);
				return st_error_set(err, ST_EXIT_USAGE,
						    "--filter: '%.*s': "
						    "back-references (\\%c) "
						    "are not supported "
						    "(glibc may take "
						    "exponential time on "
						    "them)",
						    (int)tlen, term, re[i + 1]);
			}
			o[k++] = c;
			o[k++] = re[++i];
			continue;
		}
		if (c == '[') {
			size_t j = bracket_end(re, n, i);

			memcpy(o + k, re + i, j - i + 1);
			k += j - i + 1;
			i = j;
			continue;
		}
		if (c == '^') {
			/* glibc lets '^' match after a newline that ".*"
			 * took; "\\`" is the start of the text only */
			o[k++] = '\\';
			c = '`';
		} else if (c == '(') {
			depth++;
		} else if (c == ')') {
			if (!depth) {
				o[k++] = '\\';
			} else {
				depth--;
			}
		}
		o[k++] = c;
	}
	o[k++] = ')';
	o[k] = '\0';
	*out = o;
	return 0;
}

/* Compile RE (which glibc compiles as it is) into *RX as regex_match
 * searches it (regex_anchored).  0, a regcomp error, or -1 with ERR. */
static int regex_compile(regex_t *rx, const char *re, size_t tlen,
			 const char *term, st_error *err)
{
	char *a = NULL;
	int rc;

	if (regex_anchored(re, term, tlen, &a, err) < 0)
		return -1;
	rc = regcomp(rx, a, REG_EXTENDED | REG_NOSUB);
	free(a);
	return rc;
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
		size_t at = 0;

		if (regex_nodes(term.value, strlen(term.value), &at, 0) >
		    REGEX_NODES_MAX) {
			free(term.re);
			free(term.value);
			return st_error_set(err, ST_EXIT_USAGE, "--filter: "
					    "'%.*s': the regular expression is "
					    "too large once its repetitions "
					    "are expanded (more than %.0f "
					    "nodes)", (int)len, t,
					    REGEX_NODES_MAX);
		}
		if ((rc = regcomp(term.re, term.value, REG_EXTENDED |
				  REG_NOSUB)) == 0) {
			regfree(term.re);
			rc = regex_compile(term.re, term.value, len, t, err);
			if (rc < 0) {
				free(term.re);
				free(term.value);
				return -1;
			}
		}
		if (rc != 0) {
			char why[128];

			regerror(rc, term.re, why, sizeof(why));
			free(term.re);
			free(term.value);
			return st_error_set(err, ST_EXIT_USAGE, "--filter: "
					    "'%.*s': a bad regular expression: "
					    "%s", (int)len, t, why);
		}
		term.text = strndup(t, len);
		if (!term.text) {
			term_release(&term);
			return OOM(err);
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

/* Does T's expression match S[0..LEN) (a NUL inside S ends the text the
 * expression sees)?  1, 0, or -1 with ERR naming the term: 74 when
 * memory ran out, never a silent "no match".  glibc's regexec answers
 * REG_NOMATCH for every error, a failed allocation included (2.36,
 * measured); re_search says -2.  It runs at start 0 only (range 0): the
 * expression is anchored behind ".*" (regex_anchored). */
static int regex_match(const st_trace_term *t, const char *s, size_t len,
		       st_error *err)
{
	const char *nul = memchr(s, '\0', len);
	regoff_t rc;

	if (nul)
		len = (size_t)(nul - s);
	if (len > INT_MAX)
		return st_error_set(err, ST_EXIT_DATAERR, "--filter: '%s': a "
				    "text of %zu bytes is too long for a "
				    "regular expression", t->text, len);
	rc = re_search(t->re, s, (regoff_t)len, 0, 0, NULL);
	if (rc >= -1)
		return rc >= 0;
	return st_error_set(err, ST_EXIT_IOERR, "--filter: '%s': the regular "
			    "expression ran out of memory on a text of %zu "
			    "bytes", t->text, len);
}

/* 1, 0, or -1 with ERR (regex_match). */
static int term_match(const st_trace_term *t, const char *s, size_t len,
		      st_error *err)
{
	size_t vl = strlen(t->value);

	if (!s)
		return 0;
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
		return regex_match(t, s, len, err);
	}
}

/* Does term T on the file's basename or pattern hold for file S?  1, 0,
 * or -1 with ERR. */
static int derived_match(const st_trace_term *t, const char *s, size_t len,
			 st_error *err)
{
	char small[256], *buf;
	size_t off, bl, pl;
	int m;

	if (!s)
		return 0;
	bl = st_trace_basename(s, len, &off);
	if (t->field == ST_TRACE_BASENAME)
		return term_match(t, s + off, bl, err);
	buf = bl <= sizeof(small) ? small : malloc(bl);
	if (!buf)
		return OOM(err);
	pl = st_trace_pattern(s + off, bl, buf, bl);
	m = term_match(t, buf, pl, err);
	if (buf != small)
		free(buf);
	return m;
}

int st_trace_filter_field(const st_trace_filter *f, enum st_trace_field field,
			  const char *s, size_t len, st_error *err)
{
	for (size_t i = 0; f && i < f->n; i++) {
		const st_trace_term *t = &f->v[i];
		int m;

		if (t->field == field)
			m = term_match(t, s, len, err);
		else if (field == ST_TRACE_FILE &&
			 (t->field == ST_TRACE_BASENAME ||
			  t->field == ST_TRACE_PATTERN))
			m = derived_match(t, s, len, err);
		else
			continue;
		if (m < 0)
			return -1;
		if ((m == 1) == t->neg)
			return 0;
	}
	return 1;
}

int trace_filter_failed(const st_pfw_reader *r, st_error *err)
{
	st_error_prefix(err, "%s:%" PRIu64, st_pfw_path(r), st_pfw_lineno(r));
	return -1;
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
