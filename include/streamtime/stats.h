/* stats.h - the descriptive statistics of SPEC section 5.7.
 *
 * Quantiles interpolate linearly at position (n-1)p of the sorted values (the
 * pandas/NumPy default); the standard deviation uses n-1; outliers are the
 * values outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR], IQR computed before removal.
 */
#ifndef STREAMTIME_STATS_H
#define STREAMTIME_STATS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct st_summary {
	size_t n;
	double mean, median, std, min, max, q25, q75;
} st_summary;

/* Quantile P (0..1) of the N ascending values SORTED.  NaN when N is 0. */
double st_stats_quantile_sorted(const double *sorted, size_t n, double p);

/* Summarise the N values V (any order, not modified).  With N 0 every field
 * but n is NaN; with N 1 std is NaN, as in pandas.  Returns 0, or -1 when
 * memory runs out. */
int st_stats_summarize(const double *v, size_t n, st_summary *out);

/* Is every statistic S defines finite?  All but n need n >= 1, std needs
 * n >= 2; the undefined ones are NaN by design and are not looked at.  Finite
 * values can still add up to infinity (1e308 + 1e308), and a difference of
 * two of them too (1e308 - -1e308): the callers refuse such a summary. */
bool st_summary_finite(const st_summary *s);

/* Copy to OUT (room for N) the values of V that are not outliers, keeping
 * their order.  Returns how many were kept, or (size_t)-1 when memory runs
 * out.  OUT may equal V. */
size_t st_stats_remove_outliers(const double *v, size_t n, double *out);

/* A distribution-free interval of the median from order statistics: with
 * the N values sorted, [X(k), X(n+1-k)] (1-based ranks) holds the true
 * median with probability 1 - 2 P(B <= k-1), B ~ Binomial(N, 1/2), whatever
 * the distribution (ties included: the interval is then only wider).  K is
 * the largest rank whose coverage is at least the level asked for; the
 * coverage is exact, so it is reported (LEVEL), not just the level asked. */
typedef struct st_median_ci {
	double median;          /* as st_summary's; NaN when N is 0 */
	double lo, hi;          /* NaN when N is too small for the level */
	double level;           /* exact coverage of [lo, hi]; NaN then too */
	size_t k;               /* rank of lo (1-based); 0 when none */
} st_median_ci;

/* The interval of the median of the N ascending values SORTED at coverage
 * at least CONF (0 < CONF < 1; 0.95 for the report).  For 0.95 the
 * smallest N is 6 ([X(1), X(6)], 96.9 %). */
void st_stats_median_ci(const double *sorted, size_t n, double conf,
			st_median_ci *out);

/* What a group's numbers can and cannot say, next to the paper's mean and
 * standard deviation: the median with its 95 % interval, what the IQR rule
 * drops, and how fine the inputs are. */
typedef struct st_robust {
	size_t n;               /* values */
	size_t dropped;         /* of them, outliers by the IQR rule */
	double iqr;             /* Q3 - Q1 of all N; NaN when N is 0 */
	st_median_ci ci;        /* conf 0.95 */
	st_median_ci ci975;     /* conf 0.975: two of them bound a ratio of
				 * medians at 95 % (Bonferroni) */
	double resolution;      /* s, the step of the inputs; NaN unknown */
	double clock_bound;     /* s, the largest clock-offset bound; NaN
				 * when the clocks were not measured */
} st_robust;

/* Fill OUT from the N values V (any order, not modified); resolution and
 * clock_bound are NaN, for the caller to set.  0, or -1 when memory runs
 * out. */
int st_stats_robust(const double *v, size_t n, st_robust *out);

/* Does the IQR rule mislead on R: an IQR of 0 (whole-second values that
 * mostly tie, so every other value is an "outlier"), or more than 10 % of
 * the values dropped? */
bool st_robust_misleads(const st_robust *r);

#endif
