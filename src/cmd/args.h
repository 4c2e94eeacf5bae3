/* args.h - option arguments read: seconds, sizes with scan ranges
 * or paths, the experiments --config/--data name (args.c). */
#ifndef STREAMTIME_CMD_ARGS_H
#define STREAMTIME_CMD_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/session.h"
#include "streamtime/time.h"

/* Parse S, a decimal number of seconds (no hex, nan or inf), into *OUT.
 * Zero is accepted only with ZERO_OK; at most MAX.  0 or -1. */
int st_parse_seconds(const char *s, bool zero_ok, double max, st_duration *out);

/* Parse "SIZE:FIRST-LAST" and "SIZE:PATH" option values. */
int st_parse_size_range(const char *s, int64_t *size, st_range *r);
int st_parse_size_path(const char *s, int64_t *size, const char **path);

/* Parse ARG as SIZE:FIRST-LAST and append it to *V (*N entries).  Returns
 * 0, or -1 when ARG is malformed or memory runs out (*V stays valid). */
struct st_size_range;
int st_push_size_range(struct st_size_range **v, size_t *n, const char *arg);

/* The experiments: CONFIG, else DATA/experiments.json when DATA (may be
 * NULL) has one, else the paper's, built in; -v says which.  Returns 0 or
 * -1 with ERR set. */
int st_load_experiments(const char *config, const char *data,
			st_experiments *ex, st_error *err);

/* Append V to a growable array of strings. */
int st_strv_push(const char ***v, size_t *n, const char *s);

#endif
