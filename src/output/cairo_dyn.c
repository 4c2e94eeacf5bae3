/* cairo_dyn.c - cairo (cairo_dyn.h). */
#include "cairo_dyn.h"

#include "st_config.h"
#include "streamtime/dynlib.h"

#define ST_DYN_NAME(f) #f,
static const char *const names[] = { ST_CAIRO_FNS(ST_DYN_NAME) };

struct st_cairo_fns st_cairo_fns;
_Static_assert(sizeof(st_cairo_fns) == sizeof(names) / sizeof(names[0]) *
	       sizeof(void (*)(void)), "one pointer a name");

static st_dynlib lib = {
	ST_SONAME_CAIRO, names, sizeof(names) / sizeof(names[0]), &st_cairo_fns, 0, ""
};

int st_cairo_load(st_error *err)
{
	return st_dynlib_load(&lib, err);
}
