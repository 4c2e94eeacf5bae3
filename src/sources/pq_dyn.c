/* pq_dyn.c - libpq, loaded when first needed (pq_dyn.h). */
#include "pq_dyn.h"

#include "st_config.h"
#include "streamtime/dynlib.h"

ST_DYNLIB_DEFINE(st_pq_fns, ST_PQ_FNS, st_pq_load, ST_SONAME_PQ)
