/* meter.c - the progress meter of the trace commands (meter.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "meter.h"
#include "streamtime/num.h"

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The meter's thread: a line every 250 ms until it is stopped. */
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

void meter_start(struct meter *m, st_trace_progress *p,
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

void meter_stop(struct meter *m)
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

