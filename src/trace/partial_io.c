/* partial_io.c - the pieces the partials of trace compare and trace
 * summary share (partial_io.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "partial_io.h"

void st_partial_put_str(FILE *f, const char *s, size_t len)
{
	json_t *j = json_stringn(s, len);

	if (j) {
		json_dumpf(j, f, JSON_ENCODE_ANY);
		json_decref(j);
		return;
	}
	fputs("{\"x\":\"", f);
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", (unsigned char)s[i]);
	fputs("\"}", f);
}

void st_partial_put_cstr(FILE *f, const char *s)
{
	if (s)
		st_partial_put_str(f, s, strlen(s));
	else
		fputs("null", f);
}

void st_partial_put_file(FILE *f, const st_trace_file *t)
{
	fputs("{\"path\":", f);
	st_partial_put_cstr(f, t->path);
	fprintf(f, ",\"lines\":%" PRIu64 ",\"events\":%" PRIu64 ",\"meta\":%"
		PRIu64 ",\"other\":%" PRIu64 ",\"bad\":%" PRIu64 ",\"fast\":%"
		PRIu64 ",\"err_code\":%d,\"err_text\":", t->st.lines,
		t->st.events, t->st.meta, t->st.other, t->st.bad, t->st.fast,
		t->err_code);
	st_partial_put_cstr(f, t->err_text);
	fprintf(f, ",\"not_trace\":%s,\"first_us\":%" PRId64 ",\"end_us\":%"
		PRId64 "}", t->not_trace ? "true" : "false", t->first_us,
		t->end_us);
}

#define BAD(...) st_error_set(err, ST_EXIT_DATAERR, __VA_ARGS__)

json_t *st_partial_load(const char *text, size_t len, const char *what,
			const char *command, int oldest, int version,
			size_t flags, st_error *err)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | flags,
				  &je), *ver, *cmd;

	if (!root) {
		BAD("%s:%d:%d: not a partial of %s: %s", what, je.line,
		    je.column, command, je.text);
		return NULL;
	}
	ver = json_object_get(root, "streamtime_partial");
	cmd = json_object_get(root, "command");
	if (!json_is_object(root) || !json_is_integer(ver))
		BAD("%s: not a streamtime partial (no 'streamtime_partial' "
		    "version)", what);
	else if ((json_integer_value(ver) < oldest ||
		  json_integer_value(ver) > version) && oldest == version)
		BAD("%s: partial version %" JSON_INTEGER_FORMAT ", this "
		    "streamtime reads version %d", what,
		    json_integer_value(ver), version);
	else if (json_integer_value(ver) < oldest ||
		 json_integer_value(ver) > version)
		BAD("%s: partial version %" JSON_INTEGER_FORMAT ", this "
		    "streamtime reads versions %d to %d", what,
		    json_integer_value(ver), oldest, version);
	else if (!json_is_string(cmd) ||
		 strcmp(json_string_value(cmd), command) != 0)
		BAD("%s: not a partial of %s", what, command);
	else
		return root;
	json_decref(root);
	return NULL;
}

static bool is_hex(char c)
{
	return c && strchr("0123456789abcdefABCDEF", c);
}

bool st_partial_get_str(json_t *v, const char **s, size_t *len, char **buf)
{
	const char *h;
	size_t n;

	if (json_is_string(v)) {
		*s = json_string_value(v);
		*len = json_string_length(v);
		return true;
	}
	if (!json_is_object(v) || json_object_size(v) != 1 ||
	    !json_is_string(json_object_get(v, "x")))
		return false;
	h = json_string_value(json_object_get(v, "x"));
	n = json_string_length(json_object_get(v, "x"));
	if (n % 2 || !(*buf = malloc(n / 2 + 1)))
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned x;

		if (!is_hex(h[2 * i]) || !is_hex(h[2 * i + 1]) ||
		    sscanf(h + 2 * i, "%2x", &x) != 1) {
			free(*buf);
			*buf = NULL;
			return false;
		}
		(*buf)[i] = (char)x;
	}
	(*buf)[n / 2] = '\0';
	*s = *buf;
	*len = n / 2;
	return true;
}

bool st_partial_is_str(json_t *v)
{
	const char *s;
	char *buf = NULL;
	size_t len;
	bool ok = st_partial_get_str(v, &s, &len, &buf);

	free(buf);
	return ok;
}

int st_partial_get_dup(json_t *v, char **out)
{
	const char *s;
	char *buf = NULL;
	size_t len;

	if (!st_partial_get_str(v, &s, &len, &buf))
		return 1;
	if ((*out = malloc(len + 1))) {
		memcpy(*out, s, len);
		(*out)[len] = '\0';
	}
	free(buf);
	return *out ? 0 : -1;
}

bool st_partial_is_count(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

bool st_partial_is_time(json_t *v)
{
	return json_is_integer(v) &&
	       json_integer_value(v) >= -ST_PARTIAL_TIME_MAX &&
	       json_integer_value(v) <= ST_PARTIAL_TIME_MAX;
}

int st_partial_get_file(json_t *v, st_trace_file *t, char **path)
{
	static const char *const cnt[] = { "lines", "events", "meta",
					   "other", "bad", "fast" };
	json_t *et = json_object_get(v, "err_text"),
	       *path_v = json_object_get(v, "path");
	uint64_t *st[6];
	int rc;

	if (!json_is_object(v) || !st_partial_is_str(path_v) ||
	    !(json_is_null(et) || st_partial_is_str(et)) ||
	    !json_is_integer(json_object_get(v, "err_code")) ||
	    !json_is_boolean(json_object_get(v, "not_trace")) ||
	    !st_partial_is_time(json_object_get(v, "first_us")) ||
	    !st_partial_is_time(json_object_get(v, "end_us")) ||
	    json_integer_value(json_object_get(v, "first_us")) >
	    json_integer_value(json_object_get(v, "end_us")))
		return 1;
	for (size_t k = 0; k < 6; k++)
		if (!st_partial_is_count(json_object_get(v, cnt[k])))
			return 1;
	if (!t)
		return 0;
	st[0] = &t->st.lines;
	st[1] = &t->st.events;
	st[2] = &t->st.meta;
	st[3] = &t->st.other;
	st[4] = &t->st.bad;
	st[5] = &t->st.fast;
	for (size_t k = 0; k < 6; k++)
		*st[k] = (uint64_t)json_integer_value(json_object_get(v,
								     cnt[k]));
	t->err_code = (int)json_integer_value(json_object_get(v, "err_code"));
	t->not_trace = json_is_true(json_object_get(v, "not_trace"));
	t->first_us = json_integer_value(json_object_get(v, "first_us"));
	t->end_us = json_integer_value(json_object_get(v, "end_us"));
	if (!json_is_null(et) && (rc = st_partial_get_dup(et, &t->err_text)))
		return rc;
	if ((rc = st_partial_get_dup(path_v, path)))
		return rc;
	t->path = *path;
	return 0;
}
