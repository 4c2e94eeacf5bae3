/* distiller_pg_none.c - the Distiller database in a build without the
 * postgresql feature (meson -Dpostgresql=disabled): no libpq, so no fetch;
 * the REST API (distiller_api.c) still works when http is built. */
#include <string.h>

#include "streamtime/distiller.h"
#include "streamtime/features.h"

int st_distiller_pg_fetch(const st_distiller_pg_opts *o,
			  const st_distiller_query *q, st_distiller_sink sink,
			  void *ctx, enum st_distiller_schema *schema_found,
			  st_log *log, st_error *err)
{
	st_feature_missing(err, ST_FEATURE_POSTGRESQL);
	st_error_prefix(err, "the Distiller database");
	return -1;
}

bool st_distiller_dsn_has_password(const char *dsn)
{
	return st_distiller_dsn_password_guess(dsn);
}
