/* systrace_strace.c - the clock offset bounded by strace's calls matched
 * with bpftrace's.
 *
 * strace -ttt stamps a call when the tracee stops at its entry, before
 * the kernel's sys_enter tracepoint runs (ptrace reports first), so the
 * call's bpftrace start is no earlier than strace's stamp: a lower bound
 * of the offset.  The thread's next call is stamped after this one
 * returned, so the call's bpftrace end is earlier than the next stamp
 * (+1 µs for its rounding down): an upper bound.
 *
 * A wrong match would give a wrong bound, so matching is strict: per
 * (process, fd), every read and write of strace's and of bpftrace's, in
 * order, the same kinds and return values, one thread only, none of
 * strace's split over two lines, a bpftrace file without a bad line, and
 * the pairs' bounds must meet.  Anything else leaves the (process, fd)
 * out. */
#include <stdlib.h>
#include <string.h>

#include "streamtime/grow.h"
#include "streamtime/num.h"
#include "systrace_int.h"

#define MAX_CALLS 1000000     /* of each side: memory stays bounded */

/* 'R' for a read, 'W' for a write, 0 for any other call. */
static char rw_kind(const char *n, size_t len)
{
	if ((len == 4 && memcmp(n, "read", 4) == 0) ||
	    (len == 7 && memcmp(n, "pread64", 7) == 0))
		return 'R';
	if ((len == 5 && memcmp(n, "write", 5) == 0) ||
	    (len == 8 && memcmp(n, "pwrite64", 8) == 0))
		return 'W';
	return 0;
}

int sys_strace_note(struct st_systrace *s, st_pairmap *pending,
		    const st_sys_strace *t, int64_t tgid)
{
	uint64_t *v;
	int64_t fd = 0;
	size_t i = 0;
	char kind;

	if (t->resumed)
		return 0;   /* stamped at its return: no entry */
	/* an entry of thread t->pid: the next call of its pending one */
	if (!(v = st_pairmap_get(pending, (uint64_t)t->pid, 0, NULL)))
		return -1;
	if (*v) {
		s->sc[*v - 1].next_us = t->t_us;
		*v = 0;
	}
	if (!(kind = rw_kind(t->name, t->nlen)) || !t->args ||
	    s->nsc >= MAX_CALLS)
		return 0;
	while (i < t->alen && i < 9 && t->args[i] >= '0' && t->args[i] <= '9')
		fd = fd * 10 + (t->args[i++] - '0');
	if (i == 0)
		return 0;
	if (ST_GROW(s->sc, s->nsc, s->sc_cap, 1024) < 0)
		return -1;
	s->sc[s->nsc] = (struct sys_scall){
		tgid, t->pid, fd, t->has_ret ? t->ret : -1, t->t_us, -1, kind,
		t->unfinished };
	*v = ++s->nsc;
	return 0;
}

/* bpftrace's reads and writes of the processes strace saw. */
struct bcall {
	int64_t pid, fd, ret, start, end;
	char kind;
};

struct bscan {
	st_pairmap *pids;
	struct bcall *v;
	size_t n, cap;
	char kind;
};

static int bscan_call(void *ctx, const st_sys_call *c, st_error *err)
{
	struct bscan *b = ctx;

	if (c->ret < 0 || !st_pairmap_find(b->pids, (uint64_t)c->pid, 0) ||
	    b->n >= MAX_CALLS)
		return 0;
	if (ST_GROW(b->v, b->n, b->cap, 1024) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	b->v[b->n++] = (struct bcall){ c->pid, c->fd, c->ret, c->ts - c->lat,
				       c->ts, b->kind };
	return 0;
}

/* Scan PATH's calls of kind KIND into B; a file with a bad line (a call
 * lost: its order cannot be trusted) or too many calls adds nothing. */
static int bscan_file(struct bscan *b, const char *path, char kind,
		      st_error *err)
{
	size_t first = b->n;
	uint64_t bad;

	b->kind = kind;
	if (sys_each_call(path, NULL, bscan_call, b, &bad, err) < 0)
		return -1;
	if (bad || b->n >= MAX_CALLS)
		b->n = first;
	return 0;
}

static int cmp_sc(const void *x, const void *y)
{
	const struct sys_scall *a = x, *b = y;
	int c = ST_CMP(a->tgid, b->tgid);

	if (!c)
		c = ST_CMP(a->fd, b->fd);
	return c ? c : ST_CMP(a->t_us, b->t_us);
}

static int cmp_bc(const void *x, const void *y)
{
	const struct bcall *a = x, *b = y;
	int c = ST_CMP(a->pid, b->pid);

	if (!c)
		c = ST_CMP(a->fd, b->fd);
	return c ? c : ST_CMP(a->start, b->start);
}

/* Match A[0..NA) (strace) with B[0..NB) (bpftrace), one (process, fd),
 * strictly (see above); the bounds into *LO, *HI.  Returns the pairs, 0
 * when the group is left out. */
static uint64_t match_group(const struct sys_scall *A, size_t na,
			    const struct bcall *B, size_t nb, int64_t *lo,
			    int64_t *hi)
{
	int64_t l = INT64_MIN, h = INT64_MAX;

	if (na != nb || na == 0)
		return 0;
	for (size_t k = 0; k < na; k++) {
		const struct sys_scall *a = &A[k];
		const struct bcall *b = &B[k];
		int64_t x;

		if (a->unfinished || a->tid != A[0].tid || a->kind != b->kind ||
		    a->ret != b->ret)
			return 0;
		if ((x = a->t_us * 1000 - b->start) > l)
			l = x;
		if (a->next_us >= 0 &&
		    (x = (a->next_us + 1) * 1000 - b->end) < h)
			h = x;
	}
	if (l > h)
		return 0;
	if (l > *lo)
		*lo = l;
	if (h < *hi)
		*hi = h;
	return na;
}

int sys_strace_bounds(struct st_systrace *s, const char *rpath,
		      const char *wpath, int64_t *lo, int64_t *hi,
		      uint64_t *pairs, st_error *err)
{
	st_pairmap pids = { 0 };
	struct bscan b = { .pids = &pids };
	int rc = -1;

	*lo = INT64_MIN;
	*hi = INT64_MAX;
	*pairs = 0;
	for (size_t i = 0; i < s->nsc; i++)
		if (!st_pairmap_get(&pids, (uint64_t)s->sc[i].tgid, 0, NULL)) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
	if ((rpath && bscan_file(&b, rpath, 'R', err) < 0) ||
	    (wpath && bscan_file(&b, wpath, 'W', err) < 0))
		goto out;
	if (b.n)
		qsort(b.v, b.n, sizeof(*b.v), cmp_bc);
	qsort(s->sc, s->nsc, sizeof(*s->sc), cmp_sc);
	for (size_t i = 0, j = 0; i < s->nsc;) {
		size_t ie = i, je;

		while (ie < s->nsc && s->sc[ie].tgid == s->sc[i].tgid &&
		       s->sc[ie].fd == s->sc[i].fd)
			ie++;
		while (j < b.n && (b.v[j].pid < s->sc[i].tgid ||
				   (b.v[j].pid == s->sc[i].tgid &&
				    b.v[j].fd < s->sc[i].fd)))
			j++;
		je = j;
		while (je < b.n && b.v[je].pid == s->sc[i].tgid &&
		       b.v[je].fd == s->sc[i].fd)
			je++;
		*pairs += match_group(s->sc + i, ie - i, b.v + j, je - j, lo,
				      hi);
		i = ie;
		j = je;
	}
	rc = 0;
out:
	free(b.v);
	st_pairmap_release(&pids);
	return rc;
}
