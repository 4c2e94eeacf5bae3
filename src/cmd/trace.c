/* trace.c - `streamtime trace summary|timeline` (SPEC 5.10). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/csv.h"
#include "streamtime/num.h"
#include "streamtime/sum_partial.h"
#include "streamtime/systrace.h"
#include "streamtime/systrace_render.h"
#include "trace_inputs.h"
#include "streamtime/time.h"
#include "streamtime/text.h"
#include "streamtime/trace.h"
#include "streamtime/trace_render.h"
#include "trace_sys.h"

#define MAX_JOBS 256

static const struct st_cmd_desc summary_desc = {
	.path = "streamtime trace summary",
	ST_DESC_ARGS_ANY("FILE...", "no trace file given",
			 ST_COMPLETE_FILE),
	.description =
	"Summarise DFTracer traces (.pfw, .pfw.gz; a directory means its\n"
	"*.pfw and *.pfw.gz; '-' is standard input): events, hosts,\n"
	"processes, threads, files, span, time and bytes per category and\n"
	"function, I/O and compute time per process (exact unions of the\n"
	"events' intervals), overlapped and not.  A directory of system\n"
	"traces (bpftrace, mpstat, nvidia-smi pmon, MLPerf logs, strace:\n"
	"docs/systrace.md) adds its calls as events, and its clock\n"
	"alignment with a stated bound, processes and per-phase figures.\n",
	.epilogue =
	"Corrupt lines are counted and skipped (the first ten named on stderr).\n"
	"Exit 0, also when the filter keeps no event (a zero summary); 65 when\n"
	"an input is not a trace (empty, no event, only corrupt lines) or its\n"
	"gzip stream is damaged, or a directory holds no trace; 66 an input\n"
	"missing or unreadable; 74 a read error; 64 a time-align trace with no\n"
	"date (--date).  On 65, 66 and 74 nothing is written (--out FILE is\n"
	"left as it was).  --save-partial FILE writes the mergeable state\n"
	"instead, under the same rule, for `trace merge`\n"
	"(docs/slurm-array.md); 64 with a system-trace directory.\n",
};

static const struct st_cmd_desc timeline_desc = {
	.path = "streamtime trace timeline",
	ST_DESC_ARGS_ANY("FILE...", "no trace file given",
			 ST_COMPLETE_FILE),
	.required_msg = "--out FILE is required ('-' for stdout)",
	.description =
	"One Chrome trace (open it in https://ui.perfetto.dev) of DFTracer\n"
	"traces: a process per (host, pid), a track per thread, a slice per\n"
	"event (args: file, bytes).  Slices of a thread that overlap without\n"
	"nesting go on extra tracks next to it, \"tid T (2)\", ...  System\n"
	"traces: a track per kind of call, the application's phases, CPU and\n"
	"GPU counters, the clock alignment in otherData.\n",
	.epilogue =
	"Exit status as for `trace summary`: no event kept by the filter is an\n"
	"empty trace (0); on 65, 66 and 74 --out FILE is left as it was.\n",
};

static const char *const group_choices[] = {
	"host", "pid", "thread", "name", "cat", "file", "basename", "pattern",
	"prefix:", "phase", NULL,
};

static const char filter_help[] =
	"only events where F holds: TERM[,TERM...], all of them (AND; repeat "
	"--filter to add more).  TERM is FIELD OP VALUE.  Text fields name, "
	"cat, host, file, basename, pattern (the basename with each run of "
	"digits and '-' as '*'): = (equal), ~ (contains), ^ (starts with), $ "
	"(ends with), =~ (POSIX extended regular expression).  Numbers pid, "
	"tid, dur, ts (microseconds), bytes: = < <= > >= and an integer.  '!' "
	"before the operator negates (name!~read, pid!=0).\ne.g. "
	"cat=POSIX,name=~^p?write,file^/p/lustre,dur>1000";

/* --filter F: one more AND of terms into the st_trace_filter at TARGET. */
static int add_filter(const struct st_option *o, char *arg,
                      st_error *err)
{
	if (st_trace_filter_parse(o->target, arg, err) < 0) {
		err->code = ST_EXIT_USAGE;
		return -1;
	}
	return 0;
}

/* --group-by KEYS or --per KEYS into the st_trace_keys at TARGET; the
 * text stays for the output. */
struct group_sel {
	const char *text;
	st_trace_keys *k;
};

static int set_keys(const struct st_option *o, char *arg,
		    st_error *err)
{
	struct group_sel *g = o->target;

	if (st_trace_keys_parse(g->k, arg, err) < 0)
		return -1;
	if (!g->k->n)
		return st_error_set(err, ST_EXIT_USAGE, "no key given "
				    "(KEY[,KEY...])");
	g->text = arg;
	return 0;
}

/* A string of argv, kept writable (split_list cuts it). */
static int set_text(const struct st_option *o, char *arg,
                    st_error *err)
{
	(void)err;
	*(char **)o->target = arg;
	return 0;
}

/* ---- inputs ---------------------------------------------------------- */

/* The paths (DFTracer files, system-trace directories) and the sets. */
struct inputs {
	struct st_trace_inputs in;
	struct st_trace_sets ts;
};

static int inputs_collect(struct inputs *in, char **args, size_t n)
{
	return st_trace_inputs_collect(&in->in, args, n);
}

static void inputs_release(struct inputs *in)
{
	st_trace_inputs_release(&in->in);
	st_trace_sets_release(&in->ts);
}

/* Open IN's system-trace directories as sets (their small files read
 * now), their call files added to IN's paths, IN->ts.src their source.
 * Returns the exit status, 0 when all opened. */
static int sets_open(struct inputs *in, const struct st_trace_sys_opts *so,
		     size_t max_bad)
{
	return st_trace_sets_open(&in->ts, in->in.sysdirs, in->in.nsys, so,
				  max_bad, &in->in.v, &in->in.n);
}

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (int)n;
}

/* Is S, the argument of OPT, a list split_list takes: "" (no category)
 * or names joined by commas, none of them empty?  Else a usage message
 * naming OPT: "," or "POSIX," must not quietly mean the default. */
static bool list_ok(const char *prog, const char *opt, const char *s,
		    int *rc)
{
	size_t len = strlen(s);

	if (len && (s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))) {
		*rc = st_msg_usage(prog, "%s '%s': an empty category in the "
				   "list (NAME[,NAME...], or '' for none)",
				   opt, s);
		return false;
	}
	return true;
}

/* "A,B,C" (checked by list_ok) into a list of pointers into S (modified);
 * "" is no category. */
static int split_list(char *s, const char ***v, size_t *n)
{
	*v = NULL;
	*n = 0;
	if (!*s)
		return st_strv_push(v, n, "") < 0 ? -1 : (*n = 0, 0);
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
		if (st_strv_push(v, n, tok) < 0)
			return -1;
	return 0;
}

/* ---- the progress meter ---------------------------------------------- */

struct meter {
	st_trace_progress *p;
	const char *what;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, shown, running;
	struct timespec t0;
	double delay;        /* seconds before the first line */
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void *meter_main(void *arg)
{
	struct meter *m = arg;

	pthread_mutex_lock(&m->mu);
	while (!m->stop) {
		struct timespec until;
		double el = since(&m->t0);

		/* a line only for runs longer than a second (or
		 * $STREAMTIME_PROGRESS_DELAY seconds) */
		if (el >= m->delay) {
			uint64_t b = atomic_load(&m->p->bytes);
			uint64_t e = atomic_load(&m->p->events);
			uint64_t total = atomic_load(&m->p->total_bytes);
			double pct = total ? 100.0 * (double)b / (double)total
					   : 0;

			fprintf(stderr, "\rstreamtime: %s: %5.1f%%  %.1f of "
				"%.1f MB  %.2f M events  %.2f M events/s ",
				m->what, pct > 100 ? 100 : pct, (double)b / 1e6,
				(double)total / 1e6, (double)e / 1e6,
				(double)e / 1e6 / el);
			m->shown = true;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&m->cv, &m->mu, &until);
	}
	if (m->shown)
		fputs("\r\033[K", stderr);
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

/* Start a meter on stderr when it is a terminal (and not -q). */
static void meter_start(struct meter *m, st_trace_progress *p,
			const char *what, char **files, size_t n)
{
	memset(m, 0, sizeof(*m));
	m->p = p;
	m->what = what;
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (stat(files[i], &sb) == 0)
			atomic_fetch_add(&p->total_bytes, (uint64_t)sb.st_size);
	}
	if (!isatty(STDERR_FILENO) || st_verbosity < 0)
		return;
	m->delay = 1.0;
	if (getenv("STREAMTIME_PROGRESS_DELAY"))
		(void)st_num_parse_double(getenv("STREAMTIME_PROGRESS_DELAY"),
					  &m->delay);
	clock_gettime(CLOCK_MONOTONIC, &m->t0);
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	m->running = pthread_create(&m->th, NULL, meter_main, m) == 0;
}

static void meter_stop(struct meter *m)
{
	if (!m->running)
		return;
	pthread_mutex_lock(&m->mu);
	m->stop = true;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
	pthread_join(m->th, NULL);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cv);
	m->running = false;
}

/* ---- messages about the inputs --------------------------------------- */

/* Inputs whose events lie more than a day apart are most likely of
 * unrelated runs (a trace with times since boot or 1970 beside one of this
 * year): their summary spans the gap, so say so. */
static void span_warning(const st_trace_summary *s)
{
	size_t a, b;
	int64_t gap;
	char ta[40], tb[40];

	if (st_trace_span_gap(s->files_in, s->n_files, &a, &b, &gap) < 0)
		return;
	st_time_format_utc(s->files_in[a].end_us * 1000, ta, sizeof(ta));
	st_time_format_utc(s->files_in[b].first_us * 1000, tb, sizeof(tb));
	st_msg_warn("the inputs look like unrelated runs: %s's events end at "
		    "%s and %s's begin at %s, %.1f days later; the totals and "
		    "the span cover both (summarise them apart, or --filter "
		    "ts>... to keep one)", s->files_in[a].path, ta,
		    s->files_in[b].path, tb, (double)gap / 86400e6);
}

/* The one rule of every trace command about its inputs (README, trace):
 * corrupt lines are counted and named as warnings, never fatal; an input
 * that was not read to its end (74 a read error, 66 gone or unreadable,
 * 65 a damaged or cut gzip stream) or that is not a trace at all (no line
 * is an event: empty, only "[" and "]", only corrupt lines; 65) is an
 * error, said here naming the file.  Returns the exit status (74 before 66
 * before 65), 0 when every input is a trace read to its end.  The caller
 * checks it after reading and before it opens its output, and writes
 * nothing when it is not 0; an input with events that the filter all
 * drops is fine (an empty result). */
static int report_inputs(const st_trace_summary *s, const char *what,
			 const struct inputs *in)
{
	int rc = st_trace_inputs_report(s->files_in, s->n_files, s->bad,
					s->n_bad, s->bad_lines, &in->ts.sets);

	trace_sys_report(&in->ts.sets);
	span_warning(s);
	if (rc)
		st_msg_error("%s: nothing written (an output file is left as "
			     "it was)", what);
	return rc;
}

/* ---- summary output -------------------------------------------------- */

static json_t *stat_json(const st_trace_stat *st, bool bytes)
{
	json_t *o = json_pack("{s:I, s:I}", "count", (json_int_t)st->count,
			      "dur_us", (json_int_t)st->dur_us);

	if (o && bytes)
		json_object_set_new(o, "bytes", json_integer(st->bytes));
	return o;
}

/* A group: its stats, keys and per-unit maxima (max_process_dur_us as
 * well when the unit is the process, as before --per). */
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

static json_t *summary_json(const st_trace_summary *s, const char *group,
			    const char *per, int64_t gran)
{
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
				"{s:I, s:I, s:I, s:I, s:I}",
				"start_us", (json_int_t)b->start_us,
				"events", (json_int_t)b->events,
				"bytes", (json_int_t)b->bytes,
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

static int summary_text(FILE *f, const st_trace_summary *s,
			const st_trace_opts *o, const char *group,
			const char *per)
{
	char a[40], b[40], c[40], t0[48], t1[48], io[256], comp[256];
	const st_trace_stat **p;
	int w;

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

	w = key_width(s->by_cat, s->n_cat, 8);
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

	if (group) {
		char hd[64], hb[64];

		snprintf(hd, sizeof(hd), "max %s dur (s)", per);
		snprintf(hb, sizeof(hb), "max %s bytes", per);
		w = key_width(s->groups, s->n_groups, 8);
		fprintf(f, "\n%-*s %12s %16s %16s %20s %20s  %s\n", w, group,
			"events", "dur (s)", "bytes", hd, hb, "its dur's unit");
		if (!(p = by_dur(s->groups, s->n_groups)))
			return -1;
		for (size_t i = 0; i < s->n_groups; i++) {
			secs(a, sizeof(a), p[i]->dur_us);
			secs(b, sizeof(b), p[i]->max_proc_dur_us);
			fprintf(f, "%-*s %12" PRIu64 " %16s %16" PRId64 " %20s "
				"%20" PRId64 "  %s\n", w, p[i]->key,
				p[i]->count, a, p[i]->bytes, b,
				p[i]->max_per_bytes, p[i]->max_dur_key ?
				p[i]->max_dur_key : "-");
		}
		free(p);
	}
	if (o->granularity_us > 0) {
		fprintf(f, "\n%-32s %12s %16s %16s %16s\n", "bin start (UTC)",
			"events", "bytes", "I/O (s)", "compute (s)");
		for (size_t i = 0; i < s->n_bins; i++) {
			const st_trace_bin *bn = &s->bins[i];

			st_time_format_utc(bn->start_us * 1000, t0, sizeof(t0));
			secs(a, sizeof(a), bn->io_us);
			secs(b, sizeof(b), bn->compute_us);
			fprintf(f, "%-32s %12" PRIu64 " %16" PRId64 " %16s %16s\n",
				t0, bn->events, bn->bytes, a, b);
		}
	}
	return 0;
}

/* ---- running a command ----------------------------------------------- */

/* The check between the passes: report_inputs, the meter stopped first
 * when STOP_METER (summary) and kept running otherwise (timeline). */
struct check_ctx {
	struct meter *m;
	bool stop_meter;
	const char *what;
	const struct inputs *in;
};

static int check_inputs(void *ctx, const st_trace_summary *s)
{
	struct check_ctx *c = ctx;

	if (c->stop_meter)
		meter_stop(c->m);
	return report_inputs(s, c->what, c->in);
}

/* The summary as JSON or text, as the command was asked. */
struct summary_out {
	bool json;
	const char *group, *per;
	const st_trace_opts *o;
	const struct inputs *in;
};

static int write_summary(void *ctx, const st_trace_summary *s, FILE *f,
			 st_error *err)
{
	const struct summary_out *w = ctx;

	if (w->json) {
		json_t *j = summary_json(s, w->group, w->per,
					 w->o->granularity_us);
		int bad;

		if (j && w->in->ts.sets.n)
			json_object_set_new(j, "system", st_systrace_json(
				&w->in->ts.sets, s, w->o->seg_us, w->o->nseg));
		bad = !j || json_dumpf(j, f, JSON_INDENT(2)) < 0 ||
			  fputc('\n', f) == EOF;

		json_decref(j);
		if (bad)
			return st_error_set(err, ST_EXIT_IOERR, "cannot write "
					    "the summary");
		return 0;
	}
	if (summary_text(f, s, w->o, w->group, w->per) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (w->in->ts.sets.n)
		return st_systrace_text(f, &w->in->ts.sets, s, w->o->seg_us,
					w->o->nseg, err);
	return 0;
}

/* Summarise IN with O and write it to OUT, a meter on the terminal: the
 * summary, or the partial when PARTIAL (PER_GIVEN: --per as given, NULL
 * when not).  Returns the exit status. */
static int run_summary(const struct inputs *in, const st_trace_opts *o,
		       bool json, const char *group, const char *per,
		       const char *per_given, bool partial, const char *out)
{
	struct meter m = { 0 };
	struct check_ctx cc = { &m, true, "trace summary", in };
	struct summary_out w = { json, group, per, o, in };
	st_trace_run_opts ro = {
		.paths = (const char *const *)in->in.v, .n = in->in.n, .out = out,
		.check = check_inputs, .check_ctx = &cc,
	};
	st_log log = ST_LOG_STDERR;
	st_error err;
	int check_rc, rc;

	meter_start(&m, o->progress, "trace summary", in->in.v, in->in.n);
	if (partial)
		rc = st_trace_summary_partial_run(&ro, o, group, per_given,
						  &check_rc, &log, &err);
	else
		rc = st_trace_summary_run(&ro, o, write_summary, &w,
					  &check_rc, &log, &err);
	meter_stop(&m);
	if (rc < 0)
		return check_rc ? check_rc : st_msg_fail(&err);
	return st_finish_stdout(ST_EXIT_OK);
}

int trace_summary_merged(const st_trace_summary *s, const st_trace_opts *o,
			 bool json, const char *group, const char *per,
			 const char *out)
{
	struct inputs in = { 0 };
	struct meter m = { 0 };
	struct check_ctx cc = { &m, false, "trace merge", &in };
	struct summary_out w = { json, group, per ? per : "pid", o, &in };
	st_trace_run_opts ro = { .out = out, .check = check_inputs,
				 .check_ctx = &cc };
	st_log log = ST_LOG_STDERR;
	st_error err;
	int check_rc;

	if (st_trace_summary_emit(&ro, s, write_summary, &w, &check_rc, &log,
				  &err) < 0)
		return check_rc ? check_rc : st_msg_fail(&err);
	return st_finish_stdout(ST_EXIT_OK);
}

/* Draw the timeline of IN with O into OUT, a meter on the terminal; say
 * what was written (EXPERIMENT, OFFSETS: given).  Returns the exit
 * status. */
static int run_timeline(const struct inputs *in,
			const st_trace_timeline_opts *o, const char *out,
			bool experiment, bool offsets)
{
	struct meter m = { 0 };
	struct check_ctx cc = { &m, false, "trace timeline", in };
	st_trace_run_opts ro = {
		.paths = (const char *const *)in->in.v, .n = in->in.n, .out = out,
		.check = check_inputs, .check_ctx = &cc,
	};
	st_trace_timeline_counts n;
	st_log log = ST_LOG_STDERR;
	st_error err;
	int check_rc, rc;

	meter_start(&m, o->progress, "trace timeline", in->in.v, in->in.n);
	rc = st_trace_timeline_run(&ro, o, &n, &check_rc, &log, &err);
	meter_stop(&m);
	if (rc < 0)
		return check_rc ? check_rc : st_msg_fail(&err);
	if (n.sampled)
		st_msg_warn("trace timeline: %" PRIu64 " events, more than "
			    "--max-events: every k-th kept, %" PRIu64
			    " written (otherData.sampled says so)", n.events,
			    n.written);
	if (n.extra_lanes)
		st_msg_verbose("trace timeline: %" PRIu64 " extra tracks for "
			       "slices that overlap without nesting",
			       n.extra_lanes);
	st_msg_info("trace timeline: %" PRIu64 " processes, %" PRIu64
		    " slices%s%s in %s", n.processes, n.written,
		    experiment ? " and the experiment's stages" : "",
		    offsets ? ", clock-corrected" : "",
		    strcmp(out, "-") ? out : "stdout");
	return st_finish_stdout(ST_EXIT_OK);
}

/* --experiment DIR (with --data, --config): the experiment's inputs into
 * *TIN, their paths in P (freed by the caller); each checked before the
 * output is touched.  Returns the exit status, 0 when all are there. */
struct exp_paths {
	char *merged, *stdir, *wt, *created;
};

static int experiment_input(const char *exp_dir, const char *data,
			    const char *config, st_experiments *ex,
			    struct exp_paths *p, st_timeline_input *tin)
{
	st_error err;

	if (st_load_experiments(config, data, ex, &err) < 0)
		return st_msg_fail(&err);
	p->merged = st_path_join(exp_dir, "file_transfer/merged_job_info.csv");
	p->stdir = st_path_join(exp_dir, "streaming");
	if (data) {
		p->wt = st_path_join(data, "file_transfer/write_times.csv");
		p->created = st_path_join(data, "streaming/"
					  "ncem_file_created_times.csv");
	}
	if (!p->merged || !p->stdir || (data && (!p->wt || !p->created))) {
		st_msg_error("out of memory");
		return ST_EXIT_IOERR;
	}
	/* missing: said before the output is touched */
	if (st_trace_input_check(p->merged, false) ||
	    (p->wt && st_trace_input_check(p->wt, false)) ||
	    (p->created && st_trace_input_check(p->created, false)))
		return ST_EXIT_NOINPUT;
	*tin = (st_timeline_input){ .merged = p->merged, .write_times = p->wt,
				    .created = p->created,
				    .streaming_dir = p->stdir, .ex = ex };
	return 0;
}

/* The I/O categories when system traces are read and --io-cat is not
 * given. */
static const char *sys_io_cats[] = { "POSIX", "STDIO", "syscall", "block" };

int cmd_trace_summary(int argc, char **argv)
{
	const char *prog = summary_desc.path, *out = "-", *partial = NULL;
	char *io_arg = NULL, *comp_arg = NULL;
	bool json = false;
	st_trace_filter filter = { 0 };
	st_trace_opts o = { 0 };
	struct group_sel group = { .k = &o.group }, per = { .k = &o.per };
	struct st_trace_sys_opts sys = { 0 };
	int64_t jobs = default_jobs();
	const struct st_option opts[] = {
		{ ST_O("json", 0, ST_OPT_FLAG, &json, NULL,
		       "the summary as JSON", 0) },
		{ ST_O("group-by", 0, ST_OPT_CALLBACK, &group, "KEYS",
		       "a table of groups, one per distinct value of KEYS "
		       "(KEY[,KEY...]; several keys: their values joined by ','): "
		       "count, dur, bytes, and the largest sum of dur and of "
		       "bytes over the --per units inside it.  Keys: host, pid "
		       "(host:pid), thread (host:pid:tid), name, cat, file, "
		       "basename, pattern (the basename with each run of digits "
		       "and '-' as '*'), prefix:N (the file's first N path "
		       "components), phase (the system traces' application "
		       "phase the event starts in, the innermost; DFTracer "
		       "alone: (none)).  No value (no file, no phase): (none); "
		       "no host: ''", 0),
		  .choices = group_choices, .cb = set_keys },
		{ ST_O("per", 0, ST_OPT_CALLBACK, &per, "KEYS",
		       "the unit of the groups' maxima (default pid; e.g. thread: "
		       "the busiest thread of each group)", 0),
		  .choices = group_choices, .cb = set_keys },
		{ ST_O("filter", 0, ST_OPT_CALLBACK, &filter, "F", filter_help,
		       ST_OPT_REPEAT), .cb = add_filter },
		{ ST_O("io-cat", 0, ST_OPT_CALLBACK, &io_arg, "LIST",
		       "categories that are I/O (default POSIX,STDIO; '' for "
		       "none)", 0), .cb = set_text },
		{ ST_O("compute-cat", 0, ST_OPT_CALLBACK, &comp_arg, "LIST",
		       "categories that are compute (default compute; '' for "
		       "none)", 0), .cb = set_text },
		{ ST_O("time-granularity", 0, ST_OPT_INT, &o.granularity_us, "US",
		       "also a table of time bins US microseconds wide: events, "
		       "bytes, I/O and compute time (bins that hold nothing are "
		       "left out)", 0), .min = 1, .max = INT64_MAX,
		  .expect = "a positive number of microseconds" },
		{ ST_O("jobs", 'j', ST_OPT_INT, &jobs, "N",
		       "files read in parallel (default: the cores)", 0),
		  .min = 1, .max = MAX_JOBS },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "write the summary there (default '-': stdout)", 0) },
		{ ST_O("save-partial", 0, ST_OPT_PATH, &partial, "FILE",
		       "write the mergeable state there instead of the "
		       "summary, for `trace merge` (a share of a Slurm job "
		       "array; DFTracer files only)", 0) },
		ST_TRACE_SYS_OPT_ROWS(sys),
		ST_OPT_END_ROW,
	};
	const char **io = NULL, **comp = NULL;
	st_trace_progress prog_c = { 0 };
	struct inputs in = { 0 };
	int nargs, rc;

	if (!st_opt_go(&summary_desc, opts, argc, argv, &nargs, &rc))
		goto out;
	rc = ST_EXIT_OK;
	if ((io_arg && !list_ok(prog, "--io-cat", io_arg, &rc)) ||
	    (comp_arg && !list_ok(prog, "--compute-cat", comp_arg, &rc)))
		goto out;
	if (!*out) {
		rc = st_msg_usage(prog, "--out needs a file name or '-'");
		goto out;
	}
	if (partial && (json || strcmp(out, "-") != 0)) {
		rc = st_msg_usage(prog, "--save-partial writes the partial, "
				  "not the summary: no --json or --out with "
				  "it");
		goto out;
	}
	if ((io_arg && split_list(io_arg, &io, &o.n_io) < 0) ||
	    (comp_arg && split_list(comp_arg, &comp, &o.n_compute) < 0)) {
		st_msg_error("out of memory");
		rc = ST_EXIT_IOERR;
		goto out;
	}
	o.io_cats = io_arg ? io : NULL;
	o.compute_cats = comp_arg ? comp : NULL;
	o.max_bad = st_verbosity > 0 ? 1000 : 10;
	if ((rc = inputs_collect(&in, argv + 1, (size_t)nargs)) ||
	    (rc = sets_open(&in, &sys, o.max_bad)))
		goto out;
	if (in.ts.sets.n && partial) {
		rc = st_msg_usage(prog, "--save-partial takes DFTracer files "
				  "only, not a system-trace directory (%s): "
				  "summarise it in one process",
				  in.in.sysdirs[0]);
		goto out;
	}
	if (in.ts.sets.n) {
		o.src = &in.ts.src;
		if (!io_arg) {
			o.io_cats = sys_io_cats;
			o.n_io = 4;
		}
		if ((rc = st_trace_sets_phases(&in.ts)))
			goto out;
		o.seg_us = in.ts.seg;
		o.nseg = in.ts.nseg;
		o.seg_phase = in.ts.phase;
	}
	o.filter = filter.n ? &filter : NULL;
	o.jobs = (int)jobs;
	o.progress = &prog_c;
	if (per.text && !group.text) {
		rc = st_msg_usage(prog, "--per needs --group-by");
		goto out;
	}
	rc = run_summary(&in, &o, json, group.text,
			 per.text ? per.text : "pid", per.text, partial != NULL,
			 partial ? partial : out);
out:
	st_trace_filter_release(&filter);
	inputs_release(&in);
	free(io);
	free(comp);
	return rc;
}

/* ---- timeline -------------------------------------------------------- */

int cmd_trace_timeline(int argc, char **argv)
{
	const char *prog = timeline_desc.path;
	const char *out = NULL, *offsets_path = NULL, *exp_dir = NULL;
	const char *data = NULL, *config = NULL;
	st_trace_filter filter = { 0 };
	st_trace_timeline_opts o = { .max_events = 1000000 };
	struct st_trace_sys_opts sys = { 0 };
	int64_t jobs = default_jobs(), max_events = 1000000;
	const struct st_option opts[] = {
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "the trace ('-' for stdout)", ST_OPT_REQUIRED) },
		{ ST_O("max-events", 0, ST_OPT_INT, &max_events, "N",
		       "at most N slices (default 1000000; 0: all): beyond it "
		       "every k-th event is kept, evenly, and the trace's "
		       "otherData.sampled says so", 0), .min = 0,
		  .max = INT64_MAX, .expect = "a number (0: no limit)" },
		{ ST_O("clock-offsets", 0, ST_OPT_PATH, &offsets_path, "FILE",
		       "a `streamtime clock probe` file: each host's times are "
		       "moved to the reference clock with its nearest measurement "
		       "(targets named as the traces' hostnames)", 0) },
		{ ST_O("experiment", 0, ST_OPT_PATH, &exp_dir, "DIR",
		       "add the streaming experiment's timeline from `streamtime "
		       "reproduce --out DIR` (with --data, its receivers and "
		       "offload too; --config as for `streamtime timeline`)", 0) },
		{ ST_O("data", 0, ST_OPT_PATH, &data, "DIR",
		       "with --experiment: the dataset", 0) },
		ST_ROW_CONFIG(config),
		{ ST_O("filter", 0, ST_OPT_CALLBACK, &filter, "F",
		       "as for `trace summary`", ST_OPT_REPEAT),
		  .cb = add_filter },
		{ ST_O("jobs", 'j', ST_OPT_INT, &jobs, "N",
		       "files read in parallel by the first pass", 0),
		  .min = 1, .max = MAX_JOBS },
		ST_TRACE_SYS_OPT_ROWS(sys),
		ST_OPT_END_ROW,
	};
	struct exp_paths ep = { 0 };
	st_trace_progress prog_c = { 0 };
	st_table otab;
	st_clock_offsets offs = { 0 };
	st_experiments ex = { 0 };
	st_timeline_input tin = { 0 };
	struct inputs in = { 0 };
	st_error err;
	int nargs, rc;

	st_table_init(&otab);
	if (!st_opt_go(&timeline_desc, opts, argc, argv, &nargs, &rc))
		goto out;
	rc = ST_EXIT_OK;
	o.max_events = (uint64_t)max_events;
	if (!*out) {
		rc = st_msg_usage(prog, "%s", timeline_desc.required_msg);
		goto out;
	}
	for (int i = 1; i <= nargs; i++)
		if (strcmp(argv[i], "-") == 0) {
			rc = st_msg_usage(prog, "the traces are read twice: "
					  "'-' (standard input) cannot be one");
			goto out;
		}
	if ((data || config) && !exp_dir) {
		rc = st_msg_usage(prog, "--data and --config go with "
				  "--experiment");
		goto out;
	}
	o.max_bad = st_verbosity > 0 ? 1000 : 10;
	if ((rc = inputs_collect(&in, argv + 1, (size_t)nargs)) ||
	    (rc = sets_open(&in, &sys, o.max_bad)))
		goto out;
	if (in.ts.sets.n)
		o.src = &in.ts.src;
	if (offsets_path) {
		if (st_table_read(&otab, offsets_path, &err) < 0 ||
		    st_clock_offsets_load(&offs, &otab, &err) < 0) {
			rc = st_msg_fail(&err);
			goto out;
		}
		o.offsets = &offs;
	}
	if (exp_dir) {
		if ((rc = experiment_input(exp_dir, data, config, &ex, &ep,
					   &tin)))
			goto out;
		o.experiment = &tin;
	}
	o.filter = filter.n ? &filter : NULL;
	o.jobs = (int)jobs;
	o.max_bad = st_verbosity > 0 ? 1000 : 10;
	o.progress = &prog_c;
	rc = run_timeline(&in, &o, out, exp_dir, offsets_path);
out:
	st_trace_filter_release(&filter);
	st_clock_offsets_release(&offs);
	st_table_release(&otab);
	st_experiments_release(&ex);
	inputs_release(&in);
	free(ep.merged);
	free(ep.stdir);
	free(ep.wt);
	free(ep.created);
	return rc;
}
