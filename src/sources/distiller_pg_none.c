/* distiller_pg_none.c - the Distiller database in a build without the
 * postgresql feature (meson -Dpostgresql=disabled): no libpq, so no fetch;
 * the REST API (distiller_api.c) still works when http is built. */
#include <string.h>

#include "streamtime/distiller.h"
#include "streamtime/features.h"
#include "streamtime/http.h"

int st_distiller_pg_fetch(const st_distiller_pg_opts *o,
			  const st_distiller_query *q, st_distiller_sink sink,
			  void *ctx, enum st_distiller_schema *schema_found,
			  st_log *log, st_error *err)
{
	st_feature_missing(err, ST_FEATURE_POSTGRESQL);
	st_error_prefix(err, "the Distiller database");
	return -1;
}

/* Without libpq's parser, a guess on the safe side: a DSN that names a
 * password keyword or a URI with user:password@ is taken to hold one (so
 * that distiller jobs still wipes it from the process list). */
bool st_distiller_dsn_has_password(const char *dsn)
{
	size_t off, len;

	return dsn && (strstr(dsn, "password") ||
		       st_http_url_password(dsn, &off, &len));
}
