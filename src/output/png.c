/* png.c - PNG encoding through libpng (see png.h). */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <zlib.h>

#include "streamtime/png.h"

/* libpng's errors and warnings: the first error's text kept for the
 * caller, warnings (none expected at these settings) dropped. */
struct png_ctx {
	char msg[160];
};

static void on_error(png_structp p, png_const_charp msg)
{
	struct png_ctx *c = png_get_error_ptr(p);

	snprintf(c->msg, sizeof(c->msg), "%s", msg);
	png_longjmp(p, 1);
}

static void on_warning(png_structp p, png_const_charp msg)
{
	(void)p;
	(void)msg;
}

/* The settings, header and pixels; longjmps to the caller's setjmp on an
 * error.  The compression buffer holds the whole zlib stream (deflate's
 * bound of the filtered rows), so the image data is one IDAT chunk, as
 * it was from the encoder this replaced.  RGB holds a row of 3 * W bytes. */
static void encode(png_structp p, png_infop info, FILE *f,
		   const unsigned char *data, int w, int h, int stride,
		   double dpi, unsigned char *rgb)
{
	size_t raw = (1 + 3 * (size_t)w) * (size_t)h;
	png_uint_32 ppm = (png_uint_32)lround(dpi / 0.0254);
	size_t zbuf = raw + raw / 1000 + 64;

	png_init_io(p, f);
	if (zbuf > PNG_UINT_31_MAX)
		zbuf = PNG_UINT_31_MAX;
	png_set_compression_buffer_size(p, zbuf);
	png_set_compression_level(p, 1);
	png_set_compression_strategy(p, Z_RLE);
	png_set_compression_mem_level(p, 8);
	png_set_compression_window_bits(p, 15);
	png_set_filter(p, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
	png_set_IHDR(p, info, (png_uint_32)w, (png_uint_32)h, 8,
		     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_pHYs(p, info, ppm, ppm, PNG_RESOLUTION_METER);
	png_write_info(p, info);
	for (int y = 0; y < h; y++) {
		const uint32_t *px = (const uint32_t *)(const void *)
				     (data + (size_t)y * (size_t)stride);

		/* a native 0x00RRGGBB to R, G, B: one tight pass, cheaper
		 * than libpng's filler and BGR transforms */
		for (int x = 0; x < w; x++) {
			rgb[3 * x] = (unsigned char)(px[x] >> 16);
			rgb[3 * x + 1] = (unsigned char)(px[x] >> 8);
			rgb[3 * x + 2] = (unsigned char)px[x];
		}
		png_write_row(p, rgb);
	}
	png_write_end(p, info);
}

int st_png_write_rgb24(FILE *f, const unsigned char *data, int w, int h,
		       int stride, double dpi, st_error *err)
{
	struct png_ctx c = { "" };
	png_structp p;
	png_infop info = NULL;
	unsigned char *volatile rgb = malloc(3 * (size_t)w + 1);

	p = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, on_error,
				    on_warning);
	if (!rgb || !p || !(info = png_create_info_struct(p))) {
		png_destroy_write_struct(&p, NULL);
		free(rgb);
		return st_error_set(err, ST_EXIT_IOERR, "cannot write the PNG "
				    "image: out of memory");
	}
	if (setjmp(png_jmpbuf(p))) {
		png_destroy_write_struct(&p, &info);
		free(rgb);
		return st_error_set(err, ST_EXIT_IOERR, "cannot write the PNG "
				    "image: %s", c.msg[0] ? c.msg : "libpng");
	}
	encode(p, info, f, data, w, h, stride, dpi, rgb);
	png_destroy_write_struct(&p, &info);
	free(rgb);
	return 0;
}
