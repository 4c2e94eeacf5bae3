/* reproduce_sources.h - a session's live sources (reproduce_sources.c). */
#ifndef STREAMTIME_CMD_REPRODUCE_SOURCES_H
#define STREAMTIME_CMD_REPRODUCE_SOURCES_H

#include "streamtime/provenance.h"
#include "streamtime/session.h"

/* What the live sources answered: the snapshots the analysis reads
 * instead of the session's files (NULL: the session's own), and their
 * provenance. */
struct st_reproduce_sources {
	char *jobs;                     /* OUT/sources/slurm_job_info.csv */
	char *db;                       /* OUT/sources/distiller_db */
	st_provenance_live live[2];
	char *text[2][2];               /* their query and server, owned */
	size_t nlive;
};

/* Ask S's live sources (none: nothing done), their answers written into
 * OUT/sources/ (OUT: the stage).  Secrets are read from their files here
 * and dropped after.  0, or -1 with ERR set (the sources' own codes: 69
 * unreachable, 65 a bad answer, ...; prefixed with the session key). */
int st_reproduce_sources(const st_session *s, const char *out,
			 struct st_reproduce_sources *r, st_log *log,
			 st_error *err);

void st_reproduce_sources_release(struct st_reproduce_sources *r);

#endif
