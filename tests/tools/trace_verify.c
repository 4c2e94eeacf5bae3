/* trace_verify FILE: parse a Chrome trace with jansson and check what
 * Perfetto UI and chrome://tracing need, independently of the writer:
 *   - the object form with a traceEvents array;
 *   - every X event has name, ts, dur, pid and tid; ts and dur integers
 *     or reals, dur >= 0;
 *   - every M event names a process or thread, or sorts one;
 *   - C (counter) events have ts and numeric args, i (instant) events ts
 *     and tid;
 *   - on each (pid, tid) track, X slices nest: sorted by start (longer
 *     first on ties), each ends within the slice that encloses it;
 *   - every pid and (pid, tid) used by an X event has a name.
 * Prints one line per process, "NAME\tSLICES\tSCANS\tJOBS" (distinct
 * args.scan and args.job_id), then "ok".  Exit 0, or 1 naming the first
 * fault. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

struct x {
	json_int_t pid, tid;
	double ts, end;
	json_int_t scan, job;
};

static int fail(const char *what, size_t i)
{
	fprintf(stderr, "trace_verify: event %zu: %s\n", i, what);
	return 1;
}

static int cmp_track(const void *a, const void *b)
{
	const struct x *p = a, *q = b;

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	if (p->ts != q->ts)
		return p->ts < q->ts ? -1 : 1;
	return p->end > q->end ? -1 : p->end < q->end;
}

static int cmp_i64(const void *a, const void *b)
{
	json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;

	return x < y ? -1 : x > y;
}

/* Distinct non-negative values among V[0..N), V sorted in place. */
static size_t distinct(json_int_t *v, size_t n)
{
	size_t d = 0;

	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 0; i < n; i++)
		if (v[i] >= 0 && (i == 0 || v[i] != v[i - 1]))
			d++;
	return d;
}

int main(int argc, char **argv)
{
	json_error_t jerr;
	json_t *root, *events, *ev;
	struct x *xs;
	size_t nx = 0, i;
	json_int_t *pnamed = NULL, (*tnamed)[2] = NULL;
	size_t npn = 0, ntn = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_verify FILE\n");
		return 2;
	}
	if (!(root = json_load_file(argv[1], 0, &jerr))) {
		fprintf(stderr, "trace_verify: %s:%d: %s\n", argv[1], jerr.line,
			jerr.text);
		return 1;
	}
	events = json_object_get(root, "traceEvents");
	if (!json_is_object(root) || !json_is_array(events))
		return fail("not the object form with traceEvents", 0);
	xs = calloc(json_array_size(events) + 1, sizeof(*xs));
	pnamed = calloc(json_array_size(events) + 1, sizeof(*pnamed));
	tnamed = calloc(json_array_size(events) + 1, sizeof(*tnamed));
	if (!xs || !pnamed || !tnamed)
		return fail("out of memory", 0);
	json_array_foreach(events, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *name = json_string_value(json_object_get(ev, "name"));
		json_t *pid = json_object_get(ev, "pid"),
		       *tid = json_object_get(ev, "tid"),
		       *ts = json_object_get(ev, "ts"),
		       *dur = json_object_get(ev, "dur"),
		       *args = json_object_get(ev, "args");

		if (!ph || !name || !json_is_integer(pid))
			return fail("no ph, name or integer pid", i);
		if (!strcmp(ph, "M")) {
			if (!json_is_object(args))
				return fail("M without args", i);
			if (!strcmp(name, "process_name"))
				pnamed[npn++] = json_integer_value(pid);
			else if (!strcmp(name, "thread_name")) {
				if (!json_is_integer(tid))
					return fail("thread_name without tid", i);
				tnamed[ntn][0] = json_integer_value(pid);
				tnamed[ntn++][1] = json_integer_value(tid);
			} else if (strcmp(name, "process_sort_index") &&
				   strcmp(name, "thread_sort_index"))
				return fail("unknown M event", i);
			continue;
		}
		if (!strcmp(ph, "C")) {
			/* a counter: a time and numbers only */
			const char *k;
			json_t *v;

			if (!json_is_number(ts) || !json_is_object(args) ||
			    !json_object_size(args))
				return fail("C without ts or args", i);
			json_object_foreach(args, k, v)
				if (!json_is_number(v))
					return fail("C with a value that is no "
						    "number", i);
			continue;
		}
		if (!strcmp(ph, "i")) {
			if (!json_is_number(ts) || !json_is_integer(tid))
				return fail("i without ts or tid", i);
			continue;
		}
		if (strcmp(ph, "X"))
			return fail("neither X, M, C nor i", i);
		if (!json_is_integer(tid) || !json_is_number(ts) ||
		    !json_is_number(dur))
			return fail("X without tid, ts or dur", i);
		if (json_number_value(dur) < 0)
			return fail("negative dur", i);
		xs[nx].pid = json_integer_value(pid);
		xs[nx].tid = json_integer_value(tid);
		xs[nx].ts = json_number_value(ts);
		xs[nx].end = xs[nx].ts + json_number_value(dur);
		xs[nx].scan = json_is_integer(json_object_get(args, "scan")) ?
			json_integer_value(json_object_get(args, "scan")) : -1;
		xs[nx].job = json_is_integer(json_object_get(args, "job_id")) ?
			json_integer_value(json_object_get(args, "job_id")) : -1;
		nx++;
	}
	qsort(xs, nx, sizeof(*xs), cmp_track);
	/* nesting: a stack of open slices per track */
	{
		double *stack = calloc(nx + 1, sizeof(*stack));
		size_t depth = 0;

		for (i = 0; i < nx; i++) {
			if (i == 0 || xs[i].pid != xs[i - 1].pid ||
			    xs[i].tid != xs[i - 1].tid)
				depth = 0;
			while (depth && stack[depth - 1] <= xs[i].ts)
				depth--;
			if (depth && xs[i].end > stack[depth - 1]) {
				fprintf(stderr, "trace_verify: pid %lld tid %lld: "
					"a slice at %.0f ends at %.0f, after its "
					"parent's end %.0f\n",
					(long long)xs[i].pid, (long long)xs[i].tid,
					xs[i].ts, xs[i].end, stack[depth - 1]);
				return 1;
			}
			stack[depth++] = xs[i].end;
		}
		free(stack);
	}
	for (i = 0; i < nx; i++) {
		size_t k;

		for (k = 0; k < npn && pnamed[k] != xs[i].pid; k++)
			;
		if (k == npn)
			return fail("an X event's process has no name", i);
		for (k = 0; k < ntn && !(tnamed[k][0] == xs[i].pid &&
					 tnamed[k][1] == xs[i].tid); k++)
			;
		if (k == ntn)
			return fail("an X event's thread has no name", i);
	}
	/* per process: slices, distinct scans, distinct jobs */
	json_array_foreach(events, i, ev) {
		const char *name = json_string_value(json_object_get(ev, "name"));
		json_int_t pid = json_integer_value(json_object_get(ev, "pid"));
		json_int_t *scans, *jobs;
		size_t n = 0;

		if (strcmp(name, "process_name"))
			continue;
		scans = calloc(nx + 1, sizeof(*scans));
		jobs = calloc(nx + 1, sizeof(*jobs));
		for (size_t k = 0; k < nx; k++)
			if (xs[k].pid == pid) {
				scans[n] = xs[k].scan;
				jobs[n++] = xs[k].job;
			}
		printf("%s\t%zu\t%zu\t%zu\n", json_string_value(json_object_get(
			json_object_get(ev, "args"), "name")), n,
		       distinct(scans, n), distinct(jobs, n));
		free(scans);
		free(jobs);
	}
	printf("ok\n");
	free(xs);
	free(pnamed);
	free(tnamed);
	json_decref(root);
	return 0;
}
