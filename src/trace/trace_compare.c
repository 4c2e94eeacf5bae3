/* trace_compare.c - `trace compare`: the one pass per case that computes
 * every metric, its per-key sums and their reduction (trace_compare.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/text.h"
#include "streamtime/trace_compare.h"

#include "trace_compare_int.h"

/* ---- per-key sums ---------------------------------------------------- */

static uint64_t comps_hash(const uint64_t *k, size_t w)
{
	uint64_t h = 0x9e3779b97f4a7c15u;

	for (size_t i = 0; i < w; i++) {
		h ^= k[i] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
		h *= 0xff51afd7ed558ccdu;
	}
	return h ^ (h >> 29);
}

static void sums_release(struct sums *s)
{
	free(s->keys);
	free(s->sum);
	free(s->slot);
}

static int sums_rehash(struct sums *s, size_t nslots)
{
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t e = 0; e < s->n; e++) {
		size_t h = comps_hash(s->keys + e * s->w, s->w) & (nslots - 1);

		while (slot[h])
			h = (h + 1) & (nslots - 1);
		slot[h] = (uint32_t)(e + 1);
	}
	free(s->slot);
	s->slot = slot;
	s->mask = nslots - 1;
	return 0;
}

static inline bool comps_eq(const uint64_t *a, const uint64_t *b, size_t w)
{
	for (size_t i = 0; i < w; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

int compare_sums_add(struct sums *s, const uint64_t *k, int64_t v, bool *sat)
{
	size_t h, e;

	if (s->last && comps_eq(s->keys + (s->last - 1) * s->w, k, s->w)) {
		e = s->last - 1;
		goto add;
	}
	if (!s->slot || (s->n + 1) * 2 > s->mask + 1) {
		if (s->n >= UINT32_MAX - 1 ||
		    sums_rehash(s, s->slot ? (s->mask + 1) * 2 : 64) < 0)
			return -1;
	}
	h = comps_hash(k, s->w) & s->mask;
	while (s->slot[h]) {
		e = s->slot[h] - 1;
		if (comps_eq(s->keys + e * s->w, k, s->w))
			goto found;
		h = (h + 1) & s->mask;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t *kv = realloc(s->keys, cap * (s->w ? s->w : 1) *
				       sizeof(*kv));
		int64_t *sv;

		if (!kv)
			return -1;
		s->keys = kv;
		if (!(sv = realloc(s->sum, cap * sizeof(*sv))))
			return -1;
		s->sum = sv;
		s->cap = cap;
	}
	e = s->n++;
	memcpy(s->keys + e * s->w, k, s->w * sizeof(*k));
	s->sum[e] = 0;
	s->slot[h] = (uint32_t)(e + 1);
found:
	s->last = e + 1;
add:
	if (s->sum[e] > INT64_MAX - v) {
		s->sum[e] = INT64_MAX;
		*sat = true;
	} else {
		s->sum[e] += v;
	}
	return 0;
}

/* Reduce S with R into RES. */
static void sums_reduce(const struct sums *s, enum st_metric_reduce r,
			st_metric_result *res, bool *sat)
{
	long double total = 0;
	int64_t v = 0;

	memset(res, 0, sizeof(*res));
	res->keys = s->n;
	if (!s->n)
		return;
	res->has = true;
	v = s->sum[0];
	for (size_t e = 0; e < s->n; e++) {
		int64_t x = s->sum[e];

		total += x;
		if (e == 0)
			continue;
		if (r == ST_REDUCE_MAX && x > v)
			v = x;
		else if (r == ST_REDUCE_MIN && x < v)
			v = x;
		else if (r == ST_REDUCE_SUM || r == ST_REDUCE_MEAN) {
			if (v > INT64_MAX - x) {
				v = INT64_MAX;
				*sat = true;
			} else {
				v += x;
			}
		}
	}
	res->v = v;
	res->mean = (double)(total / (long double)s->n);
}

/* ---- one pass over a case -------------------------------------------- */



/* Make room for reader string id ID in the id maps (new room 0). */
static int pass_room(struct pass *p, uint32_t id)
{
	size_t cap;
	uint32_t *v;

	if (id < p->gcap)
		return 0;
	cap = p->gcap ? p->gcap : 1024;
	while (cap <= id)
		cap *= 2;
	for (size_t d = 0; d <= p->nder; d++) {
		uint32_t **pp = d < p->nder ? &p->der[d].gid : &p->gid;

		if (!(v = realloc(*pp, cap * sizeof(*v))))
			return -1;
		memset(v + p->gcap, 0, (cap - p->gcap) * sizeof(*v));
		*pp = v;
	}
	p->gcap = cap;
	return 0;
}

/* The case-wide id of R's string ID, as a component, into *OUT.  0, -1
 * out of memory. */
static int global_id(struct pass *p, const st_pfw_reader *r, uint32_t id,
		     uint64_t *out)
{
	const char *s;
	size_t len;
	int64_t g;

	if (id == ST_PFW_NONE) {
		*out = COMP_NONE;
		return 0;
	}
	if (!p->gid[id]) {
		s = st_pfw_str(r, id, &len);
		if ((g = st_strtab_intern(&p->tab, s, len, NULL)) < 0)
			return -1;
		p->gid[id] = (uint32_t)g + 1;
	}
	*out = p->gid[id] - 1;
	return 0;
}

/* Derived key D of R's string FILE (an event's file), as a component,
 * into *OUT.  0, -1 out of memory. */
static int derived_id(struct pass *p, struct derived *d,
		      const st_pfw_reader *r, uint32_t file, uint64_t *out)
{
	st_trace_rec e = { 0 };
	size_t n;
	int64_t g;

	*out = COMP_NONE;
	if (file == ST_PFW_NONE)
		return 0;
	if (d->gid[file]) {
		*out = d->gid[file] - 1;
		return 0;
	}
	e.file = st_pfw_str(r, file, &e.file_len);
	if (st_trace_key_text(&d->key, &e, &p->kb, &p->kcap, &n) < 0)
		return -1;
	if (n == ST_TRACE_KEY_NONE)
		return 0;
	if ((g = st_strtab_intern(&p->tab, p->kb, n, NULL)) < 0)
		return -1;
	d->gid[file] = (uint32_t)g + 1;
	*out = (uint64_t)g;
	return 0;
}

/* The phase key of an event of case C that starts at TS (the innermost
 * phase of C's sets there, trace_phase_seg), as a component, into *OUT.
 * 0, -1 out of memory. */
static int phase_id(struct pass *p, const st_compare_case *c, int64_t ts,
		    uint64_t *out)
{
	uint32_t s;
	const char *name;
	int64_t g;

	*out = COMP_NONE;
	if (!c->seg_phase || !c->nseg)
		return 0;
	s = trace_phase_seg(c->seg_us, c->nseg, ts);
	if (!s || !(name = c->seg_phase[s - 1]))
		return 0;
	if (!p->phid && !(p->phid = calloc(c->nseg + 1, sizeof(*p->phid))))
		return -1;
	if (!p->phid[s]) {
		if ((g = st_strtab_intern(&p->tab, name, strlen(name),
					  NULL)) < 0)
			return -1;
		p->phid[s] = (uint32_t)g + 1;
	}
	*out = p->phid[s] - 1;
	return 0;
}

static bool is_derived(enum st_trace_key_kind k)
{
	return k == ST_TRACE_KEY_BASENAME || k == ST_TRACE_KEY_PATTERN ||
	       k == ST_TRACE_KEY_PREFIX;
}

static size_t key_width(const st_trace_keys *k)
{
	size_t w = 0;

	for (size_t i = 0; i < k->n; i++)
		w += k->v[i].kind == ST_TRACE_KEY_THREAD ? 3 :
		     k->v[i].kind == ST_TRACE_KEY_PID ? 2 : 1;
	return w;
}

/* Do filters A and B have the same terms, in the same order? */
static bool filter_same(const st_trace_filter *a, const st_trace_filter *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const st_trace_term *x = &a->v[i], *y = &b->v[i];

		if (x->field != y->field || x->op != y->op ||
		    x->neg != y->neg || x->num != y->num ||
		    !x->value != !y->value ||
		    (x->value && strcmp(x->value, y->value) != 0))
			return false;
	}
	return true;
}

/* The metrics' filters into P's sets, a filter the same as an earlier
 * metric's sharing its number.  0, -1 out of memory. */
static int pass_filters(struct pass *p, const st_metrics *m)
{
	size_t nf = 0;
	/* per metric: its filter's number in the sets, -1 no filter */
	int *fbit = malloc(m->n * sizeof(*fbit));
	int ret = -1;

	if (!fbit)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		size_t j;

		fbit[i] = -1;
		if (!m->v[i].filter.n)
			continue;
		for (j = 0; j < i; j++)
			if (fbit[j] >= 0 &&
			    filter_same(&m->v[j].filter, &m->v[i].filter))
				break;
		fbit[i] = j < i ? fbit[j] : (int)nf++;
	}
	p->mw = (m->n + 63) / 64;
	if (!(p->m_all = calloc(p->mw, sizeof(uint64_t))) ||
	    !(p->m_ev = calloc(p->mw, sizeof(uint64_t))) ||
	    (nf && !(p->m_of = calloc(nf * p->mw, sizeof(uint64_t)))))
		goto out;
	p->nfs = (nf + ST_TRACE_FSET_MAX - 1) / ST_TRACE_FSET_MAX;
	if (p->nfs && !(p->fs = calloc(p->nfs, sizeof(*p->fs)))) {
		p->nfs = 0;
		goto out;
	}
	for (size_t i = 0; i < m->n; i++) {
		int b = fbit[i];
		uint64_t bit = UINT64_C(1) << (i % 64);

		if (b < 0) {
			p->m_all[i / 64] |= bit;
			continue;
		}
		p->m_of[(size_t)b * p->mw + i / 64] |= bit;
		if ((size_t)b % ST_TRACE_FSET_MAX ==
		    p->fs[b / ST_TRACE_FSET_MAX].n)
			st_trace_fset_add(&p->fs[b / ST_TRACE_FSET_MAX],
					  &m->v[i].filter);
	}
	ret = 0;
out:
	free(fbit);
	return ret;
}

int compare_pass_init(struct pass *p, const st_metrics *m)
{
	memset(p, 0, sizeof(*p));
	p->m = m;
	st_strtab_init(&p->tab);
	if (!(p->sums = calloc(m->n, sizeof(*p->sums))) ||
	    !(p->dslot = calloc(m->n * ST_TRACE_KEYS_MAX, 1)) ||
	    !(p->cstr = calloc(m->n, sizeof(*p->cstr))) ||
	    !(p->keys = calloc(m->n, sizeof(*p->keys))) ||
	    pass_filters(p, m) < 0)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		st_trace_keys *k = &p->keys[i];
		size_t w = 0;

		*k = m->v[i].by;
		memcpy(k->v + k->n, m->v[i].per.v,
		       m->v[i].per.n * sizeof(*k->v));
		k->n += m->v[i].per.n;

		p->sums[i].w = key_width(k);
		for (size_t j = 0; j < k->n; j++) {
			enum st_trace_key_kind kind = k->v[j].kind;
			size_t d;

			p->cstr[i][w++] = true;
			if (kind == ST_TRACE_KEY_PID ||
			    kind == ST_TRACE_KEY_THREAD)
				w++;
			if (kind == ST_TRACE_KEY_THREAD)
				w++;

			if (!is_derived(k->v[j].kind))
				continue;
			for (d = 0; d < p->nder; d++)
				if (p->der[d].key.kind == k->v[j].kind &&
				    p->der[d].key.depth == k->v[j].depth)
					break;
			if (d == p->nder)
				p->der[p->nder++].key = k->v[j];
			p->dslot[i * ST_TRACE_KEYS_MAX + j] = (uint8_t)(d + 1);
		}
	}
	for (size_t i = 0; i < m->n; i++) {
		st_error e;

		if (!m->v[i].events)
			continue;
		if ((!p->rows && (!(p->rows = calloc(m->n, sizeof(*p->rows))) ||
				  !(p->cur = calloc(m->n, sizeof(*p->cur))) ||
				  !(p->tmp = calloc(m->n, sizeof(*p->tmp))) ||
				  !(p->tmp_at = calloc(m->n,
						       sizeof(*p->tmp_at))))) ||
		    st_trace_rows_new(&p->rows[i], m->v[i].format,
				      &m->v[i].cols, &e) < 0)
			return -1;
	}
	return 0;
}

void compare_pass_release(struct pass *p)
{
	for (size_t i = 0; p->m && i < p->m->n; i++) {
		if (p->sums)
			sums_release(&p->sums[i]);
	}
	for (size_t i = 0; i < p->nfs; i++)
		st_trace_fset_release(&p->fs[i]);
	free(p->fs);
	free(p->sums);
	free(p->dslot);
	free(p->phid);
	free(p->phases);
	free(p->cstr);
	free(p->keys);
	free(p->m_all);
	free(p->m_of);
	free(p->m_ev);
	for (size_t i = 0; p->rows && i < p->m->n; i++)
		st_trace_rows_free(p->rows[i]);
	free(p->rows);
	free(p->cur);
	for (size_t i = 0; p->tmp && i < p->m->n; i++)
		if (p->tmp[i])
			fclose(p->tmp[i]);
	free(p->tmp);
	free(p->tmp_at);
	st_trace_inputs_free(NULL, 0, p->bad, p->n_bad);
	free(p->gid);
	for (size_t d = 0; d < p->nder; d++)
		free(p->der[d].gid);
	free(p->kb);
	st_strtab_release(&p->tab);
}

/* Append S[0..LEN) to *B (*N bytes of *CAP) as its escaped text
 * (text.h; FLAGS).  0, -1 out of memory. */
static int show_put(char **b, size_t *n, size_t *cap, const char *s,
		    size_t len, unsigned flags)
{
	if (len > (SIZE_MAX - *n - 1) / ST_TEXT_GROWTH ||
	    st_grow(b, cap, *n + ST_TEXT_GROWTH * len + 1, 1, 64) < 0)
		return -1;
	*n += st_text_escape(*b + *n, s, len, flags);
	(*b)[*n] = 0;
	return 0;
}

/* The by key K (its components) of metric I of P as shown (see
 * trace_compare.h), into *OUT (allocated).  0, -1 out of memory. */
static int show_key(const struct pass *p, size_t i, const uint64_t *k,
		    char **out)
{
	const st_trace_keys *by = &p->m->v[i].by;
	unsigned esc = by->n > 1 ? ST_TEXT_COMMA : 0;
	char *b = NULL, num[48];
	size_t n = 0, cap = 0, c = 0;
	int rc = show_put(&b, &n, &cap, "", 0, 0);

	for (size_t j = 0; rc == 0 && j < by->n; j++) {
		enum st_trace_key_kind kind = by->v[j].kind;
		const char *str = "(none)";
		size_t len = 6;

		if (j)
			rc = show_put(&b, &n, &cap, ",", 1, 0);
		if (kind == ST_TRACE_KEY_PID || kind == ST_TRACE_KEY_THREAD) {
			str = "?";
			len = 1;
		}
		if (k[c] != COMP_NONE)
			str = st_strtab_str(&p->tab, (uint32_t)k[c], &len);
		c++;
		if (rc == 0)
			rc = show_put(&b, &n, &cap, str, len, esc);
		if (kind == ST_TRACE_KEY_PID)
			len = (size_t)snprintf(num, sizeof(num), ":%" PRId64,
					       (int64_t)k[c]);
		else if (kind == ST_TRACE_KEY_THREAD)
			len = (size_t)snprintf(num, sizeof(num), ":%" PRId64
					       ":%" PRId64, (int64_t)k[c],
					       (int64_t)k[c + 1]);
		else
			continue;
		c += kind == ST_TRACE_KEY_THREAD ? 2 : 1;
		if (rc == 0)
			rc = show_put(&b, &n, &cap, num, len, 0);
	}
	if (rc < 0) {
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

static int cmp_row(const void *x, const void *y)
{
	return strcmp(((const st_metric_row *)x)->key,
		      ((const st_metric_row *)y)->key);
}

int compare_reduce_metric(struct pass *p, size_t i, st_metric_result *res)
{
	const st_metric *m = &p->m->v[i];
	const struct sums *s = &p->sums[i];
	struct sums g = { .w = key_width(&m->by) }, part = { 0 };
	size_t *grp = NULL, *at = NULL;
	int64_t *perm = NULL;
	bool sat = false;
	int ret = -1;

	if (!m->by.n) {
		sums_reduce(s, m->reduce, res, &p->sat);
		return 0;
	}
	memset(res, 0, sizeof(*res));
	res->keys = s->n;
	if (!s->n)
		return 0;
	if (!(grp = malloc(s->n * sizeof(*grp))) ||
	    !(perm = malloc(s->n * sizeof(*perm))))
		goto out;
	for (size_t e = 0; e < s->n; e++) {
		if (compare_sums_add(&g, s->keys + e * s->w, 0, &sat) < 0)
			goto out;
		grp[e] = g.last - 1;
	}
	if (!(at = calloc(g.n + 1, sizeof(*at))) ||
	    !(res->rows = calloc(g.n, sizeof(*res->rows))))
		goto out;
	for (size_t e = 0; e < s->n; e++)
		at[grp[e] + 1]++;
	for (size_t j = 0; j < g.n; j++)
		at[j + 1] += at[j];
	for (size_t e = 0; e < s->n; e++)
		perm[at[grp[e]]++] = s->sum[e];
	for (size_t j = g.n; j > 0; j--)
		at[j] = at[j - 1];
	at[0] = 0;
	for (size_t j = 0; j < g.n; j++) {
		part.n = at[j + 1] - at[j];
		part.sum = perm + at[j];
		sums_reduce(&part, m->reduce, &res->rows[j].r, &p->sat);
		if (show_key(p, i, g.keys + j * g.w, &res->rows[j].key) < 0)
			goto out;
		res->n_rows = j + 1;
	}
	qsort(res->rows, res->n_rows, sizeof(*res->rows), cmp_row);
	res->has = true;
	ret = 0;
out:
	sums_release(&g);
	free(grp);
	free(at);
	free(perm);
	return ret;
}

/* A new reader: forget the old one's ids. */
static void pass_reader(struct pass *p)
{
	if (p->gid)
		memset(p->gid, 0, p->gcap * sizeof(*p->gid));
	for (size_t d = 0; d < p->nder; d++)
		if (p->der[d].gid)
			memset(p->der[d].gid, 0, p->gcap * sizeof(uint32_t));
	for (size_t i = 0; i < p->nfs; i++)
		st_trace_fset_reader(&p->fs[i]);
	for (size_t i = 0; i < p->m->n; i++) {
		p->sums[i].last = 0;
		if (p->rows && p->rows[i])
			st_trace_rows_reader(p->rows[i]);
	}
}

/* EV of R as a row of events metric I, to p->cur[i] or a temporary
 * file made for it.  0, -1 (p->row_err says why). */
static int put_row(struct pass *p, size_t i, const st_pfw_reader *r,
		   const st_pfw_event *ev)
{
	int rc;

	p->row_metric = i;
	if (!p->cur[i]) {
		off_t at;

		if ((!p->tmp[i] && !(p->tmp[i] = tmpfile())) ||
		    (at = ftello(p->tmp[i])) < 0) {
			p->row_err = -2;
			p->row_errno = errno;
			return -1;
		}
		p->tmp_at[i] = (uint64_t)at;
		p->cur[i] = p->tmp[i];
		st_trace_rows_out(p->rows[i], p->cur[i]);
	}
	if ((rc = st_trace_rows_put(p->rows[i], r, ev)) < 0) {
		p->row_err = rc;
		p->row_errno = errno;
		return -1;
	}
	return 0;
}

/* EV of R, an input of case C, into every metric whose filter keeps
 * it.  0, -1 out of memory or (p->row_err) an events row not written. */
static int pass_event(struct pass *p, const st_compare_case *c,
		      const st_pfw_reader *r, const st_pfw_event *ev)
{
	uint32_t top = ev->name;
	uint64_t k[MAX_COMPS];

	if (ev->cat > top)
		top = ev->cat;
	if (ev->host != ST_PFW_NONE && ev->host > top)
		top = ev->host;
	if (ev->file != ST_PFW_NONE && ev->file > top)
		top = ev->file;
	if (pass_room(p, top) < 0)
		return -1;
	memcpy(p->m_ev, p->m_all, p->mw * sizeof(*p->m_ev));
	for (size_t f = 0; f < p->nfs; f++) {
		uint64_t b;

		/* a regular expression's failure stops the pass as
		 * memory running out does (74) */
		if (st_trace_fset_eval(&p->fs[f], r, ev, &b, NULL) < 0)
			return -1;
		for (; b; b &= b - 1) {
			const uint64_t *of = p->m_of + (f * ST_TRACE_FSET_MAX +
				(size_t)__builtin_ctzll(b)) * p->mw;

			for (size_t w = 0; w < p->mw; w++)
				p->m_ev[w] |= of[w];
		}
	}
	for (size_t mi = 0; mi < p->mw * 64; mi += 64)
	for (uint64_t bits = p->m_ev[mi / 64]; bits; bits &= bits - 1) {
		size_t i = mi + (size_t)__builtin_ctzll(bits);
		const st_metric *m = &p->m->v[i];
		size_t w = 0;
		int64_t v;

		if (m->events && put_row(p, i, r, ev) < 0)
			return -1;
		for (size_t j = 0; j < p->keys[i].n; j++) {
			const st_trace_key *key = &p->keys[i].v[j];
			uint8_t d = p->dslot[i * ST_TRACE_KEYS_MAX + j];
			int rc = 0;

			switch (key->kind) {
			case ST_TRACE_KEY_THREAD:
			case ST_TRACE_KEY_PID:
			case ST_TRACE_KEY_HOST:
				rc = global_id(p, r, ev->host, &k[w++]);
				if (key->kind != ST_TRACE_KEY_HOST)
					k[w++] = (uint64_t)ev->pid;
				if (key->kind == ST_TRACE_KEY_THREAD)
					k[w++] = (uint64_t)ev->tid;
				break;
			case ST_TRACE_KEY_NAME:
				rc = global_id(p, r, ev->name, &k[w++]);
				break;
			case ST_TRACE_KEY_CAT:
				rc = global_id(p, r, ev->cat, &k[w++]);
				break;
			case ST_TRACE_KEY_FILE:
				rc = global_id(p, r, ev->file, &k[w++]);
				break;
			case ST_TRACE_KEY_PHASE:
				rc = phase_id(p, c, ev->ts, &k[w++]);
				break;
			default:
				rc = derived_id(p, &p->der[d - 1], r, ev->file,
						&k[w++]);
				break;
			}
			if (rc < 0)
				return -1;
		}
		v = m->value == ST_METRIC_DUR ? ev->dur :
		    m->value == ST_METRIC_COUNT ? 1 :
		    ev->bytes > 0 ? ev->bytes : 0;
		if (compare_sums_add(&p->sums[i], k, v, &p->sat) < 0)
			return -1;
	}
	return 0;
}

/* Read input FI of C to its end into P.  0, or -1 out of memory. */
static int read_one(struct pass *p, st_compare_case *c, size_t fi,
		    const st_compare_opts *o)
{
	st_trace_file *tf = &c->files_in[fi];
	const char *path = c->paths[fi];
	st_pfw_reader *r;
	st_pfw_event ev;
	st_error rerr;
	uint64_t seen = 0, tick = 0;
	int rc, ret = 0;
	bool oom = false;

	if (!(r = st_trace_input_open(tf, path, c->src, &oom)))
		return oom ? -1 : 0;
	pass_reader(p);
	while ((rc = st_pfw_next(r, &ev, &rerr)) > 0) {
		if (rc == ST_PFW_BAD) {
			if ((ret = st_trace_bad_keep(&p->bad, &p->n_bad,
						     &p->bad_lines, o->max_bad,
						     fi, r)) < 0)
				break;
			continue;
		}
		p->events++;
		if ((ret = pass_event(p, c, r, &ev)) < 0)
			break;
		if ((++tick & 8191) == 0)
			trace_progress_add(o->progress, &seen, r, NULL);
	}
	if (st_trace_input_close(tf, r, rc, &rerr, ret == 0, o->progress,
				 seen) < 0)
		ret = -1;
	return ret;
}

/* Add what SRC gathered (another thread's pass over other files of the
 * same case) into DST: its keys' strings re-interned into DST's table.
 * 0, or -1 out of memory. */
static int pass_merge(struct pass *dst, const struct pass *src)
{
	uint64_t k[MAX_COMPS];

	for (size_t i = 0; i < dst->m->n; i++) {
		const struct sums *s = &src->sums[i];

		for (size_t e = 0; e < s->n; e++) {
			memcpy(k, s->keys + e * s->w, s->w * sizeof(*k));
			for (size_t j = 0; j < s->w; j++) {
				const char *str;
				size_t len;
				int64_t g;

				if (!dst->cstr[i][j] || k[j] == COMP_NONE)
					continue;
				str = st_strtab_str(&src->tab, (uint32_t)k[j],
						    &len);
				if ((g = st_strtab_intern(&dst->tab, str, len,
							  NULL)) < 0)
					return -1;
				k[j] = (uint64_t)g;
			}
			if (compare_sums_add(&dst->sums[i], k, s->sum[e], &dst->sat) < 0)
				return -1;
		}
	}
	dst->sat |= src->sat;
	dst->events += src->events;
	dst->bad_lines += src->bad_lines;
	return 0;
}

int compare_cmp_bad(const void *x, const void *y)
{
	const st_trace_bad *a = x, *b = y;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* The corrupt lines kept by the passes P[0..N) of case C, in order of
 * the files and lines, the first MAX of them, into C.  0, -1 out of
 * memory. */
static int gather_bad(st_compare_case *c, struct pass **p, size_t n,
		      size_t max)
{
	size_t total = 0;

	for (size_t t = 0; t < n; t++)
		total += p[t] ? p[t]->n_bad : 0;
	if (!total)
		return 0;
	if (!(c->bad = calloc(total, sizeof(*c->bad))))
		return -1;
	for (size_t t = 0; t < n; t++) {
		if (!p[t] || !p[t]->n_bad)
			continue;
		memcpy(c->bad + c->n_bad, p[t]->bad,
		       p[t]->n_bad * sizeof(*c->bad));
		c->n_bad += p[t]->n_bad;
		free(p[t]->bad);
		p[t]->bad = NULL;
		p[t]->n_bad = 0;
	}
	qsort(c->bad, c->n_bad, sizeof(*c->bad), compare_cmp_bad);
	while (c->n_bad > max)
		free(c->bad[--c->n_bad].why);
	return 0;
}

/* Rows of a unit read out of turn: LEN bytes at OFF of F. */
struct kept {
	FILE *f;
	uint64_t off, len;
};

/* The work: every file of every case, taken one at a time by the
 * threads, each thread gathering into a pass of its own per case. */
struct pool {
	st_compare_case *cases;
	size_t n;
	size_t *first;           /* case i's files are units first[i].. */
	size_t units;
	const st_compare_opts *o;
	struct pass **passes;    /* [thread * n + case], NULL: none yet */
	size_t nt;               /* threads */
	_Atomic size_t next;
	_Atomic bool failed;
	/* events metrics (nev of them): their rows go out unit after unit */
	size_t nev;
	pthread_mutex_t mu;      /* over what follows */
	size_t *out_next;        /* per case: its first unit not out */
	uint8_t *done;           /* per unit: read */
	struct kept *kept;       /* per unit and events metric: where its
				  * rows wait (a thread's temporary file) */
	int row_err;             /* the first: -1 out of memory, -2 write */
	size_t err_case, err_metric;
	int err_errno;
};

struct worker_arg {
	struct pool *pl;
	size_t t;
};

/* Note failure RC (-1, -2 with errno E) of metric I of case C, the
 * first one only.  Under PL->mu. */
static void row_fail(struct pool *pl, int rc, size_t c, size_t i, int e)
{
	if (!pl->row_err) {
		pl->row_err = rc;
		pl->err_case = c;
		pl->err_metric = i;
		pl->err_errno = e ? e : EIO;
	}
	atomic_store(&pl->failed, true);
}

/* Unit U of case C begins in P: its rows go straight to the case's
 * streams when every unit before it is out, else to temporary files. */
static void unit_begin(struct pool *pl, struct pass *p, size_t c, size_t u)
{
	const st_metrics *m = pl->o->metrics;
	bool direct;

	pthread_mutex_lock(&pl->mu);
	direct = pl->first[c] + pl->out_next[c] == u;
	pthread_mutex_unlock(&pl->mu);
	for (size_t i = 0; i < m->n; i++)
		if (p->rows[i]) {
			p->cur[i] = direct ? pl->cases[c].events_out[i] : NULL;
			st_trace_rows_out(p->rows[i], p->cur[i]);
		}
}

/* Copy LEN bytes of F at OFF to TO, F's position left alone (its
 * thread may be writing it).  0, -1 (errno). */
static int copy_range(FILE *f, uint64_t off, uint64_t len, FILE *to)
{
	char buf[1 << 16];

	while (len) {
		ssize_t k = pread(fileno(f), buf, len < sizeof(buf) ?
				  (size_t)len : sizeof(buf), (off_t)off);

		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		if (fwrite(buf, 1, (size_t)k, to) != (size_t)k)
			return -1;
		off += (uint64_t)k;
		len -= (uint64_t)k;
	}
	return 0;
}

/* The rows of unit U of case C, events metric I (the K-th), written to
 * P's temporary file from p->tmp_at[I] on: copied to the case's stream
 * when U is next, else kept where they are until its turn.  Under
 * PL->mu. */
static void unit_rows(struct pool *pl, struct pass *p, size_t c, size_t u,
		      size_t i, size_t k)
{
	struct kept *kp = &pl->kept[u * pl->nev + k];
	off_t end;

	if (fflush(p->tmp[i]) != 0 || (end = ftello(p->tmp[i])) < 0) {
		row_fail(pl, -2, c, i, errno);
		return;
	}
	*kp = (struct kept){ p->tmp[i], p->tmp_at[i],
			     (uint64_t)end - p->tmp_at[i] };
	if (pl->first[c] + pl->out_next[c] != u)
		return;
	if (copy_range(kp->f, kp->off, kp->len,
		       pl->cases[c].events_out[i]) < 0)
		row_fail(pl, -2, c, i, errno);
	kp->len = 0;
}

/* Unit U of case C is read in P: its rows out or kept, and every unit
 * of C read in turn since the last one out written out. */
static void unit_end(struct pool *pl, struct pass *p, size_t c, size_t u)
{
	const st_metrics *m = pl->o->metrics;
	st_compare_case *cs = &pl->cases[c];
	size_t k = 0;

	pthread_mutex_lock(&pl->mu);
	for (size_t i = 0; i < m->n; i++) {
		if (!p->rows[i])
			continue;
		if (st_trace_rows_flush(p->rows[i]) < 0)
			row_fail(pl, -2, c, i, errno);
		st_trace_rows_out(p->rows[i], NULL);
		if (p->cur[i] && p->cur[i] == p->tmp[i])
			unit_rows(pl, p, c, u, i, k);
		p->cur[i] = NULL;
		k++;
	}
	pl->done[u] = 1;
	while (pl->out_next[c] < cs->n &&
	       pl->done[pl->first[c] + pl->out_next[c]]) {
		size_t v = pl->first[c] + pl->out_next[c];

		k = 0;
		for (size_t i = 0; i < m->n; i++) {
			struct kept *kp = &pl->kept[v * pl->nev + k];

			if (!m->v[i].events)
				continue;
			if (kp->len && copy_range(kp->f, kp->off, kp->len,
						  cs->events_out[i]) < 0)
				row_fail(pl, -2, c, i, errno);
			k++;
		}
		pl->out_next[c]++;
	}
	/* all of C is out: its threads' temporary files can go, so that
	 * open files stay few whatever the number of cases */
	for (size_t t = 0; pl->out_next[c] == cs->n && t < pl->nt; t++) {
		struct pass *q = pl->passes[t * pl->n + c];

		for (size_t i = 0; q && q->tmp && i < m->n; i++)
			if (q->tmp[i]) {
				fclose(q->tmp[i]);
				q->tmp[i] = NULL;
			}
	}
	pthread_mutex_unlock(&pl->mu);
}

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *pl = wa->pl;
	size_t u;

	while (!atomic_load(&pl->failed) &&
	       (u = atomic_fetch_add(&pl->next, 1)) < pl->units) {
		size_t c = 0;
		struct pass **pp;

		while (c + 1 < pl->n && pl->first[c + 1] <= u)
			c++;
		pp = &pl->passes[wa->t * pl->n + c];
		if (!*pp && (!(*pp = calloc(1, sizeof(**pp))) ||
			     compare_pass_init(*pp, pl->o->metrics) < 0)) {
			atomic_store(&pl->failed, true);
			break;
		}
		if (pl->nev)
			unit_begin(pl, *pp, c, u);
		for (size_t i = 0; (*pp)->rows && i < pl->o->metrics->n; i++)
			if ((*pp)->rows[i])
				st_trace_rows_phases((*pp)->rows[i],
						     pl->cases[c].seg_us,
						     pl->cases[c].nseg,
						     pl->cases[c].seg_phase);
		if (read_one(*pp, &pl->cases[c], u - pl->first[c], pl->o) < 0) {
			pthread_mutex_lock(&pl->mu);
			if ((*pp)->row_err)
				row_fail(pl, (*pp)->row_err, c,
					 (*pp)->row_metric, (*pp)->row_errno);
			else
				atomic_store(&pl->failed, true);
			pthread_mutex_unlock(&pl->mu);
		}
		if (pl->nev)
			unit_end(pl, *pp, c, u);
	}
	return NULL;
}

/* Case C's answers from the threads' passes P[0..NT) (released here). */
static int finish_case(st_compare_case *c, struct pass **p, size_t nt,
		       const st_compare_opts *o)
{
	const st_metrics *m = o->metrics;
	struct pass *dst = NULL, empty;
	int ret = 0;

	for (size_t t = 0; t < nt; t++) {
		if (!p[t])
			continue;
		if (!dst)
			dst = p[t];
		else if (pass_merge(dst, p[t]) < 0)
			ret = -1;
	}
	if (!dst) {
		dst = &empty;
		if (compare_pass_init(dst, m) < 0)
			ret = -1;
	}
	if (ret == 0 && gather_bad(c, p, nt, o->max_bad) < 0)
		ret = -1;
	c->n_files = c->n;
	c->events = dst->events;
	c->bad_lines = dst->bad_lines;
	for (size_t i = 0; ret == 0 && i < m->n; i++)
		if (compare_reduce_metric(dst, i, &c->res[i]) < 0)
			ret = -1;
	c->saturated = dst->sat;
	if (ret == 0 && o->keep) {
		struct pass *k = dst;

		if (dst == &empty && !(k = malloc(sizeof(*k))))
			ret = -1;
		else if (dst == &empty)
			*k = empty;
		for (size_t t = 0; t < nt; t++)
			if (p[t] == k)
				p[t] = NULL;
		if (ret == 0) {
			c->state = (struct st_compare_state *)k;
			return 0;
		}
	}
	if (dst == &empty)
		compare_pass_release(&empty);
	return ret;
}

/* The ordering of PL's events rows set up, and each case's events
 * streams given their CSV header.  0, -1 with ERR. */
static int rows_begin(struct pool *pl, st_error *err)
{
	const st_metrics *m = pl->o->metrics;

	pthread_mutex_init(&pl->mu, NULL);
	if (!(pl->out_next = calloc(pl->n ? pl->n : 1,
				    sizeof(*pl->out_next))) ||
	    !(pl->done = calloc(pl->units ? pl->units : 1, 1)) ||
	    !(pl->kept = calloc((pl->units ? pl->units : 1) * pl->nev,
				sizeof(*pl->kept))))
		return OOM(err);
	for (size_t c = 0; c < pl->n; c++)
		for (size_t i = 0; i < m->n; i++) {
			struct st_trace_rows *w;
			FILE *f;
			int rc;

			if (!m->v[i].events)
				continue;
			if (!pl->cases[c].events_out ||
			    !(f = pl->cases[c].events_out[i]))
				return st_error_set(err, ST_EXIT_USAGE, "case %s: "
						    "metric '%s' writes events "
						    "and has nowhere to",
						    pl->cases[c].name,
						    m->v[i].name);
			if (st_trace_rows_new(&w, m->v[i].format,
					      &m->v[i].cols, err) < 0)
				return -1;
			st_trace_rows_out(w, f);
			rc = st_trace_rows_header(w) < 0 ||
			     st_trace_rows_flush(w) < 0;
			st_trace_rows_free(w);
			if (rc)
				return st_error_set(err, ST_EXIT_IOERR, "case %s: "
						    "metric '%s': cannot write "
						    "its events: %s",
						    pl->cases[c].name,
						    m->v[i].name,
						    strerror(errno ? errno :
							     EIO));
		}
	return 0;
}

/* Release what rows_begin set up (temporary files left by a failure
 * closed). */
static void rows_end(struct pool *pl)
{
	free(pl->kept);
	free(pl->done);
	free(pl->out_next);
	pthread_mutex_destroy(&pl->mu);
}

int st_trace_compare(st_compare_case *cases, size_t n,
		     const st_compare_opts *o, st_error *err)
{
	struct pool pl = { .cases = cases, .n = n, .o = o };
	struct worker_arg wa[64];
	size_t nt = o->jobs < 1 ? 1 : (size_t)o->jobs, started = 0;
	pthread_t th[64];
	int ret = 0;

	if (!(pl.first = calloc(n ? n : 1, sizeof(*pl.first))))
		return OOM(err);
	for (size_t c = 0; c < n; c++) {
		pl.first[c] = pl.units;
		pl.units += cases[c].n;
		cases[c].n_res = o->metrics->n;
		if (!(cases[c].res = calloc(o->metrics->n ? o->metrics->n : 1,
					    sizeof(*cases[c].res))) ||
		    !(cases[c].files_in = calloc(cases[c].n ? cases[c].n : 1,
						 sizeof(*cases[c].files_in))))
			ret = -1;
	}
	for (size_t i = 0; i < o->metrics->n; i++)
		pl.nev += o->metrics->v[i].events;
	if (ret == 0 && pl.nev && rows_begin(&pl, err) < 0) {
		rows_end(&pl);
		free(pl.first);
		return -1;
	}
	if (nt > pl.units)
		nt = pl.units ? pl.units : 1;
	if (nt > 64)
		nt = 64;
	if (ret == 0 && !(pl.passes = calloc(nt * (n ? n : 1),
					     sizeof(*pl.passes))))
		ret = -1;
	pl.nt = nt;
	if (ret == 0) {
		for (size_t t = 0; t < nt; t++)
			wa[t] = (struct worker_arg){ &pl, t };
		for (size_t t = 1; t < nt; t++) {
			if (pthread_create(&th[started], NULL, worker,
					   &wa[t]) != 0)
				break;
			started++;
		}
		worker(&wa[0]);
		for (size_t i = 0; i < started; i++)
			pthread_join(th[i], NULL);
		if (atomic_load(&pl.failed))
			ret = -1;
	}
	for (size_t c = 0; pl.passes && c < n; c++) {
		struct pass *p[64];

		for (size_t t = 0; t < nt; t++)
			p[t] = pl.passes[t * n + c];
		if (ret == 0 && finish_case(&cases[c], p, nt, o) < 0)
			ret = -1;
		for (size_t t = 0; t < nt; t++)
			pl.passes[t * n + c] = p[t];
		for (size_t t = 0; t < nt; t++)
			if (p[t]) {
				compare_pass_release(p[t]);
				free(p[t]);
			}
	}
	for (size_t c = 0; ret < 0 && c < n; c++)
		cases[c].n_files = cases[c].files_in ? cases[c].n : 0;
	free(pl.passes);
	free(pl.first);
	if (pl.row_err == -2)
		st_error_set(err, ST_EXIT_IOERR, "case %s: metric '%s': cannot "
			     "write its events: %s", cases[pl.err_case].name,
			     o->metrics->v[pl.err_metric].name,
			     strerror(pl.err_errno));
	else if (ret < 0)
		OOM(err);
	if (pl.nev)
		rows_end(&pl);
	return ret < 0 ? -1 : 0;
}

void st_compare_case_release(st_compare_case *c)
{
	if (!c)
		return;
	st_trace_inputs_free(c->files_in, c->n_files, c->bad, c->n_bad);
	if (c->state) {
		compare_pass_release((struct pass *)c->state);
		free(c->state);
		c->state = NULL;
	}
	for (size_t i = 0; c->res && i < c->n_res; i++) {
		for (size_t r = 0; r < c->res[i].n_rows; r++)
			free(c->res[i].rows[r].key);
		free(c->res[i].rows);
	}
	free(c->res);
	c->res = NULL;
	c->n_res = 0;
	c->files_in = NULL;
	c->bad = NULL;
	c->n_files = c->n_bad = 0;
}
