/* dynlib.h - a shared library loaded when it is first needed (dlopen),
 * for the libraries only some commands use: cairo (figures), libcurl
 * (REST sources), libpq (the Distiller database).  Linked, they and what
 * they link (54 libraries in all) took 8 of the 10.6 MiB every run of
 * every command held before doing anything; a command that does not
 * draw, fetch or query now never maps them.
 */
#ifndef STREAMTIME_DYNLIB_H
#define STREAMTIME_DYNLIB_H

#include <stddef.h>

#include "streamtime/error.h"

/* Library SONAME's functions NAMES[0..N), their addresses into FNS (a
 * struct of N function pointers, in the order of NAMES). */
typedef struct st_dynlib {
	const char *soname;
	const char *const *names;
	size_t n;
	void *fns;
	int state;              /* 0 not tried, 1 loaded, -1 failed */
	char why[256];          /* why it failed */
} st_dynlib;

/* Load L once (any thread; later calls return at once): 0, or -1 with
 * ERR set to 69 naming the library and what is missing. */
int st_dynlib_load(st_dynlib *l, st_error *err);

#endif
