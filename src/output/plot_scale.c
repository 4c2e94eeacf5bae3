/* plot_scale.c - an axes' data limits and its ticks (numbers, dates):
 * the bottom of the plot layer, below plot_draw.c and plot.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "streamtime/time.h"
#include "plot_int.h"

/* ---- ticks (plot.h) ---------------------------------------------------- */

double st_plot_nice_step(double span, int target)
{
	double raw, mag, norm;

	if (!(span > 0) || !isfinite(span) || target < 1)
		return 1.0;
	raw = span / target;
	mag = pow(10.0, floor(log10(raw)));
	norm = raw / mag;
	if (norm < 1.5)
		return mag;
	if (norm < 3.0)
		return 2.0 * mag;
	if (norm < 7.0)
		return 5.0 * mag;
	return 10.0 * mag;
}

size_t st_plot_ticks(double lo, double hi, double step, double *out,
		     size_t max)
{
	double k, last;
	size_t n = 0;

	if (!(step > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo)
		return 0;
	k = ceil(lo / step - 1e-9);
	last = floor(hi / step + 1e-9);
	for (; k <= last && n < 100000; k += 1.0) {
		double v = k * step;

		if (out && n < max)
			out[n] = v == 0 ? 0.0 : v;    /* no "-0" */
		n++;
	}
	return n;
}

struct bounds {
	double x0, x1, y0, y1;
	bool any, pad_x, pad_y, zero_y;
};

static void grow(struct bounds *b, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return;
	if (!b->any) {
		b->x0 = b->x1 = x;
		b->y0 = b->y1 = y;
		b->any = true;
		return;
	}
	b->x0 = fmin(b->x0, x);
	b->x1 = fmax(b->x1, x);
	b->y0 = fmin(b->y0, y);
	b->y1 = fmax(b->y1, y);
}

/* The extent of AX's data, and how each side should be padded. */
static struct bounds data_bounds(const st_plot_axes *ax)
{
	struct bounds b = { 0 };

	for (size_t i = 0; i < ax->ns; i++) {
		const struct series *s = &ax->s[i];

		switch (s->kind) {
		case K_HIST:
			for (size_t j = 0; j < s->n; j++)
				if (s->b[j] > 0) {
					grow(&b, s->a[j], 0);
					grow(&b, s->a[j + 1], s->b[j]);
				}
			b.pad_y = b.zero_y = true;
			break;
		case K_POINTS:
		case K_LINE:
			for (size_t j = 0; j < s->n; j++)
				grow(&b, s->a[j], s->b[j]);
			b.pad_x = b.pad_y = true;
			break;
		case K_HBARS:
			for (size_t j = 0; j < s->n; j++) {
				grow(&b, s->a[j], s->c[j] - s->size / 2);
				grow(&b, s->b[j], s->c[j] + s->size / 2);
			}
			b.pad_x = true;
			break;
		case K_BOX:
			if (s->box.n == 0)
				break;
			grow(&b, s->x - s->size / 2, s->box.whisker_lo);
			grow(&b, s->x + s->size / 2, s->box.whisker_hi);
			for (size_t j = 0; j < s->n; j++)
				grow(&b, s->x, s->a[j]);
			b.pad_x = b.pad_y = true;
			break;
		case K_VSPAN:
			break;
		}
	}
	return b;
}

/* Widen [*LO, *HI] by FRAC of its span on each side (a point becomes a unit
 * interval). */
static void pad(double *lo, double *hi, double frac, bool keep_lo)
{
	double span = *hi - *lo;

	if (!(span > 0)) {
		double d = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 0.5;

		if (!keep_lo)
			*lo -= d;
		*hi += d;
		return;
	}
	if (!keep_lo)
		*lo -= span * frac;
	*hi += span * frac;
}

/* The data limits of AX (fixed, or fitted to its data). */
void plot_limits(const st_plot_axes *ax, struct frame *f)
{
	struct bounds b = data_bounds(ax);

	f->has_data = b.any;
	f->out_of_range = false;
	if (!b.any) {
		b.x0 = b.y0 = 0;
		b.x1 = b.y1 = 1;
	} else {
		if (b.zero_y && b.y0 > 0)
			b.y0 = 0;
		if (b.pad_x || !(b.x1 > b.x0))
			pad(&b.x0, &b.x1, 0.03, false);
		if (b.pad_y || !(b.y1 > b.y0))
			pad(&b.y0, &b.y1, 0.05, b.zero_y && b.y0 == 0);
	}
	if (ax->ncats && !ax->has_xlim) {
		b.x0 = -0.5;
		b.x1 = (double)ax->ncats - 0.5;
	}
	if (ax->nycats && !ax->has_ylim) {
		b.y0 = -0.5;
		b.y1 = (double)ax->nycats - 0.5;
	}
	f->xlo = ax->has_xlim ? ax->xlo : b.x0;
	f->xhi = ax->has_xlim ? ax->xhi : b.x1;
	f->ylo = ax->has_ylim ? ax->ylo : b.y0;
	f->yhi = ax->has_ylim ? ax->yhi : b.y1;
	f->yinvert = ax->yinvert;
	/* values near the ends of the double range (a broken input) give
	 * spans that are infinite or too wide to map onto points: the axes
	 * are drawn empty, saying so, instead of failing the figure */
	if (!(isfinite(f->xhi - f->xlo) && isfinite(f->yhi - f->ylo) &&
	      f->xhi - f->xlo < 1e15 && f->yhi - f->ylo < 1e15)) {
		f->out_of_range = f->has_data;
		f->has_data = false;
		f->xlo = f->ylo = 0;
		f->xhi = f->yhi = 1;
	}
}

/* Decimals needed to print multiples of STEP. */
static int step_decimals(double step)
{
	int d = 0;

	while (d < 9 && fabs(step * pow(10, d) - round(step * pow(10, d))) >
	       1e-6 * step * pow(10, d))
		d++;
	return d;
}

/* Numeric ticks of [LO, HI] for an axis LEN points long, about one per
 * SPACING points. */
size_t plot_numeric_ticks(double lo, double hi, double len, double spacing,
			    bool integer, struct tick *t)
{
	int target = (int)(len / spacing);
	double v[MAX_TICKS], step;
	size_t n;
	int d;

	if (target < 2)
		target = 2;
	step = st_plot_nice_step(hi - lo, target);
	if (integer && step < 1)
		step = 1;
	while (st_plot_ticks(lo, hi, step, NULL, 0) > MAX_TICKS)
		step *= 2;
	/* one tick gives no scale (an inset of 85-115 with a step of 20):
	 * the next finer nice step, 10 for 20, 5 for 10, 2 for 5 */
	while (st_plot_ticks(lo, hi, step, NULL, 0) < 2 &&
	       !(integer && step <= 1)) {
		double finer = st_plot_nice_step(step, 2);

		if (!(finer < step) || !(finer > 0))
			break;
		step = finer;
	}
	n = st_plot_ticks(lo, hi, step, v, MAX_TICKS);
	d = step_decimals(step);
	for (size_t i = 0; i < n; i++) {
		t[i].v = v[i];
		snprintf(t[i].text, sizeof(t[i].text), "%.*f", d, v[i]);
	}
	return n;
}

/* 10^V as a short label: 1, 20, 500, 1k, 2.5M, ... (SI prefixes). */
static void pow10_label(double v, char *buf, size_t size)
{
	static const char *const pre[] = { "", "k", "M", "G", "T", "P", "E" };
	double x = pow(10.0, v);
	int k = 0;

	if (x < 1) {
		snprintf(buf, size, "%.3g", x);
		return;
	}
	while (x >= 999.5 && k < 6) {
		x /= 1000;
		k++;
	}
	snprintf(buf, size, "%.3g%s", x, pre[k]);
}

size_t plot_log10_ticks(double lo, double hi, double len, double spacing,
			struct tick *t)
{
	static const double m125[] = { 1, 2, 5 };
	double step = 1;
	size_t n = 0;

	while (st_plot_ticks(lo, hi, step, NULL, 0) > (size_t)fmax(2, len /
	       spacing) + 1 && step < 64)
		step *= 2;
	if (st_plot_ticks(lo, hi, step, NULL, 0) >= 2) {
		double v[MAX_TICKS];

		n = st_plot_ticks(lo, hi, step, v, MAX_TICKS);
		for (size_t i = 0; i < n && i < MAX_TICKS; i++) {
			t[i].v = v[i];
			pow10_label(v[i], t[i].text, sizeof(t[i].text));
		}
		return n < MAX_TICKS ? n : MAX_TICKS;
	}
	/* within a decade or two: 1, 2 and 5 times the powers of ten */
	for (double k = floor(lo) - 1; k <= ceil(hi) && n < MAX_TICKS; k++)
		for (size_t i = 0; i < 3 && n < MAX_TICKS; i++) {
			double v = k + log10(m125[i]);

			if (v < lo - 1e-9 || v > hi + 1e-9)
				continue;
			t[n].v = v;
			pow10_label(v, t[n].text, sizeof(t[n].text));
			n++;
		}
	if (n >= 2)
		return n;
	n = plot_numeric_ticks(lo, hi, len, spacing, false, t);
	for (size_t i = 0; i < n; i++)
		pow10_label(t[i].v, t[i].text, sizeof(t[i].text));
	return n;
}

/* Date ticks of [LO, HI] (wall-clock seconds): the finest of hours, days,
 * months and years that gives at most TARGET ticks. */
size_t plot_date_ticks(double lo, double hi, int target, struct tick *t)
{
	static const struct { int hours, days, months; } steps[] = {
		{ 1, 0, 0 }, { 2, 0, 0 }, { 3, 0, 0 }, { 6, 0, 0 }, { 12, 0, 0 },
		{ 0, 1, 0 }, { 0, 2, 0 }, { 0, 7, 0 }, { 0, 14, 0 },
		{ 0, 0, 1 }, { 0, 0, 2 }, { 0, 0, 3 }, { 0, 0, 6 },
		{ 0, 0, 12 }, { 0, 0, 24 }, { 0, 0, 60 }, { 0, 0, 120 },
	};
	size_t n = 0;

	if (target < 2)
		target = 2;
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		n = 0;
		if (steps[k].months == 0) {
			double step = steps[k].hours ? steps[k].hours * 3600.0
						     : steps[k].days * 86400.0;
			size_t c = st_plot_ticks(lo, hi, step, NULL, 0);

			if (c > (size_t)target && k + 1 < sizeof(steps) / sizeof(steps[0]))
				continue;
			for (double v = ceil(lo / step) * step; v <= hi && n < MAX_TICKS;
			     v += step) {
				int64_t y;
				unsigned m, d;
				int64_t day = (int64_t)floor(v / 86400.0);

				st_civil_from_days(day, &y, &m, &d);
				t[n].v = v;
				if (steps[k].hours)
					snprintf(t[n].text, sizeof(t[n].text),
						 "%02u-%02u %02d:00", m, d,
						 (int)((v - (double)day * 86400.0) / 3600.0));
				else
					snprintf(t[n].text, sizeof(t[n].text),
						 "%04lld-%02u-%02u", (long long)y, m, d);
				n++;
			}
		} else {
			int64_t y0, y1, mk = steps[k].months;
			unsigned m0, m1, d0, d1;
			int64_t first, last;

			st_civil_from_days((int64_t)floor(lo / 86400.0), &y0, &m0, &d0);
			st_civil_from_days((int64_t)floor(hi / 86400.0), &y1, &m1, &d1);
			first = y0 * 12 + (int64_t)m0 - 1;
			last = y1 * 12 + (int64_t)m1 - 1;
			first = (first + mk - 1) / mk * mk;
			if ((last - first) / mk + 1 > target &&
			    k + 1 < sizeof(steps) / sizeof(steps[0]))
				continue;
			for (int64_t mi = first; mi <= last && n < MAX_TICKS; mi += mk) {
				double v = (double)st_days_from_civil(mi / 12,
					(unsigned)(mi % 12) + 1, 1) * 86400.0;

				if (v < lo || v > hi)
					continue;
				t[n].v = v;
				if (mk % 12 == 0)
					snprintf(t[n].text, sizeof(t[n].text), "%lld",
						 (long long)(mi / 12));
				else
					snprintf(t[n].text, sizeof(t[n].text),
						 "%04lld-%02d", (long long)(mi / 12),
						 (int)(mi % 12) + 1);
				n++;
			}
		}
		return n;
	}
	return n;
}


size_t plot_clock_ticks(double lo, double hi, int target, struct tick *t)
{
	static const double steps[] = {
		0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900,
		1800, 3600, 7200, 10800, 21600, 43200, 86400,
	};
	size_t nsteps = sizeof(steps) / sizeof(steps[0]), k = 0, n;
	double v[MAX_TICKS];

	if (target < 2)
		target = 2;
	while (k + 1 < nsteps &&
	       st_plot_ticks(lo, hi, steps[k], NULL, 0) > (size_t)target)
		k++;
	/* days or more: dates say more than times of day */
	if (st_plot_ticks(lo, hi, steps[k], NULL, 0) > (size_t)target)
		return plot_date_ticks(lo, hi, target, t);
	n = st_plot_ticks(lo, hi, steps[k], v, MAX_TICKS);
	if (n > MAX_TICKS)
		n = MAX_TICKS;
	for (size_t i = 0; i < n; i++) {
		/* tenths of a second of the day, rounded once */
		int64_t ds = (int64_t)llround(v[i] * 10.0) % 864000;

		if (ds < 0)
			ds += 864000;
		t[i].v = v[i];
		if (steps[k] < 1)
			snprintf(t[i].text, sizeof(t[i].text),
				 "%02d:%02d:%02d.%d", (int)(ds / 36000),
				 (int)(ds / 600 % 60), (int)(ds / 10 % 60),
				 (int)(ds % 10));
		else
			snprintf(t[i].text, sizeof(t[i].text), "%02d:%02d:%02d",
				 (int)(ds / 36000), (int)(ds / 600 % 60),
				 (int)(ds / 10 % 60));
	}
	return n;
}
