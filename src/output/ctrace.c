/* ctrace.c - Chrome trace events written by hand, for speed: the trace
 * timeline writes millions of them.  The Perfetto form goes to pftrace.c;
 * gzipped outputs through zlib. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "streamtime/ctrace.h"
#include "streamtime/pftrace.h"
#include "streamtime/text.h"

void st_ctrace_init(st_ctrace *w, FILE *f)
{
	st_outbuf_init(&w->ob, f);
	w->n = 0;
	w->arg = false;
	w->pf = NULL;
}

int st_ctrace_init_format(st_ctrace *w, FILE *f, st_ctrace_format fmt,
			  st_error *err)
{
	if (fmt == ST_CTRACE_PERFETTO)
		return st_ctrace_init_perfetto(w, f, 1, 1, 1, err);
	st_ctrace_init(w, f);
	return 0;
}

int st_ctrace_init_perfetto(st_ctrace *w, FILE *f, uint32_t seq,
			    uint64_t stride, uint64_t offset, st_error *err)
{
	st_ctrace_init(w, f);
	if (!(w->pf = st_pftrace_new(&w->ob, seq, stride, offset)))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	return 0;
}

void st_ctrace_release(st_ctrace *w)
{
	st_pftrace_free(w->pf);
	w->pf = NULL;
}

void st_ctrace_sequence(st_ctrace *w)
{
	if (w->pf)
		st_pftrace_sequence(w->pf);
}

static bool ends_with(const char *s, size_t len, const char *end)
{
	size_t k = strlen(end);

	return len >= k && memcmp(s + len - k, end, k) == 0;
}

int st_ctrace_format_of(const char *path, const char *given,
			st_ctrace_format *fmt, bool *gzip, st_error *err)
{
	size_t len = strlen(path);

	*gzip = ends_with(path, len, ".gz");
	if (*gzip)
		len -= 3;
	if (given && strcmp(given, "perfetto") == 0)
		*fmt = ST_CTRACE_PERFETTO;
	else if (given && strcmp(given, "json") == 0)
		*fmt = ST_CTRACE_JSON;
	else if (given)
		return st_error_set(err, ST_EXIT_USAGE, "--format takes "
				    "perfetto or json, not '%s'", given);
	else
		*fmt = ends_with(path, len, ".pftrace") ||
		       ends_with(path, len, ".perfetto-trace")
		       ? ST_CTRACE_PERFETTO : ST_CTRACE_JSON;
	return 0;
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

	if (w->pf) {
		w->n++;
		st_pftrace_meta(w->pf, what, pid, tid, text, num);
		return;
	}
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
	if (w->pf) {
		w->n++;
		st_pftrace_slice(w->pf, name, nlen, cat, clen, pid, tid, ts,
				 dur);
		return;
	}
	event_head(w, name, nlen, cat, clen, "X", pid);
	tid_ts(&w->ob, ",\"tid\":", tid, ts);
	st_outbuf_str(&w->ob, ",\"dur\":");
	st_outbuf_int(&w->ob, dur);
	args_open(w);
}

void st_ctrace_counter(st_ctrace *w, const char *name, size_t nlen,
		       int64_t pid, int64_t ts)
{
	if (w->pf) {
		w->n++;
		st_pftrace_counter(w->pf, name, nlen, pid, ts);
		return;
	}
	event_head(w, name, nlen, NULL, 0, "C", pid);
	st_outbuf_str(&w->ob, ",\"ts\":");
	st_outbuf_int(&w->ob, ts);
	args_open(w);
}

void st_ctrace_instant(st_ctrace *w, const char *name, size_t nlen,
		       const char *cat, size_t clen, int64_t pid, int64_t tid,
		       int64_t ts)
{
	if (w->pf) {
		w->n++;
		st_pftrace_instant(w->pf, name, nlen, cat, clen, pid, tid, ts);
		return;
	}
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

	if (w->pf) {
		st_pftrace_arg_str(w->pf, key, s, len);
		return;
	}
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
	if (w->pf) {
		st_pftrace_arg_int(w->pf, key, v);
		return;
	}
	arg_key(w, key);
	st_outbuf_int(&w->ob, v);
}

void st_ctrace_arg_real(st_ctrace *w, const char *key, double v)
{
	char b[40], *e;
	int len;

	if (w->pf) {
		st_pftrace_arg_real(w->pf, key, v);
		return;
	}
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
	if (w->pf) {
		st_pftrace_arg_bool(w->pf, key, v);
		return;
	}
	arg_key(w, key);
	st_outbuf_str(&w->ob, v ? "true" : "false");
}

void st_ctrace_end(st_ctrace *w)
{
	if (w->pf) {
		st_pftrace_end(w->pf);
		return;
	}
	st_outbuf_put(&w->ob, "}}", 2);
}

int st_ctrace_finish(st_ctrace *w, const char *what, st_error *err)
{
	if (w->pf && st_pftrace_finish(w->pf, what, err) < 0)
		return -1;
	st_outbuf_flush(&w->ob);
	if (fflush(w->ob.f) != 0 || w->ob.failed || ferror(w->ob.f))
		return st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				    what, strerror(errno ? errno : EIO));
	return 0;
}

/* ---- gzipped output ------------------------------------------------------ */

/* A write stream that deflates into another (gzip framing, level 6). */
struct gz {
	z_stream z;
	FILE *to;
	bool failed;
};

/* Deflate IN[0..N) with FLUSH into g->to. */
static bool gz_pump(struct gz *g, const char *in, size_t n, int flush)
{
	unsigned char out[1 << 15];
	int zr;

	g->z.next_in = (Bytef *)(uintptr_t)in;
	g->z.avail_in = (uInt)n;
	do {
		g->z.next_out = out;
		g->z.avail_out = sizeof(out);
		zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR)
			return false;
		if (fwrite(out, 1, sizeof(out) - g->z.avail_out, g->to) !=
		    sizeof(out) - g->z.avail_out)
			return false;
	} while (g->z.avail_out == 0 || (flush == Z_FINISH &&
					  zr != Z_STREAM_END));
	return true;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t n)
{
	struct gz *g = cookie;

	/* in pieces a uInt holds */
	for (size_t done = 0; done < n;) {
		size_t k = n - done < (1u << 30) ? n - done : (1u << 30);

		if (g->failed || !gz_pump(g, buf + done, k, Z_NO_FLUSH)) {
			g->failed = true;
			errno = EIO;
			return -1;
		}
		done += k;
	}
	return (ssize_t)n;
}

static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	bool ok = !g->failed && gz_pump(g, NULL, 0, Z_FINISH);

	deflateEnd(&g->z);
	free(g);
	return ok ? 0 : -1;
}

int st_ctrace_file_open(st_ctrace_file *cf, const char *path, bool gzip,
			st_error *err)
{
	static const cookie_io_functions_t io = { .write = gz_write,
						  .close = gz_close };
	struct gz *g;

	memset(cf, 0, sizeof(*cf));
	if (st_atomic_open(&cf->af, path, err) < 0)
		return -1;
	cf->fp = cf->af.fp;
	if (!gzip)
		return 0;
	if (!(g = calloc(1, sizeof(*g))) ||
	    deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		st_atomic_abort(&cf->af);
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	}
	g->to = cf->af.fp;
	if (!(cf->gz = fopencookie(g, "w", io))) {
		deflateEnd(&g->z);
		free(g);
		st_atomic_abort(&cf->af);
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	}
	cf->fp = cf->gz;
	return 0;
}

int st_ctrace_file_commit(st_ctrace_file *cf, st_error *err)
{
	if (cf->gz) {
		int r = fclose(cf->gz);

		cf->gz = NULL;
		if (r != 0) {
			st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				     cf->af.path, strerror(st_atomic_errno(
						     &cf->af)));
			st_atomic_abort(&cf->af);
			return -1;
		}
	}
	return st_atomic_commit(&cf->af, err);
}

void st_ctrace_file_abort(st_ctrace_file *cf)
{
	if (cf->gz)
		fclose(cf->gz);
	cf->gz = NULL;
	st_atomic_abort(&cf->af);
}
