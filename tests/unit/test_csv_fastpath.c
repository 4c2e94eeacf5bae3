/* Unit tests: the hand-split fast path of st_table_parse gives exactly what
 * libcsv gives (cells, line numbers, errors) on tricky inputs and on the
 * shipped sample's files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/csv.h"

/* Parse BUF both ways and require identical results. */
static void same_both_ways(const char *name, const char *buf, size_t len)
{
	st_table a, b;
	st_error ea, eb;
	int ra, rb;

	st_table_init(&a);
	st_table_init(&b);
	ra = st_table_parse_ex(&a, name, buf, len, 0, &ea);
	rb = st_table_parse_ex(&b, name, buf, len, ST_CSV_LIBCSV_ONLY, &eb);
	assert_int_equal(ra, rb);
	if (ra < 0) {
		assert_int_equal(ea.code, eb.code);
		assert_string_equal(ea.text, eb.text);
		return;
	}
	assert_int_equal(a.ncols, b.ncols);
	assert_int_equal(a.nrows, b.nrows);
	for (size_t i = 0; i < a.ncols; i++)
		assert_string_equal(a.header[i], b.header[i]);
	for (size_t r = 0; r < a.nrows; r++) {
		assert_int_equal(a.lines[r], b.lines[r]);
		for (size_t c = 0; c < a.ncols; c++)
			assert_string_equal(st_table_get(&a, r, (int)c),
					    st_table_get(&b, r, (int)c));
	}
	st_table_release(&a);
	st_table_release(&b);
}

static void test_tricky_inputs(void **state)
{
	static const char *const cases[] = {
		"a,b\n1,2\n",
		"a,b\n1,2",                          /* no final newline */
		"a,b\r\n1,2\r\n",                    /* CRLF */
		"a,b\r\n1,2\r",                      /* CR at the very end */
		"a,b\n1\r2,3\n",                     /* a CR inside a line */
		"a,b\n  1 ,\t2\t\n",                 /* blanks around fields */
		"a,b\n\n   \n1,2\n\n",               /* blank lines */
		"a,b\n,\n",                          /* empty fields */
		"a,b\n\"x,y\",2\n3,4\n",             /* quoted comma */
		"a,b\n\"multi\nline\",2\n3,4\n",     /* quoted newline, then plain */
		"a,b\n\"he said \"\"hi\"\"\",2\n",   /* doubled quotes */
		"a,b\n1,2,3\n",                      /* too many fields */
		"a,b\n1\n",                          /* too few */
		"a,b\n\"open,2\n",                   /* unterminated quote */
		"a,b\n1,2\nx\"y,3\n",                /* quote inside a field */
		"\xEF\xBB\xBF" "a,b\n1,2\n",         /* byte order mark */
		"",
		"\n\n",
		"a\n1\n\n2\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		same_both_ways("case.csv", cases[i], strlen(cases[i]));
}

static void same_for_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	same_both_ways(path, buf, (size_t)n);
	free(buf);
}

/* Every CSV of the shipped sample (the test runs in tests/unit). */
static void test_sample_files(void **state)
{
	static const char *const dirs[] = {
		"../../data/file_transfer", "../../data/file_transfer/distiller_db",
		"../../data/streaming",
	};
	size_t files = 0;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		assert_non_null(d);
		while ((de = readdir(d)) != NULL) {
			char path[512];
			size_t l = strlen(de->d_name);

			if (l < 4 || strcmp(de->d_name + l - 4, ".csv") != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			same_for_file(path);
			files++;
		}
		closedir(d);
	}
	assert_true(files >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tricky_inputs),
		cmocka_unit_test(test_sample_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
