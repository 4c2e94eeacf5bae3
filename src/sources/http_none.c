/* http_none.c - the REST client in a build without the http feature
 * (meson -Dhttp=disabled): no libcurl, so no client; slurm jobs --rest and
 * distiller jobs --api fail with 69 at st_http_client_init ("slurmrestd:
 * this streamtime was built without HTTP (meson -Dhttp=enabled)").  The text
 * helpers (http_text.c) are built either way. */
#include <string.h>

#include "streamtime/features.h"
#include "streamtime/http.h"

int st_http_client_init(st_http_client *cl, const st_http_opts *o,
			st_error *err)
{
	memset(cl, 0, sizeof(*cl));
	st_feature_missing(err, ST_FEATURE_HTTP);
	st_error_prefix(err, "%s", o->service ? o->service : "the server");
	return -1;
}

void st_http_client_release(st_http_client *cl)
{
}

int st_http_get(st_http_client *cl, const char *path_query, const char *shown,
		st_error *err)
{
	return st_feature_missing(err, ST_FEATURE_HTTP);
}
