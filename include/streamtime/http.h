/* http.h - the one libcurl GET client of the REST sources (slurmrestd, the
 * Distiller API).
 *
 * A client is a base URL, fixed request headers (which may hold a token or
 * an API key: copied once, wiped when the client is released, never put in
 * a message), a timeout, a retry count and a cap on the response body.
 * Each GET goes to base + path; connection errors and 5xx answers are tried
 * again with exponential backoff (0.25 s, 0.5 s, ... at most 8 s), but the
 * whole GET -- every attempt and every pause -- ends within the timeout: a
 * silent server costs one timeout per GET, never (retries + 1) of them.  A
 * body over the cap (a declared Content-Length or the bytes as they come,
 * an endless chunked answer too) ends the GET at once, without a retry.
 * Redirects are not followed (a
 * redirect would carry the secret headers elsewhere) and only http and
 * https are spoken.  Messages name the service ("cannot reach slurmrestd at
 * URL: ...") and the URL the caller chose to show, never a header.
 *
 * The header does not need libcurl: a build without the http feature
 * (meson -Dhttp=disabled) has the text helpers (http_text.c) and a client
 * whose st_http_client_init fails with 69 (http_none.c).
 */
#ifndef STREAMTIME_HTTP_H
#define STREAMTIME_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "streamtime/error.h"

struct curl_slist;

/* The most a response body may hold unless st_http_opts.max_body says
 * otherwise: a larger one is error 69. */
#define ST_HTTP_DEFAULT_MAX_BODY ((size_t)256 << 20)

/* One request header.  VALUE may be a secret. */
typedef struct st_http_header {
	const char *name;
	const char *value;
} st_http_header;

/* Is a 5xx answer with this body (LEN bytes, NUL-terminated, "" when
 * empty) an answer after all, to be neither retried nor failed on?
 * (slurmrestd answers "Nothing found" with a 500.) */
typedef bool (*st_http_accept_fn)(const char *body, size_t len);

typedef struct st_http_opts {
	const char *service;    /* "slurmrestd", "the Distiller API" */
	const char *url;        /* base; trailing '/' dropped */
	const st_http_header *headers;  /* sent after "Accept:
					 * application/json", in order */
	size_t n_headers;
	const char *cacert;     /* CA bundle for https, may be NULL */
	long timeout_s;         /* the whole GET, retries and pauses
				 * included, <= 0: none */
	int retries;            /* extra attempts on connection errors, 5xx */
	size_t max_body;        /* bytes, 0: ST_HTTP_DEFAULT_MAX_BODY */
	const char *keep_header;        /* a response header whose value to
					 * keep ("X-Total-Count"), or NULL */
	st_http_accept_fn accept_5xx;   /* or NULL */
} st_http_opts;

/* A client and its last response.  The fields above the line are for
 * reading; the rest is private. */
typedef struct st_http_client {
	char *base;             /* the URL without trailing '/' */
	char *shown_base;       /* BASE without user:password@, for messages */
	long status;            /* of the last response */
	char *body;             /* of the last response, NUL-terminated; NULL
				 * until a first byte came */
	size_t body_len;
	char *kept;             /* keep_header's value in the last response,
				 * blanks trimmed; NULL when absent */
	/* ---- */
	void *h;                /* the CURL handle */
	const char *service;
	int retries;
	long timeout_ms;
	size_t max_body;
	st_http_accept_fn accept_5xx;
	char *keep_name;
	struct curl_slist *headers;
	size_t body_cap;
	bool too_big, nomem;
	char errbuf[256];       /* CURL_ERROR_SIZE (http.c checks) */
} st_http_client;

/* No CR, LF or other control character: a header value cannot be split. */
bool st_http_header_safe(const char *s);

/* Parse a size "N", "NK", "NM" or "NG" (binary units, N a positive
 * integer) into *OUT bytes.  0, or -1 when S is none or over 1 TiB. */
int st_http_parse_size(const char *s, size_t *out);

/* Where the password of URL's userinfo ("scheme://user:PASSWORD@host")
 * starts (*OFF) and how long it is (*LEN).  False when URL holds none (no
 * userinfo, or no ':' in it, or an empty password). */
bool st_http_url_password(const char *url, size_t *off, size_t *len);

/* URL without the userinfo of its authority ("http://u:pw@h/" gives
 * "http://h/"), for messages: a password in a URL must not reach one.
 * A new string, or NULL when out of memory. */
char *st_http_url_shown(const char *url);

/* S percent-encoded for a query value or a path segment, as
 * curl_easy_escape does it (all but A-Z a-z 0-9 - . _ ~ as %XX).  A new
 * string (free it), or NULL when out of memory. */
char *st_http_escape(const char *s);

/* Set up CL from O (O and its strings need not outlive the call, but for
 * O->service, which messages keep using).
 * Returns 0, or -1 with ERR set and nothing to release: 64 no URL, a
 * header name or value with a control character (the value not shown); 74
 * allocation failure. */
int st_http_client_init(st_http_client *cl, const st_http_opts *o,
			st_error *err);

/* Free what CL holds, wiping the headers first.  CL may be NULL or
 * zero-filled. */
void st_http_client_release(st_http_client *cl);

/* GET base + PATH_QUERY into cl->status, cl->body, cl->kept, retrying
 * connection errors and 5xx (unless accept_5xx takes the body) with
 * backoff while the timeout lasts.  SHOWN is the URL for messages (never
 * with credentials).  Returns 0 when a response came, whatever its status
 * (a 5xx after the last retry too: the caller reports it); -1 with ERR set
 * when none did: 69 unreachable, no answer within the timeout, a body over
 * the cap, a header line over libcurl's 100 KiB; 74 allocation failure. */
int st_http_get(st_http_client *cl, const char *path_query, const char *shown,
		st_error *err);

#endif
