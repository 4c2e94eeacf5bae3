/* libFuzzer target: `trace timeline` building (SPEC 5.10).  The input is
 * the content of one .pfw file; it goes through the whole path of the
 * command: st_trace_timeline_scan (the reader, the summary), then
 * st_trace_timeline_write (tracks, lanes, sampling, writing) into a memory
 * buffer.  Beyond "no crash", the result must be what trace_verify
 * accepts: valid JSON with a traceEvents array, as many X slices as the
 * counts say (at most --max-events), every (pid, tid) of a slice named by
 * exactly one thread_name, and the slices of each track nested.  The
 * input's length picks the options, so that mutations reach all of them:
 * a length divisible by 3 samples down to 3 slices, one divisible by 5
 * keeps only names containing "read". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "streamtime/trace.h"
#include "streamtime/trace_timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct slice {
	int64_t pid, tid, s, e;
};

static int cmp_slice(const void *x, const void *y)
{
	const struct slice *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e > b->e ? -1 : 1;   /* the longer first */
	return 0;
}

/* Is (PID, TID) in the sorted names V[0..N) (pid and tid in s, e unused)? */
static int named(const struct slice *v, size_t n, int64_t pid, int64_t tid)
{
	struct slice k = { pid, tid, 0, 0 };
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_slice(&v[mid], &k);

		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Check TEXT, the trace written, against the counts C; abort on a fault. */
static void check(const char *text, const st_trace_timeline_counts *c,
		  uint64_t max_events)
{
	json_t *root = json_loads(text, 0, NULL), *ev, *v;
	struct slice *xs, *names, *stack;
	size_t nx = 0, nn = 0, i, depth = 0;

	if (!root)
		abort();   /* not JSON */
	ev = json_object_get(root, "traceEvents");
	if (!json_is_array(ev))
		abort();
	xs = calloc(json_array_size(ev) + 1, sizeof(*xs));
	names = calloc(json_array_size(ev) + 1, sizeof(*names));
	stack = calloc(json_array_size(ev) + 1, sizeof(*stack));
	if (!xs || !names || !stack)
		abort();
	json_array_foreach(ev, i, v) {
		const char *ph = json_string_value(json_object_get(v, "ph"));
		const char *name = json_string_value(json_object_get(v, "name"));
		json_t *pid = json_object_get(v, "pid");
		json_t *tid = json_object_get(v, "tid");

		if (!ph || !name || !json_is_integer(pid) ||
		    !json_is_integer(tid))
			abort();
		if (strcmp(ph, "X") == 0) {
			json_t *ts = json_object_get(v, "ts");
			json_t *dur = json_object_get(v, "dur");

			if (!json_is_integer(ts) || !json_is_integer(dur) ||
			    json_integer_value(dur) < 0)
				abort();
			xs[nx++] = (struct slice){ json_integer_value(pid),
						   json_integer_value(tid),
						   json_integer_value(ts),
						   json_integer_value(ts) +
						   json_integer_value(dur) };
		} else if (strcmp(name, "thread_name") == 0) {
			names[nn++] = (struct slice){ json_integer_value(pid),
						      json_integer_value(tid),
						      0, 0 };
		}
	}
	if (nx != c->written || (max_events && nx > max_events) ||
	    (!c->sampled && c->written != c->events))
		abort();   /* the counts lie */
	qsort(names, nn, sizeof(*names), cmp_slice);
	for (i = 1; i < nn; i++)
		if (names[i].pid == names[i - 1].pid &&
		    names[i].tid == names[i - 1].tid)
			abort();   /* two tracks, one tid */
	qsort(xs, nx, sizeof(*xs), cmp_slice);
	for (i = 0; i < nx; i++) {
		if (!named(names, nn, xs[i].pid, xs[i].tid))
			abort();   /* a slice on a track without a name */
		if (i == 0 || xs[i].pid != xs[i - 1].pid ||
		    xs[i].tid != xs[i - 1].tid)
			depth = 0;
		while (depth && stack[depth - 1].e <= xs[i].s)
			depth--;
		if (depth && xs[i].e > stack[depth - 1].e)
			abort();   /* a track whose slices do not nest */
		stack[depth++] = xs[i];
	}
	free(xs);
	free(names);
	free(stack);
	json_decref(root);
}

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	const char *paths[1] = { path };
	st_trace_timeline_opts o = { 0 };
	st_trace_timeline_counts c;
	st_trace_filter f = { 0 };
	st_trace_summary s;
	st_log log = { 0 };
	st_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int rc;

	if (fd < 0) {
		snprintf(path, sizeof(path), "/tmp/fuzz-trace-timeline-XXXXXX");
		if ((fd = mkstemp(path)) < 0)
			abort();
		atexit(remove_file);
	}
	if (ftruncate(fd, 0) < 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	o.jobs = 1;
	o.max_bad = 4;
	o.max_events = size % 3 == 0 ? 3 : 0;
	if (size % 5 == 0) {
		if (st_trace_filter_parse(&f, "name~read", &err) < 0)
			abort();
		o.filter = &f;
	}
	if (st_trace_timeline_scan(paths, 1, &o, &s, &err) < 0)
		abort();   /* only out of memory may fail */
	if (!(out = open_memstream(&buf, &len)))
		abort();
	rc = st_trace_timeline_write(paths, 1, &o, &s, out, &c, &log, &err);
	if (fclose(out) != 0)
		abort();
	/* beyond 2^32-1 slices (64) cannot be reached with a small input */
	if (rc < 0)
		abort();
	check(buf, &c, o.max_events);
	free(buf);
	st_trace_summary_release(&s);
	st_trace_filter_release(&f);
	return 0;
}
