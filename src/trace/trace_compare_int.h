/* trace_compare_int.h - what the parts of trace compare share: the per-key
 * sums and a case's pass (trace_compare.c), which the partials
 * (trace_compare_partial.c) write and merge.  Not a public interface. */
#ifndef STREAMTIME_TRACE_COMPARE_INT_H
#define STREAMTIME_TRACE_COMPARE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/trace_compare.h"

#include "pass.h"
#include "trace_int.h"

/* A key's component: a string id of the case's table, a pid or a tid;
 * COMP_NONE for a value the event lacks. */
#define COMP_NONE UINT64_MAX
#define MAX_COMPS (3 * ST_TRACE_KEYS_MAX)

/* Sums by key, the keys W components each: open addressing over
 * entries (index + 1 in SLOT). */
struct sums {
	size_t w;
	uint64_t *keys;       /* W per entry */
	int64_t *sum;
	size_t n, cap;
	uint32_t *slot;
	size_t mask;          /* slots - 1; 0 before the first entry */
	size_t last;          /* the entry of the last event + 1, 0 none */
};

/* A derived key (basename, pattern, prefix:N) the metrics use. */
struct derived {
	st_trace_key key;
	uint32_t *gid;        /* per reader file id: case id + 1, 0 unknown */
};

/* What a case's pass holds. */
struct pass {
	const st_metrics *m;
	st_strtab tab;        /* every string a key takes, case-wide */
	struct sums *sums;    /* per metric */
	/* the metrics' distinct filters, ST_TRACE_FSET_MAX to a set */
	struct st_trace_fset *fs;
	size_t nfs;
	uint32_t *gid;        /* per reader string id: case id + 1 */
	size_t gcap;          /* of gid and every derived gid */
	struct derived der[ST_TRACE_KEYS_MAX * 4];
	size_t nder;
	uint8_t *dslot;       /* per metric and key: its derived + 1 */
	uint32_t *phid;       /* per trace_phase_seg of the case: its phase's
			       * case id + 1, 0 unknown (NULL none yet) */
	char *phases;         /* a merge's: the case's "phases" in its first
			       * partial as compact JSON, NULL none */
	char *kb;             /* a derived value */
	size_t kcap;
	bool sat;
	uint64_t events, bad_lines;
	st_trace_bad *bad;    /* the first max_bad of the files read */
	size_t n_bad;
	/* per metric, per key component: a string id (else a number) */
	bool (*cstr)[MAX_COMPS];
	st_trace_keys *keys;  /* per metric: its by keys, then its per */
	/* the metrics an event goes to, as bits of mw words: those without
	 * a filter, those of each filter, the event's */
	size_t mw;
	uint64_t *m_all, *m_of, *m_ev;
	/* events metrics: per metric a writer (NULL for the others), and
	 * where the rows of the file being read go (NULL: a temporary file
	 * to make, into tmp[metric]) */
	struct st_trace_rows **rows;
	FILE **cur;
	FILE **tmp;           /* rows of files read out of turn, appended */
	uint64_t *tmp_at;     /* where the file being read began in tmp */
	int row_err;          /* -1 out of memory, -2 a write failed */
	size_t row_metric;    /* which */
	int row_errno;
};

/* Add V to the sum of key K (s->w components).  0, -1 out of memory;
 * *SAT set when the sum stopped at INT64_MAX. */
int compare_sums_add(struct sums *s, const uint64_t *k, int64_t v, bool *sat);

/* P set up for the metrics M (P zeroed here).  0, -1 out of memory
 * (release P then). */
int compare_pass_init(struct pass *p, const st_metrics *m);
void compare_pass_release(struct pass *p);

/* Metric I of P reduced into RES: over all its keys, or, for a by
 * metric, over the keys of each by key into a row of RES.  0, -1 out
 * of memory. */
int compare_reduce_metric(struct pass *p, size_t i, st_metric_result *res);

/* qsort's order of st_trace_bad: by file, then line. */
int compare_cmp_bad(const void *x, const void *y);

#endif
