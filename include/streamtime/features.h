/* features.h - what this build holds of the features meson may leave out
 * (meson_options.txt: postgresql, http, figures, python).
 *
 * A feature left out is replaced by a stub with the same entry points
 * (sources/distiller_pg_none.c, sources/http_none.c, output/figures_none.c)
 * that fails through st_feature_missing: exit 69, "this streamtime was
 * built without PostgreSQL (meson -Dpostgresql=enabled)".
 */
#ifndef STREAMTIME_FEATURES_H
#define STREAMTIME_FEATURES_H

#include <stdbool.h>

#include "streamtime/error.h"

enum st_feature {
	ST_FEATURE_POSTGRESQL,  /* distiller jobs from the database (libpq) */
	ST_FEATURE_HTTP,        /* slurmrestd, the Distiller API (libcurl) */
	ST_FEATURE_FIGURES,     /* plot, reproduce's figures (cairo, libpng) */
	ST_FEATURE_PYTHON,      /* the Python module streamtime (python3-dev):
				 * a module beside the binary, no stub */
	ST_FEATURE_COUNT
};

/* Is F built in? */
bool st_feature_built(enum st_feature f);

/* F's meson option name: "postgresql", "http", "figures". */
const char *st_feature_name(enum st_feature f);

/* F's name for people and its libraries: "PostgreSQL", "libpq". */
const char *st_feature_title(enum st_feature f);
const char *st_feature_libraries(enum st_feature f);

/* Set ERR to 69 "this streamtime was built without TITLE (meson
 * -DNAME=enabled)"; returns -1. */
int st_feature_missing(st_error *err, enum st_feature f);

#endif
