/* options.c - the one option parser of every command, its --help and its
 * table dump (see options.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "options.h"
#include "streamtime/http.h"
#include "streamtime/merge.h"
#include "streamtime/num.h"
#include "streamtime/suggest.h"

#define WRAP 79          /* help lines end before this column */
#define HELP_COL 24      /* where an option's help text starts */
#define MAX_ROWS 64

void *st_opt_dump_sink;
const char *st_opt_dump_summary;

static const char *const common_names[] = { "help", "quiet", "verbose" };

static bool takes_value(const struct st_option *o)
{
	return !(o->kind == ST_OPT_FLAG || o->kind == ST_OPT_UNSET ||
		 (o->kind == ST_OPT_CALLBACK && (o->flags & ST_OPT_NOARG)));
}

static bool repeatable(const struct st_option *o)
{
	return o->kind == ST_OPT_LIST || o->kind == ST_OPT_SIZE_RANGE ||
	       (o->kind == ST_OPT_CALLBACK && (o->flags & ST_OPT_REPEAT));
}

static enum st_opt_complete completes(const struct st_option *o)
{
	if (o->kind == ST_OPT_PATH)
		return o->metavar && strstr(o->metavar, "DIR") &&
		       !strstr(o->metavar, "FILE") ? ST_COMPLETE_DIR
						   : ST_COMPLETE_FILE;
	if (o->flags & ST_OPT_FILES)
		return ST_COMPLETE_FILE;
	if (o->kind == ST_OPT_ZONE)
		return ST_COMPLETE_ZONE;
	if (o->choices)
		return ST_COMPLETE_CHOICE;
	return ST_COMPLETE_NONE;
}

/* ---- did you mean ----------------------------------------------------- */

size_t st_opt_distance(const char *a, const char *b)
{
	return st_edit_distance(a, b);
}

const char *st_opt_suggest(const char *word, const char *const *cands,
			   size_t n)
{
	return st_suggest(word, cands, n);
}

/* ---- help -------------------------------------------------------------- */

/* Print TEXT word-wrapped from column COL (the cursor is at column AT,
 * where the first word goes) up to WRAP; '\n' in TEXT starts a new line. */
static void wrap(FILE *f, const char *text, int col, int at)
{
	const char *p = text;
	bool start = true;

	while (*p) {
		size_t wl = strcspn(p, " \n");

		if (!start && at + 1 + (int)wl > WRAP) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (!start) {
			fputc(' ', f);
			at++;
		}
		fwrite(p, 1, wl, f);
		at += (int)wl;
		p += wl;
		start = false;
		if (*p == '\n') {
			fprintf(f, "\n%*s", col, "");
			at = col;
			start = true;
			p++;
		} else {
			while (*p == ' ')
				p++;
		}
	}
}

/* "--name META", "-j, --jobs N", "-a, --allusers" into BUF. */
static void row_head(const struct st_option *o, char *buf, size_t size)
{
	int k = 0;

	if (o->short_name && o->name)
		k = snprintf(buf, size, "-%c, --%s", o->short_name, o->name);
	else if (o->short_name)
		k = snprintf(buf, size, "-%c", o->short_name);
	else
		k = snprintf(buf, size, "--%s", o->name);
	if (takes_value(o) && o->metavar && k >= 0 && (size_t)k < size)
		snprintf(buf + k, size - (size_t)k, " %s", o->metavar);
}

/* The synopsis word of O: "--out FILE", "[--tz ZONE]", "--db F...",
 * "[--schema auto|legacy|current]" (a choice shows its values). */
static int synopsis_word(const struct st_option *o, char *buf, size_t size)
{
	bool req = o->flags & ST_OPT_REQUIRED;
	const char *name = o->name, *meta = takes_value(o) ? o->metavar : NULL;
	char dash[8], values[96];

	if (!name) {
		snprintf(dash, sizeof(dash), "%c", o->short_name);
		name = dash;
	}
	if (o->kind == ST_OPT_CHOICE) {
		size_t k = 0;

		values[0] = '\0';
		for (size_t i = 0; o->choices[i] && k < sizeof(values); i++)
			k += (size_t)snprintf(values + k, sizeof(values) - k,
					      "%s%s", i ? "|" : "", o->choices[i]);
		meta = values;
	}
	return snprintf(buf, size, "%s%s%s%s%s%s%s", req ? "" : "[",
			o->name ? "--" : "-", name, meta ? " " : "",
			meta ? meta : "", req ? "" : "]",
			repeatable(o) ? "..." : "");
}

/* "PATH ARGS --req X [--opt Y]...", after "usage: " and wrapped under
 * the path when WRAPPED. */
static void synopsis(FILE *f, const struct st_cmd_desc *d,
		     const struct st_option *opts, bool wrapped)
{
	int col = (int)strlen("usage: ") + (int)strlen(d->path) + 1;
	int at = col - 1;
	char word[160];

	/* arguments after "--" (a command to run) come after the options */
	int args_pass = d->args && !strncmp(d->args, "-- ", 3) ? 2 : 0;

	fprintf(f, "%s%s", wrapped ? "usage: " : "", d->path);
	for (int pass = 0; pass < 3; pass++) {
		for (const struct st_option *o = opts; pass && o->kind; o++) {
			bool req = o->flags & ST_OPT_REQUIRED;

			if (o->kind == ST_OPT_GROUP || req != (pass == 1))
				continue;
			synopsis_word(o, word, sizeof(word));
			if (wrapped && at + 1 + (int)strlen(word) > WRAP) {
				fprintf(f, "\n%*s", col - 1, "");
				at = col - 1;
			}
			fprintf(f, " %s", word);
			at += 1 + (int)strlen(word);
		}
		if (pass == args_pass && d->args) {
			if (wrapped && pass && at + 1 + (int)strlen(d->args) > WRAP) {
				fprintf(f, "\n%*s", col - 1, "");
				at = col - 1;
			}
			fprintf(f, " %s", d->args);
			at += 1 + (int)strlen(d->args);
		}
	}
	if (wrapped)
		fputc('\n', f);
}

void st_opt_help(FILE *f, const struct st_cmd_desc *d,
		 const struct st_option *opts)
{
	char head[160];

	synopsis(f, d, opts, true);
	if (d->description)
		fprintf(f, "\n%s", d->description);
	fputc('\n', f);
	for (const struct st_option *o = opts; o->kind; o++) {
		int len;

		if (o->kind == ST_OPT_GROUP) {
			fprintf(f, "%s\n", o->help);
			continue;
		}
		row_head(o, head, sizeof(head));
		len = 2 + (int)strlen(head);
		fprintf(f, "  %s", head);
		if (len + 2 <= HELP_COL) {
			fprintf(f, "%*s", HELP_COL - len, "");
			len = HELP_COL;
		} else {
			fputs("  ", f);
			len += 2;
		}
		wrap(f, o->help, HELP_COL, len);
		fputc('\n', f);
	}
	fprintf(f, "  -q, --quiet / -v, --verbose%s / -h, --help\n",
		d->verbose_help ? d->verbose_help : "");
	if (d->epilogue)
		fprintf(f, "\n%s", d->epilogue);
}

/* ---- the dump ---------------------------------------------------------- */

static const char *kind_name(enum st_opt_kind k)
{
	static const char *const names[] = {
		"end", "flag", "unset", "int", "seconds", "string", "path",
		"zone", "choice", "list", "size-range", "callback", "group",
	};

	return names[k];
}

static const char *complete_name(enum st_opt_complete c)
{
	static const char *const names[] = {
		"none", "file", "dir", "zone", "choice",
	};

	return names[c];
}

/* The value the target holds before parsing: the default. */
static json_t *default_json(const struct st_option *o)
{
	if (!o->target)
		return json_null();
	switch (o->kind) {
	case ST_OPT_INT:
		return json_integer(*(int64_t *)o->target);
	case ST_OPT_SECONDS:
		return json_real((double)*(st_duration *)o->target / 1e9);
	case ST_OPT_STRING:
	case ST_OPT_PATH:
	case ST_OPT_ZONE: {
		const char *s = *(const char **)o->target;

		return s ? json_string(s) : json_null();
	}
	case ST_OPT_CHOICE:
		return json_string(o->choices[*(int *)o->target]);
	default:
		return json_null();
	}
}

/* Add D and OPTS to st_opt_dump_sink.  Every value goes through
 * json_pack's "o" or json_array_append_new, which take the reference
 * also when they fail. */
static int dump(const struct st_cmd_desc *d, const struct st_option *opts)
{
	json_t *cmd, *rows;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		goto oom;
	synopsis(m, d, opts, false);
	if (fclose(m) != 0) {
		free(text);
		goto oom;
	}
	rows = json_array();
	cmd = json_pack("{s:s, s:s?, s:s, s:s?, s:i, s:i, s:s, s:s?, s:s?, "
			"s:s?, s:o}", "path", d->path, "summary",
			st_opt_dump_summary, "usage", text, "args", d->args,
			"min_args", d->min_args, "max_args", d->max_args,
			"args_complete", complete_name(d->args_complete),
			"description", d->description, "epilogue", d->epilogue,
			"verbose_help", d->verbose_help, "options", rows);
	free(text);
	if (!cmd)
		goto oom;
	for (const struct st_option *o = opts; o->kind; o++) {
		json_t *r, *ch;
		char head[160];

		if (o->kind == ST_OPT_GROUP) {
			json_array_append_new(rows, json_pack("{s:s, s:s}", "kind",
							      "group", "help",
							      o->help));
			continue;
		}
		ch = json_array();
		for (size_t i = 0; o->choices && o->choices[i]; i++)
			json_array_append_new(ch, json_string(o->choices[i]));
		row_head(o, head, sizeof(head));
		r = json_pack("{s:s?, s:s?, s:s, s:s?, s:s, s:s, s:b, s:b, s:b, "
			      "s:s, s:o, s:o}", "long", o->name, "short",
			      o->short_name ? (char[]){ o->short_name, 0 } : NULL,
			      "kind", kind_name(o->kind), "metavar",
			      takes_value(o) ? o->metavar : NULL, "head", head,
			      "help", o->help, "value", takes_value(o),
			      "required", (o->flags & ST_OPT_REQUIRED) != 0,
			      "repeatable", repeatable(o), "complete",
			      complete_name(completes(o)), "choices", ch,
			      "default", default_json(o));
		if (!r || json_array_append_new(rows, r) < 0) {
			json_decref(cmd);
			goto oom;
		}
	}
	if (json_array_append_new(st_opt_dump_sink, cmd) < 0)
		goto oom;
	return ST_EXIT_OK;
oom:
	st_msg_error("out of memory");
	return ST_EXIT_IOERR;
}

/* ---- parsing ----------------------------------------------------------- */

struct parser {
	const struct st_cmd_desc *d;
	const struct st_option *opts;
	unsigned seen[MAX_ROWS];
};

static int bad_value(const struct parser *p, const struct st_option *o,
		     const char *arg, const char *expect)
{
	return st_msg_usage(p->d->path, "--%s '%s': expected %s", o->name, arg,
			    o->expect ? o->expect : expect);
}

static int set_int(const struct parser *p, const struct st_option *o,
		   const char *arg)
{
	int64_t v;
	char expect[96];

	if (st_num_parse_int(arg, &v) == 0 && !strchr(arg, '.') &&
	    v >= o->min && v <= o->max) {
		*(int64_t *)o->target = v;
		return ST_OPT_CONTINUE;
	}
	if (o->max == INT64_MAX)
		snprintf(expect, sizeof(expect), "a whole number >= %" PRId64,
			 o->min);
	else
		snprintf(expect, sizeof(expect), "a whole number from %" PRId64
			 " to %" PRId64, o->min, o->max);
	return bad_value(p, o, arg, expect);
}

static int set_seconds(const struct parser *p, const struct st_option *o,
		       const char *arg)
{
	st_duration v;
	char expect[96];

	if (st_parse_seconds(arg, o->flags & ST_OPT_ZERO_OK, (double)o->max,
			     &v) == 0 &&
	    (!(o->flags & ST_OPT_WHOLE) || v % ST_NS_PER_SEC == 0)) {
		*(st_duration *)o->target = v;
		return ST_OPT_CONTINUE;
	}
	snprintf(expect, sizeof(expect), "%sseconds %s, at most %" PRId64,
		 o->flags & ST_OPT_WHOLE ? "whole " : "",
		 o->flags & ST_OPT_ZERO_OK ? ">= 0" : "> 0", o->max);
	return bad_value(p, o, arg, expect);
}

static int set_choice(const struct parser *p, const struct st_option *o,
		      const char *arg)
{
	char expect[256];
	size_t k = 0, n = 0;
	const char *near;

	for (n = 0; o->choices[n]; n++)
		if (strcmp(o->choices[n], arg) == 0) {
			*(int *)o->target = (int)n;
			return ST_OPT_CONTINUE;
		}
	for (size_t i = 0; i < n && k < sizeof(expect); i++)
		k += (size_t)snprintf(expect + k, sizeof(expect) - k, "%s%s",
				      i == 0 ? "" : i + 1 == n ? " or " : ", ",
				      o->choices[i]);
	near = st_opt_suggest(arg, o->choices, n);
	if (near)
		return st_msg_usage(p->d->path, "--%s '%s': expected %s; did "
				    "you mean '%s'?", o->name, arg, expect, near);
	return bad_value(p, o, arg, expect);
}

/* Apply option O with ARG (NULL for those that take no value). */
static int apply(struct parser *p, const struct st_option *o, char *arg)
{
	st_error err;

	p->seen[o - p->opts]++;
	switch (o->kind) {
	case ST_OPT_FLAG:
		*(bool *)o->target = true;
		return ST_OPT_CONTINUE;
	case ST_OPT_UNSET:
		*(bool *)o->target = false;
		return ST_OPT_CONTINUE;
	case ST_OPT_INT:
		return set_int(p, o, arg);
	case ST_OPT_SECONDS:
		return set_seconds(p, o, arg);
	case ST_OPT_STRING:
	case ST_OPT_PATH:
	case ST_OPT_ZONE:
		*(const char **)o->target = arg;
		return ST_OPT_CONTINUE;
	case ST_OPT_CHOICE:
		return set_choice(p, o, arg);
	case ST_OPT_LIST: {
		struct st_strlist *l = o->target;

		if (st_strv_push(&l->v, &l->n, arg) < 0)
			goto oom;
		return ST_OPT_CONTINUE;
	}
	case ST_OPT_SIZE_RANGE: {
		struct st_size_ranges *r = o->target;
		st_size_range *nv = realloc(r->v, (r->n + 1) * sizeof(*nv));

		if (!nv)
			goto oom;
		r->v = nv;
		if (st_parse_size_range(arg, &nv[r->n].size, &nv[r->n].range) < 0)
			return bad_value(p, o, arg, "SIZE:FIRST-LAST, e.g. "
					 "128:4858-4887");
		r->n++;
		return ST_OPT_CONTINUE;
	}
	case ST_OPT_CALLBACK:
		err.code = 0;
		err.text[0] = '\0';
		if (o->cb(o, arg, &err) == 0)
			return ST_OPT_CONTINUE;
		if (err.code == ST_EXIT_USAGE)
			return st_msg_usage(p->d->path, "%s", err.text);
		return st_msg_fail(&err);
	default:
		return ST_OPT_CONTINUE;
	}
oom:
	st_msg_error("%s: out of memory", p->d->path);
	return ST_EXIT_IOERR;
}

/* Every long name of the table and the common ones, for suggestions; N
 * set to their number.  New array of borrowed names, NULL: no memory. */
static const char **long_names(const struct st_option *opts, size_t *n)
{
	size_t k = 0, cap = 3;
	const char **v;

	for (const struct st_option *o = opts; o->kind; o++)
		cap++;
	if (!(v = malloc(cap * sizeof(*v))))
		return NULL;
	for (const struct st_option *o = opts; o->kind; o++)
		if (o->name)
			v[k++] = o->name;
	for (size_t i = 0; i < 3; i++)
		v[k++] = common_names[i];
	*n = k;
	return v;
}

static int unknown_long(const struct parser *p, const char *name, size_t len)
{
	size_t n = 0;
	const char **v = long_names(p->opts, &n);
	char *word = strndup(name, len);
	const char *near = v && word ? st_opt_suggest(word, v, n) : NULL;
	int rc;

	if (near)
		rc = st_msg_usage(p->d->path, "unknown option '--%.*s'; did you "
				  "mean '--%s'?", (int)len, name, near);
	else
		rc = st_msg_usage(p->d->path, "unknown option '--%.*s'", (int)len,
				  name);
	free(v);
	free(word);
	return rc;
}

/* The row of long option NAME (LEN bytes): exact, else a unique prefix;
 * *COMMON set to 'h', 'q' or 'v' for the common ones.  NULL with *RC set
 * when unknown or ambiguous. */
static const struct st_option *find_long(const struct parser *p,
					 const char *name, size_t len,
					 char *common, int *rc)
{
	const struct st_option *hit = NULL;
	int common_hit = 0, hits = 0;

	*common = 0;
	for (const struct st_option *o = p->opts; o->kind; o++)
		if (o->name && strlen(o->name) == len &&
		    strncmp(o->name, name, len) == 0)
			return o;
	for (size_t i = 0; i < 3; i++)
		if (strlen(common_names[i]) == len &&
		    strncmp(common_names[i], name, len) == 0) {
			*common = common_names[i][0];
			return NULL;
		}
	for (const struct st_option *o = p->opts; len && o->kind; o++)
		if (o->name && strncmp(o->name, name, len) == 0) {
			hit = o;
			hits++;
		}
	for (size_t i = 0; len && i < 3; i++)
		if (strncmp(common_names[i], name, len) == 0) {
			common_hit = common_names[i][0];
			hits++;
		}
	if (hits == 1) {
		*common = hit ? 0 : (char)common_hit;
		return hit;
	}
	if (hits > 1) {
		char list[256];
		size_t k = 0;

		list[0] = '\0';
		for (const struct st_option *o = p->opts; o->kind; o++)
			if (o->name && strncmp(o->name, name, len) == 0 &&
			    k < sizeof(list))
				k += (size_t)snprintf(list + k, sizeof(list) - k,
						      "%s--%s", k ? ", " : "",
						      o->name);
		for (size_t i = 0; i < 3; i++)
			if (strncmp(common_names[i], name, len) == 0 &&
			    k < sizeof(list))
				k += (size_t)snprintf(list + k, sizeof(list) - k,
						      "%s--%s", k ? ", " : "",
						      common_names[i]);
		*rc = st_msg_usage(p->d->path, "option '--%.*s' is ambiguous: "
				   "%s", (int)len, name, list);
	} else
		*rc = unknown_long(p, name, len);
	return NULL;
}

static int common_option(const struct parser *p, char c)
{
	if (c == 'h') {
		st_opt_help(stdout, p->d, p->opts);
		return st_finish_stdout(ST_EXIT_OK);
	}
	st_verbosity = c == 'q' ? -1 : 1;
	return ST_OPT_CONTINUE;
}

/* "--name", "--name=value" or "--name value" at ARGV[*I]. */
static int parse_long(struct parser *p, int argc, char **argv, int *i)
{
	char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct st_option *o;
	char common;
	int rc = ST_EXIT_USAGE;

	o = find_long(p, name, len, &common, &rc);
	if (!o && !common)
		return rc;
	if (common) {
		if (eq)
			return st_msg_usage(p->d->path, "--%.*s takes no value",
					    (int)len, name);
		return common_option(p, common);
	}
	if (!takes_value(o)) {
		if (eq)
			return st_msg_usage(p->d->path, "--%s takes no value",
					    o->name);
		return apply(p, o, NULL);
	}
	if (eq)
		return apply(p, o, eq + 1);
	if (*i + 1 >= argc)
		return st_msg_usage(p->d->path, "--%s needs a value (%s)",
				    o->name, o->metavar ? o->metavar : "");
	return apply(p, o, argv[++*i]);
}

/* "-qv", "-j4", "-j 4" at ARGV[*I]. */
static int parse_short(struct parser *p, int argc, char **argv, int *i)
{
	for (char *s = argv[*i] + 1; *s; s++) {
		const struct st_option *o = NULL;
		int rc;

		if (*s == 'h' || *s == 'q' || *s == 'v') {
			if ((rc = common_option(p, *s)) != ST_OPT_CONTINUE)
				return rc;
			continue;
		}
		for (const struct st_option *r = p->opts; r->kind; r++)
			if (r->short_name == *s)
				o = r;
		if (!o)
			return st_msg_usage(p->d->path, "unknown option '-%c'",
					    *s);
		if (!takes_value(o)) {
			if ((rc = apply(p, o, NULL)) != ST_OPT_CONTINUE)
				return rc;
			continue;
		}
		if (s[1])
			return apply(p, o, s + 1);
		if (*i + 1 >= argc)
			return st_msg_usage(p->d->path, "-%c needs a value (%s)",
					    *s, o->metavar ? o->metavar : "");
		return apply(p, o, argv[++*i]);
	}
	return ST_OPT_CONTINUE;
}

/* "--a, --b and --c are required", naming every required option. */
static int missing_required(const struct parser *p)
{
	char msg[512];
	size_t k = 0, n = 0, total = 0;

	if (p->d->required_msg)
		return st_msg_usage(p->d->path, "%s", p->d->required_msg);
	for (const struct st_option *o = p->opts; o->kind; o++)
		total += (o->flags & ST_OPT_REQUIRED) != 0;
	msg[0] = '\0';
	for (const struct st_option *o = p->opts; o->kind; o++) {
		if (!(o->flags & ST_OPT_REQUIRED))
			continue;
		n++;
		k += (size_t)snprintf(msg + k, k < sizeof(msg) ? sizeof(msg) - k
							      : 0,
				      "%s--%s", n == 1 ? "" : n == total ?
				      " and " : ", ", o->name);
		if (k >= sizeof(msg))
			break;
	}
	return st_msg_usage(p->d->path, "%s %s required", msg,
			    total > 1 ? "are" : "is");
}

int st_opt_parse(const struct st_cmd_desc *d, const struct st_option *opts,
		 int argc, char **argv, int *nargs)
{
	struct parser p = { .d = d, .opts = opts };
	int npos = 0, rc;
	bool more = true;

	if (st_opt_dump_sink)
		return dump(d, opts);
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];

		if (more && strcmp(a, "--") == 0) {
			more = false;
			continue;
		}
		if (!more || a[0] != '-' || a[1] == '\0') {
			argv[++npos] = a;     /* npos < i: never overwrites ahead */
			continue;
		}
		rc = a[1] == '-' ? parse_long(&p, argc, argv, &i)
				 : parse_short(&p, argc, argv, &i);
		if (rc != ST_OPT_CONTINUE)
			return rc;
	}
	if (npos < d->min_args)
		return d->args_missing ? st_msg_usage(d->path, "%s", d->args_missing)
				       : st_msg_usage(d->path, "%s is required",
						      d->args ? d->args : "an argument");
	if (d->max_args >= 0 && npos > d->max_args)
		return st_msg_usage(d->path, "unexpected argument '%s'",
				    argv[1 + d->max_args]);
	for (const struct st_option *o = opts; o->kind; o++)
		if ((o->flags & ST_OPT_REQUIRED) && !p.seen[o - opts])
			return missing_required(&p);
	*nargs = npos;
	return ST_OPT_CONTINUE;
}

int st_opt_cb_nonempty(const struct st_option *o, char *arg, st_error *err)
{
	if (!*arg)
		return st_error_set(err, ST_EXIT_USAGE, "--%s: empty", o->name);
	*(const char **)o->target = arg;
	return 0;
}

int st_opt_cb_http_size(const struct st_option *o, char *arg, st_error *err)
{
	if (st_http_parse_size(arg, o->target) < 0)
		return st_error_set(err, ST_EXIT_USAGE, "--%s '%s': expected a "
				    "size such as 65536, 64K, 256M or 1G",
				    o->name, arg);
	return 0;
}

int st_opt_cb_url(const struct st_option *o, char *arg, st_error *err)
{
	char **url = o->target, opt[64];

	st_secret_free(*url);
	snprintf(opt, sizeof(opt), "--%s", o->name);
	if (!(*url = st_url_arg_take(opt, arg, o->expect)))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	return 0;
}

void st_strlist_release(struct st_strlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void st_size_ranges_release(struct st_size_ranges *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

int st_i64list_push(struct st_i64list *l, int64_t x, st_error *err)
{
	int64_t *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));

	if (!nv)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	l->v = nv;
	l->v[l->n++] = x;
	return 0;
}
