/* http.c - the libcurl GET client of the REST sources. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "curl_dyn.h"
#include "streamtime/http.h"

/* the client keeps libcurl's message in a buffer http.h sizes */
_Static_assert(sizeof(((st_http_client *)0)->errbuf) >= CURL_ERROR_SIZE,
	       "st_http_client.errbuf is smaller than CURL_ERROR_SIZE");

/* A header name curl sends as given: no separator, blank or control
 * character. */
static bool name_ok(const char *s)
{
	return *s && st_http_header_safe(s) && !strpbrk(s, ": ;");
}

static size_t on_data(char *data, size_t size, size_t nmemb, void *ud)
{
	st_http_client *cl = ud;
	size_t add = size * nmemb;

	if (add > cl->max_body - cl->body_len) {
		cl->too_big = true;
		return 0;
	}
	if (cl->body_len + add + 1 > cl->body_cap) {
		size_t cap = cl->body_cap ? cl->body_cap : 65536;
		char *p;

		while (cap < cl->body_len + add + 1)
			cap *= 2;
		if (!(p = realloc(cl->body, cap))) {
			cl->nomem = true;
			return 0;
		}
		cl->body = p;
		cl->body_cap = cap;
	}
	memcpy(cl->body + cl->body_len, data, add);
	cl->body_len += add;
	cl->body[cl->body_len] = '\0';
	return add;
}

/* Keep the value of cl->keep_name.  A status line starts a new response
 * (after a 100 Continue, say): what an earlier one said is forgotten. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
	st_http_client *cl = ud;
	size_t len = size * nmemb, nl = strlen(cl->keep_name);
	const char *v, *end = data + len;

	if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		free(cl->kept);
		cl->kept = NULL;
		return len;
	}
	if (len <= nl || data[nl] != ':' ||
	    strncasecmp(data, cl->keep_name, nl) != 0)
		return len;
	for (v = data + nl + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' ||
			   end[-1] == ' ' || end[-1] == '\t'))
		end--;
	free(cl->kept);
	if (!(cl->kept = strndup(v, (size_t)(end - v)))) {
		cl->nomem = true;
		return 0;
	}
	return len;
}

/* Errors worth another attempt: everything but a bad URL or option, a
 * response too large, a certificate problem. */
static bool curl_retryable(CURLcode rc)
{
	switch (rc) {
	case CURLE_FILESIZE_EXCEEDED:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_NOT_BUILT_IN:
	case CURLE_WRITE_ERROR:
	case CURLE_OUT_OF_MEMORY:
	case CURLE_BAD_FUNCTION_ARGUMENT:
	case CURLE_UNKNOWN_OPTION:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		return false;
	default:
		return true;
	}
}

/* The pause before retry ATTEMPT+1: 0.25 s, 0.5 s, 1 s, ... at most 8 s. */
static long backoff_ms(int attempt)
{
	return attempt < 5 ? 250L << attempt : 8000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) < 0)
		;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Describe a size in messages: "256 MiB", "64 KiB", "100 bytes". */
static void size_text(size_t n, char *buf, size_t len)
{
	if (n >= (1 << 20) && n % (1 << 20) == 0)
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu bytes", n);
}

int st_http_get(st_http_client *cl, const char *path_query, const char *shown,
		st_error *err)
{
	char *url = NULL, cap[32];
	CURLcode rc = CURLE_OK;
	long long deadline = cl->timeout_ms > 0 ? now_ms() + cl->timeout_ms : 0;
	int ret = -1, attempt;

	if (asprintf(&url, "%s%s", cl->base, path_query) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	curl_easy_setopt(cl->h, CURLOPT_URL, url);
	for (attempt = 0;; attempt++) {
		if (deadline) {
			long long left = deadline - now_ms();

			if (left < 1)
				left = 1;
			curl_easy_setopt(cl->h, CURLOPT_TIMEOUT_MS, (long)left);
			curl_easy_setopt(cl->h, CURLOPT_CONNECTTIMEOUT_MS,
					 (long)left);
		}
		cl->body_len = 0;
		if (cl->body)
			cl->body[0] = '\0';
		free(cl->kept);
		cl->kept = NULL;
		cl->too_big = cl->nomem = false;
		cl->errbuf[0] = '\0';
		cl->status = 0;
		rc = curl_easy_perform(cl->h);
		curl_easy_getinfo(cl->h, CURLINFO_RESPONSE_CODE, &cl->status);
		if (rc == CURLE_OK &&
		    (cl->status < 500 ||
		     (cl->accept_5xx && cl->accept_5xx(cl->body ? cl->body : "",
						       cl->body_len)))) {
			ret = 0;
			break;
		}
		if ((rc != CURLE_OK && !curl_retryable(rc)) ||
		    attempt >= cl->retries)
			break;
		/* no attempt that the deadline would cut short anyway */
		if (deadline && now_ms() + backoff_ms(attempt) >= deadline)
			break;
		sleep_ms(backoff_ms(attempt));
	}
	size_text(cl->max_body, cap, sizeof(cap));
	if (ret < 0 && rc == CURLE_OK)
		ret = 0;                /* a 5xx: the caller reports it */
	else if (ret < 0 && cl->nomem)
		st_error_set(err, ST_EXIT_IOERR, "out of memory reading %s",
			     shown);
	else if (ret < 0 && (cl->too_big || rc == CURLE_FILESIZE_EXCEEDED))
		st_error_set(err, ST_EXIT_UNAVAILABLE, "the response of %s is "
			     "larger than the limit of %s (--max-response-size)",
			     shown, cap);
	else if (ret < 0 && rc == CURLE_OUT_OF_MEMORY && cl->status > 0 &&
		 !cl->body_len)
		/* libcurl refuses a header line over CURL_MAX_HTTP_HEADER
		 * with this code, after the status line, before any body */
		st_error_set(err, ST_EXIT_UNAVAILABLE, "the response of %s has "
			     "a header larger than libcurl accepts (%d KiB)",
			     shown, CURL_MAX_HTTP_HEADER / 1024);
	else if (ret < 0 && rc == CURLE_OPERATION_TIMEDOUT && deadline)
		st_error_set(err, ST_EXIT_UNAVAILABLE, "%s at %s gave no "
			     "complete answer within the timeout of %ld s "
			     "(%d attempt%s): %s", cl->service, shown,
			     cl->timeout_ms / 1000, attempt + 1,
			     attempt ? "s" : "",
			     cl->errbuf[0] ? cl->errbuf : curl_easy_strerror(rc));
	else if (ret < 0)
		st_error_set(err, ST_EXIT_UNAVAILABLE, "cannot reach %s at %s: "
			     "%s", cl->service, shown,
			     cl->errbuf[0] ? cl->errbuf : curl_easy_strerror(rc));
	free(url);
	return ret;
}

void st_http_client_release(st_http_client *cl)
{
	if (!cl)
		return;
	for (struct curl_slist *l = cl->headers; l; l = l->next)
		explicit_bzero(l->data, strlen(l->data));
	/* no headers when libcurl was never loaded: its calls are NULL */
	if (cl->headers)
		curl_slist_free_all(cl->headers);
	if (cl->h)
		curl_easy_cleanup(cl->h);
	if (cl->base)
		explicit_bzero(cl->base, strlen(cl->base));
	free(cl->base);
	free(cl->shown_base);
	free(cl->body);
	free(cl->kept);
	free(cl->keep_name);
	memset(cl, 0, sizeof(*cl));
}

/* Append "NAME: VALUE" to cl->headers; the line built on the way is wiped,
 * for VALUE may be a secret. */
static int add_header(st_http_client *cl, const st_http_header *hd,
		      st_error *err)
{
	struct curl_slist *l;
	char *line = NULL;

	if (!name_ok(hd->name))
		return st_error_set(err, ST_EXIT_USAGE, "a header name for %s "
				    "is empty or holds a blank, ':', ';' or a "
				    "control character", cl->service);
	if (!hd->value || !*hd->value || !st_http_header_safe(hd->value))
		return st_error_set(err, ST_EXIT_USAGE, "the %s header for %s "
				    "is empty or contains a control character",
				    hd->name, cl->service);
	if (asprintf(&line, "%s: %s", hd->name, hd->value) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	l = curl_slist_append(cl->headers, line);
	explicit_bzero(line, strlen(line));
	free(line);
	if (!l)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	cl->headers = l;
	return 0;
}

int st_http_client_init(st_http_client *cl, const st_http_opts *o,
			st_error *err)
{
	size_t n;

	memset(cl, 0, sizeof(*cl));
	cl->service = o->service ? o->service : "the server";
	cl->retries = o->retries;
	cl->timeout_ms = o->timeout_s > 0 ? o->timeout_s * 1000 : 0;
	cl->max_body = o->max_body ? o->max_body : ST_HTTP_DEFAULT_MAX_BODY;
	cl->accept_5xx = o->accept_5xx;
	if (st_curl_load(err) < 0)
		return -1;
	if (!o->url || !*o->url)
		return st_error_set(err, ST_EXIT_USAGE, "no URL for %s",
				    cl->service);
	n = strlen(o->url);
	while (n > 1 && o->url[n - 1] == '/')
		n--;
	if (!(cl->base = strndup(o->url, n)) ||
	    !(cl->shown_base = st_http_url_shown(cl->base)) ||
	    !(cl->h = curl_easy_init()) ||
	    !(cl->headers = curl_slist_append(NULL,
					      "Accept: application/json")) ||
	    (o->keep_header && !(cl->keep_name = strdup(o->keep_header)))) {
		st_http_client_release(cl);
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	}
	for (size_t i = 0; i < o->n_headers; i++)
		if (add_header(cl, &o->headers[i], err) < 0) {
			st_http_client_release(cl);
			return -1;
		}
	curl_easy_setopt(cl->h, CURLOPT_HTTPHEADER, cl->headers);
	curl_easy_setopt(cl->h, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(cl->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(cl->h, CURLOPT_WRITEDATA, cl);
	if (cl->keep_name) {
		curl_easy_setopt(cl->h, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(cl->h, CURLOPT_HEADERDATA, cl);
	}
	curl_easy_setopt(cl->h, CURLOPT_ERRORBUFFER, cl->errbuf);
	curl_easy_setopt(cl->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(cl->h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(cl->h, CURLOPT_USERAGENT, "streamtime");
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(cl->h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(cl->h, CURLOPT_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	/* a declared Content-Length over the cap fails before any byte */
	curl_easy_setopt(cl->h, CURLOPT_MAXFILESIZE_LARGE,
			 (curl_off_t)cl->max_body);
	if (o->cacert)
		curl_easy_setopt(cl->h, CURLOPT_CAINFO, o->cacert);
	return 0;
}
