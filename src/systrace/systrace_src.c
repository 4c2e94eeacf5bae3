/* systrace_src.c - system-trace sets as the trace commands' source
 * (st_trace_source, trace.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/num.h"
#include "streamtime/trace.h"
#include "systrace_int.h"

const st_systrace *st_systrace_owner(const st_systrace_list *l,
				     const char *path)
{
	for (size_t i = 0; l && i < l->n; i++) {
		const st_sys_file_stat *f;
		size_t n = st_systrace_file_stats(l->v[i], &f);

		for (size_t k = 0; k < n; k++)
			if (strcmp(f[k].path, path) == 0)
				return l->v[i];
	}
	return NULL;
}

static st_pfw_reader *src_open(const void *ctx, const char *path,
			       bool tracks, st_error *err)
{
	const st_systrace *s = st_systrace_owner(ctx, path);

	if (!s)
		return st_pfw_open(path, err);
	return st_systrace_open_file(s, path, tracks, err);
}

/* The depth-first rank of PID among set S's processes (children right
 * after their parents), for the timeline's order. */
static int64_t proc_rank(const st_systrace *s, int64_t pid, int depth)
{
	const st_sys_proc_name *n = st_systrace_name(s, pid);

	if (!n || n->ppid < 0 || depth > 32 || !st_systrace_name(s, n->ppid))
		return pid * 64;
	return proc_rank(s, n->ppid, depth + 1) + 1;
}

static bool src_proc_name(const void *ctx, const char *host, int64_t pid,
			  char *buf, size_t size, int64_t *sort)
{
	const st_systrace_list *l = ctx;

	for (size_t i = 0; i < l->n; i++) {
		const st_systrace *s = l->v[i];
		const st_sys_proc_name *n;

		if (strcmp(host, st_systrace_host(s)) != 0 ||
		    !(n = st_systrace_name(s, pid)))
			continue;
		if (n->ppid >= 0)
			snprintf(buf, size, "%s pid %" PRId64 " (child of %"
				 PRId64 ")", n->name, pid, n->ppid);
		else
			snprintf(buf, size, "%s pid %" PRId64, n->name, pid);
		*sort = proc_rank(s, pid, 0);
		return true;
	}
	return false;
}

static bool src_track_name(const void *ctx, int64_t tid, char *buf,
			   size_t size)
{
	const char *n = st_systrace_track_name(tid);

	(void)ctx;
	if (!n)
		return false;
	snprintf(buf, size, "%s", n);
	return true;
}

static void src_event_args(const void *ctx, const st_pfw_reader *r,
			   st_ctrace *w)
{
	(void)ctx;
	st_systrace_event_args(r, w);
}

static int src_extras(const void *ctx, st_ctrace *w, int64_t pid0,
		      int64_t *used, st_error *err)
{
	const st_systrace_list *l = ctx;

	*used = 0;
	for (size_t i = 0; i < l->n; i++) {
		int64_t u;

		if (st_systrace_write_extras(l->v[i], w, pid0 + *used, &u,
					     err) < 0)
			return -1;
		*used += u;
	}
	return 0;
}

static void src_meta(const void *ctx, st_ctrace *w)
{
	const st_systrace_list *l = ctx;

	st_ctrace_raw(w, ",\"system_traces\":[");
	for (size_t i = 0; i < l->n; i++) {
		const st_sys_align *a = st_systrace_align(l->v[i]);
		const char *dir = st_systrace_dir(l->v[i]);

		st_ctrace_raw(w, i ? ",{\"dir\":" : "{\"dir\":");
		st_outbuf_json(&w->ob, dir, strlen(dir));
		st_ctrace_raw(w, ",\"alignment\":{\"method\":");
		st_outbuf_json(&w->ob, a->method, strlen(a->method));
		st_ctrace_raw(w, ",\"known\":");
		st_ctrace_raw(w, a->known ? "true" : "false");
		st_ctrace_raw(w, ",\"offset_ns\":");
		st_outbuf_int(&w->ob, a->offset_ns);
		st_ctrace_raw(w, ",\"bound_ns\":");
		if (a->bound_ns >= 0)
			st_outbuf_int(&w->ob, a->bound_ns);
		else
			st_ctrace_raw(w, "null");
		st_ctrace_raw(w, "}}");
	}
	st_ctrace_raw(w, "]");
}

void st_systrace_source(const st_systrace_list *l, st_trace_source *src)
{
	memset(src, 0, sizeof(*src));
	src->open = src_open;
	src->proc_name = src_proc_name;
	src->track_name = src_track_name;
	src->event_args = src_event_args;
	src->extras = src_extras;
	src->meta = src_meta;
	src->ctx = l;
}

int st_systrace_segments(const st_systrace_list *l, int64_t **seg,
			 size_t *n)
{
	size_t cap = 0, k = 0;
	int64_t *v = NULL;

	for (size_t i = 0; i < l->n; i++) {
		const st_sys_phase *p;
		size_t ng, np = st_systrace_phases(l->v[i], &p, &ng);

		cap += 2 * np;
	}
	if (!(v = malloc((cap + 1) * sizeof(*v))))
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		const st_sys_phase *p;
		size_t ng, np = st_systrace_phases(l->v[i], &p, &ng);

		for (size_t j = 0; j < np; j++) {
			v[k++] = st_floor_div(p[j].s_ns, 1000);
			if (p[j].e_ns >= 0)
				v[k++] = st_floor_div(p[j].e_ns, 1000);
		}
	}
	qsort(v, k, sizeof(*v), st_cmp_i64);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (i == 0 || v[i] != v[i - 1])
			v[(*n)++] = v[i];
	*seg = v;
	return 0;
}

const char **st_systrace_phase_names(const st_systrace_list *l,
				     const int64_t *seg, size_t n)
{
	const char **v = calloc(n + 1, sizeof(*v));
	int64_t *bs = calloc(n + 1, sizeof(*bs)), *be = calloc(n + 1,
								  sizeof(*be));

	for (size_t i = 0; v && bs && be && i < l->n; i++) {
		const st_sys_phase *p;
		size_t ng, np = st_systrace_phases(l->v[i], &p, &ng);

		for (size_t j = 0; j < np; j++) {
			int64_t a = st_floor_div(p[j].s_ns, 1000);
			int64_t b = p[j].e_ns >= 0 ? st_floor_div(p[j].e_ns, 1000)
						   : INT64_MAX;

			for (size_t k = 0; k < n; k++)
				if (a <= seg[k] && seg[k] < b &&
				    (!v[k] || a > bs[k] ||
				     (a == bs[k] && b < be[k]))) {
					v[k] = p[j].name;
					bs[k] = a;
					be[k] = b;
				}
		}
	}
	free(bs);
	free(be);
	if (!bs || !be) {
		free(v);
		return NULL;
	}
	return v;
}

void st_systrace_phase_io(const st_sys_phase *p, const int64_t *seg,
			  size_t n, const st_trace_summary *s,
			  st_sys_phase_io *io)
{
	int64_t a = st_floor_div(p->s_ns, 1000),
		b = p->e_ns >= 0 ? st_floor_div(p->e_ns, 1000) : INT64_MAX;

	memset(io, 0, sizeof(*io));
	for (size_t i = 0; i + 1 < n && i < s->n_segs; i++) {
		const st_trace_seg *q = &s->segs[i];

		if (seg[i] < a || seg[i + 1] > b)
			continue;
		io->events += q->events;
		io->reads += q->reads;
		io->writes += q->writes;
		io->io_us += q->io_us;
		io->read_bytes += q->read_bytes;
		io->write_bytes += q->write_bytes;
	}
}
