/* curl_dyn.c - libcurl, loaded when first needed (curl_dyn.h). */
#include "curl_dyn.h"

#include "st_config.h"
#include "streamtime/dynlib.h"

ST_DYNLIB_DEFINE(st_curl_fns, ST_CURL_FNS, st_curl_load, ST_SONAME_CURL)
