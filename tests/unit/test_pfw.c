/* Unit tests: the pfw reader.  The fast scanner against jansson on tricky
 * lines, the interpretation of both generations (hash maps, collisions,
 * missing fields), the bytes rule, and files: gzip, plain, cut short, a
 * line longer than the limit. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "streamtime/atomic.h"
#include "streamtime/pfw.h"
#include "streamtime/strtab.h"
#include "st_config.h"

#define TMPDIR_NAME "pfw"
#include "tmpdir.h"

/* What each scanner makes of LINE: the fast one must either leave it to
 * jansson or agree with jansson field by field. */
struct scan_case {
	const char *line;
	int fast;        /* 1: the fast scanner takes it */
	int json;        /* 0: a JSON object, -1: jansson rejects it */
};

static const struct scan_case scan_cases[] = {
	/* the two generations, as written */
	{ "{\"id\":\"0\",\"name\":\"__lxstat\",\"cat\":\"POSIX\",\"pid\":\"1338896\","
	  "\"tid\":\"2677792\",\"ts\":\"1698080323775554\",\"dur\":\"141\","
	  "\"ph\":\"X\",\"args\":{\"hostname\":\"corona237\",\"fname\":"
	  "\"/p/lustre1/haridev/dftracer_data\"}}", 1, 0 },
	{ "{\"id\":8,\"name\":\"fread\",\"cat\":\"STDIO\",\"pid\":3537780,"
	  "\"tid\":3537780,\"ts\":1727387307985825,\"dur\":10,\"ph\":\"X\","
	  "\"args\":{\"hhash\":5692,\"p_idx\":-1,\"level\":1,\"ret\":3107,"
	  "\"fhash\":33084,\"count\":8192,\"size\":1}}", 1, 0 },
	{ "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,"
	  "\"ph\":\"M\",\"args\":{\"name\":\"corona173\",\"value\":5692}}", 1, 0 },
	/* white space everywhere JSON allows it */
	{ " { \"name\" : \"a\" ,\t\"args\" : { \"ret\" : 5 } , \"x\" : [ 1 , "
	  "{ } , [ ] , null , true , false ] } \r", 1, 0 },
	/* escapes, unicode, bytes above 0x7f: jansson's */
	{ "{\"name\":\"a\\\"b\",\"cat\":\"POSIX\"}", 0, 0 },
	{ "{\"name\":\"\\u00e9\",\"cat\":\"\\/p\"}", 0, 0 },
	{ "{\"name\":\"\xc3\xa9\",\"cat\":\"POSIX\"}", 0, 0 },
	{ "{\"name\":\"\xc3\",\"cat\":\"POSIX\"}", 0, -1 },       /* bad UTF-8 */
	{ "{\"name\":\"\\ud800\",\"cat\":\"POSIX\"}", 0, -1 },    /* lone surrogate */
	{ "{\"name\":\"a\\u0000b\"}", 0, -1 },                    /* NUL */
	{ "{\"x\":\"\\q\"}", 0, -1 },                             /* bad escape */
	/* control characters: raw in a string, and outside */
	{ "{\"name\":\"a\x01" "b\"}", 0, -1 },
	{ "{\"name\":\"a\tb\"}", 0, -1 },
	{ "{\"name\":\"ab\"}\x01", 0, -1 },
	{ "{\"name\":\"ab\"}\v", 0, -1 },
	/* numbers */
	{ "{\"ts\":-0,\"dur\":0}", 1, 0 },
	{ "{\"ts\":123456789012345678}", 1, 0 },                  /* 18 digits */
	{ "{\"ts\":1234567890123456789}", 0, 0 },                 /* 19: jansson */
	{ "{\"ts\":99999999999999999999}", 0, -1 },               /* too big */
	{ "{\"ts\":1.5,\"dur\":2e3}", 0, 0 },                     /* reals */
	{ "{\"ts\":1e999}", 0, -1 },                              /* overflow */
	{ "{\"ts\":01}", 0, -1 },
	{ "{\"ts\":-}", 0, -1 },
	{ "{\"ts\":+1}", 0, -1 },
	{ "{\"ts\":.5}", 0, -1 },
	{ "{\"ts\":1.}", 0, -1 },
	{ "{\"ts\":0x10}", 0, -1 },
	{ "{\"ts\":NaN}", 0, -1 },
	/* numbers as strings, kept as strings by both */
	{ "{\"pid\":\"12\",\"tid\":\"-3\",\"ts\":\"x\",\"dur\":\"\"}", 1, 0 },
	/* extra and nested fields, args of another shape */
	{ "{\"args\":{\"a\":{\"b\":{\"c\":[[[{}]]]}},\"ret\":\"77\"},\"z\":1}", 1, 0 },
	{ "{\"args\":[1,2],\"name\":\"n\"}", 1, 0 },
	{ "{\"args\":null}", 1, 0 },
	{ "{\"name\":{\"x\":1},\"cat\":[],\"ph\":true,\"pid\":null}", 1, 0 },
	{ "{\"args\":{\"hostname\":7,\"fname\":false,\"hhash\":\"abc\"}}", 1, 0 },
	/* duplicate keys: the last one wins */
	{ "{\"name\":\"a\",\"name\":\"b\",\"ts\":1,\"ts\":\"2\"}", 1, 0 },
	{ "{\"args\":{\"ret\":1,\"ret\":2}}", 1, 0 },
	{ "{\"args\":{\"ret\":1},\"args\":{\"size\":2}}", 0, 0 },
	/* deep nesting: jansson's */
	{ "{\"x\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}", 0, 0 },
	/* not an object, broken, trailing bytes */
	{ "[1,2]", 0, -1 },                                      /* not an object */
	{ "\"str\"", 0, -1 },
	{ "{\"name\":\"a\"", 0, -1 },
	{ "{\"name\":\"a\",}", 0, -1 },
	{ "{\"name\" \"a\"}", 0, -1 },
	{ "{\"name\":\"a\"} {}", 0, -1 },
	{ "{\"name\":tru}", 0, -1 },
	{ "{\"name\":truex}", 0, -1 },
	{ "{name:\"a\"}", 0, -1 },
	{ "{}", 1, 0 },
	{ "", 0, -1 },
};

static void test_scan_agree(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(scan_cases) / sizeof(scan_cases[0]); i++) {
		const struct scan_case *c = &scan_cases[i];
		size_t len = strlen(c->line);
		st_pfw_raw a, b;
		int fast = st_pfw_scan_fast(c->line, len, &a);
		int json = st_pfw_scan_json(c->line, len, &b, NULL, 0);

		if (fast != c->fast || json != c->json) {
			print_error("case %zu: %s: fast %d json %d\n", i, c->line,
				    fast, json);
			fail();
		}
		if (fast)
			assert_true(st_pfw_raw_equal(&a, &b));
		/* the wide scanner reads what jansson reads, the same */
		{
			st_pfw_raw w;
			int wide = st_pfw_scan_wide(c->line, len, &w);

			if (json == 0) {
				assert_int_equal(wide, 0);
				assert_true(st_pfw_raw_equal(&w, &b));
			}
			/* and beyond jansson only the valid JSON it refuses:
			 * a lone surrogate, NUL, too big, overflow */
			if (json < 0 && wide == 0 &&
			    !strstr(c->line, "\\ud800") &&
			    !strstr(c->line, "\\u0000") &&
			    !strstr(c->line, "99999999999999999999") &&
			    !strstr(c->line, "1e999")) {
				print_error("case %zu: %s: wide took it\n", i,
					    c->line);
				fail();
			}
			if (wide == 0)
				st_pfw_raw_release(&w);
		}
		if (json == 0)
			st_pfw_raw_release(&b);
	}
}

/* Integers of 1 to 20 digits, signed or not, ending at every distance
 * from the line's end (the scanner reads 8 digits at a time where 8
 * bytes remain, one at a time nearer the end): the fast scanner takes
 * those of at most 18 digits and agrees with jansson on each. */
static void test_scan_ints(void **state)
{
	const char *digits = "98765432109876543210";
	int taken = 0;

	(void)state;
	for (int nd = 1; nd <= 20; nd++) {
		for (int neg = 0; neg < 2; neg++) {
			for (int pad = 0; pad < 12; pad++) {
				char line[96];
				st_pfw_raw a, b;
				int n, fast, json;

				n = snprintf(line, sizeof(line),
					     "{\"dur\":1,\"ts\":%s%.*s}%*s",
					     neg ? "-" : "", nd, digits, pad, "");
				fast = st_pfw_scan_fast(line, (size_t)n, &a);
				json = st_pfw_scan_json(line, (size_t)n, &b,
							NULL, 0);
				assert_int_equal(fast, nd <= 18);
				if (nd <= 18)   /* 19 here: above INT64_MAX */
					assert_int_equal(json, 0);
				if (fast) {
					assert_true(st_pfw_raw_equal(&a, &b));
					assert_int_equal(a.ts.kind, ST_PFW_INT);
					taken++;
				}
				if (json == 0)
					st_pfw_raw_release(&b);
			}
		}
	}
	assert_int_equal(taken, 18 * 2 * 12);
	/* the digits run into what must not follow them */
	{
		static const char *const no[] = {
			"{\"ts\":123456789.5}", "{\"ts\":12345678e3}",
			"{\"ts\":1234567890123456E1}", "{\"ts\":012345678}",
			"{\"ts\":-012345678}", "{\"ts\":12345678x}",
		};

		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
			st_pfw_raw a;

			assert_int_equal(st_pfw_scan_fast(no[i], strlen(no[i]),
							  &a), 0);
		}
	}
}

/* Lines one after another whose keys differ from the line before's at
 * the same places (the scanner recognises a key by the bytes of the
 * line before): each agrees with jansson. */
static void test_scan_memo(void **state)
{
	static const char *const lines[] = {
		"{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,"
		"\"tid\":2,\"ts\":3,\"dur\":4,\"ph\":\"X\",\"args\":{"
		"\"hhash\":5,\"fhash\":6,\"ret\":7}}",
		"{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,"
		"\"tid\":2,\"ts\":3,\"dur\":4,\"ph\":\"X\",\"args\":{"
		"\"hhash\":5,\"fhash\":6,\"ret\":7}}",
		/* "name" where "name" was: then nbme, name2, nam */
		"{\"id\":1,\"nbme\":\"read\",\"cat\":\"POSIX\",\"pid\":1}",
		"{\"id\":1,\"name2\":\"read\",\"cat\":\"POSIX\",\"pid\":1}",
		"{\"id\":1,\"nam\":\"read\",\"cat\":\"POSIX\",\"pid\":1}",
		"{\"id\":1,\"name\" : \"read\",\"cat\":\"POSIX\",\"pid\":1}",
		"{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1}",
		"{\"id\":1,\"name\" :\"read\",\"cat\":\"POSIX\",\"pid\":1}",
		/* keys swapped, args where pid was, args' keys swapped */
		"{\"id\":1,\"cat\":\"POSIX\",\"name\":\"read\",\"args\":{"
		"\"ret\":7,\"hhash\":5,\"fhash\":6},\"pid\":1}",
		"{\"args\":{\"fhash\":6,\"ret\":7,\"hhash\":5},\"id\":1,"
		"\"cat\":\"POSIX\",\"name\":\"read\",\"pid\":1}",
		/* a key longer than what is kept, twice */
		"{\"a_key_longer_than_sixteen\":1,\"name\":\"x\"}",
		"{\"a_key_longer_than_sixteen\":2,\"name\":\"y\"}",
		/* "args" where a field was: an args object is read as args */
		"{\"id\":1,\"args\":{\"ret\":1},\"name\":\"z\"}",
		/* a key that escapes: jansson's */
		"{\"id\":1,\"n\\u0061me\":\"read\"}",
		"{\"id\":1,\"name\":\"read\"}",
		/* the same bytes at the end of the line: too short to match */
		"{\"id\":1}",
		"{\"id\":2}",
		/* a key, then a key of the same bytes and no colon */
		"{\"id\":1,\"name\":\"a\"}",
		"{\"id\":1,\"name\"}",
	};

	(void)state;
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
			size_t len = strlen(lines[i]);
			st_pfw_raw a, b;
			int fast = st_pfw_scan_fast(lines[i], len, &a);
			int json = st_pfw_scan_json(lines[i], len, &b, NULL, 0);

			if (json < 0) {
				assert_int_equal(fast, 0);
				continue;
			}
			if (fast) {
				if (!st_pfw_raw_equal(&a, &b)) {
					print_error("line %zu: %s\n", i,
						    lines[i]);
					fail();
				}
			} else {
				/* only the escaped key is jansson's */
				assert_non_null(strstr(lines[i], "\\u"));
			}
			st_pfw_raw_release(&b);
		}
	}
}

static void test_scan_fields(void **state)
{
	const char *l = "{\"name\":\"a\",\"name\":\"write\",\"cat\":\"POSIX\","
			"\"pid\":\"12\",\"tid\":7,\"ts\":-0,\"dur\":\"9\",\"ph\":"
			"\"X\",\"args\":{\"fname\":\"/x\",\"ret\":\"4096\","
			"\"hhash\":5692,\"deep\":{\"name\":\"no\"}}}";
	st_pfw_raw r;

	(void)state;
	assert_int_equal(st_pfw_scan_fast(l, strlen(l), &r), 1);
	assert_int_equal(r.name.kind, ST_PFW_STRING);
	assert_int_equal(r.name.n, 5);
	assert_memory_equal(r.name.s, "write", 5);
	assert_int_equal(r.pid.kind, ST_PFW_STRING);
	assert_int_equal(r.tid.kind, ST_PFW_INT);
	assert_int_equal(r.tid.i, 7);
	assert_int_equal(r.ts.i, 0);
	assert_true(r.args);
	assert_int_equal(r.hhash.i, 5692);
	assert_int_equal(r.ret.kind, ST_PFW_STRING);
	/* a nested "name" is not args.name */
	assert_int_equal(r.aname.kind, ST_PFW_ABSENT);
	assert_int_equal(r.image_size.kind, ST_PFW_ABSENT);
}

static void test_line_trim(void **state)
{
	const char *l;
	size_t n;

	(void)state;
	l = " [ ";
	n = strlen(l);
	/* "[" alone, with white space around, is skipped */
	assert_int_equal(st_pfw_line_trim(&l, &n), 0);
	l = "]\r";
	n = strlen(l);
	assert_int_equal(st_pfw_line_trim(&l, &n), 0);
	l = " \t\r";
	n = strlen(l);
	assert_int_equal(st_pfw_line_trim(&l, &n), 0);
	l = "  {\"a\":1},\r";
	n = strlen(l);
	assert_int_equal(st_pfw_line_trim(&l, &n), 1);
	assert_int_equal(n, 7);
	assert_memory_equal(l, "{\"a\":1}", 7);
}

/* Feed LINE to R; its result. */
static int feed(st_pfw_reader *r, const char *line, st_pfw_event *ev)
{
	return st_pfw_feed(r, line, strlen(line), ev);
}

static const char *str(st_pfw_reader *r, uint32_t id)
{
	return id == ST_PFW_NONE ? NULL : st_pfw_str(r, id, NULL);
}

static void test_old_generation(void **state)
{
	st_pfw_reader *r = st_pfw_reader_mem();
	st_pfw_event ev;

	(void)state;
	assert_int_equal(feed(r, "[", &ev), ST_PFW_EOF);
	assert_int_equal(feed(r, "{\"id\":\"5\",\"name\":\"write\",\"cat\":"
			 "\"POSIX\",\"pid\":\"1338896\",\"tid\":\"2677792\","
			 "\"ts\":\"1698080323825066\",\"dur\":\"106189\","
			 "\"ph\":\"X\",\"args\":{\"hostname\":\"corona237\","
			 "\"ret\":\"3276800\",\"count\":\"3276800\",\"fname\":"
			 "\"/p/f.bat\",\"fd\":18}}", &ev), ST_PFW_EVENT);
	assert_string_equal(str(r, ev.name), "write");
	assert_string_equal(str(r, ev.cat), "POSIX");
	assert_string_equal(str(r, ev.host), "corona237");
	assert_string_equal(str(r, ev.file), "/p/f.bat");
	assert_int_equal(ev.pid, 1338896);
	assert_int_equal(ev.tid, 2677792);
	assert_int_equal(ev.ts, 1698080323825066);
	assert_int_equal(ev.dur, 106189);
	assert_int_equal(ev.bytes, 3276800);
	/* no args at all: no host, no file, no bytes */
	assert_int_equal(feed(r, "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,"
			 "\"tid\":1,\"ts\":1,\"dur\":0,\"ph\":\"X\"}", &ev),
			 ST_PFW_EVENT);
	assert_int_equal(ev.host, ST_PFW_NONE);
	assert_int_equal(ev.file, ST_PFW_NONE);
	assert_int_equal(ev.bytes, -1);
	/* the same through jansson (an escape) */
	assert_int_equal(feed(r, "{\"name\":\"wr\\u0069te\",\"cat\":\"POSIX\","
			 "\"pid\":\"1\",\"tid\":\"1\",\"ts\":\"1\",\"dur\":\"1\","
			 "\"ph\":\"X\",\"args\":{\"ret\":\"10\"}}", &ev),
			 ST_PFW_EVENT);
	assert_string_equal(str(r, ev.name), "write");
	assert_int_equal(ev.bytes, 10);
	assert_int_equal(feed(r, "]", &ev), ST_PFW_EOF);
	assert_int_equal(st_pfw_stats_get(r)->events, 3);
	assert_int_equal(st_pfw_stats_get(r)->fast, 2);
	st_pfw_close(r);
}

/* The maps' integer keys (a table of their own, not text): a hash given
 * as a string of its canonical digits is the number's key, other digits
 * ("0123", "-0", beyond 64 bits) keys of their own as before; thousands
 * of keys, remapped, grown through; st_pfw_lookup finds both kinds. */
static void test_map_int_keys(void **state)
{
	st_pfw_reader *r = st_pfw_reader_mem();
	st_pfw_event ev;
	char line[512], want[64];
	static const struct {
		const char *value;      /* the FH's, as JSON */
		const char *fhash;      /* an event's, as JSON */
		const char *file;       /* what the event names */
	} keys[] = {
		{ "\"123\"", "123", "/s123" },
		{ "\"0123\"", "\"0123\"", "/s0123" },
		{ "\"0124\"", "124", "fhash:124" },
		{ "\"-0\"", "0", "fhash:0" },
		{ "-9223372036854775808", "\"-9223372036854775808\"", "/min" },
		{ "9223372036854775807", "9223372036854775807", "/max" },
		{ "18446744073709551616", "\"18446744073709551616\"", "/big" },
		{ "\"9223372036854775808\"", "9223372036854775808", "/str-big" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		if (strncmp(keys[i].file, "fhash:", 6) == 0)
			continue;
		snprintf(line, sizeof(line), "{\"name\":\"FH\",\"ph\":\"M\","
			 "\"args\":{\"name\":\"%s\",\"value\":%s}}",
			 keys[i].file, keys[i].value);
		assert_int_equal(feed(r, line, &ev), ST_PFW_EOF);
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		snprintf(line, sizeof(line), "{\"name\":\"read\",\"cat\":\"P\","
			 "\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":1,\"ph\":\"X\","
			 "\"args\":{\"fhash\":%s}}", i, keys[i].fhash);
		assert_int_equal(feed(r, line, &ev), ST_PFW_EVENT);
		print_message("%s -> %s\n", keys[i].fhash, str(r, ev.file));
		assert_string_equal(str(r, ev.file), keys[i].file);
	}
	/* 5000 keys over the 0124 one, each remapped once */
	for (int round = 0; round < 2; round++)
		for (int k = 0; k < 5000; k++) {
			snprintf(line, sizeof(line), "{\"name\":\"FH\",\"ph\":"
				 "\"M\",\"args\":{\"name\":\"/r%d/f%d\","
				 "\"value\":%d}}", round, k, 1000 * k - 77);
			assert_int_equal(feed(r, line, &ev), ST_PFW_EOF);
		}
	for (int k = 0; k < 5000; k++) {
		int64_t id;

		snprintf(line, sizeof(line), "%d", 1000 * k - 77);
		snprintf(want, sizeof(want), "/r1/f%d", k);
		id = st_pfw_lookup(r, "FH", line, strlen(line));
		assert_true(id >= 0);
		assert_string_equal(str(r, (uint32_t)id), want);
		assert_int_equal(st_pfw_lookup(r, "HH", line, strlen(line)), -1);
	}
	assert_string_equal(str(r, (uint32_t)st_pfw_lookup(r, "FH", "0123", 4)),
			    "/s0123");
	assert_string_equal(str(r, (uint32_t)st_pfw_lookup(r, "FH", "123", 3)),
			    "/s123");
	assert_int_equal(st_pfw_lookup(r, "FH", "124", 3), -1);
	assert_string_equal(str(r, (uint32_t)st_pfw_lookup(
			    r, "FH", "18446744073709551616", 20)), "/big");
	st_pfw_close(r);
}

/* A reader given a file table puts its files' names there, and only
 * them: an event's file is an id of that table (inline, through FH, or
 * "fhash:"), names and hosts stay the reader's; a reader of lines fed
 * in memory keeps its own. */
static void test_use_file_table(void **state)
{
	char *p = st_path_join(dir, "ftab.pfw");
	FILE *f = fopen(p, "w");
	st_strtab pool;
	st_pfw_reader *r;
	st_pfw_event ev;
	st_error err;
	size_t len;

	(void)state;
	assert_non_null(f);
	fputs("{\"name\":\"FH\",\"ph\":\"M\",\"args\":{\"name\":\"/a\","
	      "\"value\":7}}\n"
	      "{\"name\":\"read\",\"cat\":\"P\",\"pid\":1,\"tid\":1,\"ts\":1,"
	      "\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":7}}\n"
	      "{\"name\":\"read\",\"cat\":\"P\",\"pid\":1,\"tid\":1,\"ts\":2,"
	      "\"dur\":1,\"ph\":\"X\",\"args\":{\"fname\":\"/b\","
	      "\"hostname\":\"h\"}}\n"
	      "{\"name\":\"read\",\"cat\":\"P\",\"pid\":1,\"tid\":1,\"ts\":3,"
	      "\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":8}}\n", f);
	fclose(f);
	st_strtab_init(&pool);
	assert_int_equal(st_strtab_intern(&pool, "/b", 2, NULL), 0);
	assert_non_null(r = st_pfw_open(p, &err));
	assert_true(st_pfw_use_file_table(r, &pool));
	assert_int_equal(st_pfw_next(r, &ev, &err), ST_PFW_EVENT);
	assert_int_equal(ev.file, 1);
	assert_string_equal(st_pfw_file_str(r, ev.file, &len), "/a");
	assert_int_equal(st_pfw_next(r, &ev, &err), ST_PFW_EVENT);
	assert_int_equal(ev.file, 0);
	assert_string_equal(st_pfw_file_str(r, ev.file, NULL), "/b");
	assert_string_equal(st_pfw_str(r, ev.host, NULL), "h");
	assert_string_equal(st_pfw_str(r, ev.name, NULL), "read");
	assert_int_equal(st_pfw_next(r, &ev, &err), ST_PFW_EVENT);
	assert_string_equal(st_pfw_file_str(r, ev.file, NULL), "fhash:8");
	assert_int_equal(st_pfw_lookup(r, "FH", "7", 1), 1);
	assert_int_equal(st_pfw_next(r, &ev, &err), ST_PFW_EOF);
	assert_false(st_pfw_use_file_table(r, &pool));
	st_pfw_close(r);
	assert_int_equal(pool.n, 3);
	assert_string_equal(st_strtab_str(&pool, 1, NULL), "/a");
	r = st_pfw_reader_mem();
	assert_false(st_pfw_use_file_table(r, &pool));
	st_pfw_close(r);
	st_strtab_release(&pool);
	free(p);
}

static void test_new_generation(void **state)
{
	st_pfw_reader *r = st_pfw_reader_mem();
	st_pfw_event ev;
	const char *ev_line = "{\"id\":7,\"name\":\"open\",\"cat\":\"POSIX\",\"pid\":"
			      "5,\"tid\":6,\"ts\":100,\"dur\":3,\"ph\":\"X\","
			      "\"args\":{\"hhash\":5692,\"fhash\":57110}}";

	(void)state;
	/* used before any mapping: named by the hash */
	assert_int_equal(feed(r, ev_line, &ev), ST_PFW_EVENT);
	assert_string_equal(str(r, ev.host), "hhash:5692");
	assert_string_equal(str(r, ev.file), "fhash:57110");
	assert_int_equal(feed(r, "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\","
			 "\"pid\":5,\"tid\":5,\"ph\":\"M\",\"args\":{\"name\":"
			 "\"corona173\",\"value\":5692}}", &ev), ST_PFW_EOF);
	assert_int_equal(feed(r, "{\"name\":\"FH\",\"ph\":\"M\",\"args\":{"
			 "\"name\":\"/lib/a.so\",\"value\":57110}}", &ev),
			 ST_PFW_EOF);
	assert_int_equal(feed(r, ev_line, &ev), ST_PFW_EVENT);
	assert_string_equal(str(r, ev.host), "corona173");
	assert_string_equal(str(r, ev.file), "/lib/a.so");
	/* DFTracer's hashes collide: a new FH with the same value names the
	 * file of the events after it */
	assert_int_equal(feed(r, "{\"name\":\"FH\",\"ph\":\"M\",\"args\":{"
			 "\"name\":\"/proc/1/stat\",\"value\":57110}}", &ev),
			 ST_PFW_EOF);
	assert_int_equal(feed(r, ev_line, &ev), ST_PFW_EVENT);
	assert_string_equal(str(r, ev.file), "/proc/1/stat");
	/* hashes as strings map to the same key as the number */
	assert_int_equal(feed(r, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":5,"
			 "\"tid\":6,\"ts\":100,\"dur\":3,\"ph\":\"X\",\"args\":{"
			 "\"hhash\":\"5692\",\"fhash\":\"57110\",\"ret\":9}}",
			 &ev), ST_PFW_EVENT);
	assert_string_equal(str(r, ev.host), "corona173");
	assert_string_equal(str(r, ev.file), "/proc/1/stat");
	assert_int_equal(ev.bytes, 9);
	/* SH: strings, kept in their own map */
	assert_int_equal(feed(r, "{\"name\":\"SH\",\"ph\":\"M\",\"args\":{"
			 "\"name\":\"./cm1.exe\",\"value\":33764}}", &ev),
			 ST_PFW_EOF);
	assert_string_equal(st_pfw_str(r, (uint32_t)st_pfw_lookup(
			    r, "SH", "33764", 5), NULL), "./cm1.exe");
	assert_int_equal(st_pfw_lookup(r, "FH", "33764", 5), -1);
	/* hostname beats hhash, fname beats fhash */
	assert_int_equal(feed(r, "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":5,"
			 "\"tid\":6,\"ts\":100,\"dur\":3,\"ph\":\"X\",\"args\":{"
			 "\"hhash\":5692,\"hostname\":\"h\",\"fhash\":1,"
			 "\"fname\":\"f\"}}", &ev), ST_PFW_EVENT);
	assert_string_equal(str(r, ev.host), "h");
	assert_string_equal(str(r, ev.file), "f");
	/* other M events and phases are skipped, not corrupt */
	assert_int_equal(feed(r, "{\"name\":\"thread_name\",\"ph\":\"M\","
			 "\"args\":{\"name\":\"1\",\"value\":\"thread_name\"}}",
			 &ev), ST_PFW_EOF);
	assert_int_equal(feed(r, "{\"name\":\"x\",\"ph\":\"B\",\"ts\":1}", &ev),
			 ST_PFW_EOF);
	assert_int_equal(st_pfw_stats_get(r)->meta, 5);
	assert_int_equal(st_pfw_stats_get(r)->other, 1);
	assert_int_equal(st_pfw_stats_get(r)->bad, 0);
	st_pfw_close(r);
}

static void test_corrupt(void **state)
{
	static const struct { const char *line, *why; } c[] = {
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"dur\":1,"
		  "\"ph\":\"X\"}", "missing 'ts'" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,"
		  "\"dur\":1}", "missing 'ph'" },
		{ "{\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
		  "\"ph\":\"X\"}", "missing 'name'" },
		{ "{\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
		  "\"ph\":\"X\"}", "missing 'cat'" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":\"1a\",\"tid\":1,"
		  "\"ts\":1,\"dur\":1,\"ph\":\"X\"}", "'pid' is not an integer" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":"
		  "\"99999999999999999999\",\"dur\":1,\"ph\":\"X\"}",
		  "'ts' is not an integer" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":true,"
		  "\"ts\":1,\"dur\":1,\"ph\":\"X\"}", "'tid' is not an integer" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,"
		  "\"dur\":-1,\"ph\":\"X\"}", "negative 'dur'" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":"
		  "9007199254740993,\"dur\":1,\"ph\":\"X\"}", "'ts' out of range" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,"
		  "\"dur\":\"9223372036854775807\",\"ph\":\"X\"}",
		  "'dur' out of range" },
		{ "{\"name\":\"x\",\"cat\":7,\"pid\":1,\"tid\":1,\"ts\":1,"
		  "\"dur\":1,\"ph\":\"X\"}", "'cat' is not a string" },
		{ "{\"name\":\"FH\",\"ph\":\"M\",\"args\":{\"name\":\"/f\"}}",
		  "missing 'args.value'" },
		{ "{\"name\":\"HH\",\"ph\":\"M\",\"args\":{\"value\":3}}",
		  "missing 'args.name'" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,"
		  "\"dur\":1,\"ph\":\"X\",\"args\":{\"hostname\":\"a\x01\"}}",
		  "control character" },
		{ "{\"name\":\"x\",\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,",
		  "invalid JSON" },
		{ "[1]", "not a JSON object" },
	};
	st_pfw_reader *r = st_pfw_reader_mem();
	st_pfw_event ev;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *why;

		assert_int_equal(feed(r, c[i].line, &ev), ST_PFW_BAD);
		assert_int_equal(st_pfw_bad_line(r, &why), i + 1);
		if (!strstr(why, c[i].why)) {
			print_error("line %zu: '%s' lacks '%s'\n", i, why,
				    c[i].why);
			fail();
		}
	}
	assert_int_equal(st_pfw_stats_get(r)->bad, sizeof(c) / sizeof(c[0]));
	/* reals are rounded, strings read as integers */
	assert_int_equal(feed(r, "{\"name\":\"x\",\"cat\":\"c\",\"pid\":\"-1\","
			 "\"tid\":1,\"ts\":2.6,\"dur\":1e1,\"ph\":\"X\"}", &ev),
			 ST_PFW_EVENT);
	assert_int_equal(ev.pid, -1);
	assert_int_equal(ev.ts, 3);
	assert_int_equal(ev.dur, 10);
	st_pfw_close(r);
}

static int64_t bytes_of(const char *name, const char *args_json)
{
	char line[512];
	st_pfw_raw raw;
	int64_t b;

	snprintf(line, sizeof(line), "{\"args\":%s}", args_json);
	assert_int_equal(st_pfw_scan_json(line, strlen(line), &raw, NULL, 0), 0);
	b = st_pfw_event_bytes(name, strlen(name), &raw);
	st_pfw_raw_release(&raw);
	return b;
}

static void test_bytes(void **state)
{
	(void)state;
	assert_int_equal(bytes_of("read", "{\"ret\":4096,\"size\":9}"), 4096);
	assert_int_equal(bytes_of("pwrite64", "{\"ret\":\"12\"}"), 12);
	assert_int_equal(bytes_of("write", "{\"ret\":-1}"), -1);
	assert_int_equal(bytes_of("write", "{\"ret\":0}"), -1);
	assert_int_equal(bytes_of("read", "{\"size\":5}"), -1);
	assert_int_equal(bytes_of("fread", "{\"ret\":3,\"size\":4096}"), 12288);
	assert_int_equal(bytes_of("fread", "{\"ret\":3107,\"size\":1}"), 3107);
	assert_int_equal(bytes_of("fwrite", "{\"ret\":2}"), 2);
	assert_int_equal(bytes_of("fread", "{\"ret\":4611686018427387904,"
				  "\"size\":4}"), -1);   /* overflow */
	assert_int_equal(bytes_of("readdir", "{\"ret\":5}"), -1);
	assert_int_equal(bytes_of("readlink", "{\"ret\":5}"), -1);
	assert_int_equal(bytes_of("open", "{\"ret\":5}"), -1);
	assert_int_equal(bytes_of("checkpoint", "{\"size\":100}"), 100);
	assert_int_equal(bytes_of("NPZReader.read_index",
				  "{\"image_size\":7,\"ret\":1}"), 1);
	assert_int_equal(bytes_of("load", "{\"image_size\":\"7\"}"), 7);
	assert_int_equal(bytes_of("load", "{\"size\":0,\"image_size\":7}"), 7);
	assert_int_equal(bytes_of("load", "{\"size\":1.5}"), 2);
}

/* Write TEXT to NAME in dir, gzip-compressed when GZ. */
static char *put(const char *name, const char *text, size_t len, bool gz)
{
	char *p = st_path_join(dir, name);

	if (gz) {
		gzFile f = gzopen(p, "wb");

		assert_non_null(f);
		assert_int_equal(gzwrite(f, text, (unsigned)len), (int)len);
		gzclose(f);
	} else {
		FILE *f = fopen(p, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(text, 1, len, f), len);
		fclose(f);
	}
	return p;
}

static const char trace_text[] =
	"[\n"
	"{\"name\":\"HH\",\"ph\":\"M\",\"args\":{\"name\":\"h1\",\"value\":1}}\n"
	"{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":10,"
	"\"dur\":5,\"ph\":\"X\",\"args\":{\"hhash\":1,\"ret\":100}}\n"
	"not json\n"
	"\n"
	"{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":20,"
	"\"dur\":5,\"ph\":\"X\",\"args\":{\"hhash\":1,\"ret\":50}}\n"
	"]";   /* no newline at the end */

static void read_all(const char *path, int *events, int *bad, int *rc_end,
		     st_error *err)
{
	st_pfw_reader *r = st_pfw_open(path, err);
	st_pfw_event ev;
	int rc;

	assert_non_null(r);
	*events = *bad = 0;
	while ((rc = st_pfw_next(r, &ev, err)) > 0) {
		if (rc == ST_PFW_EVENT) {
			(*events)++;
			assert_string_equal(st_pfw_str(r, ev.host, NULL), "h1");
		} else {
			(*bad)++;
			assert_int_equal(st_pfw_bad_line(r, NULL), 4);
		}
	}
	*rc_end = rc;
	st_pfw_close(r);
}

static void test_files(void **state)
{
	char *plain = put("t.pfw", trace_text, strlen(trace_text), false);
	char *gz = put("t.pfw.gz", trace_text, strlen(trace_text), true);
	char *cut, *buf;
	st_error err;
	int events, bad, rc;
	FILE *f;
	long n;

	(void)state;
	read_all(plain, &events, &bad, &rc, &err);
	assert_int_equal(events, 2);
	assert_int_equal(bad, 1);
	assert_int_equal(rc, ST_PFW_EOF);
	read_all(gz, &events, &bad, &rc, &err);
	assert_int_equal(events, 2);
	assert_int_equal(bad, 1);
	assert_int_equal(rc, ST_PFW_EOF);
	/* the gzip file cut short: an error 65 after what came before */
	f = fopen(gz, "rb");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	cut = put("cut.pfw.gz", buf, (size_t)n - 12, false);
	read_all(cut, &events, &bad, &rc, &err);
	assert_int_equal(rc, ST_PFW_ERROR);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "damaged gzip data"));
	free(buf);
	/* missing */
	assert_null(st_pfw_open("/nonexistent/x.pfw", &err));
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	free(plain);
	free(gz);
	free(cut);
}

/* ---- the scanner's paths ---------------------------------------------- */

/* Every path the CPU has (scalar, SSE2, AVX2) reads LINE the same: takes
 * it or not alike, with the same fields; a line taken is read by jansson
 * with the same fields.  Returns whether the paths took it. */
static int paths_agree(const char *line, size_t len, st_pfw_raw *out)
{
	st_pfw_raw first, a, b;
	int took = -1, paths = 0;

	for (int level = ST_PFW_SCALAR; level <= ST_PFW_AVX2; level++) {
		int t;

		if (st_pfw_simd_force(level) != level)
			continue;
		assert_int_equal(st_pfw_simd(), level);
		paths++;
		t = st_pfw_scan_fast(line, len, &a);
		if (took < 0) {
			took = t;
			first = a;
		} else if (t != took || (t && !st_pfw_raw_equal(&a, &first))) {
			print_error("path %d differs on %.*s\n", level, (int)len,
				    line);
			fail();
		}
	}
	st_pfw_simd_force(-1);
	assert_true(paths >= 2);   /* x86-64: scalar and SSE2 at least */
	if (took) {
		assert_int_equal(st_pfw_scan_json(line, len, &b, NULL, 0), 0);
		assert_true(st_pfw_raw_equal(&first, &b));
		st_pfw_raw_release(&b);
	}
	if (out)
		*out = first;
	return took;
}

/* The real traces, line by line: the paths agree, and take the lines
 * without escapes, bytes above 0x7f or numbers beyond 18 digits. */
static void test_scan_paths_real(void **state)
{
	static const char *const files[] = {
		"posix-old-format.pfw", "small.pfw",
		"cm1-rank0-new-format.pfw.gz",
	};
	char path[4096];
	size_t taken = 0, lines = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		gzFile f;
		char *line = malloc(1 << 20);

		snprintf(path, sizeof(path), "%s/../shared/fixtures/dftracer/%s",
			 ST_SOURCE_ROOT, files[i]);
		if (access(path, R_OK) != 0) {
			free(line);
			if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
				fail_msg("no %s", path);
			skip();
		}
		assert_non_null(f = gzopen(path, "rb"));
		while (gzgets(f, line, 1 << 20)) {
			const char *l = line;
			size_t n = strcspn(line, "\n");   /* as the reader */

			if (!st_pfw_line_trim(&l, &n))
				continue;
			lines++;
			taken += (size_t)paths_agree(l, n, NULL);
		}
		gzclose(f);
		free(line);
	}
	/* the fixtures hold no escape, no byte above 0x7f and no number
	 * beyond 18 digits (grep -c '\\' and LC_ALL=C grep -cP '[\x80-\xff]'
	 * find none): every line is taken */
	assert_true(lines > 1000);
	assert_int_equal(taken, lines);
}

/* Lines built to meet the block edges: an escape, a string's end and a
 * number at every offset from 0 to 70 in the line, and behind 0 to 31
 * bytes of leading space.  The values read are the ones written. */
static void test_scan_paths_edges(void **state)
{
	char line[512];
	char fill[128];
	st_pfw_raw r;

	(void)state;
	memset(fill, 'a', sizeof(fill));
	for (int shift = 0; shift < 32; shift++) {
		for (int k = 0; k <= 70; k++) {
			int n;

			/* an escape ("\/", a string still closed if it were
			 * missed) at offset SHIFT + 9 + K, 40 bytes of the
			 * string behind it: left to jansson */
			n = snprintf(line, sizeof(line), "%*s{\"name\":\"%.*s\\/"
				     "%.40s\",\"ph\":\"X\",\"ts\":1}", shift, "",
				     k, fill, fill);
			assert_int_equal(paths_agree(line, (size_t)n, NULL), 0);
			/* in the escape's place (the string closed as
			 * before), a control character (0x1f the highest) and
			 * a byte above 0x7f */
			line[shift + 9 + k] = '\t';
			assert_int_equal(paths_agree(line, (size_t)n, NULL), 0);
			line[shift + 9 + k] = 0x1f;
			assert_int_equal(paths_agree(line, (size_t)n, NULL), 0);
			line[shift + 9 + k] = (char)0xc3;
			line[shift + 10 + k] = (char)0xa9;
			assert_int_equal(paths_agree(line, (size_t)n, NULL), 0);
			/* a plain string of K bytes, then a 16-digit number */
			n = snprintf(line, sizeof(line), "%*s{\"name\":\"%.*s\","
				     "\"ts\":1698081297469813,\"dur\":-%d,"
				     "\"args\":{\"fname\":\"/%.*s\"}}", shift, "",
				     k, fill, k, k, fill);
			assert_int_equal(paths_agree(line, (size_t)n, &r), 1);
			assert_int_equal(r.name.n, (size_t)k);
			assert_int_equal(r.ts.i, INT64_C(1698081297469813));
			assert_int_equal(r.dur.i, -k);
			assert_int_equal(r.fname.n, (size_t)k + 1);
			/* K % 20 + 1 digits ending at every offset */
			n = snprintf(line, sizeof(line), "%*s{\"name\":\"%.*s\","
				     "\"ts\":%.*s}", shift, "", k, fill,
				     k % 20 + 1, "12345678901234567890");
			if (k % 20 + 1 <= 18) {
				int64_t want = 0;

				for (int d = 0; d < k % 20 + 1; d++)
					want = want * 10 + (d + 1) % 10;
				assert_int_equal(paths_agree(line, (size_t)n, &r),
						 1);
				assert_int_equal(r.ts.i, want);
			} else {
				assert_int_equal(paths_agree(line, (size_t)n,
							     NULL), 0);
			}
		}
	}
}

/* $STREAMTIME_PFW_SIMD picks the path, never above what the CPU has. */
static void test_scan_paths_env(void **state)
{
	int best;

	(void)state;
	unsetenv("STREAMTIME_PFW_SIMD");
	best = st_pfw_simd_force(-1);
	assert_true(best >= ST_PFW_SSE2);
	setenv("STREAMTIME_PFW_SIMD", "scalar", 1);
	assert_int_equal(st_pfw_simd_force(-1), ST_PFW_SCALAR);
	setenv("STREAMTIME_PFW_SIMD", "sse2", 1);
	assert_int_equal(st_pfw_simd_force(-1), ST_PFW_SSE2);
	setenv("STREAMTIME_PFW_SIMD", "avx2", 1);
	assert_int_equal(st_pfw_simd_force(-1), best);
	unsetenv("STREAMTIME_PFW_SIMD");
	assert_int_equal(st_pfw_simd_force(-1), best);
	assert_int_equal(st_pfw_simd_force(ST_PFW_AVX2 + 1), -1);
	assert_int_equal(st_pfw_simd(), best);
}

static void test_long_line(void **state)
{
	size_t big = ST_PFW_MAX_LINE + 100, n = 0;
	const char *ok = "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,"
			 "\"ts\":10,\"dur\":5,\"ph\":\"X\"}\n";
	char *text = malloc(big + 3 * strlen(ok) + 8), *p;
	st_pfw_reader *r;
	st_pfw_event ev;
	st_error err;
	int rc, events = 0, bad = 0;

	(void)state;
	n += (size_t)sprintf(text + n, "%s", ok);
	text[n++] = '{';
	memset(text + n, 'x', big);
	n += big;
	text[n++] = '\n';
	n += (size_t)sprintf(text + n, "%s%s", ok, ok);
	p = put("long.pfw", text, n, false);
	r = st_pfw_open(p, &err);
	assert_non_null(r);
	while ((rc = st_pfw_next(r, &ev, &err)) > 0) {
		if (rc == ST_PFW_EVENT) {
			events++;
		} else {
			const char *why;

			bad++;
			assert_int_equal(st_pfw_bad_line(r, &why), 2);
			assert_non_null(strstr(why, "longer than"));
		}
	}
	assert_int_equal(rc, ST_PFW_EOF);
	assert_int_equal(events, 3);
	assert_int_equal(bad, 1);
	assert_int_equal(st_pfw_stats_get(r)->lines, 4);
	st_pfw_close(r);
	free(text);
	free(p);
}

/* Issue 24 item 9: valid JSON that jansson refuses is read by
 * st_pfw_scan_wide; what the reader uses decides.  Each line's verdict
 * is the one Python's json gives with the reader's rules
 * (tests/tools/notebook_ref.py); worked out by hand here. */
static void test_valid_json_not_corrupt(void **state)
{
	static const struct {
		const char *line;
		int rc;             /* ST_PFW_EVENT, ST_PFW_BAD, ST_PFW_EOF */
		const char *file;   /* the event's, or the corrupt line's why */
		int64_t ts, bytes;
	} c[] = {
		{ "{\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":1,\"ts\":10,\"dur\":5,\"args\":{\"fname\":\"/a\","
		  "\"ret\":4,\"inode\":18446744073709551615}}",
		  ST_PFW_EVENT, "/a", 10, 4 },
		{ "{\"name\":\"read\",\"x\":1e400,\"cat\":\"POSIX\",\"ph\":\"X\","
		  "\"pid\":1,\"tid\":1,\"ts\":11,\"dur\":5,\"args\":{\"y\":"
		  "\"a\\u0000\\ud800\",\"fname\":\"/\\u00e9\\ud83d\\ude00\","
		  "\"ret\":-99999999999999999999}}",
		  ST_PFW_EVENT, "/\xc3\xa9\xf0\x9f\x98\x80", 11, -1 },
		{ "{\"name\":\"FH\",\"cat\":\"dftracer\",\"ph\":\"M\",\"pid\":1,"
		  "\"tid\":1,\"args\":{\"name\":\"/big\",\"value\":"
		  "18446744073709551615}}", ST_PFW_EOF, NULL, 0, 0 },
		{ "{\"name\":\"write\",\"cat\":\"POSIX\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":1,\"ts\":12,\"dur\":5,\"args\":{\"fhash\":"
		  "18446744073709551615,\"ret\":8}}", ST_PFW_EVENT, "/big", 12, 8 },
		{ "{\"name\":\"write\",\"cat\":\"POSIX\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":1,\"ts\":13,\"dur\":5,\"args\":{\"fhash\":"
		  "-18446744073709551615,\"ret\":8}}",
		  ST_PFW_EVENT, "fhash:-18446744073709551615", 13, 8 },
		{ "{\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":1,\"ts\":18446744073709551615,\"dur\":5}",
		  ST_PFW_BAD, "'ts' out of range", 0, 0 },
		{ "{\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":1,\"ts\":1,\"dur\":-1e400}",
		  ST_PFW_BAD, "'dur' out of range", 0, 0 },
		{ "{\"name\":\"re\\u0000ad\",\"cat\":\"POSIX\",\"ph\":\"X\","
		  "\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"z\":1e400}",
		  ST_PFW_BAD, "'name' holds \\u0000 or a lone surrogate", 0, 0 },
		{ "{\"name\":\"read\",\"cat\":\"\\udc00\",\"ph\":\"X\","
		  "\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"z\":1e400}",
		  ST_PFW_BAD, "'cat' holds \\u0000 or a lone surrogate", 0, 0 },
		{ "{\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"hostname\":"
		  "\"h\\u0000\"}}",
		  ST_PFW_BAD, "'args.hostname' holds \\u0000 or a lone surrogate",
		  0, 0 },
		/* still invalid: jansson's verdict stands */
		{ "{\"name\":\"read\",\"x\":1e400,\"y\":NaN}", ST_PFW_BAD,
		  "invalid JSON", 0, 0 },
		{ "{\"name\":\"read\",\"x\":\"\\ud80\"}", ST_PFW_BAD,
		  "invalid JSON", 0, 0 },
		{ "{\"name\":\"read\",\"x\":\"\xed\xa0\x80\"}", ST_PFW_BAD,
		  "invalid JSON", 0, 0 },
	};
	st_pfw_reader *r = st_pfw_reader_mem();
	st_pfw_event ev;

	(void)state;
	assert_non_null(r);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc = feed(r, c[i].line, &ev);
		const char *why;

		if (rc != c[i].rc) {
			print_error("case %zu: %s: %d, want %d\n", i, c[i].line,
				    rc, c[i].rc);
			fail();
		}
		if (rc == ST_PFW_BAD) {
			(void)st_pfw_bad_line(r, &why);
			assert_non_null(strstr(why, c[i].file));
		} else if (rc == ST_PFW_EVENT) {
			assert_string_equal(str(r, ev.file), c[i].file);
			assert_int_equal(ev.ts, c[i].ts);
			assert_int_equal(ev.bytes, c[i].bytes);
		}
	}
	st_pfw_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_agree),
		cmocka_unit_test(test_valid_json_not_corrupt),
		cmocka_unit_test(test_scan_ints),
		cmocka_unit_test(test_scan_paths_real),
		cmocka_unit_test(test_scan_paths_edges),
		cmocka_unit_test(test_scan_paths_env),
		cmocka_unit_test(test_scan_memo),
		cmocka_unit_test(test_scan_fields),
		cmocka_unit_test(test_line_trim),
		cmocka_unit_test(test_old_generation),
		cmocka_unit_test(test_new_generation),
		cmocka_unit_test(test_map_int_keys),
		cmocka_unit_test(test_use_file_table),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_long_line),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
