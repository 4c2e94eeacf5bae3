/* test_png.c - PNG encoding of RGB24 pixels (output/png.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "streamtime/png.h"

enum { W = 37, H = 23, STRIDE = W * 4 + 12 };

static uint32_t pixel(int x, int y)
{
	/* flat runs, a gradient and a few odd pixels */
	if (y < 5)
		return 0x00ffffff;
	if (x == y)
		return 0x00123456;
	return (uint32_t)((x * 7) << 16 | (y * 11) << 8 | ((x + y) & 0xff));
}

/* Pixels, size, pHYs and the chunk layout (one IDAT, Up filter on every
 * row) read back. */
static void test_png_roundtrip(void **state)
{
	unsigned char *data = calloc(H, STRIDE), *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream((char **)&buf, &len);
	png_image img;
	unsigned char *out;
	st_error err;
	int idat = 0;

	(void)state;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			uint32_t v = pixel(x, y);

			memcpy(data + (size_t)y * STRIDE + 4 * (size_t)x, &v, 4);
		}
	assert_int_equal(st_png_write_rgb24(f, data, W, H, STRIDE, 144.0, &err),
			 0);
	fclose(f);
	/* chunks */
	assert_memory_equal(buf, "\x89PNG\r\n\x1a\n", 8);
	for (size_t i = 8; i + 8 <= len;) {
		uint32_t n = (uint32_t)buf[i] << 24 | (uint32_t)buf[i + 1] << 16 |
			     (uint32_t)buf[i + 2] << 8 | buf[i + 3];

		if (memcmp(buf + i + 4, "IHDR", 4) == 0)
			assert_int_equal(buf[i + 8 + 12], 0);  /* interlace */
		if (memcmp(buf + i + 4, "pHYs", 4) == 0)
			assert_int_equal((uint32_t)buf[i + 8] << 24 |
					 (uint32_t)buf[i + 9] << 16 |
					 (uint32_t)buf[i + 10] << 8 |
					 buf[i + 11], 5669);   /* 144 dpi */
		if (memcmp(buf + i + 4, "IDAT", 4) == 0)
			idat++;
		i += 12 + n;
	}
	assert_int_equal(idat, 1);
	/* pixels */
	memset(&img, 0, sizeof(img));
	img.version = PNG_IMAGE_VERSION;
	assert_true(png_image_begin_read_from_memory(&img, buf, len));
	assert_int_equal(img.width, W);
	assert_int_equal(img.height, H);
	img.format = PNG_FORMAT_RGB;
	out = malloc(PNG_IMAGE_SIZE(img));
	assert_true(png_image_finish_read(&img, NULL, out, 0, NULL));
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			const unsigned char *p = out + 3 * ((size_t)y * W + x);
			uint32_t v = pixel(x, y);

			assert_int_equal(p[0], (v >> 16) & 0xff);
			assert_int_equal(p[1], (v >> 8) & 0xff);
			assert_int_equal(p[2], v & 0xff);
		}
	free(out);
	free(buf);
	free(data);
}

/* A full disk: -1, 74, and libpng's reason. */
static void test_png_write_error(void **state)
{
	enum { BW = 400, BH = 400 };
	unsigned char *data = malloc((size_t)BW * BH * 4);
	FILE *f = fopen("/dev/full", "w");
	st_error err;

	(void)state;
	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	for (size_t i = 0; i < (size_t)BW * BH * 4; i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	assert_int_equal(st_png_write_rgb24(f, data, BW, BH, BW * 4, 72.0,
					    &err), -1);
	assert_int_equal(err.code, 74);
	assert_non_null(strstr(err.text, "cannot write the PNG image"));
	fclose(f);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_png_roundtrip),
		cmocka_unit_test(test_png_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
