/* clock.c - the clock exchange: wire format and arithmetic. */
#include <string.h>
#include <time.h>

#include "streamtime/clock.h"

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void header(unsigned char *p, char kind)
{
	memcpy(p, "STCK", 4);
	p[4] = ST_CLOCK_VERSION;
	p[5] = (unsigned char)kind;
	p[6] = p[7] = 0;
}

static bool header_ok(const unsigned char *p, char kind)
{
	return memcmp(p, "STCK", 4) == 0 && p[4] == ST_CLOCK_VERSION &&
	       p[5] == (unsigned char)kind && p[6] == 0 && p[7] == 0;
}

void st_clock_encode_request(uint64_t id, unsigned char out[ST_CLOCK_REQUEST_LEN])
{
	header(out, 'Q');
	put_u64(out + 8, id);
}

void st_clock_encode_reply(const st_clock_reply *r,
			   unsigned char out[ST_CLOCK_REPLY_LEN])
{
	header(out, 'R');
	put_u64(out + 8, r->id);
	put_u64(out + 16, (uint64_t)r->t2);
	put_u64(out + 24, (uint64_t)r->t3);
	out[32] = (unsigned char)(r->resolution >> 24);
	out[33] = (unsigned char)(r->resolution >> 16);
	out[34] = (unsigned char)(r->resolution >> 8);
	out[35] = (unsigned char)r->resolution;
	memset(out + 36, 0, 4);
}

bool st_clock_parse_request(const unsigned char *buf, size_t len, uint64_t *id)
{
	if (len != ST_CLOCK_REQUEST_LEN || !header_ok(buf, 'Q'))
		return false;
	*id = get_u64(buf + 8);
	return true;
}

bool st_clock_decode_reply(const unsigned char *buf, size_t len,
			   st_clock_reply *r)
{
	if (len != ST_CLOCK_REPLY_LEN || !header_ok(buf, 'R') ||
	    buf[36] || buf[37] || buf[38] || buf[39])
		return false;
	r->id = get_u64(buf + 8);
	r->t2 = (st_instant)get_u64(buf + 16);
	r->t3 = (st_instant)get_u64(buf + 24);
	r->resolution = (uint32_t)buf[32] << 24 | (uint32_t)buf[33] << 16 |
			(uint32_t)buf[34] << 8 | buf[35];
	return true;
}

bool st_clock_parse_reply(const unsigned char *buf, size_t len,
			  st_clock_reply *r)
{
	if (!st_clock_decode_reply(buf, len, r))
		return false;
	/* a reply sent before it was received, or times no clock can hold */
	if (r->t3 < r->t2 || r->t2 <= 0 || r->resolution > 1000000000u)
		return false;
	return true;
}

int st_clock_parse_date(const char *line, size_t len, st_instant *t)
{
	int64_t v = 0;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len == 0 || len > 19)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (line[i] < '0' || line[i] > '9' ||
		    __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, line[i] - '0', &v))
			return -1;
	}
	if (v <= 0)
		return -1;
	*t = v;
	return 0;
}

size_t st_clock_sync(const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		size_t n = len - i < 4 ? len - i : 4;

		if (memcmp(buf + i, "STCK", n) == 0)
			return i;
	}
	return len;
}

st_instant st_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (st_instant)ts.tv_sec * ST_NS_PER_SEC + ts.tv_nsec;
}

uint32_t st_clock_resolution(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_REALTIME, &ts) != 0 || ts.tv_sec > 0)
		return 1000000000u;
	return ts.tv_nsec > 0 ? (uint32_t)ts.tv_nsec : 1;
}

const char *st_clock_sample_check(const st_clock_sample *s)
{
	int64_t out, back, sum, round_trip, held, delay, slack;

	if (s->t2 <= 0 || s->t3 <= 0)
		return "a remote time before 1970";
	if (s->t3 < s->t2)
		return "a reply sent before the request was received (t3 < t2)";
	if (s->remote_res > 1000000000u || s->local_res > 1000000000u)
		return "a clock resolution over 1 s";
	if (__builtin_sub_overflow(s->t2, s->t1, &out) ||
	    __builtin_sub_overflow(s->t3, s->t4, &back) ||
	    __builtin_add_overflow(out, back, &sum) ||
	    __builtin_sub_overflow(s->t4, s->t1, &round_trip) ||
	    __builtin_sub_overflow(s->t3, s->t2, &held) ||
	    __builtin_sub_overflow(round_trip, held, &delay))
		return "times whose differences overflow";
	if (out > ST_CLOCK_MAX_OFFSET || out < -ST_CLOCK_MAX_OFFSET ||
	    back > ST_CLOCK_MAX_OFFSET || back < -ST_CLOCK_MAX_OFFSET)
		return "a remote time more than ten years from ours";
	/* a coarse clock may make the remote hold look longer than the round
	 * trip by its resolution; more than that, a clock stepped or lied */
	slack = (int64_t)s->remote_res + (int64_t)s->local_res;
	if (delay < -slack)
		return "a negative delay (the remote clock counted more time "
		       "than the round trip took: a clock stepped)";
	return NULL;
}

/* (A + B) / 2 rounded half away from zero, without overflow for the
 * magnitudes of clock offsets st_clock_sample_check accepts. */
static int64_t half_sum(int64_t a, int64_t b)
{
	int64_t s = a + b;

	return s >= 0 ? (s + 1) / 2 : -((-s + 1) / 2);
}

st_duration st_clock_sample_offset(const st_clock_sample *s)
{
	return half_sum(s->t2 - s->t1, s->t3 - s->t4);
}

st_duration st_clock_sample_delay(const st_clock_sample *s)
{
	return (s->t4 - s->t1) - (s->t3 - s->t2);
}

st_duration st_clock_sample_bound(const st_clock_sample *s)
{
	st_duration d = st_clock_sample_delay(s);

	if (d < 0)
		d = 0;
	/* the half of an odd delay rounds up; the offset's own rounding adds
	 * at most half a ns more, covered by the resolutions (>= 1 ns each) */
	return (d + 1) / 2 + s->remote_res + s->local_res;
}

size_t st_clock_best(const st_clock_sample *v, size_t n)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		st_duration d = st_clock_sample_delay(&v[i]);

		if (d >= 0 && (best == n || d < st_clock_sample_delay(&v[best])))
			best = i;
	}
	return best;
}
