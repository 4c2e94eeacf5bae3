/* pq_dyn.c - libpq (pq_dyn.h). */
#include "pq_dyn.h"

#include "st_config.h"
#include "streamtime/dynlib.h"

#define ST_DYN_NAME(f) #f,
static const char *const names[] = { ST_PQ_FNS(ST_DYN_NAME) };

struct st_pq_fns st_pq_fns;
_Static_assert(sizeof(st_pq_fns) == sizeof(names) / sizeof(names[0]) *
	       sizeof(void (*)(void)), "one pointer a name");

static st_dynlib lib = {
	ST_SONAME_PQ, names, sizeof(names) / sizeof(names[0]), &st_pq_fns, 0, ""
};

int st_pq_load(st_error *err)
{
	return st_dynlib_load(&lib, err);
}
