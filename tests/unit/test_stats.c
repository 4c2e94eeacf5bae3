/* test_stats.c - unit tests for include/streamtime/stats.h (SPEC 5.7).
 *
 * Quantile p of n sorted values: position (n-1)p, linear interpolation.
 * All expected values are worked out by hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "streamtime/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define assert_near(got, expect) do {                                       \
		double g_ = (got), e_ = (expect);                           \
		if (!(fabs(g_ - e_) <= 1e-12 * (1.0 + fabs(e_))))           \
			fail_msg("%s = %.17g, expected %.17g", #got, g_, e_); \
	} while (0)

#define assert_nan(got) do {                                                \
		double g_ = (got);                                          \
		if (!isnan(g_))                                             \
			fail_msg("%s = %.17g, expected NaN", #got, g_);     \
	} while (0)

static void assert_kept(const double *got, size_t ngot, const double *expect,
			size_t nexpect)
{
	if (ngot != nexpect)
		fail_msg("kept %zu values, expected %zu", ngot, nexpect);
	for (size_t i = 0; i < ngot; i++)
		if (got[i] != expect[i])
			fail_msg("kept[%zu] = %.17g, expected %.17g", i, got[i],
				 expect[i]);
}

/* ---- quantiles ------------------------------------------------------------- */

static void test_quantile_four_values(void **state)
{
	static const double v[] = { 1, 2, 3, 4 };

	(void)state;
	/* (4-1)*0.25 = 0.75 -> 1 + 0.75*(2-1) = 1.75 */
	assert_near(st_stats_quantile_sorted(v, 4, 0.25), 1.75);
	/* 1.5 -> 2 + 0.5 = 2.5 */
	assert_near(st_stats_quantile_sorted(v, 4, 0.5), 2.5);
	/* 2.25 -> 3 + 0.25 = 3.25 */
	assert_near(st_stats_quantile_sorted(v, 4, 0.75), 3.25);
	assert_near(st_stats_quantile_sorted(v, 4, 0.0), 1.0);
	assert_near(st_stats_quantile_sorted(v, 4, 1.0), 4.0);
}

static void test_quantile_odd_count_hits_elements(void **state)
{
	static const double v[] = { 10, 20, 30, 40, 50 };

	(void)state;
	/* positions 1, 2, 3 exactly */
	assert_near(st_stats_quantile_sorted(v, 5, 0.25), 20.0);
	assert_near(st_stats_quantile_sorted(v, 5, 0.5), 30.0);
	assert_near(st_stats_quantile_sorted(v, 5, 0.75), 40.0);
	/* 0.1 -> position 0.4 -> 10 + 0.4*10 = 14 */
	assert_near(st_stats_quantile_sorted(v, 5, 0.1), 14.0);
	/* 0.9 -> position 3.6 -> 40 + 0.6*10 = 46 */
	assert_near(st_stats_quantile_sorted(v, 5, 0.9), 46.0);
}

static void test_quantile_empty_and_single(void **state)
{
	static const double one[] = { 7.5 };

	(void)state;
	assert_nan(st_stats_quantile_sorted(NULL, 0, 0.5));
	assert_nan(st_stats_quantile_sorted(one, 0, 0.5));
	assert_near(st_stats_quantile_sorted(one, 1, 0.0), 7.5);
	assert_near(st_stats_quantile_sorted(one, 1, 0.5), 7.5);
	assert_near(st_stats_quantile_sorted(one, 1, 1.0), 7.5);
}

/* ---- summaries ------------------------------------------------------------- */

static void test_summarize_classic_std_uses_n_minus_1(void **state)
{
	static const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	st_summary s;

	(void)state;
	assert_int_equal(st_stats_summarize(v, N(v), &s), 0);
	assert_int_equal(s.n, 8);
	/* sum 40 / 8 */
	assert_near(s.mean, 5.0);
	/* squared deviations 9+1+1+1+0+0+4+16 = 32; 32/7 (population would
	 * give 32/8 = 4, std 2) */
	assert_near(s.std, sqrt(32.0 / 7.0));
	assert_near(s.min, 2.0);
	assert_near(s.max, 9.0);
	/* position 3.5 -> (4 + 5) / 2 */
	assert_near(s.median, 4.5);
	/* position 1.75 -> 4 + 0.75*(4-4) = 4 */
	assert_near(s.q25, 4.0);
	/* position 5.25 -> 5 + 0.25*(7-5) = 5.5 */
	assert_near(s.q75, 5.5);
}

static void test_summarize_unsorted_input_not_modified(void **state)
{
	double v[] = { 4, 1, 3, 2 };
	const double orig[] = { 4, 1, 3, 2 };
	st_summary s;

	(void)state;
	assert_int_equal(st_stats_summarize(v, N(v), &s), 0);
	assert_memory_equal(v, orig, sizeof(v));
	assert_int_equal(s.n, 4);
	/* sorted 1,2,3,4 */
	assert_near(s.q25, 1.75);
	assert_near(s.median, 2.5);
	assert_near(s.q75, 3.25);
	assert_near(s.mean, 2.5);
	assert_near(s.min, 1.0);
	assert_near(s.max, 4.0);
	/* deviations 2.25+0.25+0.25+2.25 = 5; 5/3 */
	assert_near(s.std, sqrt(5.0 / 3.0));
}

static void test_summarize_empty_gives_nan(void **state)
{
	st_summary s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.n = 99;
	assert_int_equal(st_stats_summarize(NULL, 0, &s), 0);
	assert_int_equal(s.n, 0);
	assert_nan(s.mean);
	assert_nan(s.median);
	assert_nan(s.std);
	assert_nan(s.min);
	assert_nan(s.max);
	assert_nan(s.q25);
	assert_nan(s.q75);
}

static void test_summarize_single_value_std_nan(void **state)
{
	static const double v[] = { 42.0 };
	st_summary s;

	(void)state;
	assert_int_equal(st_stats_summarize(v, 1, &s), 0);
	assert_int_equal(s.n, 1);
	assert_nan(s.std);
	assert_near(s.mean, 42.0);
	assert_near(s.median, 42.0);
	assert_near(s.min, 42.0);
	assert_near(s.max, 42.0);
	assert_near(s.q25, 42.0);
	assert_near(s.q75, 42.0);
}

static void test_summarize_two_values(void **state)
{
	static const double v[] = { 3.0, 1.0 };
	st_summary s;

	(void)state;
	assert_int_equal(st_stats_summarize(v, 2, &s), 0);
	/* mean 2, deviations 1+1 = 2, /1 -> std sqrt 2 */
	assert_near(s.mean, 2.0);
	assert_near(s.std, sqrt(2.0));
	/* positions 0.25, 0.5, 0.75 between 1 and 3 */
	assert_near(s.q25, 1.5);
	assert_near(s.median, 2.0);
	assert_near(s.q75, 2.5);
}

static void test_summarize_large_mean_no_cancellation(void **state)
{
	static const double v[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	st_summary s;

	(void)state;
	assert_int_equal(st_stats_summarize(v, 3, &s), 0);
	/* deviations -1, 0, 1 -> 2 / 2 = 1 */
	assert_near(s.mean, 1e9 + 2);
	assert_near(s.std, 1.0);
}

/* Issue 13 item 10: finite values whose sum or spread overflows give a
 * summary that is not finite, which the callers refuse; the NaNs of groups
 * too small for a statistic are not counted against it. */
static void test_summary_finite_catches_overflowing_sums(void **state)
{
	static const double big[] = { 1e308, 1e308 };
	static const double spread[] = { 1e308, -1e308 };
	static const double fine[] = { 1.0, 2.0, 4.0 };
	st_summary s;

	(void)state;
	assert_int_equal(st_stats_summarize(big, 2, &s), 0);
	assert_false(st_summary_finite(&s));
	assert_int_equal(st_stats_summarize(spread, 2, &s), 0);
	assert_false(st_summary_finite(&s));
	assert_int_equal(st_stats_summarize(fine, 3, &s), 0);
	assert_true(st_summary_finite(&s));
	assert_int_equal(st_stats_summarize(fine, 1, &s), 0);
	assert_true(st_summary_finite(&s));     /* std NaN: undefined for one */
	assert_int_equal(st_stats_summarize(NULL, 0, &s), 0);
	assert_true(st_summary_finite(&s));     /* no data is not an overflow */
}

/* ---- outliers -------------------------------------------------------------- */

static void test_outliers_iqr_rule(void **state)
{
	static const double v[] = { 1, 2, 3, 4, 100 };
	static const double expect[] = { 1, 2, 3, 4 };
	double out[N(v)];

	(void)state;
	/* Q1 = 2 (position 1), Q3 = 4 (position 3), IQR 2, bounds -1 .. 7 */
	assert_kept(out, st_stats_remove_outliers(v, N(v), out), expect,
		    N(expect));
}

static void test_outliers_keep_input_order(void **state)
{
	static const double v[] = { 100, 4, 1, 3, 2 };
	const double orig[] = { 100, 4, 1, 3, 2 };
	static const double expect[] = { 4, 1, 3, 2 };
	double out[N(v)];

	(void)state;
	/* same values as above: bounds -1 .. 7 */
	assert_kept(out, st_stats_remove_outliers(v, N(v), out), expect,
		    N(expect));
	assert_memory_equal(v, orig, sizeof(orig));
}

static void test_outliers_low_side(void **state)
{
	static const double v[] = { 10, -50, 11, 12, 13 };
	static const double expect[] = { 10, 11, 12, 13 };
	double out[N(v)];

	(void)state;
	/* sorted -50,10,11,12,13: Q1 = 10, Q3 = 12, IQR 2, bounds 7 .. 15 */
	assert_kept(out, st_stats_remove_outliers(v, N(v), out), expect,
		    N(expect));
}

static void test_outliers_zero_iqr_removes_anything_different(void **state)
{
	static const double v[] = { 5, 5, 9, 5, 5, 5, 5 };
	static const double expect[] = { 5, 5, 5, 5, 5, 5 };
	static const double w[] = { 5, 5, 5, 4.999, 5, 5, 5 };
	double out[N(v)];

	(void)state;
	/* sorted 5,5,5,5,5,5,9: positions 1.5 and 4.5 both read 5 -> IQR 0,
	 * bounds 5 .. 5 */
	assert_kept(out, st_stats_remove_outliers(v, N(v), out), expect,
		    N(expect));
	assert_kept(out, st_stats_remove_outliers(w, N(w), out), expect,
		    N(expect));
}

static void test_outliers_boundary_values_kept(void **state)
{
	static const double v[] = { -1, 2, 3, 4, 7 };
	static const double w[] = { -1.5, 2, 3, 4, 7.5 };
	static const double wkept[] = { 2, 3, 4 };
	double out[N(v)];

	(void)state;
	/* Q1 = 2, Q3 = 4, IQR 2: bounds exactly -1 and 7 -> nothing removed */
	assert_kept(out, st_stats_remove_outliers(v, N(v), out), v, N(v));
	/* same quartiles, -1.5 < -1 and 7.5 > 7 -> both removed */
	assert_kept(out, st_stats_remove_outliers(w, N(w), out), wkept,
		    N(wkept));
}

static void test_outliers_interpolated_quartiles(void **state)
{
	static const double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 30 };
	static const double expect[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	static const double w[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18 };
	double out[N(v)];

	(void)state;
	/* n = 11: Q1 at position 2.5 -> 3.5, Q3 at 7.5 -> 8.5, IQR 5,
	 * bounds -4 .. 16: 30 goes */
	assert_kept(out, st_stats_remove_outliers(v, N(v), out), expect,
		    N(expect));
	/* 18 > 16 goes too (quartiles unchanged, 18 is the largest) */
	assert_kept(out, st_stats_remove_outliers(w, N(w), out), expect,
		    N(expect));
}

static void test_outliers_in_place(void **state)
{
	double v[] = { 100, 1, 2, 3, 4 };
	static const double expect[] = { 1, 2, 3, 4 };

	(void)state;
	assert_kept(v, st_stats_remove_outliers(v, N(v), v), expect, N(expect));
}

static void test_outliers_empty(void **state)
{
	double out[1] = { 123.0 };

	(void)state;
	assert_int_equal(st_stats_remove_outliers(NULL, 0, out), 0);
	assert_true(out[0] == 123.0);
}

static void test_outliers_then_summary(void **state)
{
	static const double v[] = { 1, 2, 3, 4, 100 };
	double out[N(v)];
	size_t k;
	st_summary s;

	(void)state;
	k = st_stats_remove_outliers(v, N(v), out);
	assert_int_equal(k, 4);
	assert_int_equal(st_stats_summarize(out, k, &s), 0);
	assert_int_equal(s.n, 4);
	assert_near(s.mean, 2.5);
	assert_near(s.max, 4.0);
}

/* ---- the median's interval (order statistics) -------------------------- */

/* Coverage of [X(k), X(n+1-k)] is 1 - 2 P(B <= k-1), B ~ Bin(n, 1/2);
 * k is the largest rank with coverage >= 95 %.  Worked by hand:
 *   n = 5:  P(B <= 0) = 1/32 = 0.03125 > 0.025: no 95 % interval
 *   n = 6:  P(B <= 0) = 1/64 <= 0.025; P(B <= 1) = 7/64 > 0.025: k = 1,
 *           coverage 1 - 2/64 = 0.96875
 *   n = 9:  P(B <= 1) = 10/512 <= 0.025 < P(B <= 2) = 46/512: k = 2,
 *           coverage 1 - 20/512 = 0.9609375, [X(2), X(8)]
 *   n = 10: P(B <= 1) = 11/1024 <= 0.025 < 56/1024: k = 2,
 *           coverage 1 - 22/1024 = 0.978515625, [X(2), X(9)]
 *   n = 100: k = 40, [X(40), X(61)], coverage 0.9647997997822951 (exact
 *           sum of C(100, i) / 2^100 in Python's fractions; the textbook
 *           table gives the same ranks). */
static void test_median_ci_too_few_values(void **state)
{
	static const double v[] = { 1, 2, 3, 4, 5 };
	st_median_ci ci;

	(void)state;
	st_stats_median_ci(v, 5, 0.95, &ci);
	assert_near(ci.median, 3.0);
	assert_int_equal(ci.k, 0);
	assert_nan(ci.lo);
	assert_nan(ci.hi);
	assert_nan(ci.level);
	st_stats_median_ci(NULL, 0, 0.95, &ci);
	assert_nan(ci.median);
	assert_int_equal(ci.k, 0);
}

static void test_median_ci_smallest_n(void **state)
{
	static const double v[] = { 10, 11, 12, 13, 14, 90 };
	st_median_ci ci;

	(void)state;
	st_stats_median_ci(v, 6, 0.95, &ci);
	assert_int_equal(ci.k, 1);
	assert_near(ci.median, 12.5);
	assert_near(ci.lo, 10.0);
	assert_near(ci.hi, 90.0);
	assert_near(ci.level, 0.96875);
}

static void test_median_ci_nine_and_ten(void **state)
{
	static const double v9[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const double v10[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	st_median_ci ci;

	(void)state;
	st_stats_median_ci(v9, 9, 0.95, &ci);
	assert_int_equal(ci.k, 2);
	assert_near(ci.lo, 2.0);
	assert_near(ci.hi, 8.0);
	assert_near(ci.level, 0.9609375);
	st_stats_median_ci(v10, 10, 0.95, &ci);
	assert_int_equal(ci.k, 2);
	assert_near(ci.lo, 2.0);
	assert_near(ci.hi, 9.0);
	assert_near(ci.level, 0.978515625);
}

static void test_median_ci_hundred(void **state)
{
	double v[100];
	st_median_ci ci;

	(void)state;
	for (int i = 0; i < 100; i++)
		v[i] = i + 1;          /* X(r) = r */
	st_stats_median_ci(v, 100, 0.95, &ci);
	assert_int_equal(ci.k, 40);
	assert_near(ci.lo, 40.0);
	assert_near(ci.hi, 61.0);
	if (fabs(ci.level - 0.9647997997822951) > 1e-9)
		fail_msg("level %.17g", ci.level);
}

/* Whole-second values that mostly tie (the paper's 128x128 streaming):
 * the interval collapses to the tied value, and the IQR rule, with an IQR
 * of 0, calls every other value an outlier: st_robust_misleads. */
static void test_median_ci_ties_iqr_zero(void **state)
{
	static const double v[] = { 4, 4, 5, 4, 3, 4, 4, 4, 4, 4 };
	st_robust r;

	(void)state;
	assert_int_equal(st_stats_robust(v, N(v), &r), 0);
	assert_int_equal(r.n, 10);
	/* sorted 3 4 4 4 4 4 4 4 4 5: q25 = q75 = 4 */
	assert_near(r.iqr, 0.0);
	assert_int_equal(r.dropped, 2);
	assert_int_equal(r.ci.k, 2);
	assert_near(r.ci.lo, 4.0);
	assert_near(r.ci.hi, 4.0);
	assert_near(r.ci.median, 4.0);
	assert_nan(r.resolution);
	assert_nan(r.clock_bound);
	assert_true(st_robust_misleads(&r));
}

/* The rule drops more than 10 %: misleads; 10 % exactly or less: not. */
static void test_robust_misleads_share(void **state)
{
	/* sorted 1..9, 100: q25 = 3.25, q75 = 7.75, IQR 4.5, hi 14.5: 100
	 * dropped, 1 of 10 = 10 %: not more than 10 % */
	static const double ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 };
	/* 1..8, 100, 200: q25 = 3.25, q75 = 7.75, IQR 4.5, hi 14.5: two
	 * dropped, 20 % */
	static const double two[] = { 1, 2, 3, 4, 5, 6, 7, 8, 100, 200 };
	st_robust r;

	(void)state;
	assert_int_equal(st_stats_robust(ten, N(ten), &r), 0);
	assert_int_equal(r.dropped, 1);
	assert_false(st_robust_misleads(&r));
	assert_int_equal(st_stats_robust(two, N(two), &r), 0);
	assert_int_equal(r.dropped, 2);
	assert_true(st_robust_misleads(&r));
	assert_int_equal(st_stats_robust(NULL, 0, &r), 0);
	assert_false(st_robust_misleads(&r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantile_four_values),
		cmocka_unit_test(test_quantile_odd_count_hits_elements),
		cmocka_unit_test(test_quantile_empty_and_single),
		cmocka_unit_test(test_summarize_classic_std_uses_n_minus_1),
		cmocka_unit_test(test_summarize_unsorted_input_not_modified),
		cmocka_unit_test(test_summarize_empty_gives_nan),
		cmocka_unit_test(test_summarize_single_value_std_nan),
		cmocka_unit_test(test_summarize_two_values),
		cmocka_unit_test(test_summarize_large_mean_no_cancellation),
		cmocka_unit_test(test_summary_finite_catches_overflowing_sums),
		cmocka_unit_test(test_outliers_iqr_rule),
		cmocka_unit_test(test_outliers_keep_input_order),
		cmocka_unit_test(test_outliers_low_side),
		cmocka_unit_test(test_outliers_zero_iqr_removes_anything_different),
		cmocka_unit_test(test_outliers_boundary_values_kept),
		cmocka_unit_test(test_outliers_interpolated_quartiles),
		cmocka_unit_test(test_outliers_in_place),
		cmocka_unit_test(test_outliers_empty),
		cmocka_unit_test(test_outliers_then_summary),
		cmocka_unit_test(test_median_ci_too_few_values),
		cmocka_unit_test(test_median_ci_smallest_n),
		cmocka_unit_test(test_median_ci_nine_and_ten),
		cmocka_unit_test(test_median_ci_hundred),
		cmocka_unit_test(test_median_ci_ties_iqr_zero),
		cmocka_unit_test(test_robust_misleads_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
