/* ctrace.c - Chrome trace events written by hand, for speed: the trace
 * timeline writes millions of them. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "streamtime/ctrace.h"
#include "streamtime/text.h"

void st_ctrace_init(st_ctrace *w, FILE *f)
{
	st_outbuf_init(&w->ob, f);
	w->n = 0;
	w->arg = false;
}

static void next_event(st_ctrace *w)
{
	st_outbuf_put(&w->ob, w->n ? ",\n" : "\n", w->n ? 2 : 1);
	w->n++;
}

void st_ctrace_meta(st_ctrace *w, const char *what, int64_t pid, int64_t tid,
		    const char *key, const char *text, int64_t num)
{
	st_outbuf *o = &w->ob;

	next_event(w);
	st_outbuf_str(o, "{\"name\":\"");
	st_outbuf_str(o, what);
	st_outbuf_str(o, "\",\"ph\":\"M\",\"pid\":");
	st_outbuf_int(o, pid);
	if (tid >= 0) {
		st_outbuf_str(o, ",\"tid\":");
		st_outbuf_int(o, tid);
	}
	st_outbuf_str(o, ",\"args\":{\"");
	st_outbuf_str(o, key);
	st_outbuf_str(o, "\":");
	if (text)
		st_outbuf_json(o, text, strlen(text));
	else
		st_outbuf_int(o, num);
	st_outbuf_str(o, "}}");
}

/* The start of an event: {"name":NAME[,"cat":CAT],"ph":"PH","pid":PID
 * (CAT NULL: none). */
static void event_head(st_ctrace *w, const char *name, size_t nlen,
		       const char *cat, size_t clen, const char *ph,
		       int64_t pid)
{
	st_outbuf *o = &w->ob;

	next_event(w);
	st_outbuf_str(o, "{\"name\":");
	st_outbuf_json(o, name, nlen);
	if (cat) {
		st_outbuf_str(o, ",\"cat\":");
		st_outbuf_json(o, cat, clen);
	}
	st_outbuf_str(o, ",\"ph\":\"");
	st_outbuf_str(o, ph);
	st_outbuf_str(o, "\",\"pid\":");
	st_outbuf_int(o, pid);
}

/* After an event's head: PRE (the fields before the tid), the tid and ts. */
static void tid_ts(st_outbuf *o, const char *pre, int64_t tid, int64_t ts)
{
	st_outbuf_str(o, pre);
	st_outbuf_int(o, tid);
	st_outbuf_str(o, ",\"ts\":");
	st_outbuf_int(o, ts);
}

/* Open the event's args: st_ctrace_arg_* add to them. */
static void args_open(st_ctrace *w)
{
	st_outbuf_str(&w->ob, ",\"args\":{");
	w->arg = false;
}

void st_ctrace_slice(st_ctrace *w, const char *name, size_t nlen,
		     const char *cat, size_t clen, int64_t pid, int64_t tid,
		     int64_t ts, int64_t dur)
{
	event_head(w, name, nlen, cat, clen, "X", pid);
	tid_ts(&w->ob, ",\"tid\":", tid, ts);
	st_outbuf_str(&w->ob, ",\"dur\":");
	st_outbuf_int(&w->ob, dur);
	args_open(w);
}

void st_ctrace_counter(st_ctrace *w, const char *name, size_t nlen,
		       int64_t pid, int64_t ts)
{
	event_head(w, name, nlen, NULL, 0, "C", pid);
	st_outbuf_str(&w->ob, ",\"ts\":");
	st_outbuf_int(&w->ob, ts);
	args_open(w);
}

void st_ctrace_instant(st_ctrace *w, const char *name, size_t nlen,
		       const char *cat, size_t clen, int64_t pid, int64_t tid,
		       int64_t ts)
{
	event_head(w, name, nlen, cat, clen, "i", pid);
	tid_ts(&w->ob, ",\"s\":\"t\",\"tid\":", tid, ts);
	args_open(w);
}

static void arg_key(st_ctrace *w, const char *key)
{
	st_outbuf_str(&w->ob, w->arg ? ",\"" : "\"");
	st_outbuf_str(&w->ob, key);
	st_outbuf_str(&w->ob, "\":");
	w->arg = true;
}

void st_ctrace_arg_str(st_ctrace *w, const char *key, const char *s,
		       size_t len)
{
	char hex[2 * 64 + 1];

	arg_key(w, key);
	st_outbuf_json(&w->ob, s, len);
	if (st_utf8_valid(s, len))
		return;
	/* not UTF-8: the bytes as well, in hex (text.h) */
	st_outbuf_str(&w->ob, ",\"");
	st_outbuf_str(&w->ob, key);
	st_outbuf_str(&w->ob, "_hex\":\"");
	for (size_t i = 0; i < len; i += 64) {
		size_t k = len - i < 64 ? len - i : 64;

		st_text_hex(hex, s + i, k);
		st_outbuf_put(&w->ob, hex, 2 * k);
	}
	st_outbuf_put(&w->ob, "\"", 1);
}

void st_ctrace_arg_int(st_ctrace *w, const char *key, int64_t v)
{
	arg_key(w, key);
	st_outbuf_int(&w->ob, v);
}

void st_ctrace_arg_real(st_ctrace *w, const char *key, double v)
{
	char b[40], *e;
	int len;

	arg_key(w, key);
	if (!isfinite(v)) {
		st_outbuf_str(&w->ob, "null");
		return;
	}
	len = snprintf(b, sizeof(b), "%.17g", v);
	if (!strpbrk(b, ".eE")) {
		b[len++] = '.';
		b[len++] = '0';
		b[len] = '\0';
	}
	/* jansson's exponent: no '+', no leading zeros */
	if ((e = strchr(b, 'e'))) {
		char *p = e + 1, *q;

		if (*p == '-')
			p++;
		q = p;
		if (*q == '+')
			q++;
		while (*q == '0' && q[1])
			q++;
		memmove(p, q, strlen(q) + 1);
	}
	st_outbuf_str(&w->ob, b);
}

void st_ctrace_arg_bool(st_ctrace *w, const char *key, bool v)
{
	arg_key(w, key);
	st_outbuf_str(&w->ob, v ? "true" : "false");
}

void st_ctrace_end(st_ctrace *w)
{
	st_outbuf_put(&w->ob, "}}", 2);
}

int st_ctrace_finish(st_ctrace *w, const char *what, st_error *err)
{
	st_outbuf_flush(&w->ob);
	if (fflush(w->ob.f) != 0 || w->ob.failed || ferror(w->ob.f))
		return st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				    what, strerror(errno ? errno : EIO));
	return 0;
}
