/* stats.c - descriptive statistics with pandas' conventions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/num.h"
#include "streamtime/stats.h"

double st_stats_quantile_sorted(const double *sorted, size_t n, double p)
{
	double pos, frac;
	size_t lo;

	if (n == 0)
		return NAN;
	pos = (double)(n - 1) * p;
	lo = (size_t)floor(pos);
	if (lo >= n - 1)
		return sorted[n - 1];
	frac = pos - (double)lo;
	return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac;
}

/* The N (> 0) values V sorted ascending, in a new array; NULL when memory
 * runs out. */
static double *sorted_copy(const double *v, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (s) {
		memcpy(s, v, n * sizeof(*s));
		qsort(s, n, sizeof(*s), st_cmp_double);
	}
	return s;
}

int st_stats_summarize(const double *v, size_t n, st_summary *out)
{
	double *s, sum = 0, ss = 0, mean;

	out->n = n;
	if (n == 0) {
		out->mean = out->median = out->std = out->min = out->max = NAN;
		out->q25 = out->q75 = NAN;
		return 0;
	}
	s = sorted_copy(v, n);
	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	mean = sum / (double)n;
	/* two-pass variance: no cancellation on large means */
	for (size_t i = 0; i < n; i++)
		ss += (s[i] - mean) * (s[i] - mean);
	out->mean = mean;
	out->std = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = st_stats_quantile_sorted(s, n, 0.5);
	out->q25 = st_stats_quantile_sorted(s, n, 0.25);
	out->q75 = st_stats_quantile_sorted(s, n, 0.75);
	free(s);
	return 0;
}

bool st_summary_finite(const st_summary *s)
{
	if (s->n == 0)
		return true;
	if (s->n > 1 && !isfinite(s->std))
		return false;
	return isfinite(s->mean) && isfinite(s->median) && isfinite(s->min) &&
	       isfinite(s->max) && isfinite(s->q25) && isfinite(s->q75);
}

size_t st_stats_remove_outliers(const double *v, size_t n, double *out)
{
	double *s, q1, q3, iqr, lo, hi;
	size_t k = 0;

	if (n == 0)
		return 0;
	s = sorted_copy(v, n);
	if (!s)
		return (size_t)-1;
	q1 = st_stats_quantile_sorted(s, n, 0.25);
	q3 = st_stats_quantile_sorted(s, n, 0.75);
	free(s);
	iqr = q3 - q1;
	lo = q1 - 1.5 * iqr;
	hi = q3 + 1.5 * iqr;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] < lo) && !(v[i] > hi))
			out[k++] = v[i];
	return k;
}

void st_stats_median_ci(const double *sorted, size_t n, double conf,
			st_median_ci *out)
{
	double tail = (1.0 - conf) / 2.0, cdf = 0, lnorm;

	out->median = st_stats_quantile_sorted(sorted, n, 0.5);
	out->lo = out->hi = out->level = NAN;
	out->k = 0;
	if (n == 0)
		return;
	/* P(B <= i) summed in logs: exact enough for any n an array holds */
	lnorm = lgamma((double)n + 1.0) - (double)n * log(2.0);
	for (size_t i = 0; i < (n + 1) / 2; i++) {
		double p = exp(lnorm - lgamma((double)i + 1.0) -
			       lgamma((double)(n - i) + 1.0));

		if (cdf + p > tail * (1.0 + 1e-12))
			break;
		cdf += p;
		out->k = i + 1;
		out->level = 1.0 - 2.0 * cdf;
	}
	if (out->k) {
		out->lo = sorted[out->k - 1];
		out->hi = sorted[n - out->k];
	}
}

int st_stats_robust(const double *v, size_t n, st_robust *out)
{
	double *s;
	size_t k;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->resolution = out->clock_bound = NAN;
	out->iqr = NAN;
	st_stats_median_ci(NULL, 0, 0.95, &out->ci);
	st_stats_median_ci(NULL, 0, 0.975, &out->ci975);
	if (n == 0)
		return 0;
	s = sorted_copy(v, n);
	if (!s)
		return -1;
	out->iqr = st_stats_quantile_sorted(s, n, 0.75) -
		   st_stats_quantile_sorted(s, n, 0.25);
	st_stats_median_ci(s, n, 0.95, &out->ci);
	st_stats_median_ci(s, n, 0.975, &out->ci975);
	k = st_stats_remove_outliers(s, n, s);
	free(s);
	if (k == (size_t)-1)
		return -1;
	out->dropped = n - k;
	return 0;
}

bool st_robust_misleads(const st_robust *r)
{
	return r->n > 0 && (r->iqr == 0 || r->dropped * 10 > r->n);
}
