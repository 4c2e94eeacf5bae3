/* trace_render.c - `trace summary`'s output as text and JSON (trace_render.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/text.h"
#include "streamtime/time.h"
#include "streamtime/trace_render.h"

json_t *st_trace_name_json(const char *s, size_t len, json_t *hex)
{
	bool utf8 = st_utf8_valid(s, len);
	char *t = utf8 ? NULL : malloc(ST_TEXT_GROWTH * len + 1);
	json_t *v;

	if (!utf8 && !t)
		return NULL;
	v = utf8 ? json_stringn(s, len)
		 : json_stringn(t, st_text_escape(t, s, len, 0));
	if (v && hex) {
		free(t);
		if (!(t = malloc(2 * len + 1))) {
			json_decref(v);
			return NULL;
		}
		st_text_hex(t, s, len);
		json_array_append_new(hex, json_string(t));
	}
	free(t);
	return v;
}

static json_t *stat_json(const st_trace_stat *st, bool bytes)
{
	json_t *o = json_pack("{s:I, s:I}", "count", (json_int_t)st->count,
			      "dur_us", (json_int_t)st->dur_us);

	if (o && bytes)
		json_object_set_new(o, "bytes", json_integer(st->bytes));
	return o;
}

/* A group: its stats, keys (and "keys_hex", every value's bytes, when a
 * value is not UTF-8) and per-unit maxima (max_process_dur_us as well
 * when the unit is the process, as before --per). */
static json_t *group_json(const st_trace_stat *st, bool per_pid)
{
	json_t *o = stat_json(st, true), *k = json_array(), *h = NULL;
	bool utf8 = true;
	size_t n = 0;

	for (; st->keys[n]; n++)
		utf8 = utf8 && st_utf8_valid(st->keys[n], st->key_lens[n]);
	if (!utf8)
		h = json_array();
	for (size_t i = 0; k && i < n; i++)
		json_array_append_new(k, st_trace_name_json(st->keys[i],
						   st->key_lens[i], h));
	if (!o || !k || json_array_size(k) != n || (!utf8 && (!h ||
	    json_array_size(h) != n))) {
		json_decref(o);
		json_decref(k);
		json_decref(h);
		return NULL;
	}
	json_object_set_new(o, "keys", k);
	if (h)
		json_object_set_new(o, "keys_hex", h);
	if (per_pid)
		json_object_set_new(o, "max_process_dur_us",
				    json_integer(st->max_proc_dur_us));
	json_object_set_new(o, "max_per_dur_us",
			    json_integer(st->max_proc_dur_us));
	json_object_set_new(o, "max_per_dur_key", st->max_dur_key ?
			    json_string(st->max_dur_key) : json_null());
	json_object_set_new(o, "max_per_bytes",
			    json_integer(st->max_per_bytes));
	json_object_set_new(o, "max_per_bytes_key", st->max_bytes_key ?
			    json_string(st->max_bytes_key) : json_null());
	return o;
}

json_t *st_trace_summary_json(const st_trace_summary *s,
			      const st_trace_render *r)
{
	const char *group = r->group, *per = r->per ? r->per : "pid";
	int64_t gran = r->o->granularity_us;
	json_t *root = json_object(), *cat = json_object(),
	       *name = json_object();

	if (!root || !cat || !name)
		goto fail;
	json_object_set_new(root, "events", json_integer((json_int_t)s->events));
	json_object_set_new(root, "bad_lines",
			    json_integer((json_int_t)s->bad_lines));
	json_object_set_new(root, "hosts", json_integer((json_int_t)s->hosts));
	json_object_set_new(root, "processes",
			    json_integer((json_int_t)s->processes));
	json_object_set_new(root, "threads", json_integer((json_int_t)s->threads));
	json_object_set_new(root, "files", json_integer((json_int_t)s->files));
	json_object_set_new(root, "span_us",
			    json_integer(s->end_us - s->first_us));
	for (size_t i = 0; i < s->n_cat; i++)
		json_object_set_new(cat, s->by_cat[i].key,
				    stat_json(&s->by_cat[i], false));
	for (size_t i = 0; i < s->n_name; i++)
		json_object_set_new(name, s->by_name[i].key,
				    stat_json(&s->by_name[i], true));
	json_object_set_new(root, "by_cat", cat);
	json_object_set_new(root, "by_name", name);
	json_object_set_new(root, "io_us", json_integer(s->io_us));
	json_object_set_new(root, "compute_us", json_integer(s->compute_us));
	json_object_set_new(root, "io_unoverlapped_us",
			    json_integer(s->io_unoverlapped_us));
	json_object_set_new(root, "compute_unoverlapped_us",
			    json_integer(s->compute_unoverlapped_us));
	if (group) {
		json_t *g = json_object();

		for (size_t i = 0; g && i < s->n_groups; i++)
			json_object_set_new(g, s->groups[i].key,
					    group_json(&s->groups[i],
						       strcmp(per, "pid") == 0));
		json_object_set_new(root, "group_by", json_string(group));
		json_object_set_new(root, "per", json_string(per));
		json_object_set_new(root, "groups", g);
	}
	if (gran > 0) {
		json_t *bins = json_array();

		for (size_t i = 0; bins && i < s->n_bins; i++) {
			const st_trace_bin *b = &s->bins[i];

			json_array_append_new(bins, json_pack(
				"{s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
				"start_us", (json_int_t)b->start_us,
				"events", (json_int_t)b->events,
				"bytes", (json_int_t)b->bytes,
				"bytes_read", (json_int_t)b->bytes_read,
				"bytes_written", (json_int_t)b->bytes_written,
				"io_us", (json_int_t)b->io_us,
				"compute_us", (json_int_t)b->compute_us));
		}
		json_object_set_new(root, "time_granularity_us",
				    json_integer(gran));
		json_object_set_new(root, "bins", bins);
	}
	return root;
fail:
	json_decref(root);
	json_decref(cat);
	json_decref(name);
	return NULL;
}

static void secs(char *buf, size_t size, int64_t us)
{
	snprintf(buf, size, "%s%" PRId64 ".%06" PRId64, us < 0 ? "-" : "",
		 (us < 0 ? -us : us) / 1000000, (us < 0 ? -us : us) % 1000000);
}

/* Stats sorted by dur, largest first (ties by key). */
static int cmp_dur(const void *x, const void *y)
{
	const st_trace_stat *a = *(const st_trace_stat *const *)x;
	const st_trace_stat *b = *(const st_trace_stat *const *)y;

	if (a->dur_us != b->dur_us)
		return a->dur_us > b->dur_us ? -1 : 1;
	return strcmp(a->key, b->key);
}

static const st_trace_stat **by_dur(const st_trace_stat *v, size_t n)
{
	const st_trace_stat **p = malloc((n + 1) * sizeof(*p));

	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++)
		p[i] = &v[i];
	qsort(p, n, sizeof(*p), cmp_dur);
	return p;
}

static int key_width(const st_trace_stat *v, size_t n, int min)
{
	int w = min;

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(v[i].key) > w)
			w = (int)strlen(v[i].key);
	return w > 60 ? 60 : w;
}

static void list_text(const char *const *v, size_t n, char *buf, size_t size,
		      const char *dflt)
{
	size_t k = 0;

	buf[0] = '\0';
	if (!v) {
		snprintf(buf, size, "%s", dflt);
		return;
	}
	for (size_t i = 0; i < n && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? "," : "",
				      v[i]);
	if (!n)
		snprintf(buf, size, "none");
}

/* A quartile of bytes: whole, or with the two decimals that a quarter
 * needs (interpolation at (n-1)p, p a multiple of 1/4). */
static void quartile_text(char *buf, size_t size, double q)
{
	snprintf(buf, size, q == floor(q) ? "%.0f" : "%.2f", q);
}

/* The lines above the tables: counts, span, I/O and compute. */
static void head_text(FILE *f, const st_trace_summary *s,
		      const st_trace_opts *o)
{
	char a[40], b[40], c[40], t0[48], t1[48], io[256], comp[256];

	list_text(o->io_cats, o->n_io, io, sizeof(io), "POSIX,STDIO");
	list_text(o->compute_cats, o->n_compute, comp, sizeof(comp), "compute");
	fprintf(f, "inputs      %zu (%" PRIu64 " corrupt lines skipped)\n",
		s->n_files, s->bad_lines);
	fprintf(f, "events      %" PRIu64 "\nhosts       %" PRIu64 "\n"
		"processes   %" PRIu64 "\nthreads     %" PRIu64 "\n"
		"files       %" PRIu64 "\n", s->events, s->hosts, s->processes,
		s->threads, s->files);
	secs(a, sizeof(a), s->end_us - s->first_us);
	if (s->events) {
		st_time_format_utc(s->first_us * 1000, t0, sizeof(t0));
		st_time_format_utc(s->end_us * 1000, t1, sizeof(t1));
		fprintf(f, "span        %s s (%s to %s)\n", a, t0, t1);
	} else {
		fprintf(f, "span        0 s\n");
	}
	secs(a, sizeof(a), s->io_us);
	secs(b, sizeof(b), s->io_unoverlapped_us);
	secs(c, sizeof(c), s->io_max_us);
	fprintf(f, "I/O         %s s, not overlapped by compute %s s, largest "
		"process %s s  [%s]\n", a, b, c, io);
	secs(a, sizeof(a), s->compute_us);
	secs(b, sizeof(b), s->compute_unoverlapped_us);
	secs(c, sizeof(c), s->compute_max_us);
	fprintf(f, "compute     %s s, not overlapped by I/O %s s, largest "
		"process %s s  [%s]\n", a, b, c, comp);
	fprintf(f, "            (time summed over processes; each process's "
		"events as a union of intervals)\n");
}

/* The tables of categories and functions.  0, or -1 out of memory. */
static int stats_text(FILE *f, const st_trace_summary *s)
{
	char a[40], b[40], c[40];
	const st_trace_stat **p;
	int w = key_width(s->by_cat, s->n_cat, 8);

	fprintf(f, "\n%-*s %12s %16s\n", w, "category", "events", "dur (s)");
	if (!(p = by_dur(s->by_cat, s->n_cat)))
		return -1;
	for (size_t i = 0; i < s->n_cat; i++) {
		secs(a, sizeof(a), p[i]->dur_us);
		fprintf(f, "%-*s %12" PRIu64 " %16s\n", w, p[i]->key,
			p[i]->count, a);
	}
	free(p);

	w = key_width(s->by_name, s->n_name, 8);
	fprintf(f, "\n%-*s %12s %16s %16s  %s\n", w, "function", "events",
		"dur (s)", "bytes", "bytes per call: q1 / median / q3");
	if (!(p = by_dur(s->by_name, s->n_name)))
		return -1;
	for (size_t i = 0; i < s->n_name; i++) {
		secs(a, sizeof(a), p[i]->dur_us);
		fprintf(f, "%-*s %12" PRIu64 " %16s %16" PRId64, w, p[i]->key,
			p[i]->count, a, p[i]->bytes);
		if (p[i]->sized) {
			quartile_text(a, sizeof(a), p[i]->q1);
			quartile_text(b, sizeof(b), p[i]->median);
			quartile_text(c, sizeof(c), p[i]->q3);
			fprintf(f, "  %s / %s / %s (%" PRIu64 " calls)", a, b,
				c, p[i]->sized);
		}
		fputc('\n', f);
	}
	free(p);
	return 0;
}

/* The groups' table, GROUP and PER its keys as given.  0, or -1 out of
 * memory. */
static int groups_text(FILE *f, const st_trace_summary *s, const char *group,
		       const char *per)
{
	char a[40], b[40], hd[64], hb[64];
	const st_trace_stat **p;
	int w = key_width(s->groups, s->n_groups, 8);

	snprintf(hd, sizeof(hd), "max %s dur (s)", per);
	snprintf(hb, sizeof(hb), "max %s bytes", per);
	fprintf(f, "\n%-*s %12s %16s %16s %20s %20s  %s\n", w, group,
		"events", "dur (s)", "bytes", hd, hb, "its dur's unit");
	if (!(p = by_dur(s->groups, s->n_groups)))
		return -1;
	for (size_t i = 0; i < s->n_groups; i++) {
		secs(a, sizeof(a), p[i]->dur_us);
		secs(b, sizeof(b), p[i]->max_proc_dur_us);
		fprintf(f, "%-*s %12" PRIu64 " %16s %16" PRId64 " %20s "
			"%20" PRId64 "  %s\n", w, p[i]->key, p[i]->count, a,
			p[i]->bytes, b, p[i]->max_per_bytes,
			p[i]->max_dur_key ? p[i]->max_dur_key : "-");
	}
	free(p);
	return 0;
}

int st_trace_summary_text(FILE *f, const st_trace_summary *s,
			  const st_trace_render *r, st_error *err)
{
	char a[40], b[40], t0[48];

	head_text(f, s, r->o);
	if (stats_text(f, s) < 0 || (r->group && groups_text(f, s, r->group,
			       r->per ? r->per : "pid") < 0))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (r->o->granularity_us <= 0)
		return 0;
	fprintf(f, "\n%-32s %12s %16s %16s %16s %16s %16s\n",
		"bin start (UTC)", "events", "bytes", "bytes read",
		"bytes written", "I/O (s)", "compute (s)");
	for (size_t i = 0; i < s->n_bins; i++) {
		const st_trace_bin *bn = &s->bins[i];

		st_time_format_utc(bn->start_us * 1000, t0, sizeof(t0));
		secs(a, sizeof(a), bn->io_us);
		secs(b, sizeof(b), bn->compute_us);
		fprintf(f, "%-32s %12" PRIu64 " %16" PRId64 " %16" PRId64
			" %16" PRId64 " %16s %16s\n", t0, bn->events, bn->bytes,
			bn->bytes_read, bn->bytes_written, a, b);
	}
	return 0;
}

int st_trace_json_write(FILE *f, json_t *j, const char *what, st_error *err)
{
	int bad = !j || json_dumpf(j, f, JSON_INDENT(2)) < 0 ||
		  fputc('\n', f) == EOF;

	json_decref(j);
	if (bad)
		return st_error_set(err, ST_EXIT_IOERR, "cannot write %s", what);
	return 0;
}
