/* features.c - which optional features this build holds (st_config.h,
 * written by meson). */
#include "streamtime/features.h"

#include "st_config.h"

static const struct {
	const char *name, *title, *libraries;
	bool built;
} features[ST_FEATURE_COUNT] = {
	[ST_FEATURE_POSTGRESQL] = { "postgresql", "PostgreSQL", "libpq",
				    ST_HAVE_POSTGRESQL },
	[ST_FEATURE_HTTP] = { "http", "HTTP", "libcurl", ST_HAVE_HTTP },
	[ST_FEATURE_FIGURES] = { "figures", "figures", "cairo, libpng",
				 ST_HAVE_FIGURES },
	[ST_FEATURE_PYTHON] = { "python", "the Python module", "python3-dev",
				ST_HAVE_PYTHON },
};

bool st_feature_built(enum st_feature f)
{
	return features[f].built;
}

const char *st_feature_name(enum st_feature f)
{
	return features[f].name;
}

const char *st_feature_title(enum st_feature f)
{
	return features[f].title;
}

const char *st_feature_libraries(enum st_feature f)
{
	return features[f].libraries;
}

int st_feature_missing(st_error *err, enum st_feature f)
{
	return st_error_set(err, ST_EXIT_UNAVAILABLE, "this streamtime was "
			    "built without %s (meson -D%s=enabled)",
			    features[f].title, features[f].name);
}
