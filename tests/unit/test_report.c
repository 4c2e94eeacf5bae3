/* Unit tests: the HTML report (include/streamtime/report.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/report.h"

/* What FN writes to a memory stream, as a new string. */
static char *capture_escape(const char *s, int (*fn)(FILE *, const char *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, s), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void assert_escape(const char *in, const char *expect)
{
	char *got = capture_escape(in, st_report_escape);

	assert_string_equal(got, expect);
	free(got);
}

static void test_escape(void **state)
{
	(void)state;
	assert_escape("", "");
	assert_escape("plain 128x128", "plain 128x128");
	assert_escape("<script>alert('x')</script>",
		      "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	assert_escape("a & b \"q\"", "a &amp; b &quot;q&quot;");
	/* already escaped text is escaped again: values are data, not HTML */
	assert_escape("&amp;", "&amp;amp;");
	/* UTF-8 passes through; tab and newline stay; other controls become
	 * U+FFFD (not allowed in HTML) */
	assert_escape("1024\xc3\x97" "1024", "1024\xc3\x97" "1024");
	assert_escape("a\tb\nc", "a\tb\nc");
	assert_escape("a\x01" "b\x7f", "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	{
		char *got = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&got, &len);

		assert_int_equal(st_report_escape(f, NULL), 0);
		fclose(f);
		assert_string_equal(got, "");
		free(got);
	}
}

static void test_url(void **state)
{
	char *got;

	(void)state;
	got = capture_escape("statistics/statistics_table.csv",
			     st_report_write_url);
	assert_string_equal(got, "statistics/statistics_table.csv");
	free(got);
	got = capture_escape("../my results/a&b \"x\"#1?.csv",
			     st_report_write_url);
	assert_string_equal(got, "../my%20results/a%26b%20%22x%22%231%3F.csv");
	free(got);
	got = capture_escape("caf\xc3\xa9", st_report_write_url);
	assert_string_equal(got, "caf%C3%A9");
	free(got);
}

static void assert_number(double v, int decimals, const char *expect)
{
	char buf[64];

	assert_string_equal(st_report_format_number(v, decimals, buf,
						    sizeof(buf)), expect);
}

static void test_format_number(void **state)
{
	(void)state;
	assert_number(0, 1, "0.0");
	assert_number(4.0, 1, "4.0");
	assert_number(51.97810172953843, 1, "52.0");
	assert_number(12.994525432384608, 1, "13.0");
	assert_number(3.8690721649484536, 2, "3.87");
	assert_number(999.95, 1, "1,000.0"); /* rounds up into a group */
	assert_number(1000, 0, "1,000");
	assert_number(2268, 0, "2,268");
	assert_number(26051.25, 1, "26,051.2"); /* exact tie: to even */
	assert_number(101316, 2, "101,316.00");
	assert_number(1234567.891, 2, "1,234,567.89");
	assert_number(-1234.5, 1, "-1,234.5");
	assert_number(-999, 0, "-999");
	/* a negative that rounds to zero is zero */
	assert_number(-0.04, 1, "0.0");
	assert_number(-0.0, 2, "0.00");
	assert_number(NAN, 1, "n/a");
	assert_number(INFINITY, 1, "n/a");
	assert_number(-INFINITY, 0, "n/a");
	/* a buffer too small for the grouping gets the plain digits */
	{
		char small[8];

		assert_string_equal(st_report_format_number(1234567, 0, small,
							    sizeof(small)),
				    "1234567");
	}
}

static void assert_duration(double s, const char *expect)
{
	char buf[64];

	assert_string_equal(st_report_format_duration(s, buf, sizeof(buf)),
			    expect);
}

static void test_format_duration(void **state)
{
	(void)state;
	assert_duration(0, "0 s");
	assert_duration(45.4, "45 s");
	assert_duration(59.6, "1 min");
	assert_duration(87.18, "1 min 27 s");
	assert_duration(735.69, "12 min 16 s");
	assert_duration(3600, "1 h");
	assert_duration(26051.25, "7 h 14 min");
	assert_duration(101316, "1 d 4 h");
	assert_duration(86400 * 2, "2 d");
	assert_duration(-1, "n/a");
	assert_duration(NAN, "n/a");
}

static void assert_root(const char *doc, long expect_offset)
{
	const char *p = st_report_svg_root(doc, strlen(doc));

	if (expect_offset < 0) {
		if (p)
			fail_msg("expected no <svg> root in \"%s\"", doc);
		return;
	}
	if (!p)
		fail_msg("no <svg> root found in \"%s\"", doc);
	assert_int_equal(p - doc, expect_offset);
}

static void test_svg_root(void **state)
{
	static const char cairo[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"432pt\">";
	static const char doctype[] =
		"<?xml version=\"1.0\" standalone=\"no\"?>\r\n"
		"<!-- Generator: test -->\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		"\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\" "
		"[ <!ENTITY e \"<x>\"> ]>\n"
		"<svg>";
	const char *p;

	(void)state;
	assert_root("<svg/>", 0);
	assert_root("<svg>", 0);
	assert_root("  \n<svg\n width=\"1\">", 3);
	assert_root(cairo, (long)(strstr(cairo, "<svg") - cairo));
	assert_root(doctype, (long)(strstr(doctype, "<svg>") - doctype));
	assert_root("\xef\xbb\xbf<svg>", 3);
	assert_root("<!-- a -- comment --><?pi x?><svg>", 29);
	/* not SVG: another root, an unclosed prolog, <svgx>, empty */
	assert_root("<html><svg></svg></html>", -1);
	assert_root("<?xml version=\"1.0\"", -1);
	assert_root("<!-- never closed <svg>", -1);
	assert_root("<svgx>", -1);
	assert_root("<svg", -1);
	assert_root("", -1);
	assert_root("\x89PNG\r\n\x1a\n", -1);
	/* LEN bounds the search: a NUL byte inside is not a terminator */
	p = st_report_svg_root("<svg\0", 5);
	assert_null(p);
}

static void assert_rel(const char *from, const char *to, const char *expect)
{
	char *got = st_report_relpath(from, to);

	assert_non_null(got);
	if (strcmp(got, expect))
		fail_msg("relpath(%s, %s): got \"%s\", expected \"%s\"", from,
			 to, got, expect);
	free(got);
}

static void test_relpath(void **state)
{
	(void)state;
	assert_rel("/tmp/x", "/tmp/x", ".");
	assert_rel("/tmp/x", "/tmp/x/statistics", "statistics");
	assert_rel("/tmp/x/statistics", "/tmp/x", "..");
	assert_rel("/tmp/out", "/tmp/x", "../x");
	assert_rel("/a/b", "/a/bc", "../bc");
	assert_rel("/a/bc", "/a/b", "../b");
	assert_rel("/a/b/c/d", "/a/e/f", "../../../e/f");
	assert_rel("/", "/", ".");
	assert_rel("/", "/results", "results");
	assert_rel("/home/u", "/", "../..");
}

/* ---- st_report_write on directories made here ---------------------- */

static char dir[] = "/tmp/st-report-XXXXXX";

static void put_file(const char *rel, const char *text)
{
	char *path = st_path_join(dir, rel);
	FILE *f;

	assert_non_null(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	free(path);
}

static void make_dir(const char *rel)
{
	char *path = st_path_join(dir, rel);

	assert_non_null(path);
	assert_int_equal(st_mkdir_p(path, NULL), 0);
	free(path);
}

/* The report on DIR as a new string; RC is st_report_write's result. */
static char *report(int *rc, st_report_info *info, st_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = st_report_write(f, dir, dir, info, err);
	fclose(f);
	return buf;
}

static void count_no_data(const char *html, size_t at_least)
{
	size_t n = 0;

	for (const char *p = html; (p = strstr(p, "No data")) != NULL; p++)
		n++;
	if (n < at_least)
		fail_msg("%zu \"No data\" notes, expected at least %zu", n,
			 at_least);
}

static void test_empty_directory(void **state)
{
	st_report_info info;
	st_error err;
	int rc;
	char *html;

	(void)state;
	html = report(&rc, &info, &err);
	assert_int_equal(rc, 0);
	/* comparison, per size, queue, worst days, figures, timeline, CSVs */
	count_no_data(html, 7);
	assert_non_null(strstr(html, "the figures were not made"));
	assert_non_null(strstr(html, "</html>\n"));
	assert_int_equal(info.sizes, 0);
	assert_int_equal(info.figures, 0);
	assert_int_equal(info.csvs, 0);
	assert_false(info.timeline);
	free(html);
}

static void test_header_only_tables(void **state)
{
	st_report_info info;
	st_error err;
	int rc;
	char *html;

	(void)state;
	make_dir("statistics");
	put_file("statistics/statistics_table.csv",
		 "size,data_gb,file_transfer_mean_s,file_transfer_std_s,"
		 "streaming_mean_s,streaming_std_s,enhancement\n");
	put_file("statistics/statistics_transfers_128.csv",
		 "Statistics,Size,Number of Points,Mean time,Median time,"
		 "Standard Deviation,Minimum time,Maximum time,"
		 "25th percentile,75th percentile\n");
	put_file("statistics/queue_time_statistics.csv",
		 "statistics,n,mean,median,std,min,max,q25,q75\n");
	put_file("statistics/ranked_days.csv", "Submit_date,queue_time\n");
	/* zero bytes: no header at all, still just "no data" */
	put_file("statistics/ranked_days_by_month.csv", "");
	html = report(&rc, &info, &err);
	if (rc)
		fail_msg("st_report_write: %s", err.text);
	count_no_data(html, 5);
	assert_non_null(strstr(html, "statistics_transfers_128.csv</code> is "
				     "missing or has no rows"));
	assert_null(strstr(html, "<table id=\"comparison-table\""));
	assert_int_equal(info.sizes, 0);
	assert_int_equal(info.csvs, 5);
	free(html);
}

static void test_tables_and_escaping(void **state)
{
	st_report_info info;
	st_error err;
	int rc;
	char *html;

	(void)state;
	make_dir("statistics");
	make_dir("figures");
	put_file("statistics/statistics_table.csv",
		 "size,data_gb,file_transfer_mean_s,file_transfer_std_s,"
		 "streaming_mean_s,streaming_std_s,enhancement,extra\n"
		 "128,10.871635968000001,51.97810172953843,30.59477914681898,"
		 "4.0,0.0,12.994525432384608,x\n");
	put_file("statistics/statistics_transfers_128.csv",
		 "Statistics,Size,Number of Points,Mean time,Median time,"
		 "Standard Deviation,Minimum time,Maximum time,"
		 "25th percentile,75th percentile\n"
		 "Statistics for 128x128 Streaming with Outliers,128,970,3.87,4,"
		 "0.64,3,12,4,4\n"
		 "Statistics for 128x128 Original with Outliers,128,1,56.3,56.3,"
		 "nan,56.3,56.3,56.3,56.3\n"
		 "\"<b>odd & \"\"label\"\"</b>\",128,1,1,1,,1,1,1,1\n");
	put_file("statistics/ranked_days.csv",
		 "Submit_date,queue_time\n<2023-02-17>,26051.25\n");
	put_file("figures/queue_hist.svg",
		 "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/"
		 "svg\" width=\"10\" height=\"10\"><rect width=\"5\" "
		 "height=\"5\"/></svg>\n");
	put_file("figures/transfer_hist_1024.svg", "<svg/>");
	put_file("figures/transfer_hist_128.svg", "<svg/>");
	put_file("figures/transfer_hist_combined.png", "not a png");
	put_file("figures/aaa.svg", "<html>no</html>");
	put_file("timeline.json", "{\"traceEvents\":[]}");
	html = report(&rc, &info, &err);
	if (rc)
		fail_msg("st_report_write: %s", err.text);
	assert_non_null(strstr(html, "<td>128\xc3\x97" "128</td><td>10.9</td>"
				     "<td>52.0 \xc2\xb1 30.6</td>"
				     "<td>4.0 \xc2\xb1 0.0</td>"
				     "<td class=\"big\">13.0\xc3\x97</td>"));
	/* NaN and empty cells are n/a; labels from files are escaped */
	assert_non_null(strstr(html, "<td>n/a</td>"));
	assert_non_null(strstr(html, "&lt;b&gt;odd &amp; &quot;label&quot;"
				     "&lt;/b&gt;"));
	assert_null(strstr(html, "<b>odd"));
	assert_non_null(strstr(html, "&lt;2023-02-17&gt;"));
	assert_non_null(strstr(html, "26,051.2"));
	/* figures: known order, the invalid ones linked but not embedded */
	{
		const char *comb = strstr(html, "id=\"fig-transfer_hist_combined\"");
		const char *h128 = strstr(html, "id=\"fig-transfer_hist_128\"");
		const char *h1024 = strstr(html, "id=\"fig-transfer_hist_1024\"");
		const char *queue = strstr(html, "id=\"fig-queue_hist\"");
		const char *other = strstr(html, "id=\"fig-aaa\"");

		assert_non_null(comb);
		assert_non_null(h128);
		assert_non_null(h1024);
		assert_non_null(queue);
		assert_non_null(other);
		assert_true(comb < h128 && h128 < h1024 && h1024 < queue &&
			    queue < other);
	}
	assert_int_equal(info.figures, 3);
	assert_non_null(strstr(html, "src=\"data:image/svg+xml;base64,"));
	assert_non_null(strstr(html, "could not be embedded"));
	assert_true(info.timeline);
	assert_non_null(strstr(html, "href=\"timeline.json\""));
	assert_non_null(strstr(html, "href=\"statistics/ranked_days.csv\""));
	/* nothing is loaded from anywhere */
	assert_null(strstr(html, "src=\"http"));
	assert_null(strstr(html, "href=\"http"));
	assert_null(strstr(html, "<script"));
	free(html);
}

static void test_bad_column_is_65(void **state)
{
	st_error err;
	int rc;
	char *html;

	(void)state;
	make_dir("statistics");
	put_file("statistics/statistics_table.csv", "size,data_gb\n128,1\n");
	html = report(&rc, NULL, &err);
	assert_int_equal(rc, -1);
	assert_int_equal(err.code, 65);
	assert_non_null(strstr(err.text, "file_transfer_mean_s"));
	free(html);
	put_file("statistics/statistics_table.csv",
		 "size,data_gb,file_transfer_mean_s,file_transfer_std_s,"
		 "streaming_mean_s,streaming_std_s,enhancement\n"
		 "128,1,2,3,4,5,abc\n");
	html = report(&rc, NULL, &err);
	assert_int_equal(rc, -1);
	assert_int_equal(err.code, 65);
	assert_non_null(strstr(err.text, "enhancement"));
	free(html);
}

static void test_missing_directory_is_66(void **state)
{
	st_error err;
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	assert_int_equal(st_report_write(f, "/nonexistent/st-report", ".",
					 NULL, &err), -1);
	assert_int_equal(err.code, 66);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Each directory test starts from an empty directory. */
static int clean(void **state)
{
	char cmd[96];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s/* %s/.[!.]*", dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_format_number),
		cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_svg_root),
		cmocka_unit_test(test_relpath),
		cmocka_unit_test_setup(test_empty_directory, clean),
		cmocka_unit_test_setup(test_header_only_tables, clean),
		cmocka_unit_test_setup(test_tables_and_escaping, clean),
		cmocka_unit_test_setup(test_bad_column_is_65, clean),
		cmocka_unit_test(test_missing_directory_is_66),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
