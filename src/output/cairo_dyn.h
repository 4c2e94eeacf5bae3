/* cairo_dyn.h - cairo, loaded when a figure is first drawn
 * (st_plot_write; dynlib.h).  Include it instead of <cairo.h>,
 * <cairo-pdf.h> and <cairo-svg.h>, and call st_cairo_load before the
 * first cairo call, which then goes through a pointer.  A function not
 * listed here is not linked: the build fails at it.
 */
#ifndef STREAMTIME_CAIRO_DYN_H
#define STREAMTIME_CAIRO_DYN_H

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "streamtime/dynlib.h"

#define ST_CAIRO_FNS(X) \
	X(cairo_arc) X(cairo_clip) X(cairo_close_path) X(cairo_create) \
	X(cairo_destroy) X(cairo_fill) X(cairo_fill_preserve) \
	X(cairo_font_extents) X(cairo_font_options_create) \
	X(cairo_font_options_destroy) X(cairo_font_options_set_hint_metrics) \
	X(cairo_get_target) X(cairo_get_user_data) \
	X(cairo_image_surface_create) X(cairo_image_surface_get_data) \
	X(cairo_image_surface_get_height) X(cairo_image_surface_get_stride) \
	X(cairo_image_surface_get_width) X(cairo_line_to) X(cairo_move_to) \
	X(cairo_new_sub_path) X(cairo_paint) \
	X(cairo_pdf_surface_create_for_stream) \
	X(cairo_pdf_surface_set_metadata) X(cairo_rectangle) X(cairo_restore) \
	X(cairo_rotate) X(cairo_save) X(cairo_scale) \
	X(cairo_select_font_face) X(cairo_set_font_options) \
	X(cairo_set_font_size) X(cairo_set_line_cap) X(cairo_set_line_join) \
	X(cairo_set_line_width) X(cairo_set_source_rgb) \
	X(cairo_set_source_rgba) X(cairo_set_source_surface) \
	X(cairo_set_user_data) X(cairo_show_text) X(cairo_status) \
	X(cairo_status_to_string) X(cairo_stroke) \
	X(cairo_surface_create_similar_image) X(cairo_surface_destroy) \
	X(cairo_surface_finish) X(cairo_surface_flush) \
	X(cairo_surface_get_type) X(cairo_surface_set_device_scale) \
	X(cairo_surface_status) X(cairo_svg_surface_create_for_stream) \
	X(cairo_svg_surface_restrict_to_version) X(cairo_text_extents) \
	X(cairo_translate) X(cairo_user_to_device) \
	X(cairo_user_to_device_distance)

ST_DYNLIB_DECLARE(st_cairo_fns, ST_CAIRO_FNS, st_cairo_load)

#define cairo_arc (st_cairo_fns.cairo_arc)
#define cairo_clip (st_cairo_fns.cairo_clip)
#define cairo_close_path (st_cairo_fns.cairo_close_path)
#define cairo_create (st_cairo_fns.cairo_create)
#define cairo_destroy (st_cairo_fns.cairo_destroy)
#define cairo_fill (st_cairo_fns.cairo_fill)
#define cairo_fill_preserve (st_cairo_fns.cairo_fill_preserve)
#define cairo_font_extents (st_cairo_fns.cairo_font_extents)
#define cairo_font_options_create (st_cairo_fns.cairo_font_options_create)
#define cairo_font_options_destroy (st_cairo_fns.cairo_font_options_destroy)
#define cairo_font_options_set_hint_metrics \
	(st_cairo_fns.cairo_font_options_set_hint_metrics)
#define cairo_get_target (st_cairo_fns.cairo_get_target)
#define cairo_get_user_data (st_cairo_fns.cairo_get_user_data)
#define cairo_image_surface_create (st_cairo_fns.cairo_image_surface_create)
#define cairo_image_surface_get_data (st_cairo_fns.cairo_image_surface_get_data)
#define cairo_image_surface_get_height \
	(st_cairo_fns.cairo_image_surface_get_height)
#define cairo_image_surface_get_stride \
	(st_cairo_fns.cairo_image_surface_get_stride)
#define cairo_image_surface_get_width \
	(st_cairo_fns.cairo_image_surface_get_width)
#define cairo_line_to (st_cairo_fns.cairo_line_to)
#define cairo_move_to (st_cairo_fns.cairo_move_to)
#define cairo_new_sub_path (st_cairo_fns.cairo_new_sub_path)
#define cairo_paint (st_cairo_fns.cairo_paint)
#define cairo_pdf_surface_create_for_stream \
	(st_cairo_fns.cairo_pdf_surface_create_for_stream)
#define cairo_pdf_surface_set_metadata \
	(st_cairo_fns.cairo_pdf_surface_set_metadata)
#define cairo_rectangle (st_cairo_fns.cairo_rectangle)
#define cairo_restore (st_cairo_fns.cairo_restore)
#define cairo_rotate (st_cairo_fns.cairo_rotate)
#define cairo_save (st_cairo_fns.cairo_save)
#define cairo_scale (st_cairo_fns.cairo_scale)
#define cairo_select_font_face (st_cairo_fns.cairo_select_font_face)
#define cairo_set_font_options (st_cairo_fns.cairo_set_font_options)
#define cairo_set_font_size (st_cairo_fns.cairo_set_font_size)
#define cairo_set_line_cap (st_cairo_fns.cairo_set_line_cap)
#define cairo_set_line_join (st_cairo_fns.cairo_set_line_join)
#define cairo_set_line_width (st_cairo_fns.cairo_set_line_width)
#define cairo_set_source_rgb (st_cairo_fns.cairo_set_source_rgb)
#define cairo_set_source_rgba (st_cairo_fns.cairo_set_source_rgba)
#define cairo_set_source_surface (st_cairo_fns.cairo_set_source_surface)
#define cairo_set_user_data (st_cairo_fns.cairo_set_user_data)
#define cairo_show_text (st_cairo_fns.cairo_show_text)
#define cairo_status (st_cairo_fns.cairo_status)
#define cairo_status_to_string (st_cairo_fns.cairo_status_to_string)
#define cairo_stroke (st_cairo_fns.cairo_stroke)
#define cairo_surface_create_similar_image \
	(st_cairo_fns.cairo_surface_create_similar_image)
#define cairo_surface_destroy (st_cairo_fns.cairo_surface_destroy)
#define cairo_surface_finish (st_cairo_fns.cairo_surface_finish)
#define cairo_surface_flush (st_cairo_fns.cairo_surface_flush)
#define cairo_surface_get_type (st_cairo_fns.cairo_surface_get_type)
#define cairo_surface_set_device_scale \
	(st_cairo_fns.cairo_surface_set_device_scale)
#define cairo_surface_status (st_cairo_fns.cairo_surface_status)
#define cairo_svg_surface_create_for_stream \
	(st_cairo_fns.cairo_svg_surface_create_for_stream)
#define cairo_svg_surface_restrict_to_version \
	(st_cairo_fns.cairo_svg_surface_restrict_to_version)
#define cairo_text_extents (st_cairo_fns.cairo_text_extents)
#define cairo_translate (st_cairo_fns.cairo_translate)
#define cairo_user_to_device (st_cairo_fns.cairo_user_to_device)
#define cairo_user_to_device_distance \
	(st_cairo_fns.cairo_user_to_device_distance)

#endif
