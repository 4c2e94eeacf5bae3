/* meter.h - the progress meter of the trace commands: a line on stderr,
 * redrawn four times a second, while a run longer than a second reads
 * its inputs (only when stderr is a terminal, and not with -q). */
#ifndef STREAMTIME_CMD_METER_H
#define STREAMTIME_CMD_METER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "streamtime/trace.h"

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

/* Start M over P, WHAT naming the command; FILES[0..N) give the total
 * (their sizes).  The first line after a second, or
 * $STREAMTIME_PROGRESS_DELAY seconds. */
void meter_start(struct meter *m, st_trace_progress *p, const char *what,
		 char **files, size_t n);

/* Stop M and clear its line (M may never have started). */
void meter_stop(struct meter *m);

#endif
