/* systrace_int.h - what the systrace files share, not a public interface. */
#ifndef STREAMTIME_SYSTRACE_INT_H
#define STREAMTIME_SYSTRACE_INT_H

#include <pthread.h>

#include "streamtime/pairmap.h"
#include "streamtime/systrace.h"

/* An application log: where its lines end (byte offsets), its size. */
struct ml_log {
	size_t fi;
	uint64_t *ends;
	size_t nends, ends_cap;
	uint64_t size;
};

/* One MLLOG line: its log, its first byte. */
struct ml_rec {
	st_sys_mllog m;
	size_t log;
	uint64_t off;
	size_t seq;
};

struct st_systrace {
	char *dir;
	st_sys_file_stat *files;    /* sorted by path */
	size_t nfiles;
	char **events;              /* borrowed from files */
	size_t nevents, events_cap;
	st_sys_align al;
	st_sys_phase *ph;
	size_t nph, ph_cap, ngpu;
	int max_gpu_seen;
	st_sys_instant *inst;
	size_t ninst, inst_cap;
	st_sys_proc_name *names;    /* sorted by pid */
	size_t nnames, names_cap;
	struct ml_rec *ml;
	size_t nml, ml_cap;
	struct ml_log *logs;
	size_t nlogs;
	char host[256];
	int64_t manifest_pid;
	st_sys_bad *bad;
	size_t nbad, max_bad;
	size_t fi_align;
	int y, m, d;                /* the date of times of day, y 0 none */
	char date_src[64];
	const st_tz *tz;
	st_tz *own_tz;
	bool tz_given;
	pthread_mutex_t mu;         /* files[] stats from reader threads */
};

/* Name PID NAME[0..LEN) from SOURCE of priority PRIO (a higher one wins;
 * the later of equal ones): 0, or -1 out of memory.  Callers after
 * st_systrace_open hold s->mu. */
int sys_name_set(struct st_systrace *s, int64_t pid, const char *name,
		 size_t len, const char *source, int prio);

/* Count a bad line of file FI, the first max_bad kept by number. */
void sys_bad(struct st_systrace *s, size_t fi, uint64_t line,
	     const char *why);

#endif
