/* savetimes.c - save_time_stats.csv from save_times.json (savetimes.h). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/num.h"
#include "streamtime/savetimes.h"
#include "streamtime/stats.h"

static const st_save_rule paper_rules[] = {
	{ { 14, 29 }, false, { 128, 256, 512, 1024 }, 4 },
	{ { 93, 96 }, true, { 128, 256, 512, 1024 }, 4 },
};

const st_save_rule *st_save_rules_paper(size_t *n)
{
	*n = sizeof(paper_rules) / sizeof(paper_rules[0]);
	return paper_rules;
}

int st_save_rule_find(const st_save_rule *rules, size_t n, int64_t scan,
		      int64_t *size, bool *blank)
{
	for (size_t i = 0; i < n; i++) {
		const st_save_rule *r = &rules[i];

		if (scan < r->scans.first || scan > r->scans.last || !r->nsizes)
			continue;
		/* scan - first cannot overflow: first <= scan */
		*size = r->sizes[(uint64_t)(scan - r->scans.first) % r->nsizes];
		*blank = r->blank;
		return 0;
	}
	return -1;
}

/* The three timed quantities of a record, in the CSV's column order. */
static const char *const fields[3] = { "total_time", "count_time",
				       "save_time" };

/* One (size, type) group: its values of each field. */
struct group {
	int64_t size;
	bool blank;
	double *v[3];
	size_t n, cap;
};

struct groups {
	struct group *g;
	size_t n, cap;
};

static void groups_release(struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		for (int f = 0; f < 3; f++)
			free(gs->g[i].v[f]);
	free(gs->g);
}

static struct group *group_get(struct groups *gs, int64_t size, bool blank)
{
	struct group *g;

	for (size_t i = 0; i < gs->n; i++)
		if (gs->g[i].size == size && gs->g[i].blank == blank)
			return &gs->g[i];
	if (gs->n == gs->cap) {
		size_t nc = gs->cap ? gs->cap * 2 : 8;
		struct group *ng = realloc(gs->g, nc * sizeof(*ng));

		if (!ng)
			return NULL;
		gs->g = ng;
		gs->cap = nc;
	}
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	g->size = size;
	g->blank = blank;
	return g;
}

static int group_add(struct group *g, const double vals[3])
{
	if (g->n == g->cap) {
		size_t nc = g->cap ? g->cap * 2 : 16;

		for (int f = 0; f < 3; f++) {
			double *nv = realloc(g->v[f], nc * sizeof(*nv));

			if (!nv)
				return -1;
			g->v[f] = nv;
		}
		g->cap = nc;
	}
	for (int f = 0; f < 3; f++)
		g->v[f][g->n] = vals[f];
	g->n++;
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return (int)x->blank - (int)y->blank;
}

/* The scan number a key of save_times.json names: digits, zero-padded as
 * the counting jobs write them ("00014").  0, or -1. */
static int scan_of_key(const char *key, int64_t *scan)
{
	if (!*key || strspn(key, "0123456789") != strlen(key))
		return -1;
	return st_num_parse_int(key, scan);
}

/* Fill GS from the records of ROOT. */
static int read_records(json_t *root, const char *path,
			const st_save_rule *rules, size_t nrules,
			struct groups *gs, st_save_stats_info *info,
			st_error *err)
{
	const char *key;
	json_t *list;

	json_object_foreach(root, key, list) {
		int64_t scan, size;
		bool blank;
		struct group *g;

		if (scan_of_key(key, &scan) < 0)
			return st_error_set(err, ST_EXIT_DATAERR, "%s: key \"%s\" "
					    "is not a scan number", path, key);
		if (!json_is_array(list))
			return st_error_set(err, ST_EXIT_DATAERR, "%s: \"%s\" "
					    "must be an array of records", path,
					    key);
		if (st_save_rule_find(rules, nrules, scan, &size, &blank) < 0) {
			if (!info->unmapped++)
				info->first_unmapped = scan;
			continue;
		}
		g = group_get(gs, size, blank);
		if (!g)
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		for (size_t i = 0; i < json_array_size(list); i++) {
			json_t *rec = json_array_get(list, i);
			double vals[3];

			if (!json_is_object(rec))
				return st_error_set(err, ST_EXIT_DATAERR, "%s: "
						    "\"%s\"[%zu] is not an object",
						    path, key, i);
			for (int f = 0; f < 3; f++) {
				json_t *v = json_object_get(rec, fields[f]);

				if (!json_is_number(v) ||
				    !isfinite(json_number_value(v)))
					return st_error_set(err, ST_EXIT_DATAERR,
						"%s: \"%s\"[%zu]: '%s' is %s", path,
						key, i, fields[f], v ? "not a "
						"finite number" : "missing");
				vals[f] = json_number_value(v);
			}
			if (group_add(g, vals) < 0)
				return st_error_set(err, ST_EXIT_IOERR,
						    "out of memory");
			info->records++;
		}
	}
	return 0;
}

static int write_stats(FILE *out, const struct groups *gs)
{
	if (fputs(ST_SAVE_STATS_HEADER, out) == EOF)
		return -1;
	for (size_t i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];
		st_summary s[3];

		for (int f = 0; f < 3; f++)
			if (st_stats_summarize(g->v[f], g->n, &s[f]) < 0)
				return -1;
		/* the mean row, then the std row (empty cells for one record,
		 * as pandas writes them) */
		for (int std = 0; std < 2; std++) {
			char b[3][32];

			for (int f = 0; f < 3; f++)
				st_num_format_cell(std ? s[f].std : s[f].mean,
						   b[f], sizeof(b[f]));
			if (fprintf(out, "%" PRId64 ",%s,%s,%s,%s,%s\n", g->size,
				    g->blank ? "Blank" : "Real",
				    std ? "std" : "mean", b[0], b[1], b[2]) < 0)
				return -1;
		}
	}
	return 0;
}

int st_save_stats_write(const char *path, const st_save_rule *rules,
			size_t nrules, FILE *out, st_save_stats_info *info,
			st_error *err)
{
	st_save_stats_info dummy;
	struct groups gs = { 0 };
	json_error_t jerr;
	json_t *root;
	FILE *f;
	int rc = -1;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	f = fopen(path, "r");
	if (!f)
		return st_error_set(err, errno == ENOENT ? ST_EXIT_NOINPUT :
				    ST_EXIT_IOERR, "cannot open %s: %s", path,
				    strerror(errno));
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!root)
		return st_error_set(err, ST_EXIT_DATAERR, "%s:%d: %s", path,
				    jerr.line, jerr.text);
	if (!json_is_object(root)) {
		st_error_set(err, ST_EXIT_DATAERR, "%s: expected an object of "
			     "scans, {\"00014\": [records], ...}", path);
		goto out;
	}
	if (read_records(root, path, rules, nrules, &gs, info, err) < 0)
		goto out;
	if (!info->records) {
		st_error_set(err, ST_EXIT_DATAERR, "%s: no record of a scan the "
			     "save-time map holds (%zu scans, none mapped to a "
			     "size)", path, info->unmapped);
		goto out;
	}
	if (gs.n)
		qsort(gs.g, gs.n, sizeof(*gs.g), cmp_group);
	info->groups = gs.n;
	if (write_stats(out, &gs) < 0) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write the save-time "
			     "statistics: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	groups_release(&gs);
	return rc;
}
