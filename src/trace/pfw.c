/* pfw.c - DFTracer .pfw / .pfw.gz reader (SPEC 5.10).
 *
 * Two layers, over st_strtab (base/strtab.c), which interns names,
 * categories, hosts, files and the hash maps:
 *   - the two line scanners that fill a st_pfw_raw: the fast one for the
 *     flat event shape and jansson for everything else;
 *   - the reader: file bytes (zin.c, inflated when gzip) -> lines -> raw
 *     fields -> an event, with the HH/FH/SH maps of the file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ST_PFW_HAVE_AVX2 1
#else
#define ST_PFW_HAVE_AVX2 0
#endif

#include "streamtime/pfw.h"
#include "streamtime/strtab.h"
#include "streamtime/text.h"
#include "zin.h"

/* ---- the fast scanner ------------------------------------------------ */

/* The fast scanner accepts a subset of JSON that it can check in full:
 * strings without escapes, control characters or bytes above 0x7f,
 * integers of at most 18 digits, true/false/null, nested objects and arrays
 * up to FAST_DEPTH.  Anything else returns NULL ("ask jansson"): a line it
 * returns is valid JSON, and the fields it took are the ones jansson
 * would give. */
#define FAST_DEPTH 16

static inline const char *skip_ws(const char *p, const char *e)
{
	if (p < e && (unsigned char)*p > ' ')
		return p;   /* DFTracer writes none */
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* ---- the structural scan, 16 or 32 bytes at a time ------------------ */

/* Which path the scanner takes: chosen once from the CPU (AVX2 when it has
 * it, else SSE2, the x86-64 baseline), or from $STREAMTIME_PFW_SIMD
 * ("scalar", "sse2", "avx2": never above what the CPU has), or by
 * st_pfw_simd_force for the tests.  Every path gives the same answers;
 * "scalar" also leaves out the 8-byte digit tricks (SWAR). */
static int simd_level = -1;

static int simd_cpu(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		return ST_PFW_AVX2;
#endif
#if defined(__SSE2__)
	return ST_PFW_SSE2;
#else
	return ST_PFW_SCALAR;
#endif
}

static int simd_choose(void)
{
	const char *env = getenv("STREAMTIME_PFW_SIMD");
	int cpu = simd_cpu(), want = cpu;

	if (env && strcmp(env, "scalar") == 0)
		want = ST_PFW_SCALAR;
	else if (env && strcmp(env, "sse2") == 0)
		want = ST_PFW_SSE2;
	return want < cpu ? want : cpu;
}

static inline int simd(void)
{
	int l = __atomic_load_n(&simd_level, __ATOMIC_RELAXED);

	if (l < 0) {
		l = simd_choose();
		__atomic_store_n(&simd_level, l, __ATOMIC_RELAXED);
	}
	return l;
}

int st_pfw_simd(void)
{
	return simd();
}

int st_pfw_simd_force(int level)
{
	int cpu = simd_cpu();

	if (level < 0)
		level = simd_choose();
	if (level > cpu)
		return -1;
	__atomic_store_n(&simd_level, level, __ATOMIC_RELAXED);
	return level;
}

/* Where a string body at P ends for the fast scanner: the first quote,
 * backslash, control character or byte above 0x7f, or E. */
static inline const char *str_stop_scalar(const char *p, const char *e)
{
	for (; p < e; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
			break;
	}
	return p;
}

#if defined(__SSE2__)
static inline const char *str_stop_sse2(const char *p, const char *e)
{
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	const __m128i space = _mm_set1_epi8(0x20);

	while (e - p >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* signed compare: 0x00-0x1f and 0x80-0xff are both below 0x20 */
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote),
						      _mm_cmpeq_epi8(x, bslash)),
					 _mm_cmplt_epi8(x, space));
		unsigned mask = (unsigned)_mm_movemask_epi8(m);

		if (mask)
			return p + __builtin_ctz(mask);
		p += 16;
	}
	return str_stop_scalar(p, e);
}
#endif

#if ST_PFW_HAVE_AVX2
__attribute__((target("avx2")))
static const char *str_stop_avx2(const char *p, const char *e)
{
	const __m256i quote = _mm256_set1_epi8('"');
	const __m256i bslash = _mm256_set1_epi8('\\');
	const __m256i space = _mm256_set1_epi8(0x20);

	while (e - p >= 32) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
		/* signed: 0x00-0x1f and 0x80-0xff are below 0x20 */
		__m256i m = _mm256_or_si256(
			_mm256_or_si256(_mm256_cmpeq_epi8(x, quote),
					_mm256_cmpeq_epi8(x, bslash)),
			_mm256_cmpgt_epi8(space, x));
		unsigned mask = (unsigned)_mm256_movemask_epi8(m);

		if (mask)
			return p + __builtin_ctz(mask);
		p += 32;
	}
	return str_stop_sse2(p, e);
}
#endif

/* The closing quote of a string whose body starts at P, or NULL when the
 * body holds a backslash, a control character or a non-ASCII byte (or the
 * line ends first). */
static inline __attribute__((always_inline)) const char *
str_close(const char *p, const char *e)
{
	int l = simd();

#if defined(__SSE2__)
	if (l >= ST_PFW_SSE2) {
		/* most strings end within 16 bytes: one SSE2 step here, and
		 * 32 bytes a step after that on AVX2 */
		if (e - p >= 16) {
			const __m128i quote = _mm_set1_epi8('"');
			const __m128i bslash = _mm_set1_epi8('\\');
			__m128i x = _mm_loadu_si128((const __m128i *)
						    (const void *)p);
			__m128i m = _mm_or_si128(
				_mm_or_si128(_mm_cmpeq_epi8(x, quote),
					     _mm_cmpeq_epi8(x, bslash)),
				_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
			unsigned mask = (unsigned)_mm_movemask_epi8(m);

			if (mask) {
				p += __builtin_ctz(mask);
				return *p == '"' ? p : NULL;
			}
			p += 16;
		}
#if ST_PFW_HAVE_AVX2
		if (l == ST_PFW_AVX2 && e - p >= 32)
			p = str_stop_avx2(p, e);
		else
#endif
			p = str_stop_sse2(p, e);
	} else
#endif
		p = str_stop_scalar(p, e);
	(void)l;
	return p < e && *p == '"' ? p : NULL;
}

/* A string at P (its opening quote) into V; the byte after it, or NULL. */
static inline __attribute__((always_inline)) const char *
fast_string(const char *p, const char *e, st_pfw_val *v)
{
	const char *q = str_close(p + 1, e);

	if (!q)
		return NULL;
	if (v) {
		v->kind = ST_PFW_STRING;
		v->s = p + 1;
		v->n = (size_t)(q - p - 1);
	}
	return q + 1;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FAST_SWAR 1

/* The digits at P (8 bytes readable), eight at a time: how many of the 8
 * bytes lead as digits, and *D the bytes minus '0' (the digits' values in
 * the low bytes). */
static inline unsigned lead_digits(const char *p, uint64_t *d)
{
	uint64_t x, nd;

	memcpy(&x, p, 8);
	x ^= UINT64_C(0x3030303030303030);
	/* a byte's top bit: it is not 0..9 (then its low 7 bits + 0x76
	 * stay below 0x80 and its own top bit is clear) */
	nd = (((x & UINT64_C(0x7f7f7f7f7f7f7f7f)) +
	       UINT64_C(0x7676767676767676)) | x) &
	     UINT64_C(0x8080808080808080);
	*d = x;
	return nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
}

/* The value of the first N (1..8) digits of D (lead_digits'). */
static inline uint64_t digits_value(uint64_t d, unsigned n)
{
	d <<= 8 * (8 - n);   /* drop the rest; leading zeros in front */
	d = d * 10 + (d >> 8);
	return (((d & UINT64_C(0x000000ff000000ff)) *
		 (100 + (UINT64_C(1000000) << 32))) +
		(((d >> 16) & UINT64_C(0x000000ff000000ff)) *
		 (1 + (UINT64_C(10000) << 32)))) >> 32;
}

static const uint64_t pow10_8[9] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
};
#else
#define FAST_SWAR 0
#endif

/* The decimal digits leading at P (up to E): how many (19 for "more than
 * 18"), and *X their value when there are at most 18.  SSE2 finds the end
 * of the digits in 16 bytes and SWAR adds them up 8 at a time; the scalar
 * path does it a byte at a time. */
static inline __attribute__((always_inline)) unsigned
digits_read(const char *p, const char *e, uint64_t *x)
{
	const char *d = p;
	uint64_t v = 0;

#if FAST_SWAR
	int l = simd();
#if defined(__SSE2__)
	if (l >= ST_PFW_SSE2 && e - p >= 16) {
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i nd = _mm_or_si128(_mm_cmplt_epi8(c, _mm_set1_epi8('0')),
					  _mm_cmpgt_epi8(c, _mm_set1_epi8('9')));
		unsigned n = (unsigned)__builtin_ctz(
			(unsigned)_mm_movemask_epi8(nd) | 0x10000u);
		uint64_t lo, hi;

		memcpy(&hi, p, 8);
		hi ^= UINT64_C(0x3030303030303030);
		if (n <= 8) {
			*x = n ? digits_value(hi, n) : 0;
			return n;
		}
		memcpy(&lo, p + 8, 8);
		lo ^= UINT64_C(0x3030303030303030);
		v = digits_value(hi, 8) * pow10_8[n - 8] +
		    digits_value(lo, n - 8);
		if (n < 16) {
			*x = v;
			return n;
		}
		p += 16;
	} else
#endif
	if (l > ST_PFW_SCALAR) {
		while (e - p >= 8) {
			uint64_t dv;
			unsigned n = lead_digits(p, &dv);

			if (!n)
				break;
			if (p - d + n > 18)
				return 19;
			v = v * pow10_8[n] + digits_value(dv, n);
			p += n;
			if (n < 8) {
				*x = v;
				return (unsigned)(p - d);
			}
		}
	}
#endif
	while (p < e && (unsigned)(*p - '0') < 10) {
		if (p - d == 18)
			return 19;
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	*x = v;
	return (unsigned)(p - d);
}

/* An integer at P into V (may be NULL).  NULL for a real, more than 18
 * digits or anything JSON does not allow (a leading zero, a lone '-'). */
static inline __attribute__((always_inline)) const char *
fast_int(const char *p, const char *e, st_pfw_val *v)
{
	bool neg = false;
	uint64_t x = 0;

	if (p < e && *p == '-') {
		neg = true;
		p++;
	}
	if (p < e && *p == '0') {
		p++;
	} else {
		unsigned n = digits_read(p, e, &x);

		if (n == 0 || n > 18)
			return NULL;   /* 19 digits may not fit */
		p += n;
	}
	if (p < e && (*p == '.' || *p == 'e' || *p == 'E' ||
		      (unsigned)(*p - '0') < 10))
		return NULL;
	if (v) {
		v->kind = ST_PFW_INT;
		v->i = neg ? -(int64_t)x : (int64_t)x;
	}
	return p;
}

static const char *fast_skip(const char *p, const char *e, int depth);

/* The members or elements of an object or array at P (its '{' or '['),
 * checked and skipped. */
static const char *fast_skip_nested(const char *p, const char *e, int depth)
{
	char close = *p == '{' ? '}' : ']';
	bool object = *p == '{';

	if (depth >= FAST_DEPTH)
		return NULL;
	p = skip_ws(p + 1, e);
	if (p < e && *p == close)
		return p + 1;
	for (;;) {
		if (object) {
			if (p >= e || *p != '"' || !(p = fast_string(p, e, NULL)))
				return NULL;
			p = skip_ws(p, e);
			if (p >= e || *p != ':')
				return NULL;
			p = skip_ws(p + 1, e);
		}
		if (!(p = fast_skip(p, e, depth + 1)))
			return NULL;
		p = skip_ws(p, e);
		if (p >= e)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = skip_ws(p + 1, e);
	}
}

static const char *fast_literal(const char *p, const char *e)
{
	static const char *const lit[] = { "true", "false", "null" };

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lit[i]);

		if ((size_t)(e - p) >= n && memcmp(p, lit[i], n) == 0)
			return p + n;
	}
	return NULL;
}

/* Any value at P, checked and skipped. */
static const char *fast_skip(const char *p, const char *e, int depth)
{
	if (p >= e)
		return NULL;
	switch (*p) {
	case '"':
		return fast_string(p, e, NULL);
	case '{':
	case '[':
		return fast_skip_nested(p, e, depth);
	case 't':
	case 'f':
	case 'n':
		return fast_literal(p, e);
	default:
		return fast_int(p, e, NULL);
	}
}

/* A value we keep: strings and integers as they are, anything else valid
 * as OTHER. */
static const char *fast_value(const char *p, const char *e, st_pfw_val *v,
			      int depth)
{
	if (p >= e)
		return NULL;
	if (*p == '"')
		return fast_string(p, e, v);
	if (*p == '-' || (unsigned)(*p - '0') < 10)
		return fast_int(p, e, v);
	memset(v, 0, sizeof(*v));
	v->kind = ST_PFW_OTHER;
	return fast_skip(p, e, depth);
}

#define KEY_IS(k, n, lit) ((n) == sizeof(lit) - 1 && memcmp(k, lit, n) == 0)

/* What a key of the event (TOP) or of its args stands for: a field's
 * offset in st_pfw_raw, or one of these. */
#define KEY_SKIP (-1)
#define KEY_ARGS (-2)
#define AT(field) ((int)offsetof(st_pfw_raw, field))

static int key_what(bool top, const char *k, size_t n)
{
	if (top) {
		switch (n) {
		case 2:
			return KEY_IS(k, n, "ts") ? AT(ts) :
			       KEY_IS(k, n, "ph") ? AT(ph) : KEY_SKIP;
		case 3:
			return KEY_IS(k, n, "pid") ? AT(pid) :
			       KEY_IS(k, n, "tid") ? AT(tid) :
			       KEY_IS(k, n, "dur") ? AT(dur) :
			       KEY_IS(k, n, "cat") ? AT(cat) : KEY_SKIP;
		case 4:
			return KEY_IS(k, n, "name") ? AT(name) :
			       KEY_IS(k, n, "args") ? KEY_ARGS : KEY_SKIP;
		default:
			return KEY_SKIP;
		}
	}
	switch (n) {
	case 3:
		return KEY_IS(k, n, "ret") ? AT(ret) : KEY_SKIP;
	case 4:
		return KEY_IS(k, n, "size") ? AT(size) :
		       KEY_IS(k, n, "name") ? AT(aname) : KEY_SKIP;
	case 5:
		return KEY_IS(k, n, "fname") ? AT(fname) :
		       KEY_IS(k, n, "fhash") ? AT(fhash) :
		       KEY_IS(k, n, "hhash") ? AT(hhash) :
		       KEY_IS(k, n, "value") ? AT(avalue) : KEY_SKIP;
	case 8:
		return KEY_IS(k, n, "hostname") ? AT(hostname) : KEY_SKIP;
	case 10:
		return KEY_IS(k, n, "image_size") ? AT(image_size) : KEY_SKIP;
	default:
		return KEY_SKIP;
	}
}

/* The keys of the last lines read on this thread, by depth and position
 * in their object: DFTracer writes every event's keys in one order, so
 * the bytes at a key are most often `"key":` as in the line before, and
 * after a value `,"key":` (the comma kept from the second key on).
 * Matching those bytes (comma, both quotes and the colon included, so that
 * no other key matches) says what the key is without scanning it, nor the
 * comma before it. */
#define MEMO_KEYS 16
#define MEMO_LEN 16

struct key_memo {
	_Alignas(16) char text[2][MEMO_KEYS][MEMO_LEN];
	uint8_t len[2][MEMO_KEYS];       /* 0: nothing kept */
	int16_t what[2][MEMO_KEYS];
};

static _Thread_local struct key_memo memo;

/* Do the LEN (1..16) bytes of the memo at M start P (16 bytes readable)? */
static inline bool memo_match(const char *p, const char *m, unsigned len)
{
#if defined(__SSE2__)
	if (simd() >= ST_PFW_SSE2) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i b = _mm_load_si128((const __m128i *)(const void *)m);
		unsigned want = (1u << len) - 1;

		return ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) &
			want) == want;
	}
#endif
	return memcmp(p, m, len) == 0;
}

/* The key at P (its opening quote) of member I of an object at DEPTH
 * (TOP: the event's) into *WHAT, kept in the memo; the byte after its
 * colon, or NULL. */
static const char *fast_key(const char *p, const char *e, bool top,
			    int depth, unsigned i, int *what)
{
	st_pfw_val key;
	const char *k0 = i ? p - 1 : p;   /* from the comma after the first */

	if (p >= e || *p != '"' || !(p = fast_string(p, e, &key)))
		return NULL;
	*what = key_what(top, key.s, key.n);
	if (p < e && *p == ':' && i < MEMO_KEYS && (!i || *k0 == ',') &&
	    (size_t)(p + 1 - k0) <= MEMO_LEN) {
		memcpy(memo.text[depth][i], k0, (size_t)(p + 1 - k0));
		memo.len[depth][i] = (uint8_t)(p + 1 - k0);
		memo.what[depth][i] = (int16_t)*what;
	}
	p = skip_ws(p, e);
	if (p >= e || *p != ':')
		return NULL;
	return p + 1;
}

/* Member I's key at P as in the memo: its length, or 0. */
static inline unsigned memo_key(const char *p, const char *e, int depth,
				unsigned i)
{
	unsigned n = i < MEMO_KEYS ? memo.len[depth][i] : 0;

	return n && e - p >= MEMO_LEN && memo_match(p, memo.text[depth][i], n)
	       ? n : 0;
}

/* The members of an object at P (its '{'): TOP for the event, else args. */
static const char *fast_object(const char *p, const char *e, st_pfw_raw *raw,
			       bool top)
{
	bool seen_args = false;
	int depth = top ? 0 : 1, what;
	unsigned i = 0, n;

	p = skip_ws(p + 1, e);
	if (p < e && *p == '}')
		return p + 1;
	if ((n = memo_key(p, e, depth, 0))) {
		what = memo.what[depth][0];
		p += n;
	} else if (!(p = fast_key(p, e, top, depth, 0, &what))) {
		return NULL;
	}
	for (;;) {
		p = skip_ws(p, e);
		if (what == KEY_ARGS) {
			if (seen_args)
				return NULL;   /* jansson keeps the last one */
			seen_args = true;
			if (p < e && *p == '{') {
				raw->args = true;
				p = fast_object(p, e, raw, false);
			} else {
				p = fast_skip(p, e, 1);
			}
		} else if (what >= 0) {
			p = fast_value(p, e, (st_pfw_val *)(void *)
				       ((char *)raw + what), depth + 1);
		} else {
			p = fast_skip(p, e, depth + 1);
		}
		if (!p)
			return NULL;
		/* the next member: `,"key":` as on the line before, or read */
		if ((n = memo_key(p, e, depth, ++i))) {
			what = memo.what[depth][i];
			p += n;
			continue;
		}
		p = skip_ws(p, e);
		if (p >= e)
			return NULL;
		if (*p == '}')
			return p + 1;
		if (*p != ',')
			return NULL;
		if (!(p = fast_key(skip_ws(p + 1, e), e, top, depth, i, &what)))
			return NULL;
	}
}

int st_pfw_scan_fast(const char *line, size_t len, st_pfw_raw *raw)
{
	const char *e = line + len, *p = skip_ws(line, e);

	memset(raw, 0, sizeof(*raw));
	if (p >= e || *p != '{')
		return 0;
	if (!(p = fast_object(p, e, raw, true)))
		return 0;
	return skip_ws(p, e) == e;
}

/* ---- what jansson refuses ------------------------------------------- */

/* The whole of JSON (RFC 8259) for the lines jansson refuses although
 * they are valid, as Python's json reads them: integers beyond 64 bits
 * (DFTracer's 64-bit hashes), reals beyond a double (1e400), "\u0000"
 * and lone surrogates ("\ud800").  A field the reader does not use may
 * hold anything valid; a used one that cannot be held becomes
 * ST_PFW_RANGE, which interpret() counts as a corrupt line saying why.
 * Strings with escapes are decoded into W->buf (as long as the line). */
#define WIDE_DEPTH 2048   /* jansson's JSON_PARSER_MAX_DEPTH */

struct wide {
	const char *e;
	char *out;         /* where the next decoded string goes */
};

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The 4 hex digits at P: the code unit, or -1. */
static long hex4(const char *p, const char *e)
{
	long u = 0;

	if (e - p < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		int h = hexval(p[k]);

		if (h < 0)
			return -1;
		u = u * 16 + h;
	}
	return u;
}

static char *put_utf8(char *o, unsigned long u)
{
	if (u < 0x80) {
		*o++ = (char)u;
	} else if (u < 0x800) {
		*o++ = (char)(0xc0 | u >> 6);
		*o++ = (char)(0x80 | (u & 0x3f));
	} else if (u < 0x10000) {
		*o++ = (char)(0xe0 | u >> 12);
		*o++ = (char)(0x80 | ((u >> 6) & 0x3f));
		*o++ = (char)(0x80 | (u & 0x3f));
	} else {
		*o++ = (char)(0xf0 | u >> 18);
		*o++ = (char)(0x80 | ((u >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((u >> 6) & 0x3f));
		*o++ = (char)(0x80 | (u & 0x3f));
	}
	return o;
}

/* A string at P (its opening quote), checked; decoded into V when V is not
 * NULL (ST_PFW_RANGE when it holds U+0000 or a lone surrogate).  The byte
 * after it, or NULL.  A decoded string is never longer than its JSON. */
static const char *wide_string(struct wide *w, const char *p, st_pfw_val *v)
{
	const char *e = w->e;
	char *o = w->out;
	bool odd = false;

	for (p++; p < e && *p != '"';) {
		unsigned char c = (unsigned char)*p;
		size_t n;
		long u;

		if (c < 0x20)
			return NULL;
		if (c != '\\') {
			if (!(n = st_utf8_seq(p, (size_t)(e - p))))
				return NULL;
			memcpy(o, p, n);
			o += n;
			p += n;
			continue;
		}
		if (++p >= e)
			return NULL;
		switch (*p) {
		case '"': case '\\': case '/':
			*o++ = *p++;
			continue;
		case 'b': *o++ = '\b'; p++; continue;
		case 'f': *o++ = '\f'; p++; continue;
		case 'n': *o++ = '\n'; p++; continue;
		case 'r': *o++ = '\r'; p++; continue;
		case 't': *o++ = '\t'; p++; continue;
		case 'u':
			break;
		default:
			return NULL;
		}
		if ((u = hex4(p + 1, e)) < 0)
			return NULL;
		p += 5;
		if (u >= 0xd800 && u <= 0xdbff && e - p >= 6 && p[0] == '\\' &&
		    p[1] == 'u') {
			long lo = hex4(p + 2, e);

			if (lo >= 0xdc00 && lo <= 0xdfff) {
				u = 0x10000 + ((u - 0xd800) << 10) +
				    (lo - 0xdc00);
				p += 6;
			}
		}
		if (u == 0 || (u >= 0xd800 && u <= 0xdfff))
			odd = true;
		else
			o = put_utf8(o, (unsigned long)u);
	}
	if (p >= e)
		return NULL;
	if (v) {
		memset(v, 0, sizeof(*v));
		v->kind = odd ? ST_PFW_RANGE : ST_PFW_STRING;
		if (!odd) {
			v->s = w->out;
			v->n = (size_t)(o - w->out);
			w->out = o;
		}
	}
	return p + 1;
}

/* A number at P, checked; into V when V is not NULL: an integer of 64
 * bits, a real (inf beyond a double), or ST_PFW_RANGE with the digits of
 * a longer integer in .s, .n (a hash keeps them). */
static const char *wide_number(struct wide *w, const char *p, st_pfw_val *v)
{
	const char *e = w->e, *s = p, *d;
	bool real = false;
	size_t n;
	char *end;

	if (p < e && *p == '-')
		p++;
	d = p;
	if (p < e && *p == '0')
		p++;
	else
		while (p < e && (unsigned)(*p - '0') < 10)
			p++;
	if (p == d)
		return NULL;
	if (p < e && *p == '.') {
		real = true;
		d = ++p;
		while (p < e && (unsigned)(*p - '0') < 10)
			p++;
		if (p == d)
			return NULL;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		real = true;
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		d = p;
		while (p < e && (unsigned)(*p - '0') < 10)
			p++;
		if (p == d)
			return NULL;
	}
	if (!v)
		return p;
	/* a copy with its NUL for strtoll and strtod, where the next
	 * decoded string goes (the room left is at least the rest of the
	 * line and its NUL) */
	n = (size_t)(p - s);
	memcpy(w->out, s, n);
	w->out[n] = '\0';
	memset(v, 0, sizeof(*v));
	errno = 0;
	if (real) {
		v->kind = ST_PFW_REAL;
		v->r = strtod(w->out, &end);
		return p;
	}
	v->i = strtoll(w->out, &end, 10);
	v->kind = ST_PFW_INT;
	if (errno == ERANGE) {
		v->kind = ST_PFW_RANGE;
		v->i = 0;
		v->s = s;
		v->n = n;
	}
	return p;
}

static const char *wide_value(struct wide *w, const char *p, st_pfw_val *v,
			      int depth);

/* An object or array at P (its '{' or '['), checked; the members of the
 * event (TOP) or of its args (ARGS) that the reader uses go into RAW. */
static const char *wide_nested(struct wide *w, const char *p, st_pfw_raw *raw,
			       bool top, bool args, int depth)
{
	const char *e = w->e;
	bool object = *p == '{';
	char close = object ? '}' : ']';

	if (depth >= WIDE_DEPTH)
		return NULL;
	p = skip_ws(p + 1, e);
	if (p < e && *p == close)
		return p + 1;
	for (;;) {
		int what = KEY_SKIP;

		if (object) {
			st_pfw_val key;
			char *mark = w->out;

			if (p >= e || *p != '"' ||
			    !(p = wide_string(w, p, &key)))
				return NULL;
			if ((top || args) && key.kind == ST_PFW_STRING)
				what = key_what(top, key.s, key.n);
			w->out = mark;   /* the key's bytes are not kept */
			p = skip_ws(p, e);
			if (p >= e || *p != ':')
				return NULL;
			p = skip_ws(p + 1, e);
		}
		if (what == KEY_ARGS) {
			/* the last "args" wins (jansson's rule) */
			memset(&raw->hostname, 0,
			       (size_t)((char *)&raw->owner -
					(char *)&raw->hostname));
			raw->args = p < e && *p == '{';
			p = raw->args ? wide_nested(w, p, raw, false, true,
						    depth + 1)
				      : wide_value(w, p, NULL, depth + 1);
		} else {
			p = wide_value(w, p, what >= 0 ? (st_pfw_val *)(void *)
				       ((char *)raw + what) : NULL, depth + 1);
		}
		if (!p)
			return NULL;
		p = skip_ws(p, e);
		if (p >= e)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = skip_ws(p + 1, e);
	}
}

/* Any value at P, checked; into V (may be NULL): strings and numbers as
 * they are, anything else as ST_PFW_OTHER. */
static const char *wide_value(struct wide *w, const char *p, st_pfw_val *v,
			      int depth)
{
	const char *e = w->e;

	if (p >= e)
		return NULL;
	if (*p == '"')
		return wide_string(w, p, v);
	if (*p == '-' || (unsigned)(*p - '0') < 10)
		return wide_number(w, p, v);
	if (v) {
		memset(v, 0, sizeof(*v));
		v->kind = ST_PFW_OTHER;
	}
	if (*p == '{' || *p == '[')
		return wide_nested(w, p, NULL, false, false, depth);
	return fast_literal(p, e);
}

int st_pfw_scan_wide(const char *line, size_t len, st_pfw_raw *raw)
{
	struct wide w = { .e = line + len };
	const char *p = skip_ws(line, w.e);

	memset(raw, 0, sizeof(*raw));
	if (p >= w.e || *p != '{')
		return -1;
	if (!(raw->buf = w.out = malloc(len + 1)))
		return -2;
	if (!(p = wide_nested(&w, p, raw, true, false, 0)) ||
	    skip_ws(p, w.e) != w.e) {
		st_pfw_raw_release(raw);
		return -1;
	}
	return 0;
}

/* ---- jansson --------------------------------------------------------- */

static void json_val(json_t *j, st_pfw_val *v)
{
	memset(v, 0, sizeof(*v));
	if (!j)
		return;
	switch (json_typeof(j)) {
	case JSON_INTEGER:
		v->kind = ST_PFW_INT;
		v->i = (int64_t)json_integer_value(j);
		break;
	case JSON_REAL:
		v->kind = ST_PFW_REAL;
		v->r = json_real_value(j);
		break;
	case JSON_STRING:
		v->kind = ST_PFW_STRING;
		v->s = json_string_value(j);
		v->n = json_string_length(j);
		break;
	default:
		v->kind = ST_PFW_OTHER;
		break;
	}
}

int st_pfw_scan_json(const char *line, size_t len, st_pfw_raw *raw,
		     char *why, size_t whysize)
{
	json_error_t jerr;
	json_t *root, *args;

	memset(raw, 0, sizeof(*raw));
	if (!(root = json_loadb(line, len, 0, &jerr))) {
		if (why)
			snprintf(why, whysize, "invalid JSON: %s (column %d)",
				 jerr.text, jerr.column);
		return -1;
	}
	if (!json_is_object(root)) {
		if (why)
			snprintf(why, whysize, "not a JSON object");
		json_decref(root);
		return -1;
	}
	raw->owner = root;
	json_val(json_object_get(root, "name"), &raw->name);
	json_val(json_object_get(root, "cat"), &raw->cat);
	json_val(json_object_get(root, "ph"), &raw->ph);
	json_val(json_object_get(root, "pid"), &raw->pid);
	json_val(json_object_get(root, "tid"), &raw->tid);
	json_val(json_object_get(root, "ts"), &raw->ts);
	json_val(json_object_get(root, "dur"), &raw->dur);
	args = json_object_get(root, "args");
	if (json_is_object(args)) {
		raw->args = true;
		json_val(json_object_get(args, "hostname"), &raw->hostname);
		json_val(json_object_get(args, "fname"), &raw->fname);
		json_val(json_object_get(args, "hhash"), &raw->hhash);
		json_val(json_object_get(args, "fhash"), &raw->fhash);
		json_val(json_object_get(args, "size"), &raw->size);
		json_val(json_object_get(args, "ret"), &raw->ret);
		json_val(json_object_get(args, "image_size"), &raw->image_size);
		json_val(json_object_get(args, "name"), &raw->aname);
		json_val(json_object_get(args, "value"), &raw->avalue);
	}
	return 0;
}

void st_pfw_raw_release(st_pfw_raw *raw)
{
	if (raw && raw->owner) {
		json_decref(raw->owner);
		raw->owner = NULL;
	}
	if (raw) {
		free(raw->buf);
		raw->buf = NULL;
	}
}

static bool val_equal(const st_pfw_val *a, const st_pfw_val *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case ST_PFW_INT:
		return a->i == b->i;
	case ST_PFW_REAL:
		return a->r == b->r || (isnan(a->r) && isnan(b->r));
	case ST_PFW_STRING:
	case ST_PFW_RANGE:
		return a->n == b->n && (!a->n || memcmp(a->s, b->s, a->n) == 0);
	default:
		return true;
	}
}

bool st_pfw_raw_equal(const st_pfw_raw *a, const st_pfw_raw *b)
{
	const st_pfw_val *x[] = {
		&a->name, &a->cat, &a->ph, &a->pid, &a->tid, &a->ts, &a->dur,
		&a->hostname, &a->fname, &a->hhash, &a->fhash, &a->size,
		&a->ret, &a->image_size, &a->aname, &a->avalue,
	};
	const st_pfw_val *y[] = {
		&b->name, &b->cat, &b->ph, &b->pid, &b->tid, &b->ts, &b->dur,
		&b->hostname, &b->fname, &b->hhash, &b->fhash, &b->size,
		&b->ret, &b->image_size, &b->aname, &b->avalue,
	};

	if (a->args != b->args)
		return false;
	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (!val_equal(x[i], y[i]))
			return false;
	return true;
}

int st_pfw_line_trim(const char **line, size_t *len)
{
	const char *s = *line;
	size_t n = *len;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n && s[n - 1] == ',')
		n--;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n == 0 || (n == 1 && (*s == '[' || *s == ']')))
		return 0;
	*line = s;
	*len = n;
	return 1;
}

/* ---- interpretation -------------------------------------------------- */

/* An integer field: 1 with *OUT, 0 absent, -1 not an integer, -2 beyond
 * 64 bits.  Strings hold an optional '-' and 1 to 19 digits; reals are
 * rounded. */
static int val_int(const st_pfw_val *v, int64_t *out)
{
	switch (v->kind) {
	case ST_PFW_ABSENT:
		return 0;
	case ST_PFW_INT:
		*out = v->i;
		return 1;
	case ST_PFW_RANGE:
		return v->s ? -2 : -1;
	case ST_PFW_REAL:
		if (isnan(v->r))
			return -1;
		if (!(v->r > -9.2e18 && v->r < 9.2e18))
			return -2;
		*out = llround(v->r);
		return 1;
	case ST_PFW_STRING: {
		const char *s = v->s, *e = v->s + v->n;
		bool neg = s < e && *s == '-';
		uint64_t x = 0;

		s += neg;
		if (s == e || e - s > 19)
			return -1;
		for (; s < e; s++) {
			if ((unsigned)(*s - '0') >= 10)
				return -1;
			x = x * 10 + (uint64_t)(*s - '0');
		}
		if (x > (uint64_t)INT64_MAX)
			return -1;
		*out = neg ? -(int64_t)x : (int64_t)x;
		return 1;
	}
	default:
		return -1;
	}
}

static bool name_has(const char *s, size_t n, const char *sub)
{
	return memmem(s, n, sub, strlen(sub)) != NULL;
}

/* What a name says about the bytes rule: 0 not a read or write call, 1 a
 * read or write call, 2 fread or fwrite (ret counts items). */
static int name_kind(const char *name, size_t n)
{
	if ((!name_has(name, n, "read") && !name_has(name, n, "write")) ||
	    name_has(name, n, "readdir") || name_has(name, n, "readlink"))
		return 0;
	return KEY_IS(name, n, "fread") || KEY_IS(name, n, "fwrite") ? 2 : 1;
}

static int64_t bytes_by_kind(int kind, const st_pfw_raw *raw)
{
	int64_t ret, size, b;

	if (kind) {
		if (val_int(&raw->ret, &ret) != 1 || ret <= 0)
			return -1;
		if (kind == 2 && val_int(&raw->size, &size) == 1 && size > 0)
			return __builtin_mul_overflow(ret, size, &b) ? -1 : b;
		return ret;
	}
	if (val_int(&raw->size, &size) == 1 && size > 0)
		return size;
	if (val_int(&raw->image_size, &size) == 1 && size > 0)
		return size;
	return -1;
}

/* The bytes an event moved:
 *   - a read or write call (its name holds "read" or "write", but not
 *     "readdir" or "readlink"): args.ret when positive; for fread and
 *     fwrite, whose ret counts items, times args.size;
 *   - any other event: args.size when positive, else args.image_size when
 *     positive.
 * -1 when none applies (an error return, a call that moved nothing). */
int64_t st_pfw_event_bytes(const char *name, size_t n, const st_pfw_raw *raw)
{
	return bytes_by_kind(name_kind(name, n), raw);
}

/* ---- the reader ------------------------------------------------------ */

#define READ_CHUNK (256u << 10)

enum { MAP_HOST, MAP_FILE, MAP_STRING, MAP_N };
static const char map_names[MAP_N][3] = { "HH", "FH", "SH" };

/* One-entry caches for the strings and hashes that repeat line after
 * line (the host, the category, often the name and the file). */
#define STR_CACHE 8

struct str_cache {
	int64_t id;             /* -1: empty */
	size_t n;
	char buf[64];
};

struct hash_cache {
	bool valid, is_int;
	int64_t i;              /* the hash value, when an integer */
	uint32_t id;            /* what it resolved to */
};

/* A map's hashes that are integers (or strings of their canonical
 * digits, the same keys) -> the names' ids: 12 bytes a slot, in two
 * arrays, where a key as text in the string table took 30 to 40 and its
 * own id.  A map is IMAP_SUBS tables, a key's by the top bits of its
 * hash, each growing alone: when one doubles, the old and the new are
 * held at once for a sixteenth of the map only. */
#define IMAP_SUBS 16

struct imap {
	int64_t *key;
	uint32_t *val;          /* id + 1, 0 empty */
	size_t cap, n;
};

struct st_pfw_reader {
	st_zin *zin;
	char *path;
	char *buf;
	size_t cap, beg, end;
	bool eof, skip_long, mem;
	bool oom;             /* the line's event could not be kept: memory
			       * ran out (an error of the read, 74) */
	int zerr;               /* pending stream error: 65 or 74, 0 none */
	char zmsg[256];
	uint64_t lineno, bad_lineno;
	char why[256];
	st_strtab tab;
	st_strtab *ftab;        /* the files' names: &tab, or the caller's */
	char *fbuf;             /* a name read from a compact ftab */
	size_t fbcap;
	uint32_t *mapval;       /* by key id: name id + 1, 0 unmapped */
	size_t mapcap;
	/* the maps' integer keys (most of them) */
	struct imap imap[MAP_N][IMAP_SUBS];
	int8_t *kind;           /* by name id: name_kind + 1, 0 not yet */
	size_t kindcap;
	char *key;              /* scratch for map keys */
	size_t keycap;
	/* the strings met last, by a few of their bytes: names, categories,
	 * hosts and files repeat, and a hit costs no table lookup */
	struct str_cache c_name[STR_CACHE], c_cat[STR_CACHE],
			 c_host[STR_CACHE], c_file[STR_CACHE];
	struct hash_cache h_host, h_file;
	st_pfw_stats st;
	st_pfw_feed_fn feed;    /* another line format: its parser */
	void *feed_ctx;
	void (*feed_done)(void *ctx, const st_pfw_reader *r);
};

static void caches_reset(st_pfw_reader *r)
{
	for (int i = 0; i < STR_CACHE; i++)
		r->c_name[i].id = r->c_cat[i].id = r->c_host[i].id =
			r->c_file[i].id = -1;
	r->h_host.valid = r->h_file.valid = false;
}

static st_pfw_reader *reader_new(void)
{
	st_pfw_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	st_strtab_init(&r->tab);
	r->ftab = &r->tab;
	caches_reset(r);
	return r;
}

st_pfw_reader *st_pfw_reader_mem(void)
{
	st_pfw_reader *r = reader_new();

	if (r)
		r->mem = true;
	return r;
}

st_pfw_reader *st_pfw_open(const char *path, st_error *err)
{
	st_pfw_reader *r = reader_new();

	if (!r || !(r->path = strdup(path)) ||
	    !(r->buf = malloc(READ_CHUNK))) {
		st_pfw_close(r);
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		return NULL;
	}
	r->cap = READ_CHUNK;
	errno = 0;
	if (!(r->zin = st_zin_open(path))) {
		if (strcmp(path, "-") == 0)
			st_error_set(err, ST_EXIT_NOINPUT, "cannot read standard "
				     "input: %s", strerror(errno));
		else
			st_error_set(err, ST_EXIT_NOINPUT, "cannot open %s: %s",
				     path, strerror(errno));
		st_pfw_close(r);
		return NULL;
	}
	return r;
}

st_pfw_reader *st_pfw_open_zin(struct st_zin *z, const char *path,
			       uint64_t lineno, st_error *err)
{
	st_pfw_reader *r = reader_new();

	if (!r || !(r->path = strdup(path)) ||
	    !(r->buf = malloc(READ_CHUNK))) {
		st_zin_close(z);
		st_pfw_close(r);
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		return NULL;
	}
	r->cap = READ_CHUNK;
	r->zin = z;
	r->lineno = lineno;
	return r;
}

int st_pfw_replay(st_pfw_reader *r, uint64_t lineno, const char *line,
		  size_t len)
{
	st_pfw_stats st = r->st;
	uint64_t at = r->lineno, bl = r->bad_lineno;
	st_pfw_event ev;
	bool oom;

	r->lineno = lineno;
	r->oom = false;
	st_pfw_feed(r, line, len, &ev);
	oom = r->oom;
	r->oom = false;
	r->lineno = at;
	r->st = st;
	r->bad_lineno = bl;
	r->why[0] = '\0';
	return oom ? -1 : 0;
}

const char *st_pfw_inflater(void)
{
	return st_zin_inflater();
}

void st_pfw_close(st_pfw_reader *r)
{
	if (!r)
		return;
	if (r->feed_done)
		r->feed_done(r->feed_ctx, r);
	st_zin_close(r->zin);
	st_strtab_release(&r->tab);
	free(r->mapval);
	for (int m = 0; m < MAP_N; m++) {
		for (int k = 0; k < IMAP_SUBS; k++) {
			free(r->imap[m][k].key);
			free(r->imap[m][k].val);
		}
	}
	free(r->kind);
	free(r->key);
	free(r->fbuf);
	free(r->buf);
	free(r->path);
	free(r);
}

const char *st_pfw_str(const st_pfw_reader *r, uint32_t id, size_t *len)
{
	return st_strtab_str(&r->tab, id, len);
}

bool st_pfw_use_file_table(st_pfw_reader *r, st_strtab *t)
{
	if (r->feed || r->mem || r->lineno || r->tab.n)
		return false;
	r->ftab = t;
	return true;
}

const char *st_pfw_file_str(const st_pfw_reader *r, uint32_t id, size_t *len)
{
	/* the reader's scratch, which a const reader may use (it was not
	 * made const) */
	st_pfw_reader *w = (st_pfw_reader *)r;
	size_t n;
	const char *s = st_strtab_get(r->ftab, id, &w->fbuf, &w->fbcap, &n);

	if (len)
		*len = n;
	return s;
}

uint64_t st_pfw_offset(const st_pfw_reader *r)
{
	return r->zin ? st_zin_offset(r->zin) : 0;
}

const st_pfw_stats *st_pfw_stats_get(const st_pfw_reader *r)
{
	return &r->st;
}

uint64_t st_pfw_bad_line(const st_pfw_reader *r, const char **why)
{
	if (why)
		*why = r->why;
	return r->bad_lineno;
}

static int bad(st_pfw_reader *r, const char *fmt, const char *field)
	ST_PRINTF(2, 0);

/* FMT has one %s, for FIELD. */
static int bad(st_pfw_reader *r, const char *fmt, const char *field)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(r->why, sizeof(r->why), fmt, field);
#pragma GCC diagnostic pop
	r->bad_lineno = r->lineno;
	r->st.bad++;
	return ST_PFW_BAD;
}

/* The id of S[0..N) in T, through the caches CS (STR_CACHE of them: S's
 * is chosen by its length and its first and last bytes). */
static int64_t intern_cached(st_strtab *t, struct str_cache *cs,
			     const char *s, size_t n)
{
	struct str_cache *c = &cs[n ? (n + (unsigned char)s[0] +
				       3u * (unsigned char)s[n - 1]) %
				      STR_CACHE : 0];
	int64_t id;

	if (c->id >= 0 && c->n == n && memcmp(c->buf, s, n) == 0)
		return c->id;
	if ((id = st_strtab_intern(t, s, n, NULL)) < 0)
		return -1;
	if (n <= sizeof(c->buf)) {
		memcpy(c->buf, s, n);
		c->n = n;
		c->id = id;
	} else {
		c->id = -1;
	}
	return id;
}

/* An integer beyond 64 bits (st_pfw_scan_wide), its digits as written. */
static bool is_big(const st_pfw_val *v)
{
	return v->kind == ST_PFW_RANGE && v->s;
}

/* "HH:" + the hash's text: a string as it is, an integer in decimal (one
 * beyond 64 bits: its digits as written, which JSON keeps canonical).  The
 * key's length, or 0 when the value cannot be a hash (or memory ran out). */
static size_t map_key(st_pfw_reader *r, int map, const st_pfw_val *v)
{
	size_t n;

	if (v->kind == ST_PFW_INT) {
		n = 40;
	} else if (v->kind == ST_PFW_STRING || is_big(v)) {
		n = v->n + 4;
	} else {
		return 0;
	}
	if (n > r->keycap) {
		char *k = realloc(r->key, n + 64);

		if (!k)
			return 0;
		r->key = k;
		r->keycap = n + 64;
	}
	memcpy(r->key, map_names[map], 2);
	r->key[2] = ':';
	if (v->kind == ST_PFW_INT) {
		/* the decimal digits, by hand: this runs for every hash */
		char t[24], *p = t + sizeof(t);
		uint64_t u = v->i < 0 ? -(uint64_t)v->i : (uint64_t)v->i;

		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (v->i < 0)
			*--p = '-';
		n = (size_t)(t + sizeof(t) - p);
		memcpy(r->key + 3, p, n);
		return 3 + n;
	}
	memcpy(r->key + 3, v->s, v->n);
	return 3 + v->n;
}

/* Is S[0..N) an integer's canonical digits (what map_key writes for
 * one)?  Its value into *I. */
static bool canon_int(const char *s, size_t n, int64_t *i)
{
	bool neg = n && s[0] == '-';
	uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
	size_t j = neg;

	if (j == n || n - j > 19 || (s[j] == '0' && (n - j > 1 || neg)))
		return false;
	for (; j < n; j++) {
		if (s[j] < '0' || s[j] > '9' ||
		    u > (lim - (uint64_t)(s[j] - '0')) / 10)
			return false;
		u = u * 10 + (uint64_t)(s[j] - '0');
	}
	*i = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

/* Is V an integer key of the maps (*I its value)? */
static bool int_key(const st_pfw_val *v, int64_t *i)
{
	if (v->kind == ST_PFW_INT) {
		*i = v->i;
		return true;
	}
	return v->kind == ST_PFW_STRING && canon_int(v->s, v->n, i);
}

static uint64_t imap_hash(int64_t key)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

/* The table of hash H in R's map MAP: by its top 4 bits (R is const
 * for the lookups, not for imap_set). */
_Static_assert(IMAP_SUBS == 16, "a table by the hash's top 4 bits");
static struct imap *imap_of(const st_pfw_reader *r, int map, uint64_t h)
{
	return (struct imap *)&r->imap[map][h >> 60];
}

/* The slot of KEY (hash H) in M: its own, or the empty one it would
 * take. */
static size_t imap_slot(const struct imap *m, int64_t key, uint64_t h)
{
	size_t j = (size_t)h & (m->cap - 1);

	while (m->val[j] && m->key[j] != key)
		j = (j + 1) & (m->cap - 1);
	return j;
}

/* The id KEY maps to in R's map MAP, or -1. */
static int64_t imap_find(const st_pfw_reader *r, int map, int64_t key)
{
	uint64_t h = imap_hash(key);
	const struct imap *m = imap_of(r, map, h);
	size_t j;

	if (!m->cap)
		return -1;
	j = imap_slot(m, key, h);
	return m->val[j] ? (int64_t)m->val[j] - 1 : -1;
}

/* KEY -> ID in R's map MAP, added or replaced; 0, or -1 when memory
 * runs out.  The table is at most 7/8 full: its lookups are of keys it
 * has, mostly, and a hash's repeats stop at the one-entry caches
 * before. */
static int imap_set(st_pfw_reader *r, int map, int64_t key, uint32_t id)
{
	uint64_t h = imap_hash(key);
	struct imap *m = imap_of(r, map, h);
	size_t j;

	if ((m->n + 1) * 8 > m->cap * 7) {
		struct imap g = { NULL, NULL, m->cap ? m->cap * 2 : 16, 0 };

		if (!(g.key = malloc(g.cap * sizeof(*g.key))) ||
		    !(g.val = calloc(g.cap, sizeof(*g.val)))) {
			free(g.key);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->val[i])
				continue;
			j = imap_slot(&g, m->key[i], imap_hash(m->key[i]));
			g.key[j] = m->key[i];
			g.val[j] = m->val[i];
		}
		g.n = m->n;
		free(m->key);
		free(m->val);
		*m = g;
	}
	j = imap_slot(m, key, h);
	m->n += !m->val[j];
	m->key[j] = key;
	m->val[j] = id + 1;
	return 0;
}

static int map_set(st_pfw_reader *r, int map, const st_pfw_val *key,
		   const st_pfw_val *name)
{
	st_strtab *t = map == MAP_FILE ? r->ftab : &r->tab;
	size_t n;
	int64_t k, id, i;

	if (int_key(key, &i)) {
		if ((id = st_strtab_intern(t, name->s, name->n, NULL)) < 0 ||
		    imap_set(r, map, i, (uint32_t)id) < 0)
			return -1;
		r->h_host.valid = r->h_file.valid = false;
		return 0;
	}
	n = map_key(r, map, key);
	if (!n || (k = st_strtab_intern(&r->tab, r->key, n, NULL)) < 0 ||
	    (id = st_strtab_intern(t, name->s, name->n, NULL)) < 0)
		return -1;
	if ((size_t)k >= r->mapcap) {
		size_t cap = r->mapcap ? r->mapcap : 256;
		uint32_t *v;

		while (cap <= (size_t)k)
			cap *= 2;
		if (!(v = realloc(r->mapval, cap * sizeof(*v))))
			return -1;
		memset(v + r->mapcap, 0, (cap - r->mapcap) * sizeof(*v));
		r->mapval = v;
		r->mapcap = cap;
	}
	r->mapval[k] = (uint32_t)id + 1;
	r->h_host.valid = r->h_file.valid = false;
	return 0;
}

int64_t st_pfw_lookup(const st_pfw_reader *r, const char *map,
		      const char *key, size_t keylen)
{
	char buf[256];
	int64_t k, i;

	if (strlen(map) != 2 || keylen + 3 > sizeof(buf))
		return -1;
	if (canon_int(key, keylen, &i)) {
		for (int m = 0; m < MAP_N; m++)
			if (memcmp(map, map_names[m], 2) == 0)
				return imap_find(r, m, i);
		return -1;
	}
	memcpy(buf, map, 2);
	buf[2] = ':';
	memcpy(buf + 3, key, keylen);
	k = st_strtab_find(&r->tab, buf, keylen + 3);
	if (k < 0 || (size_t)k >= r->mapcap || !r->mapval[k])
		return -1;
	return r->mapval[k] - 1;
}

/* The name a hash resolves to at this line: the mapped name, else
 * "hhash:VALUE" / "fhash:VALUE".  -1 when memory runs out. */
static int64_t resolve(st_pfw_reader *r, int map, const st_pfw_val *v,
		       struct hash_cache *hc)
{
	size_t n;
	int64_t k, id = -1, i;
	bool is_int;

	if (v->kind == ST_PFW_INT && hc->valid && hc->is_int && hc->i == v->i)
		return hc->id;
	if ((is_int = int_key(v, &i)))
		id = imap_find(r, map, i);
	if (id >= 0) {
		/* mapped by an integer key */
	} else if (!(n = map_key(r, map, v))) {
		return -1;
	} else if (!is_int && (k = st_strtab_find(&r->tab, r->key, n)) >= 0 &&
		   (size_t)k < r->mapcap && r->mapval[k]) {
		id = r->mapval[k] - 1;
	} else {
		/* "hhash:" / "fhash:" + the value */
		char *un = malloc(n + 3);

		if (!un)
			return -1;
		memcpy(un, map == MAP_HOST ? "hhash:" : "fhash:", 6);
		memcpy(un + 6, r->key + 3, n - 3);
		id = st_strtab_intern(map == MAP_FILE ? r->ftab : &r->tab, un,
				      n + 3, NULL);
		free(un);
		if (id < 0)
			return -1;
	}
	if (v->kind == ST_PFW_INT) {
		hc->valid = hc->is_int = true;
		hc->i = v->i;
		hc->id = (uint32_t)id;
	}
	return id;
}

/* Memory ran out while keeping the line's event: not a corrupt line but
 * an error of the read (st_pfw_next: 74), so nothing is counted. */
static int oom(st_pfw_reader *r)
{
	snprintf(r->why, sizeof(r->why), "out of memory");
	r->oom = true;
	return ST_PFW_BAD;
}

#define OOM(r) oom(r)
#define TS_MAX (INT64_C(1) << 53)

/* Why string field V (named FIELD) makes the line corrupt: not a string,
 * missing (unless OPTIONAL), or a string the reader cannot hold.  NULL
 * when it is a string, or absent and OPTIONAL. */
static const char *str_bad(const st_pfw_val *v, bool optional)
{
	switch (v->kind) {
	case ST_PFW_STRING:
		return NULL;
	case ST_PFW_ABSENT:
		return optional ? NULL : "missing '%s'";
	case ST_PFW_RANGE:
		return v->s ? "'%s' is not a string" :
		       "'%s' holds \\u0000 or a lone surrogate";
	default:
		return "'%s' is not a string";
	}
}

/* A metadata event ("ph":"M") of RAW: a hash's value (FH, HH, SH) kept
 * in R's maps, other names only counted.  ST_PFW_EOF (no event), or what
 * bad() and OOM() return. */
static int meta_event(st_pfw_reader *r, const st_pfw_raw *raw)
{
	const char *why;
	int map;

	for (map = 0; map < MAP_N; map++)
		if (KEY_IS(raw->name.s, raw->name.n, map_names[map]))
			break;
	if (map < MAP_N) {
		if ((why = str_bad(&raw->aname, false)))
			return bad(r, why, "args.name");
		if (raw->avalue.kind == ST_PFW_RANGE && !raw->avalue.s)
			return bad(r, str_bad(&raw->avalue, false),
				   "args.value");
		if (raw->avalue.kind != ST_PFW_INT &&
		    raw->avalue.kind != ST_PFW_STRING &&
		    !is_big(&raw->avalue))
			return bad(r, raw->avalue.kind ?
				   "'%s' is not a hash value" :
				   "missing '%s'", "args.value");
		if (map_set(r, map, &raw->avalue, &raw->aname) < 0)
			return OOM(r);
	}
	r->st.meta++;
	return ST_PFW_EOF;
}

/* The id of a host or file of an event: its NAME (interned through the
 * cache C), else the name its HASH stands for in map MAP (cache H), else
 * ST_PFW_NONE into *ID.  0, or -1 when memory runs out. */
static int where_id(st_pfw_reader *r, const st_pfw_val *name,
		    struct str_cache *c, const st_pfw_val *hash, int map,
		    struct hash_cache *h, uint32_t *id)
{
	int64_t k;

	*id = ST_PFW_NONE;
	if (name->kind == ST_PFW_STRING)
		k = intern_cached(map == MAP_FILE ? r->ftab : &r->tab, c,
				  name->s, name->n);
	else if (hash->kind == ST_PFW_INT || hash->kind == ST_PFW_STRING ||
		 is_big(hash))
		k = resolve(r, map, hash, h);
	else
		return 0;
	if (k < 0)
		return -1;
	*id = (uint32_t)k;
	return 0;
}

/* Raw fields -> an event, or the reason the line is corrupt. */
static int interpret(st_pfw_reader *r, const st_pfw_raw *raw, st_pfw_event *ev)
{
	const char *why;

	static const char *const need[] = { "pid", "tid", "ts", "dur" };
	const st_pfw_val *nv[] = { &raw->pid, &raw->tid, &raw->ts, &raw->dur };
	int64_t *out[] = { &ev->pid, &ev->tid, &ev->ts, &ev->dur };
	int64_t id;

	if ((why = str_bad(&raw->ph, false)))
		return bad(r, why, "ph");
	if ((why = str_bad(&raw->name, false)))
		return bad(r, why, "name");
	if (raw->ph.n != 1 || (raw->ph.s[0] != 'X' && raw->ph.s[0] != 'M')) {
		r->st.other++;
		return ST_PFW_EOF;
	}
	if (raw->ph.s[0] == 'M')
		return meta_event(r, raw);
	if ((why = str_bad(&raw->cat, false)))
		return bad(r, why, "cat");
	/* a host or file name the reader cannot hold is not skipped */
	if (raw->hostname.kind == ST_PFW_RANGE && !raw->hostname.s)
		return bad(r, str_bad(&raw->hostname, true), "args.hostname");
	if (raw->fname.kind == ST_PFW_RANGE && !raw->fname.s)
		return bad(r, str_bad(&raw->fname, true), "args.fname");
	if (raw->hhash.kind == ST_PFW_RANGE && !raw->hhash.s)
		return bad(r, str_bad(&raw->hhash, true), "args.hhash");
	if (raw->fhash.kind == ST_PFW_RANGE && !raw->fhash.s)
		return bad(r, str_bad(&raw->fhash, true), "args.fhash");
	for (size_t i = 0; i < 4; i++) {
		int rc = val_int(nv[i], out[i]);

		if (rc == 0)
			return bad(r, "missing '%s'", need[i]);
		if (rc == -2)
			return bad(r, "'%s' out of range", need[i]);
		if (rc < 0)
			return bad(r, "'%s' is not an integer", need[i]);
	}
	if (ev->dur < 0)
		return bad(r, "negative '%s'", "dur");
	/* microseconds within 2^53 (285 years): ts + dur and the sums of
	 * lengths cannot overflow */
	if (ev->ts > TS_MAX || ev->ts < -TS_MAX)
		return bad(r, "'%s' out of range", "ts");
	if (ev->dur > TS_MAX)
		return bad(r, "'%s' out of range", "dur");
	if ((id = intern_cached(&r->tab, r->c_name, raw->name.s, raw->name.n)) < 0)
		return OOM(r);
	ev->name = (uint32_t)id;
	if ((id = intern_cached(&r->tab, r->c_cat, raw->cat.s, raw->cat.n)) < 0)
		return OOM(r);
	ev->cat = (uint32_t)id;
	if (where_id(r, &raw->hostname, r->c_host, &raw->hhash, MAP_HOST,
		     &r->h_host, &ev->host) < 0 ||
	    where_id(r, &raw->fname, r->c_file, &raw->fhash, MAP_FILE,
		     &r->h_file, &ev->file) < 0)
		return OOM(r);
	if (ev->name >= r->kindcap) {
		size_t cap = r->kindcap ? r->kindcap : 256;
		int8_t *k;

		while (cap <= ev->name)
			cap *= 2;
		if (!(k = realloc(r->kind, cap)))
			return OOM(r);
		memset(k + r->kindcap, 0, cap - r->kindcap);
		r->kind = k;
		r->kindcap = cap;
	}
	if (!r->kind[ev->name])
		r->kind[ev->name] = (int8_t)(name_kind(raw->name.s,
						       raw->name.n) + 1);
	ev->bytes = bytes_by_kind(r->kind[ev->name] - 1, raw);
	r->st.events++;
	return ST_PFW_EVENT;
}

int st_pfw_feed(st_pfw_reader *r, const char *line, size_t len,
		st_pfw_event *ev)
{
	st_pfw_raw raw;
	int rc;

	if (r->mem)
		r->lineno++;
	/* a byte order mark before the first line */
	if (r->lineno == 1 && len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
		line += 3;
		len -= 3;
	}
	if (!st_pfw_line_trim(&line, &len))
		return ST_PFW_EOF;
	if (st_pfw_scan_fast(line, len, &raw)) {
		r->st.fast++;
		return interpret(r, &raw, ev);
	}
	if (st_pfw_scan_json(line, len, &raw, r->why, sizeof(r->why)) < 0) {
		/* valid JSON that jansson cannot hold (64-bit hashes, 1e400,
		 * \u0000): what the reader uses decides */
		int w = st_pfw_scan_wide(line, len, &raw);

		if (w == -2)
			return OOM(r);
		if (w < 0) {
			r->bad_lineno = r->lineno;
			r->st.bad++;
			return ST_PFW_BAD;
		}
	}
	rc = interpret(r, &raw, ev);
	st_pfw_raw_release(&raw);
	return rc;
}

/* Read more of the file behind the unread bytes.  0, or -1 at the end
 * (r->eof set; r->zerr says whether the stream ended badly). */
static int fill(st_pfw_reader *r)
{
	ssize_t n;
	const char *what;

	if (r->eof)
		return -1;
	if (r->beg) {
		memmove(r->buf, r->buf + r->beg, r->end - r->beg);
		r->end -= r->beg;
		r->beg = 0;
	}
	if (r->end == r->cap) {
		size_t cap = r->cap * 2;
		char *b;

		if (cap > ST_PFW_MAX_LINE + READ_CHUNK)
			return 1;   /* the caller drops the long line */
		if (!(b = realloc(r->buf, cap))) {
			r->eof = true;
			r->zerr = ST_EXIT_IOERR;
			snprintf(r->zmsg, sizeof(r->zmsg), "out of memory");
			return -1;
		}
		r->buf = b;
		r->cap = cap;
	}
	n = st_zin_read(r->zin, r->buf + r->end, r->cap - r->end);
	if (n > 0) {
		r->end += (size_t)n;
		return 0;
	}
	r->eof = true;
	if (n < 0) {
		r->zerr = st_zin_error(r->zin, &what) == 65 ? ST_EXIT_DATAERR
							      : ST_EXIT_IOERR;
		if (r->zerr == ST_EXIT_DATAERR)
			snprintf(r->zmsg, sizeof(r->zmsg), "damaged gzip data "
				 "(%s)", what);
		else
			snprintf(r->zmsg, sizeof(r->zmsg), "%s", what);
	}
	return -1;
}

int st_pfw_next(st_pfw_reader *r, st_pfw_event *ev, st_error *err)
{
	for (;;) {
		char *line = r->buf + r->beg, *nl;
		size_t len;
		int rc;

		nl = memchr(line, '\n', r->end - r->beg);
		if (!nl) {
			rc = fill(r);
			if (rc == 0)
				continue;
			if (rc > 0) {
				/* a line longer than ST_PFW_MAX_LINE: drop
				 * what we have, the rest up to its newline
				 * later */
				bool cont = r->skip_long;

				r->beg = r->end = 0;
				r->skip_long = true;
				if (cont)
					continue;
				r->lineno++;
				r->st.lines++;
				return bad(r, "line longer than %s", "16 MiB");
			}
			if (r->beg == r->end || r->zerr) {
				/* a line cut by a damaged stream is not
				 * counted as corrupt: the error says it */
				if (r->zerr) {
					st_error_set(err, r->zerr, "%s: %s after "
						     "line %llu", r->path,
						     r->zmsg, (unsigned long long)
						     r->lineno);
					return ST_PFW_ERROR;
				}
				return ST_PFW_EOF;
			}
			/* the last line, no newline (fill moved it) */
			line = r->buf + r->beg;
			nl = r->buf + r->end;
		}
		len = (size_t)(nl - line);
		r->beg = nl < r->buf + r->end ? (size_t)(nl - r->buf) + 1
					      : r->end;
		if (r->skip_long) {
			r->skip_long = false;
			continue;
		}
		r->lineno++;
		r->st.lines++;
		if (r->feed) {
			rc = r->feed(r->feed_ctx, r, line, len, ev);
			if (rc == ST_PFW_EVENT)
				r->st.events++;
			else if (rc == ST_PFW_BAD)
				r->bad_lineno = r->lineno;
		} else {
			rc = st_pfw_feed(r, line, len, ev);
		}
		if (r->oom) {
			r->oom = false;
			st_error_set(err, ST_EXIT_IOERR, "%s: line %llu: out of "
				     "memory", r->path,
				     (unsigned long long)r->lineno);
			return ST_PFW_ERROR;
		}
		if (rc != ST_PFW_EOF)
			return rc;
	}
}

st_pfw_reader *st_pfw_open_with(const char *path, st_pfw_feed_fn feed,
				void *ctx,
				void (*done)(void *ctx, const st_pfw_reader *r),
				st_error *err)
{
	st_pfw_reader *r = st_pfw_open(path, err);

	if (!r) {
		if (done)
			done(ctx, NULL);
		return NULL;
	}
	r->feed = feed;
	r->feed_ctx = ctx;
	r->feed_done = done;
	return r;
}

int64_t st_pfw_intern(st_pfw_reader *r, const char *s, size_t len)
{
	return st_strtab_intern(&r->tab, s, len, NULL);
}

int st_pfw_mark_bad(st_pfw_reader *r, const char *why)
{
	snprintf(r->why, sizeof(r->why), "%s", why);
	r->st.bad++;
	return ST_PFW_BAD;
}

uint64_t st_pfw_lineno(const st_pfw_reader *r)
{
	return r->lineno;
}

const char *st_pfw_path(const st_pfw_reader *r)
{
	return r->path ? r->path : "";
}

st_pfw_feed_fn st_pfw_feed_of(const st_pfw_reader *r, void **ctx)
{
	if (ctx)
		*ctx = r->feed_ctx;
	return r->feed;
}
