/* trace_compare_partial.c - the partials of `trace compare` (trace_compare.h):
 * a pass's per-key sums and inputs written, and partials merged back
 * into cases. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/trace_compare.h"

#include "trace_compare_int.h"
#include "partial_io.h"

/* The sums of metric I of pass P: a line per key. */
static void put_sums(FILE *f, const struct pass *p, size_t i)
{
	const struct sums *s = &p->sums[i];

	fputs("{\"name\":", f);
	st_partial_put_cstr(f, p->m->v[i].name);
	fputs(",\"keys\":[", f);
	for (size_t e = 0; e < s->n; e++) {
		fputs(e ? ",\n[" : "\n[", f);
		for (size_t j = 0; j < s->w; j++) {
			uint64_t c = s->keys[e * s->w + j];
			const char *str;
			size_t len;

			if (j)
				fputc(',', f);
			if (!p->cstr[i][j] || c == COMP_NONE) {
				if (p->cstr[i][j])
					fputs("null", f);
				else
					fprintf(f, "%" PRId64, (int64_t)c);
				continue;
			}
			str = st_strtab_str(&p->tab, (uint32_t)c, &len);
			st_partial_put_str(f, str, len);
		}
		fputc(']', f);
	}
	fputs("],\"sums\":[", f);
	for (size_t e = 0; e < s->n; e++)
		fprintf(f, "%s%" PRId64, e ? "," : "", s->sum[e]);
	fputs("]}", f);
}

/* The phases of case C (its segments and their names), if it has any:
 * "phases":{"bounds":[US...],"names":[NAME|null...]}, then ','. */
static void put_phases(FILE *f, const st_compare_case *c)
{
	if (!c->nseg || !c->seg_phase)
		return;
	fputs("\n\"phases\":{\"bounds\":[", f);
	for (size_t k = 0; k < c->nseg; k++)
		fprintf(f, "%s%" PRId64, k ? "," : "", c->seg_us[k]);
	fputs("],\"names\":[", f);
	for (size_t k = 0; k < c->nseg; k++) {
		if (k)
			fputc(',', f);
		if (c->seg_phase[k])
			st_partial_put_cstr(f, c->seg_phase[k]);
		else
			fputs("null", f);
	}
	fputs("]},", f);
}

int st_compare_partial_write(FILE *f, const char *metrics_text,
			     const st_metrics *m, const st_compare_case *cs,
			     size_t n)
{
	fprintf(f, "{\"streamtime_partial\":%d,\"command\":\"trace compare\","
		"\n\"metrics\":", ST_COMPARE_PARTIAL_VERSION);
	st_partial_put_cstr(f, metrics_text);
	fputs(",\n\"cases\":[", f);
	for (size_t c = 0; c < n; c++) {
		const struct pass *p = (const struct pass *)cs[c].state;

		if (!p)
			return -1;
		fputs(c ? ",\n{\"name\":" : "\n{\"name\":", f);
		st_partial_put_cstr(f, cs[c].name);
		fprintf(f, ",\"events\":%" PRIu64 ",\"bad_lines\":%" PRIu64
			",\"saturated\":%s,", cs[c].events,
			cs[c].bad_lines, cs[c].saturated ? "true" : "false");
		put_phases(f, &cs[c]);
		fputs("\n\"files\":[", f);
		for (size_t i = 0; i < cs[c].n_files; i++) {
			fputs(i ? ",\n" : "\n", f);
			st_partial_put_file(f, &cs[c].files_in[i]);
		}
		fputs("],\n\"bad\":[", f);
		for (size_t i = 0; i < cs[c].n_bad; i++) {
			fprintf(f, "%s{\"file\":%zu,\"line\":%" PRIu64
				",\"why\":", i ? ",\n" : "\n",
				cs[c].bad[i].file, cs[c].bad[i].line);
			st_partial_put_cstr(f, cs[c].bad[i].why);
			fputc('}', f);
		}
		fputs("],\n\"metrics\":[", f);
		for (size_t i = 0; i < m->n; i++) {
			fputs(i ? ",\n" : "\n", f);
			put_sums(f, p, i);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -1 : 0;
}

#define BAD(...) st_error_set(err, ST_EXIT_DATAERR, __VA_ARGS__)

/* The file record V (checked) into T, its path owned by MG. */
static int get_file(st_compare_merge *mg, json_t *v, st_trace_file *t,
		    bool dry)
{
	char **pp;
	int rc;

	if (dry)
		return st_partial_get_file(v, NULL, NULL);
	if (!(pp = realloc(mg->paths, (mg->n_paths + 1) * sizeof(*pp))))
		return -1;
	mg->paths = pp;
	pp[mg->n_paths] = NULL;
	rc = st_partial_get_file(v, t, &pp[mg->n_paths]);
	if (pp[mg->n_paths])
		mg->n_paths++;
	return rc;
}

/* The key of entry E of metric sums V into K (width W of pass P's
 * metric I).  1 malformed, -1 out of memory. */
static int get_key(struct pass *p, size_t i, json_t *v, uint64_t *k,
		   bool dry)
{
	size_t w = p->sums[i].w;

	if (!json_is_array(v) || json_array_size(v) != w)
		return 1;
	for (size_t j = 0; j < w; j++) {
		json_t *c = json_array_get(v, j);
		const char *s;
		char *buf = NULL;
		size_t len;
		int64_t g;

		if (!p->cstr[i][j]) {
			if (!json_is_integer(c))
				return 1;
			k[j] = (uint64_t)json_integer_value(c);
			continue;
		}
		if (json_is_null(c)) {
			k[j] = COMP_NONE;
			continue;
		}
		if (!st_partial_get_str(c, &s, &len, &buf))
			return 1;
		g = dry ? 0 : st_strtab_intern(&p->tab, s, len, NULL);
		free(buf);
		if (g < 0)
			return -1;
		k[j] = (uint64_t)g;
	}
	return 0;
}

/* Does a metric of M have the key phase? */
static bool uses_phase(const st_metrics *m)
{
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->v[i].by.n + m->v[i].per.n; j++)
			if ((j < m->v[i].by.n ? m->v[i].by.v[j] :
			     m->v[i].per.v[j - m->v[i].by.n]).kind ==
			    ST_TRACE_KEY_PHASE)
				return true;
	return false;
}

/* Is the case object V of a partial of the metrics M well formed at its
 * top (the fields and their types)? */
static bool case_shape(const st_metrics *m, json_t *v)
{
	json_t *ph = json_object_get(v, "phases");

	return json_is_object(v) &&
	       json_is_string(json_object_get(v, "name")) &&
	       st_partial_is_count(json_object_get(v, "events")) &&
	       st_partial_is_count(json_object_get(v, "bad_lines")) &&
	       json_is_boolean(json_object_get(v, "saturated")) &&
	       json_is_array(json_object_get(v, "files")) &&
	       json_is_array(json_object_get(v, "bad")) &&
	       json_is_array(json_object_get(v, "metrics")) &&
	       json_array_size(json_object_get(v, "metrics")) == m->n &&
	       (!ph || (json_is_object(ph) &&
			json_is_array(json_object_get(ph, "bounds")) &&
			json_is_array(json_object_get(ph, "names"))));
}

/* Are the phases PH (may be NULL) of a case those of C, already merged?
 * 1 yes, 0 no, -1 out of memory. */
static int phases_same(const st_compare_case *c, json_t *ph)
{
	const char *had = ((const struct pass *)c->state)->phases;
	char *phases = NULL;
	int same;

	if (ph && !(phases = json_dumps(ph, JSON_COMPACT | JSON_SORT_KEYS)))
		return -1;
	same = !phases == !had && (!had || !strcmp(phases, had));
	free(phases);
	return same;
}

/* A new case of MG named NAME, its phases PH (may be NULL), with an
 * empty pass, into *C.  0, -1 out of memory. */
static int case_add(st_compare_merge *mg, const char *name, json_t *ph,
		    st_compare_case **out)
{
	st_compare_case *v = realloc(mg->cases, (mg->n + 1) * sizeof(*v)), *c;
	struct pass *p = NULL;
	char *nm = NULL;

	if (!v)
		return -1;
	mg->cases = v;
	c = &mg->cases[mg->n];
	memset(c, 0, sizeof(*c));
	if (!(nm = strdup(name)) ||
	    !(c->res = calloc(mg->m.n ? mg->m.n : 1, sizeof(*c->res))) ||
	    !(p = calloc(1, sizeof(*p)))) {
		free(nm);
		free(c->res);
		c->res = NULL;
		return -1;
	}
	c->n_res = mg->m.n;
	c->name = nm;
	c->state = (struct st_compare_state *)p;
	mg->n++;
	*out = c;
	if (compare_pass_init(p, &mg->m) < 0 ||
	    (ph && !(p->phases = json_dumps(ph, JSON_COMPACT |
					    JSON_SORT_KEYS))))
		return -1;
	return 0;
}

/* The file records FILES of a case into C after its BASE files (only
 * checked when DRY, C NULL then).  0, 1 malformed, -1 out of memory. */
static int get_files(st_compare_merge *mg, st_compare_case *c, size_t base,
		     json_t *files, bool dry)
{
	size_t nf = json_array_size(files);
	int rc = 0;

	if (!dry) {
		st_trace_file *tf = realloc(c->files_in, (base + nf ? base + nf
							  : 1) * sizeof(*tf));

		if (!tf)
			return -1;
		c->files_in = tf;
		memset(tf + base, 0, nf * sizeof(*tf));
	}
	for (size_t k = 0; rc == 0 && k < nf; k++) {
		rc = get_file(mg, json_array_get(files, k),
			      dry ? NULL : &c->files_in[base + k], dry);
		if (!dry && rc == 0)
			c->n_files++;
	}
	return rc;
}

/* The corrupt-line records BAD of a case of NF files into C, their file
 * indexes after its BASE files (only checked when DRY).  0, 1
 * malformed, -1 out of memory. */
static int get_bad(st_compare_case *c, size_t base, size_t nf, json_t *bad,
		   bool dry)
{
	for (size_t k = 0; k < json_array_size(bad); k++) {
		json_t *b = json_array_get(bad, k);
		json_t *fi = json_object_get(b, "file");
		st_trace_bad *bv;

		if (!st_partial_is_count(fi) ||
		    (size_t)json_integer_value(fi) >= nf ||
		    !st_partial_is_count(json_object_get(b, "line")) ||
		    !st_partial_is_str(json_object_get(b, "why")))
			return 1;
		if (dry)
			continue;
		if (!(bv = realloc(c->bad, (c->n_bad + 1) * sizeof(*bv))))
			return -1;
		c->bad = bv;
		bv[c->n_bad].file = base + (size_t)json_integer_value(fi);
		bv[c->n_bad].line = (uint64_t)json_integer_value(
			json_object_get(b, "line"));
		if (st_partial_get_dup(json_object_get(b, "why"),
				       &bv[c->n_bad].why))
			return -1;
		c->n_bad++;
	}
	return 0;
}

/* The metrics' sums METS of a case added into P (only checked when
 * DRY).  0, 1 malformed, -1 out of memory. */
static int get_sums(const st_metrics *m, struct pass *p, json_t *mets,
		    bool dry)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < m->n; i++) {
		json_t *mo = json_array_get(mets, i),
		       *keys = json_object_get(mo, "keys"),
		       *sums = json_object_get(mo, "sums"),
		       *mn = json_object_get(mo, "name");
		uint64_t k[MAX_COMPS];

		if (!json_is_string(mn) ||
		    strcmp(json_string_value(mn), m->v[i].name) != 0 ||
		    !json_is_array(keys) || !json_is_array(sums) ||
		    json_array_size(keys) != json_array_size(sums))
			return 1;
		for (size_t e = 0; rc == 0 && e < json_array_size(keys); e++) {
			json_t *sv = json_array_get(sums, e);

			if (!st_partial_is_count(sv) ||
			    (rc = get_key(p, i, json_array_get(keys, e), k,
					  dry)) != 0)
				return rc ? rc : 1;
			if (!dry && compare_sums_add(&p->sums[i], k,
						     json_integer_value(sv),
						     &p->sat) < 0)
				rc = -1;
		}
	}
	return rc;
}

/* A case of a partial (object V) into MG: checked only when DRY (then
 * against a scratch pass).  0, 1 malformed (*WHY says what), -1 out of
 * memory. */
static int get_case(st_compare_merge *mg, json_t *v, bool dry,
		    const char **why)
{
	json_t *name = json_object_get(v, "name"),
	       *files = json_object_get(v, "files"),
	       *ph = json_object_get(v, "phases");
	st_compare_case *c = NULL;
	struct pass *p, scratch;
	size_t base;
	int rc;

	*why = "a case is malformed";
	if (!case_shape(&mg->m, v))
		return 1;
	for (size_t k = 0; k < mg->n; k++)
		if (strcmp(mg->cases[k].name, json_string_value(name)) == 0)
			c = &mg->cases[k];
	if (dry && c && uses_phase(&mg->m) && (rc = phases_same(c, ph)) < 1) {
		*why = "its phases (of its system-trace sets) are not "
		       "those of the case in an earlier partial, so a "
		       "phase key's merge would not be one process's: "
		       "give all the system-trace sets of a case, and "
		       "its inputs that fall in their phases, to one "
		       "share";
		return rc < 0 ? -1 : 1;
	}
	if (dry) {
		p = &scratch;
		if (compare_pass_init(p, &mg->m) < 0) {
			compare_pass_release(p);
			return -1;
		}
	} else if (!c && case_add(mg, json_string_value(name), ph, &c) < 0) {
		return -1;
	}
	if (!dry)
		p = (struct pass *)c->state;
	base = c ? c->n_files : 0;
	*why = "a file record is malformed";
	if (!(rc = get_files(mg, dry ? NULL : c, base, files, dry))) {
		*why = "a corrupt-line record is malformed";
		rc = get_bad(c, base, json_array_size(files),
			     json_object_get(v, "bad"), dry);
	}
	if (!rc) {
		*why = "the sums of a metric are malformed";
		rc = get_sums(&mg->m, p, json_object_get(v, "metrics"), dry);
	}
	if (dry) {
		compare_pass_release(p);
		return rc;
	}
	if (rc == 0) {
		c->events += (uint64_t)json_integer_value(json_object_get(
			v, "events"));
		c->bad_lines += (uint64_t)json_integer_value(json_object_get(
			v, "bad_lines"));
		p->sat |= json_is_true(json_object_get(v, "saturated"));
	}
	return rc;
}

int st_compare_merge_add(st_compare_merge *mg, const char *text, size_t len,
			 const char *what, st_error *err)
{
	json_t *root, *mt, *cases;
	const char *why = NULL;
	st_metrics m = { 0 };
	st_error e;
	int rc = 0;

	if (!(root = st_partial_load(text, len, what, "trace compare",
				     ST_COMPARE_PARTIAL_VERSION,
				     ST_COMPARE_PARTIAL_VERSION, 0, err)))
		return -1;
	mt = json_object_get(root, "metrics");
	cases = json_object_get(root, "cases");
	if (!json_is_string(mt) || !json_is_array(cases)) {
		rc = BAD("%s: not a partial of trace compare", what);
		goto out;
	}
	if (mg->metrics_text && strcmp(mg->metrics_text,
				       json_string_value(mt)) != 0) {
		rc = BAD("%s: computed with other metrics than %s", what,
			 mg->first);
		goto out;
	}
	if (!mg->metrics_text) {
		if (st_metrics_parse(&m, json_string_value(mt),
				     json_string_length(mt), what, &e) < 0) {
			rc = e.code == ST_EXIT_IOERR ? st_error_set(err, e.code,
				"%s", e.text) : BAD("%s: its metrics: %s", what,
						     e.text);
			st_metrics_release(&m);
			goto out;
		}
		for (size_t i = 0; i < m.n; i++)
			if (m.v[i].events) {
				rc = BAD("%s: its metric '%s' writes events, "
					 "which no partial holds", what,
					 m.v[i].name);
				st_metrics_release(&m);
				goto out;
			}
		if (!(mg->metrics_text = strdup(json_string_value(mt))) ||
		    !(mg->first = strdup(what))) {
			st_metrics_release(&m);
			rc = OOM(err);
			goto out;
		}
		mg->m = m;
	}
	for (int dry = 1; dry >= 0 && rc == 0; dry--)
		for (size_t k = 0; k < json_array_size(cases); k++) {
			int r = get_case(mg, json_array_get(cases, k), dry,
					 &why);

			if (r) {
				rc = r < 0 ? OOM(err) : BAD("%s: case %zu: %s",
							    what, k + 1, why);
				break;
			}
		}
out:
	json_decref(root);
	return rc;
}

int st_compare_merge_finish(st_compare_merge *mg, size_t max_bad,
			    st_error *err)
{
	for (size_t c = 0; c < mg->n; c++) {
		st_compare_case *cs = &mg->cases[c];
		struct pass *p = (struct pass *)cs->state;

		if (cs->n_bad)
			qsort(cs->bad, cs->n_bad, sizeof(*cs->bad), compare_cmp_bad);
		while (cs->n_bad > max_bad)
			free(cs->bad[--cs->n_bad].why);
		for (size_t i = 0; i < mg->m.n; i++)
			if (compare_reduce_metric(p, i, &cs->res[i]) < 0)
				return OOM(err);
		cs->saturated = p->sat;
	}
	return 0;
}

void st_compare_merge_release(st_compare_merge *mg)
{
	if (!mg)
		return;
	for (size_t c = 0; c < mg->n; c++) {
		free((char *)mg->cases[c].name);
		st_compare_case_release(&mg->cases[c]);
	}
	free(mg->cases);
	for (size_t k = 0; k < mg->n_paths; k++)
		free(mg->paths[k]);
	free(mg->paths);
	free(mg->metrics_text);
	free(mg->first);
	st_metrics_release(&mg->m);
	memset(mg, 0, sizeof(*mg));
}
