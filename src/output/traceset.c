/* traceset.c - a session's trace sets as rows for its report
 * (traceset.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "streamtime/csv.h"
#include "streamtime/num.h"
#include "streamtime/trace_keys.h"
#include "streamtime/traceset.h"

/* One row; NaN and INT64_MIN cells are empty. */
struct row {
	const char *scope, *key;
	int64_t events, bytes;
	double io_s, bound_s, cpu, gpu;
};

static void int_cell(char *buf, size_t size, int64_t v)
{
	if (v == INT64_MIN)
		buf[0] = '\0';
	else
		snprintf(buf, size, "%" PRId64, v);
}

static int put_row(FILE *f, size_t index, const char *label, const char *role,
		   const struct row *r)
{
	char set[24], ev[24], io[32], by[24], bd[32], cpu[32], gpu[32];
	const char *cells[11] = { set, label, role, r->scope, r->key, ev, io,
				  by, bd, cpu, gpu };

	snprintf(set, sizeof(set), "%zu", index);
	int_cell(ev, sizeof(ev), r->events);
	st_num_format_cell(r->io_s, io, sizeof(io));
	int_cell(by, sizeof(by), r->bytes);
	st_num_format_cell(r->bound_s, bd, sizeof(bd));
	st_num_format_cell(r->cpu, cpu, sizeof(cpu));
	st_num_format_cell(r->gpu, gpu, sizeof(gpu));
	return st_csv_write_row(f, 11, cells);
}

/* The means of a set's samples: CPU busy (100 - idle) over mpstat's
 * "all" rows, GPU SM over the GPU rows. */
struct means {
	double cpu, gpu;
	uint64_t ncpu, ngpu;
};

static int add_sample(void *ctx, const st_sys_sample *x, st_error *err)
{
	struct means *m = ctx;

	(void)err;
	if (x->gpu < 0) {
		m->cpu += 100.0 - x->idle;
		m->ncpu++;
	} else {
		m->gpu += x->sm;
		m->ngpu++;
	}
	return 0;
}

static int system_rows(FILE *f, size_t index, const char *label,
		       const char *role, const st_systrace *sys,
		       const int64_t *seg, size_t nseg,
		       const st_trace_summary *s, st_error *err)
{
	const st_sys_align *al = st_systrace_align(sys);
	const st_sys_phase *ph;
	struct means m = { 0 };
	size_t ngpu, n;
	struct row r = { "system", st_systrace_dir(sys), INT64_MIN, INT64_MIN,
			 NAN, NAN, NAN, NAN };

	if (st_systrace_each_sample(sys, add_sample, &m, err) < 0)
		return -1;
	if (al->known && al->bound_ns >= 0)
		r.bound_s = (double)al->bound_ns / 1e9;
	r.cpu = m.ncpu ? m.cpu / (double)m.ncpu : NAN;
	r.gpu = m.ngpu ? m.gpu / (double)m.ngpu : NAN;
	if (put_row(f, index, label, role, &r) < 0)
		return -1;
	n = st_systrace_phases(sys, &ph, &ngpu);
	for (size_t i = 0; i < n; i++) {
		st_sys_phase_io io;
		double sm = 0;
		uint64_t k = 0;

		st_systrace_phase_io(&ph[i], seg, nseg, s, &io);
		for (size_t g = 0; g < ngpu; g++)
			if (ph[i].gpu_samples && ph[i].gpu_samples[g] &&
			    !isnan(ph[i].gpu_sm[g])) {
				sm += ph[i].gpu_sm[g];
				k++;
			}
		r = (struct row){ "phase", ph[i].name, (int64_t)io.events,
				  io.read_bytes + io.write_bytes,
				  (double)io.io_us / 1e6, NAN,
				  ph[i].cpu_samples ? 100.0 - ph[i].cpu_idle : NAN,
				  k ? sm / (double)k : NAN };
		if (put_row(f, index, label, role, &r) < 0)
			return -1;
	}
	return 0;
}

int st_traceset_write(FILE *f, size_t index, const char *label,
		      const char *role, const st_trace_summary *s,
		      const st_systrace_list *sets, const int64_t *seg,
		      size_t nseg, st_error *err)
{
	int64_t bytes = 0;
	struct row r;

	for (size_t i = 0; i < s->n_groups; i++)
		bytes = s->groups[i].bytes > INT64_MAX - bytes ? INT64_MAX :
			bytes + s->groups[i].bytes;
	r = (struct row){ "total", "", (int64_t)s->events, bytes,
			  (double)s->io_us / 1e6, NAN, NAN, NAN };
	if (put_row(f, index, label, role, &r) < 0)
		goto io;
	/* per process: its events and I/O time (the union of its I/O
	 * calls), and the bytes of its group */
	for (size_t i = 0; i < s->n_procs; i++) {
		const st_trace_process *p = &s->procs[i];
		char key[320];

		st_trace_rec e = { .host = *p->host ? p->host : NULL,
				   .host_len = strlen(p->host), .pid = p->pid };
		const st_trace_key pid = { ST_TRACE_KEY_PID, 0 };

		/* as the groups' keys are written ("?:7" without a host) */
		st_trace_key_format(&pid, &e, key, sizeof(key));
		r = (struct row){ "process", key, (int64_t)p->events, INT64_MIN,
				  (double)p->io_us / 1e6, NAN, NAN, NAN };
		for (size_t k = 0; k < s->n_groups; k++)
			if (!strcmp(s->groups[k].key, key))
				r.bytes = s->groups[k].bytes;
		if (put_row(f, index, label, role, &r) < 0)
			goto io;
	}
	for (size_t i = 0; sets && i < sets->n; i++)
		if (system_rows(f, index, label, role, sets->v[i], seg, nseg, s,
				err) < 0)
			return ferror(f) ? st_error_set(err, ST_EXIT_IOERR,
					   "cannot write the trace sets") : -1;
	return 0;
io:
	return st_error_set(err, ST_EXIT_IOERR, "cannot write the trace sets");
}
