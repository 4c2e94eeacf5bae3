/* png.h - PNG files of cairo image surfaces, with libpng at settings for
 * plots: zlib's fastest level with its run-length strategy (Z_RLE) and
 * the Up filter on every row.  A plot is mostly flat colour, so a pixel
 * equal to the one above becomes zeros and these settings pack about as
 * well as zlib's default level in a fraction of the time (libpng at its
 * defaults spends about 120 ms on one 1600 x 1000 figure).
 */
#ifndef STREAMTIME_PNG_H
#define STREAMTIME_PNG_H

#include <stdio.h>

#include "streamtime/error.h"

/* Write the W x H pixels at DATA (cairo's CAIRO_FORMAT_RGB24: a native
 * 32-bit 0x00RRGGBB per pixel, rows STRIDE bytes apart) to F as an 8-bit
 * RGB PNG with a pHYs chunk of DPI.  0, or -1 with ERR set (74). */
int st_png_write_rgb24(FILE *f, const unsigned char *data, int w, int h,
		       int stride, double dpi, st_error *err);

#endif
