/* cairo_dyn.c - cairo, loaded when first needed (cairo_dyn.h). */
#include "cairo_dyn.h"

#include "st_config.h"
#include "streamtime/dynlib.h"

ST_DYNLIB_DEFINE(st_cairo_fns, ST_CAIRO_FNS, st_cairo_load, ST_SONAME_CAIRO)
