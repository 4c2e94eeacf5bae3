/* error.c - error reports and warning sinks. */
#include <stdio.h>
#include <string.h>

#include "streamtime/error.h"

void st_error_clear(st_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->text[0] = '\0';
}

int st_error_set(st_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
	return -1;
}

void st_error_prefix(st_error *err, const char *fmt, ...)
{
	char ctx[ST_ERROR_TEXT_MAX], old[ST_ERROR_TEXT_MAX];
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	memcpy(old, err->text, sizeof(old));
	snprintf(err->text, sizeof(err->text), "%s: %s", ctx, old);
}

void st_warn(st_log *log, const char *fmt, ...)
{
	char msg[ST_ERROR_TEXT_MAX];
	va_list ap;

	if (!log)
		return;
	log->count++;
	if (!log->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log->warn(log->ctx, msg);
}
