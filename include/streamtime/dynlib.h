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

/* In a library's X_dyn.h, after its headers: struct FNS, a pointer to
 * each function of LIST (an X-macro of their names), the table FNS and
 * LOAD, which fills it once: 0, or -1 with ERR set (69). */
#define ST_DYNLIB_DECLARE(FNS, LIST, LOAD) \
	struct FNS { \
		LIST(ST_DYNLIB_FN) \
	}; \
	extern struct FNS FNS; \
	int LOAD(st_error *err);
#define ST_DYNLIB_FN(f) __typeof__(f) *f;

/* In a library's X_dyn.c: the table FNS (struct st_X_fns, from the list
 * LIST of its functions, an X-macro) and LOAD, which fills it from the
 * library SONAME (see src/output/cairo_dyn.h). */
#define ST_DYNLIB_DEFINE(FNS, LIST, LOAD, SONAME) \
	static const char *const FNS##_names[] = { LIST(ST_DYNLIB_NAME) }; \
	struct FNS FNS; \
	_Static_assert(sizeof(FNS) == sizeof(FNS##_names) / \
		       sizeof(FNS##_names[0]) * sizeof(void (*)(void)), \
		       "one pointer a name"); \
	static st_dynlib FNS##_lib = { \
		SONAME, FNS##_names, \
		sizeof(FNS##_names) / sizeof(FNS##_names[0]), &FNS, 0, "" \
	}; \
	int LOAD(st_error *err) \
	{ \
		return st_dynlib_load(&FNS##_lib, err); \
	}
#define ST_DYNLIB_NAME(f) #f,

#endif
