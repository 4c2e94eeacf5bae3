/* curl_dyn.h - libcurl, loaded when an HTTP client is first made
 * (st_http_client_init; dynlib.h).  Include it instead of <curl/curl.h>,
 * and call st_curl_load before the first libcurl call, which then goes
 * through a pointer.  A function not listed here is not linked: the
 * build fails at it.
 */
#ifndef STREAMTIME_CURL_DYN_H
#define STREAMTIME_CURL_DYN_H

#include <curl/curl.h>

#include "streamtime/dynlib.h"

#define ST_CURL_FNS(X) \
	X(curl_easy_cleanup) X(curl_easy_getinfo) X(curl_easy_init) \
	X(curl_easy_perform) X(curl_easy_setopt) X(curl_easy_strerror) \
	X(curl_slist_append) X(curl_slist_free_all)

ST_DYNLIB_DECLARE(st_curl_fns, ST_CURL_FNS, st_curl_load)

#undef curl_easy_setopt   /* typecheck-gcc.h's checking macro */
#undef curl_easy_getinfo   /* typecheck-gcc.h's checking macro */
#define curl_easy_cleanup (st_curl_fns.curl_easy_cleanup)
#define curl_easy_getinfo (st_curl_fns.curl_easy_getinfo)
#define curl_easy_init (st_curl_fns.curl_easy_init)
#define curl_easy_perform (st_curl_fns.curl_easy_perform)
#define curl_easy_setopt (st_curl_fns.curl_easy_setopt)
#define curl_easy_strerror (st_curl_fns.curl_easy_strerror)
#define curl_slist_append (st_curl_fns.curl_slist_append)
#define curl_slist_free_all (st_curl_fns.curl_slist_free_all)

#endif
