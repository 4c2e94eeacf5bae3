/* dynlib.c - shared libraries loaded when first needed (dynlib.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "streamtime/dynlib.h"

static pthread_mutex_t dynlib_mu = PTHREAD_MUTEX_INITIALIZER;

/* dlsym's void * as a function pointer, byte for byte (POSIX). */
typedef void (*dyn_fn)(void);
_Static_assert(sizeof(dyn_fn) == sizeof(void *), "function pointers");

static int dynlib_open(st_dynlib *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(l->why, sizeof(l->why), "%s", e ? e : l->soname);
		return -1;
	}
	for (size_t i = 0; i < l->n; i++) {
		void *p = dlsym(h, l->names[i]);

		if (!p) {
			snprintf(l->why, sizeof(l->why), "%s has no %s",
				 l->soname, l->names[i]);
			dlclose(h);
			return -1;
		}
		memcpy((char *)l->fns + i * sizeof(dyn_fn), &p, sizeof(p));
	}
	return 0;   /* kept open to the end of the process */
}

int st_dynlib_load(st_dynlib *l, st_error *err)
{
	int state;

	pthread_mutex_lock(&dynlib_mu);
	if (!l->state)
		l->state = dynlib_open(l) < 0 ? -1 : 1;
	state = l->state;
	pthread_mutex_unlock(&dynlib_mu);
	if (state > 0)
		return 0;
	return st_error_set(err, ST_EXIT_UNAVAILABLE, "cannot load %s: %s",
			    l->soname, l->why);
}
