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

#endif
