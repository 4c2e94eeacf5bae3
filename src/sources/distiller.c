/* distiller.c - what the two Distiller sources share: the row's CSV form. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "streamtime/distiller.h"
#include "streamtime/http.h"

const char *st_distiller_schema_name(enum st_distiller_schema s)
{
	switch (s) {
	case ST_DISTILLER_SCHEMA_LEGACY:
		return "legacy";
	case ST_DISTILLER_SCHEMA_CURRENT:
		return "current";
	default:
		return "auto";
	}
}

size_t st_distiller_row_format(const st_distiller_row *row, char *buf,
			       size_t size)
{
	char slurm[24] = "", elapsed[40] = "";
	int n;

	if (row->has_slurm_id)
		snprintf(slurm, sizeof(slurm), "%" PRId64, row->slurm_id);
	if (row->has_elapsed)
		st_duration_format_hms(row->elapsed, elapsed, sizeof(elapsed));
	n = snprintf(buf, size, "%" PRId64 ",%s,%s\n", row->scan_id, slurm,
		     elapsed);
	return n < 0 ? 0 : (size_t)n;
}

bool st_distiller_dsn_password_guess(const char *dsn)
{
	size_t off, len;

	return dsn && (strstr(dsn, "password") ||
		       st_http_url_password(dsn, &off, &len));
}
