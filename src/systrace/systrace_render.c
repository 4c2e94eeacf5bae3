/* systrace_render.c - the system-trace parts of `trace summary`'s output
 * as JSON and text (systrace_render.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/atomic.h"
#include "streamtime/systrace_render.h"
#include "streamtime/text.h"
#include "streamtime/time.h"
#include "streamtime/trace_render.h"

static const char *kind_text(enum st_sys_file k)
{
	static const char *const t[ST_SYS_NONE] = {
		[ST_SYS_READ] = "read calls", [ST_SYS_WRITE] = "write calls",
		[ST_SYS_OPENAT] = "openat calls", [ST_SYS_CLOSE] = "close calls",
		[ST_SYS_BIO] = "block I/O", [ST_SYS_MMAP] = "mmap calls",
		[ST_SYS_CREATE_DEL] = "create/delete calls",
		[ST_SYS_TIME_ALIGN] = "time-align",
		[ST_SYS_PROC] = "process life", [ST_SYS_CPU] = "mpstat",
		[ST_SYS_GPU] = "nvidia-smi pmon",
		[ST_SYS_LOG] = "application log", [ST_SYS_STRACE] = "strace",
		[ST_SYS_MANIFEST] = "manifest", [ST_SYS_PS] = "ps snapshot",
	};

	return k < ST_SYS_NONE && t[k] ? t[k] : "?";
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static double avg(double sum, uint64_t n)
{
	return n ? sum / (double)n : NAN;
}

/* ---- JSON ------------------------------------------------------------ */

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* Member KEY of O, name S (NULL: null) as st_trace_name_json gives it,
 * and KEY_hex with its bytes when it is not UTF-8. */
static void name_set(json_t *o, const char *key, const char *s)
{
	json_t *h = json_array();
	char k[64];

	json_object_set_new(o, key, s ? st_trace_name_json(s, strlen(s), h)
				      : json_null());
	if (h && json_array_size(h) == 1 && s && !st_utf8_valid(s, strlen(s))) {
		snprintf(k, sizeof(k), "%s_hex", key);
		json_object_set(o, k, json_array_get(h, 0));
	}
	json_decref(h);
}

static json_t *align_json(const st_sys_align *a)
{
	json_t *o = json_object();

	json_object_set_new(o, "method", json_string(a->method));
	json_object_set_new(o, "known", json_boolean(a->known));
	json_object_set_new(o, "offset_ns", json_integer(a->offset_ns));
	json_object_set_new(o, "bound_ns", a->bound_ns >= 0
			    ? json_integer(a->bound_ns) : json_null());
	json_object_set_new(o, "lower_ns", a->lo_ns != INT64_MIN
			    ? json_integer(a->lo_ns) : json_null());
	json_object_set_new(o, "upper_ns", a->hi_ns != INT64_MAX && a->known
			    ? json_integer(a->hi_ns) : json_null());
	json_object_set_new(o, "time_align_lines",
			    json_integer((json_int_t)a->align_lines));
	json_object_set_new(o, "mllog_writes",
			    json_integer((json_int_t)a->mllog_writes));
	json_object_set_new(o, "strace_pairs",
			    json_integer((json_int_t)a->strace_pairs));
	json_object_set_new(o, "seed_offset_ns", a->seed_offset_ns
			    ? json_integer(a->seed_offset_ns) : json_null());
	return o;
}

/* The files of set T: their kinds and counts. */
static json_t *files_json(const st_systrace *t)
{
	const st_sys_file_stat *f;
	size_t nf = st_systrace_file_stats(t, &f);
	json_t *files = json_array();

	for (size_t k = 0; k < nf; k++) {
		json_t *fj = json_pack(
			"{s:n, s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "file",
			"kind", kind_text(f[k].kind),
			"lines", (json_int_t)f[k].lines,
			"events", (json_int_t)f[k].events,
			"bad_lines", (json_int_t)f[k].bad,
			"latencies_wrapped", (json_int_t)f[k].lat_wrapped,
			"paths_at_63_chars", (json_int_t)f[k].path_cut,
			"errors", (json_int_t)f[k].errors);

		if (fj)
			name_set(fj, "file", base_of(f[k].path));
		json_array_append_new(files, fj);
	}
	return files;
}

/* The processes of set T: pid, name, parent, where the name is from. */
static json_t *procs_json(const st_systrace *t)
{
	const st_sys_proc_name *pn;
	size_t np = st_systrace_names(t, &pn);
	json_t *procs = json_array();

	for (size_t k = 0; k < np; k++) {
		json_t *p = json_pack(
			"{s:I, s:n, s:o, s:s}", "pid", (json_int_t)pn[k].pid,
			"name", "ppid", pn[k].ppid >= 0
			? json_integer(pn[k].ppid) : json_null(),
			"source", pn[k].source ? pn[k].source : "");

		if (p)
			name_set(p, "name", pn[k].name);
		json_array_append_new(procs, p);
	}
	return procs;
}

/* The CPU (mpstat's averages) and NG GPUs' figures of phase PH into P. */
static void phase_use_json(json_t *p, const st_sys_phase *ph, size_t ng)
{
	json_t *gpus = json_array();

	json_object_set_new(p, "cpu", json_pack(
		"{s:o, s:o, s:o, s:o, s:I}",
		"usr", num_or_null(avg(ph->cpu_usr, ph->cpu_samples)),
		"sys", num_or_null(avg(ph->cpu_sys, ph->cpu_samples)),
		"iowait", num_or_null(avg(ph->cpu_iowait, ph->cpu_samples)),
		"idle", num_or_null(avg(ph->cpu_idle, ph->cpu_samples)),
		"samples", (json_int_t)ph->cpu_samples));
	for (size_t g = 0; g < ng; g++)
		json_array_append_new(gpus, json_pack(
			"{s:I, s:o, s:o, s:o, s:I}", "gpu", (json_int_t)g,
			"sm", num_or_null(avg(ph->gpu_sm[g],
					      ph->gpu_samples[g])),
			"mem", num_or_null(avg(ph->gpu_mem[g],
					       ph->gpu_samples[g])),
			"fb_mb_max", ph->gpu_samples[g]
			? json_real(ph->gpu_fb[g]) : json_null(),
			"samples", (json_int_t)ph->gpu_samples[g]));
	json_object_set_new(p, "gpus", gpus);
}

/* The phases of set T, their I/O from S's segments SEG[0..N). */
static json_t *phases_json(const st_systrace *t, const st_trace_summary *s,
			   const int64_t *seg, size_t n)
{
	const st_sys_phase *ph;
	size_t ng, nph = st_systrace_phases(t, &ph, &ng);
	json_t *phases = json_array();

	for (size_t k = 0; k < nph; k++) {
		st_sys_phase_io io;
		json_t *p;
		char t0[48];

		st_systrace_phase_io(&ph[k], seg, n, s, &io);
		st_time_format_utc(ph[k].s_ns, t0, sizeof(t0));
		p = json_pack("{s:s, s:s, s:I, s:o, s:I, s:I, s:I, s:I, s:I, "
			      "s:I}", "name", ph[k].name, "start", t0,
			      "start_ns", (json_int_t)ph[k].s_ns, "end_ns",
			      ph[k].e_ns >= 0 ? json_integer(ph[k].e_ns)
					      : json_null(),
			      "events", (json_int_t)io.events,
			      "reads", (json_int_t)io.reads,
			      "writes", (json_int_t)io.writes,
			      "io_call_us", (json_int_t)io.io_us,
			      "read_bytes", (json_int_t)io.read_bytes,
			      "write_bytes", (json_int_t)io.write_bytes);
		phase_use_json(p, &ph[k], ng);
		json_array_append_new(phases, p);
	}
	return phases;
}

/* The instants of set T (the MLPerf log's keys with a time). */
static json_t *instants_json(const st_systrace *t)
{
	const st_sys_instant *in;
	size_t ni = st_systrace_instants(t, &in);
	json_t *inst = json_array();

	for (size_t k = 0; k < ni; k++)
		json_array_append_new(inst, json_pack(
			"{s:s, s:s, s:I}", "key", in[k].key, "value",
			in[k].value, "t_ns", (json_int_t)in[k].t_ns));
	return inst;
}

json_t *st_systrace_json(const st_systrace_list *l, const st_trace_summary *s,
			 const int64_t *seg, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < l->n; i++) {
		const st_systrace *t = l->v[i];
		json_t *o = json_object();

		name_set(o, "dir", st_systrace_dir(t));
		name_set(o, "host", st_systrace_host(t));
		json_object_set_new(o, "alignment",
				    align_json(st_systrace_align(t)));
		json_object_set_new(o, "files", files_json(t));
		json_object_set_new(o, "processes", procs_json(t));
		json_object_set_new(o, "phases", phases_json(t, s, seg, n));
		json_object_set_new(o, "instants", instants_json(t));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* ---- text ------------------------------------------------------------ */

/* Name S as its escaped text (text.h): one line, UTF-8.  Its length
 * in bytes. */
static size_t put_text(FILE *f, const char *s)
{
	char *t = st_text_escape_dup(s, strlen(s), 0);
	size_t n = t ? strlen(t) : 1;

	fputs(t ? t : "?", f);
	free(t);
	return n;
}

static void tree_one(FILE *f, const st_sys_proc_name *v, size_t n,
		     bool *done, size_t i, int depth);

/* The processes of V[0..N) not yet DONE whose parent is PPID (-1: those
 * without a known parent), indented by DEPTH, then their children; each
 * once. */
static void tree(FILE *f, const st_sys_proc_name *v, size_t n, bool *done,
		 int64_t ppid, int depth)
{
	for (size_t i = 0; i < n; i++) {
		bool top = v[i].ppid < 0;

		if (done[i])
			continue;
		if (ppid >= 0 ? v[i].ppid != ppid : !top) {
			/* a parent never seen counts as none */
			bool orphan = true;

			if (ppid >= 0 || v[i].ppid < 0)
				continue;
			for (size_t k = 0; k < n; k++)
				if (v[k].pid == v[i].ppid)
					orphan = false;
			if (!orphan)
				continue;
		}
		tree_one(f, v, n, done, i, depth);
	}
}

/* V[I] at DEPTH, then its children. */
static void tree_one(FILE *f, const st_sys_proc_name *v, size_t n,
		     bool *done, size_t i, int depth)
{
	done[i] = true;
	fprintf(f, "  %*s%-8" PRId64 " ", 2 * depth, "", v[i].pid);
	put_text(f, v[i].name);
	if (v[i].ppid >= 0)
		fprintf(f, "  (child of %" PRId64 ")", v[i].ppid);
	fprintf(f, "  [%s]\n", v[i].source ? v[i].source : "");
	if (depth < 16)
		tree(f, v, n, done, v[i].pid, depth + 1);
}

/* Every process of V[0..N): the trees from those without a known parent,
 * then what a parent cycle (a pid reused) left out, each cycle from its
 * first process.  0, -1 out of memory. */
static int tree_all(FILE *f, const st_sys_proc_name *v, size_t n)
{
	bool *done = calloc(n, sizeof(*done));

	if (!done)
		return -1;
	tree(f, v, n, done, -1, 0);
	for (size_t i = 0; i < n; i++)
		if (!done[i])
			tree_one(f, v, n, done, i, 0);
	free(done);
	return 0;
}

static void fmt_pct(char *b, size_t size, double sum, uint64_t n)
{
	if (n)
		snprintf(b, size, "%.1f", sum / (double)n);
	else
		snprintf(b, size, "-");
}

/* Set T's heading, alignment and files' table. */
static void head_text(FILE *f, const st_systrace *t)
{
	const st_sys_align *a = st_systrace_align(t);
	const st_sys_file_stat *fs;
	size_t nf = st_systrace_file_stats(t, &fs);

	fputs("\nsystem traces ", f);
	put_text(f, st_systrace_dir(t));
	if (*st_systrace_host(t)) {
		fputs(" on ", f);
		put_text(f, st_systrace_host(t));
	}
	fputc('\n', f);
	fprintf(f, "alignment   %s\n", a->method);
	if (a->known && a->bound_ns >= 0)
		fprintf(f, "            UTC = nsecs + %" PRId64 " ns, within %"
			PRId64 " ns (%.3f ms)\n", a->offset_ns, a->bound_ns,
			(double)a->bound_ns / 1e6);
	else if (a->known)
		fprintf(f, "            UTC = nsecs + %" PRId64 " ns, "
			"bounded on one side only\n", a->offset_ns);
	if (a->seed_offset_ns)
		fprintf(f, "            (the seed's smallest-gap method "
			"would give %+.3f ms from this)\n",
			(double)(a->seed_offset_ns - a->offset_ns) / 1e6);
	fprintf(f, "\n%-24s %-20s %10s %10s %6s %8s %8s %7s\n", "file", "kind",
		"lines", "events", "bad", "lat<0", "path63", "errors");
	for (size_t k = 0; k < nf; k++) {
		size_t w = put_text(f, base_of(fs[k].path));

		fprintf(f, "%*s %-20s %10" PRIu64 " %10" PRIu64 " %6" PRIu64
			" %8" PRIu64 " %8" PRIu64 " %7" PRIu64 "\n",
			w < 24 ? 24 - (int)w : 0, "", kind_text(fs[k].kind),
			fs[k].lines, fs[k].events, fs[k].bad,
			fs[k].lat_wrapped, fs[k].path_cut, fs[k].errors);
	}
}

/* Phase PH's row (NG GPUs), its I/O from S's segments SEG[0..N). */
static void phase_text(FILE *f, const st_sys_phase *ph, size_t ng,
		       const st_trace_summary *s, const int64_t *seg, size_t n)
{
	st_sys_phase_io io;
	char t0[48], d[32], u[16], sy[16], w[16], id[16];
	size_t nw;

	st_systrace_phase_io(ph, seg, n, s, &io);
	st_time_format_utc(ph->s_ns, t0, sizeof(t0));
	if (ph->e_ns >= 0)
		snprintf(d, sizeof(d), "%.3f",
			 (double)(ph->e_ns - ph->s_ns) / 1e9);
	else
		snprintf(d, sizeof(d), "open");
	fmt_pct(u, sizeof(u), ph->cpu_usr, ph->cpu_samples);
	fmt_pct(sy, sizeof(sy), ph->cpu_sys, ph->cpu_samples);
	fmt_pct(w, sizeof(w), ph->cpu_iowait, ph->cpu_samples);
	fmt_pct(id, sizeof(id), ph->cpu_idle, ph->cpu_samples);
	nw = put_text(f, ph->name);
	fprintf(f, "%*s %-32s %10s %8" PRIu64 " %12.6f %14" PRId64 " %14"
		PRId64 " %6s %6s %6s %6s", nw < 12 ? 12 - (int)nw : 0, "", t0,
		d, io.events, (double)io.io_us / 1e6, io.read_bytes,
		io.write_bytes, u, sy, w, id);
	for (size_t g = 0; g < ng; g++) {
		char sm[16], mem[16];

		fmt_pct(sm, sizeof(sm), ph->gpu_sm[g], ph->gpu_samples[g]);
		fmt_pct(mem, sizeof(mem), ph->gpu_mem[g], ph->gpu_samples[g]);
		fprintf(f, "  %6s/%s/%.0f", sm, mem, ph->gpu_fb[g]);
	}
	fputc('\n', f);
}

int st_systrace_text(FILE *f, const st_systrace_list *l,
		     const st_trace_summary *s, const int64_t *seg, size_t n,
		     st_error *err)
{
	for (size_t i = 0; i < l->n; i++) {
		const st_systrace *t = l->v[i];
		const st_sys_proc_name *pn;
		const st_sys_phase *ph;
		size_t np = st_systrace_names(t, &pn), ng, nph;

		head_text(f, t);
		if (np) {
			fprintf(f, "\nprocesses (children under their parents)\n");
			if (tree_all(f, pn, np) < 0)
				return st_error_set(err, ST_EXIT_IOERR,
						    "out of memory");
		}
		if (!(nph = st_systrace_phases(t, &ph, &ng)))
			continue;
		fprintf(f, "\n%-12s %-27s %10s %8s %12s %14s %14s %6s %6s %6s "
			"%6s", "phase", "start (UTC)", "dur (s)", "calls",
			"I/O call (s)", "bytes read", "bytes written", "usr%",
			"sys%", "iow%", "idle%");
		for (size_t g = 0; g < ng; g++)
			fprintf(f, "  gpu%zu sm%%/mem%%/fbMB", g);
		fputc('\n', f);
		for (size_t k = 0; k < nph; k++)
			phase_text(f, &ph[k], ng, s, seg, n);
	}
	return 0;
}

/* S written as R and JSON ask, the part of the sets L (may be NULL) with
 * it; P: the partial instead. */
static int summary_put(FILE *f, const st_trace_summary *s,
		       const st_trace_render *r, bool json,
		       const st_systrace_list *l, st_sum_partial *p,
		       st_error *err)
{
	bool sys = l && l->n;
	json_t *j;

	if (p)
		return st_sum_partial_write(f, p, s, err);
	if (!json) {
		if (st_trace_summary_text(f, s, r, err) < 0)
			return -1;
		if (sys)
			return st_systrace_text(f, l, s, r->o->seg_us,
						r->o->nseg, err);
		return 0;
	}
	j = st_trace_summary_json(s, r);
	if (j && sys)
		json_object_set_new(j, "system", st_systrace_json(l, s,
			r->o->seg_us, r->o->nseg));
	return st_trace_json_write(f, j, "the summary", err);
}

int st_systrace_render_save(const char *out, const st_trace_summary *s,
			    const st_trace_render *r, bool json,
			    const st_systrace_list *l, st_sum_partial *p,
			    st_error *err)
{
	st_atomic_file af = { 0 };

	if (st_atomic_open(&af, out, err) < 0)
		return -1;
	if (summary_put(af.fp, s, r, json, l, p, err) < 0) {
		st_atomic_abort(&af);
		return -1;
	}
	return st_atomic_commit(&af, err);
}
