/* libFuzzer target: the binary form of summary partials that the result
 * cache keeps (sum_partial.h, trace_cache.h).  The input is read twice:
 * as a binary entry, which st_sum_merge_add_bin must refuse (65 or 74,
 * with a message, nothing kept) or take; and as a JSON partial, which,
 * when `trace merge` takes it, written in the binary form and read back
 * must finish as the JSON partial does: the same totals, processes,
 * threads, names, span, interval unions, inputs and corrupt lines.  With
 * time bins the partials are only taken, not finished (as
 * fuzz_sum_partial.c says why). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/sum_partial.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Do A and B say the same? */
static int same(const st_trace_summary *a, const st_trace_summary *b)
{
	if (a->events != b->events || a->bad_lines != b->bad_lines ||
	    a->processes != b->processes || a->threads != b->threads ||
	    a->hosts != b->hosts || a->files != b->files ||
	    a->first_us != b->first_us || a->end_us != b->end_us ||
	    a->io_us != b->io_us || a->compute_us != b->compute_us ||
	    a->io_unoverlapped_us != b->io_unoverlapped_us ||
	    a->compute_unoverlapped_us != b->compute_unoverlapped_us ||
	    a->n_name != b->n_name || a->n_cat != b->n_cat ||
	    a->n_groups != b->n_groups || a->n_files != b->n_files ||
	    a->n_bad != b->n_bad || a->saturated != b->saturated)
		return 0;
	for (size_t i = 0; i < a->n_name; i++)
		if (strcmp(a->by_name[i].key, b->by_name[i].key) != 0 ||
		    a->by_name[i].dur_us != b->by_name[i].dur_us ||
		    a->by_name[i].bytes != b->by_name[i].bytes ||
		    a->by_name[i].count != b->by_name[i].count)
			return 0;
	for (size_t i = 0; i < a->n_files; i++)
		if (strcmp(a->files_in[i].path, b->files_in[i].path) != 0 ||
		    a->files_in[i].st.events != b->files_in[i].st.events ||
		    a->files_in[i].err_code != b->files_in[i].err_code)
			return 0;
	for (size_t i = 0; i < a->n_bad; i++)
		if (a->bad[i].line != b->bad[i].line ||
		    strcmp(a->bad[i].why, b->bad[i].why) != 0)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_sum_merge raw = { 0 }, j = { 0 }, b = { 0 };
	st_trace_summary sj, sb;
	st_error err = { 0 };
	const char *t = (const char *)data;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rj, rb;

	if (st_sum_merge_add_bin(&raw, t, size, "e", &err) < 0 &&
	    ((err.code != ST_EXIT_DATAERR && err.code != ST_EXIT_IOERR) ||
	     !err.text[0] || raw.o || raw.state))
		abort();
	st_sum_merge_release(&raw);
	if (st_sum_merge_add(&j, t, size, "p.json", &err) < 0) {
		st_sum_merge_release(&j);
		return 0;
	}
	if (!(f = open_memstream(&buf, &len)))
		abort();
	if (st_sum_merge_write_bin(f, &j) < 0 || fclose(f) != 0 ||
	    st_sum_merge_add_bin(&b, buf, len, "e", &err) < 0)
		abort();
	free(buf);
	if (j.o->granularity_us > 0) {
		st_sum_merge_release(&j);
		st_sum_merge_release(&b);
		return 0;
	}
	rj = st_sum_merge_finish(&j, 10, &sj, &err);
	rb = st_sum_merge_finish(&b, 10, &sb, &err);
	if (rj != rb || (rj == 0 && !same(&sj, &sb)))
		abort();
	st_trace_summary_release(&sj);
	st_trace_summary_release(&sb);
	st_sum_merge_release(&j);
	st_sum_merge_release(&b);
	return 0;
}
