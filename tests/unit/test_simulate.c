/* Unit tests: the simulator's random numbers, model, layout and names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/csv.h"
#include "streamtime/h5.h"
#include "streamtime/receivers.h"
#include "streamtime/simulate.h"
#include "streamtime/tz.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_splitmix_reference(void **state)
{
	uint64_t s = 0;

	(void)state;
	/* the reference implementation's first outputs from state 0 */
	assert_true(st_splitmix64(&s) == UINT64_C(0xe220a8397b1dcdaf));
	assert_true(st_splitmix64(&s) == UINT64_C(0x6e789e6aa1b965f4));
	assert_true(st_splitmix64(&s) == UINT64_C(0x06c45d188009454f));
}

static void test_xoshiro_reference(void **state)
{
	st_rng r = { { 1, 2, 3, 4 } };

	(void)state;
	/* xoshiro256** from the state {1, 2, 3, 4} */
	assert_true(st_rng_next(&r) == 11520);
	assert_true(st_rng_next(&r) == 0);
	assert_true(st_rng_next(&r) == 1509978240);
	assert_true(st_rng_next(&r) == UINT64_C(1215971899390074240));
}

static void test_rng_determinism(void **state)
{
	st_rng a, b, c, d;
	int same_stream = 0, same_seed = 0;

	(void)state;
	st_rng_seed(&a, 42, 1);
	st_rng_seed(&b, 42, 1);
	st_rng_seed(&c, 42, 2);
	st_rng_seed(&d, 43, 1);
	for (int i = 0; i < 10000; i++) {
		uint64_t x = st_rng_next(&a);

		assert_true(x == st_rng_next(&b));
		same_stream += x == st_rng_next(&c);
		same_seed += x == st_rng_next(&d);
	}
	assert_int_equal(same_stream, 0);
	assert_int_equal(same_seed, 0);
}

static void test_rng_int(void **state)
{
	st_rng r;
	int seen[7] = { 0 };

	(void)state;
	st_rng_seed(&r, 7, 0);
	for (int i = 0; i < 7000; i++) {
		int64_t v = st_rng_int(&r, -3, 3);

		assert_true(v >= -3 && v <= 3);
		seen[v + 3]++;
	}
	for (int i = 0; i < 7; i++)
		assert_in_range(seen[i], 850, 1150);
	assert_int_equal(st_rng_int(&r, 5, 5), 5);
	/* the whole range does not loop or divide by zero */
	(void)st_rng_int(&r, INT64_MIN, INT64_MAX);
}

static void test_rng_shuffle(void **state)
{
	st_rng r;
	int v[50], sum = 0, moved = 0;

	(void)state;
	st_rng_seed(&r, 3, 0);
	for (int i = 0; i < 50; i++)
		v[i] = i;
	st_rng_shuffle(&r, v, 50, sizeof(v[0]));
	for (int i = 0; i < 50; i++) {
		sum += v[i];
		moved += v[i] != i;
	}
	assert_int_equal(sum, 49 * 50 / 2);
	assert_true(moved > 40);
	st_rng_shuffle(&r, v, 0, sizeof(v[0]));
	st_rng_shuffle(&r, v, 1, sizeof(v[0]));
}

static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double m = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	*mean = m;
	*sd = sqrt(q / (double)(n - 1));
}

enum { DRAWS = 200000 };

static void test_distributions(void **state)
{
	double *v = malloc(DRAWS * sizeof(*v)), m, sd;
	st_rng r;

	(void)state;
	assert_non_null(v);
	st_rng_seed(&r, 11, 0);
	for (int i = 0; i < DRAWS; i++) {
		v[i] = st_rng_uniform(&r);
		assert_true(v[i] >= 0 && v[i] < 1);
	}
	mean_sd(v, DRAWS, &m, &sd);
	assert_true(fabs(m - 0.5) < 0.005 && fabs(sd - sqrt(1.0 / 12)) < 0.005);
	for (int i = 0; i < DRAWS; i++)
		v[i] = st_rng_normal(&r);
	mean_sd(v, DRAWS, &m, &sd);
	assert_true(fabs(m) < 0.01 && fabs(sd - 1) < 0.01);
	for (int i = 0; i < DRAWS; i++)
		v[i] = st_rng_exponential(&r, 3.0);
	mean_sd(v, DRAWS, &m, &sd);
	assert_true(fabs(m - 3) < 0.05 && fabs(sd - 3) < 0.05);
	free(v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *s, size_t n, double p)
{
	double pos = (double)(n - 1) * p, lo = floor(pos);
	size_t i = (size_t)lo, j = i + 1 < n ? i + 1 : i;

	return s[i] + (s[j] - s[i]) * (pos - lo);
}

/* Mean and std after IQR outlier removal (SPEC 5.7); sorts V. */
static void robust(double *v, size_t n, double *mean, double *sd)
{
	double q1, q3, iqr;
	size_t k = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	q1 = quantile(v, n, 0.25);
	q3 = quantile(v, n, 0.75);
	iqr = q3 - q1;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= q1 - 1.5 * iqr && v[i] <= q3 + 1.5 * iqr)
			v[k++] = v[i];
	mean_sd(v, k, mean, sd);
}

/* Each modelled quantity lands on the paper's value. */
static void test_model_calibration(void **state)
{
	double *v = malloc(DRAWS * sizeof(*v)), m, sd;
	st_rng r;

	(void)state;
	assert_non_null(v);
	st_rng_seed(&r, 5, 0);
	for (int i = 0; i < ST_SIM_NSIZES; i++) {
		const st_sim_target *t = st_sim_calibration(i);
		double overhead = 2 * (t->save_real - t->save_blank);

		for (int k = 0; k < DRAWS; k++)
			v[k] = st_sim_draw_offload(&r, i);
		mean_sd(v, DRAWS, &m, &sd);
		if (fabs(m - t->offload_mean) > 0.01 * t->offload_mean)
			fail_msg("size %d: offload mean %g", (int)t->size, m);
		/* the listing floors the latency to whole seconds */
		for (int k = 0; k < DRAWS; k++)
			v[k] = floor(st_sim_draw_latency(&r, i, false));
		robust(v, DRAWS, &m, &sd);
		if (fabs(m - t->latency_mean) > 0.2 || fabs(sd - t->latency_sd) > 0.4)
			fail_msg("size %d: latency %g +- %g", (int)t->size, m, sd);
		assert_true(st_sim_draw_latency(&r, i, true) > t->latency_mean * 1.4);
		/* file transfer = elapsed + offload - save overhead */
		for (int k = 0; k < DRAWS; k++) {
			v[k] = st_sim_draw_elapsed(&r, i);
			assert_true(v[k] >= 5 && v[k] <= 1740 && v[k] == floor(v[k]));
			v[k] += t->offload_mean - overhead;
		}
		robust(v, DRAWS, &m, &sd);
		if (fabs(m - t->transfer_mean) > 0.03 * t->transfer_mean ||
		    fabs(sd - t->transfer_sd) > 0.1 * t->transfer_sd)
			fail_msg("size %d: transfer %g +- %g", (int)t->size, m, sd);
	}
	assert_null(st_sim_calibration(4));
	/* queue: most within 30 s, a tail of hours */
	{
		size_t within = 0, hours = 0;

		for (int k = 0; k < DRAWS; k++) {
			v[k] = st_sim_draw_queue(&r);
			assert_true(v[k] >= 0 && v[k] <= 8 * 3600 && v[k] == floor(v[k]));
			within += v[k] <= 30;
			hours += v[k] >= 3600;
		}
		qsort(v, DRAWS, sizeof(*v), cmp_double);
		assert_true(quantile(v, DRAWS, 0.5) <= 2);
		assert_true(within > DRAWS * 0.8 && within < DRAWS * 0.9);
		assert_true(hours > DRAWS / 200 && hours < DRAWS / 50);
	}
	free(v);
}

static void test_layout(void **state)
{
	st_experiments ex;
	st_error err;

	(void)state;
	/* scale 1: the shipped sample's ranges and file names */
	assert_int_equal(st_sim_experiments(1, &ex, &err), 0);
	assert_int_equal(ex.n, 4);
	assert_string_equal(ex.tz, "America/Los_Angeles");
	assert_string_equal(ex.slurm_tz, "America/Los_Angeles");
	assert_true(ex.max_elapsed == INT64_C(1740) * ST_NS_PER_SEC);
	{
		static const int64_t want[4][5] = {
			{ 128, 2525, 2532, 2401, 2414 }, { 256, 2517, 2524, 2101, 2112 },
			{ 512, 2509, 2516, 2113, 2124 }, { 1024, 2501, 2508, 2125, 2136 },
		};
		for (int i = 0; i < 4; i++) {
			char name[64];

			assert_int_equal(ex.v[i].size, want[i][0]);
			assert_int_equal(ex.v[i].offload.first, want[i][1]);
			assert_int_equal(ex.v[i].offload.last, want[i][2]);
			assert_int_equal(ex.v[i].streaming.first, want[i][3]);
			assert_int_equal(ex.v[i].streaming.last, want[i][4]);
			snprintf(name, sizeof(name), "scan_times_%d_%d.csv",
				 (int)want[i][3], (int)want[i][4]);
			assert_string_equal(ex.v[i].h5, name);
		}
	}
	st_experiments_release(&ex);
	/* scale 5: five times the scans, no range overlapping another */
	assert_int_equal(st_sim_experiments(5, &ex, &err), 0);
	for (size_t i = 0; i < ex.n; i++) {
		const st_range *o = &ex.v[i].offload, *s = &ex.v[i].streaming;

		assert_int_equal(o->last - o->first + 1, 40);
		assert_int_equal(s->last - s->first + 1, i == 0 ? 70 : 60);
		for (size_t j = 0; j < ex.n; j++) {
			const st_range *o2 = &ex.v[j].offload, *s2 = &ex.v[j].streaming;

			assert_true(o->last < s2->first || o->first > s2->last);
			if (i != j) {
				assert_true(o->last < o2->first || o->first > o2->last);
				assert_true(s->last < s2->first || s->first > s2->last);
			}
		}
	}
	st_experiments_release(&ex);
}

static void test_names(void **state)
{
	char buf[128];
	st_error err;
	st_tz *la = st_tz_load("America/Los_Angeles", &err);
	int64_t scan;
	int rcv;

	(void)state;
	assert_non_null(la);
	st_sim_status_name(buf, sizeof(buf), 3, 2525);
	assert_string_equal(buf, "4dstem_rec_status_3_scan_2525.json");
	assert_true(st_receivers_parse_status_name(buf, &rcv, &scan));
	assert_true(rcv == 3 && scan == 2525);
	st_sim_data_name(buf, sizeof(buf), 2525, 0);
	assert_string_equal(buf, "data_scan0000002525_module0to3_dst0_file0.data");
	assert_true(st_receivers_parse_data_name(buf, &scan) && scan == 2525);
	st_sim_data_name(buf, sizeof(buf), 2525, 5);
	assert_string_equal(buf, "data_scan0000002525_module4to7_dst1_file0.data");
	st_sim_data_name(buf, sizeof(buf), 7, 287);
	assert_string_equal(buf, "data_scan0000000007_module12to15_dst5_file11.data");
	/* the date is Pacific: PDT in October, PST in January */
	st_sim_h5_name(buf, sizeof(buf), INT64_C(1697215514) * ST_NS_PER_SEC, la,
		       2209, 2709, NULL);
	assert_string_equal(buf, "FOURD_231013_0945_02209_02709.h5");
	st_sim_h5_name(buf, sizeof(buf), INT64_C(1705597401) * ST_NS_PER_SEC + 5, la,
		       0, 2401, "_electrons");
	assert_string_equal(buf, "FOURD_240118_0903_00000_02401_electrons.h5");
	{
		st_h5_name nm;

		assert_true(st_h5_parse_name(buf, &nm));
		assert_true(nm.id_num == 0 && nm.scan == 2401);
		assert_string_equal(nm.suffix, "_electrons.h5");
	}
	st_sim_h5_name(buf, sizeof(buf), INT64_C(1705597401) * ST_NS_PER_SEC, la,
		       123456, 123456, NULL);
	assert_string_equal(buf, "FOURD_240118_0903_123456_123456.h5");
	st_tz_free(la);
}

static void test_check_empty(void **state)
{
	char dir[] = "/tmp/test_simulate_XXXXXX", *sub, *file;
	st_error err;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sub = st_path_join(dir, "missing");
	file = st_path_join(dir, "f");
	assert_int_equal(st_sim_check_empty(sub, &err), 0);
	assert_int_equal(st_sim_check_empty(dir, &err), 0);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(st_sim_check_empty(dir, &err), -1);
	assert_int_equal(err.code, ST_EXIT_CANTCREAT);
	assert_non_null(strstr(err.text, "is not empty"));
	assert_int_equal(st_sim_check_empty(file, &err), -1);
	assert_int_equal(err.code, ST_EXIT_CANTCREAT);
	assert_non_null(strstr(err.text, "not a directory"));
	unlink(file);
	rmdir(dir);
	free(sub);
	free(file);
}

static char *slurp(const char *dir, const char *name)
{
	char *p = st_path_join(dir, name), *s;
	size_t len;
	st_error err;

	assert_non_null(p);
	s = st_file_read(p, &len, &err);
	free(p);
	assert_non_null(s);
	return s;
}

static void remove_tree(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The same seed writes the same bytes; another seed other bytes; a
 * non-empty directory is refused without --force. */
static void test_write_deterministic(void **state)
{
	char a[] = "/tmp/test_simulate_a_XXXXXX", b[] = "/tmp/test_simulate_b_XXXXXX";
	static const char *const files[] = {
		"experiments.json", "file_transfer/slurm_job_info.csv",
		"file_transfer/distiller_db/256_256.csv", "file_transfer/write_times.csv",
		"file_transfer/save_time_stats.csv",
		"streaming/ncem_file_created_times.csv",
		"streaming/scan_times_2401_2414.csv",
	};
	st_sim_opts o = { .seed = 99, .scale = 1 };
	st_sim_summary sa, sb;
	st_error err;

	(void)state;
	assert_non_null(mkdtemp(a));
	assert_non_null(mkdtemp(b));
	assert_int_equal(st_sim_write(a, &o, &sa, &err), 0);
	assert_int_equal(st_sim_write(b, &o, &sb, &err), 0);
	assert_int_equal(sa.jobs, 96);
	assert_int_equal(sa.offload_scans, sb.offload_scans);
	for (size_t i = 0; i < N(files); i++) {
		char *x = slurp(a, files[i]), *y = slurp(b, files[i]);

		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	/* not empty any more */
	assert_int_equal(st_sim_write(b, &o, &sb, &err), -1);
	assert_int_equal(err.code, ST_EXIT_CANTCREAT);
	o.seed = 100;
	o.force = true;
	assert_int_equal(st_sim_write(b, &o, &sb, &err), 0);
	{
		char *x = slurp(a, files[1]), *y = slurp(b, files[1]);

		assert_true(strcmp(x, y) != 0);
		free(x);
		free(y);
	}
	o.scale = 0;
	assert_int_equal(st_sim_write(b, &o, &sb, &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	remove_tree(a);
	remove_tree(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splitmix_reference),
		cmocka_unit_test(test_xoshiro_reference),
		cmocka_unit_test(test_rng_determinism),
		cmocka_unit_test(test_rng_int),
		cmocka_unit_test(test_rng_shuffle),
		cmocka_unit_test(test_distributions),
		cmocka_unit_test(test_model_calibration),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_check_empty),
		cmocka_unit_test(test_write_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
