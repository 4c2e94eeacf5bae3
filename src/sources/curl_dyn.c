/* curl_dyn.c - libcurl (curl_dyn.h). */
#include "curl_dyn.h"

#include "st_config.h"
#include "streamtime/dynlib.h"

#define ST_DYN_NAME(f) #f,
static const char *const names[] = { ST_CURL_FNS(ST_DYN_NAME) };

struct st_curl_fns st_curl_fns;
_Static_assert(sizeof(st_curl_fns) == sizeof(names) / sizeof(names[0]) *
	       sizeof(void (*)(void)), "one pointer a name");

static st_dynlib lib = {
	ST_SONAME_CURL, names, sizeof(names) / sizeof(names[0]), &st_curl_fns, 0, ""
};

int st_curl_load(st_error *err)
{
	return st_dynlib_load(&lib, err);
}
