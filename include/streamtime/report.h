/* report.h - the one-page HTML report over a results directory (SPEC 5.9).
 *
 * st_report_write() reads what `reproduce` leaves in a results directory
 * (file_transfer/, streaming/, statistics/, and when present figures/ and
 * timeline.json) and writes one self-contained HTML page.  With a manifest
 * (ST_MANIFEST) it shows only the files the manifest names; without one,
 * every file it finds, and the page says so.  The page holds tables, figures as
 * data: URIs, relative links to the CSVs and the trace.  The page loads
 * nothing: no scripts, no fonts, no images by URL, and a Content-Security-
 * Policy that forbids them.  A part whose file is missing or holds only a
 * header says "no data"; it never fails the report.
 *
 * The helpers below are what the writer is built from, public so the unit
 * tests can pin them.
 */
#ifndef STREAMTIME_REPORT_H
#define STREAMTIME_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "streamtime/error.h"

/* What a report holds, for the command's summary line. */
typedef struct st_report_info {
	size_t sizes;       /* rows of the comparison table */
	size_t figures;     /* figures embedded */
	size_t csvs;        /* CSV files linked */
	bool timeline;      /* timeline.json linked */
	bool manifest;      /* RESULTS/manifest.txt said what the run wrote */
} st_report_info;

/* The manifest of a results directory: what one run wrote there, so that a
 * report over a directory that also holds older or unrelated files links
 * only the run's.  A text file, one path relative to the directory a line,
 * lines starting with '#' are comments. */
#define ST_MANIFEST "manifest.txt"

/* Write DIR/manifest.txt (atomically): every regular file below DIR that
 * is not hidden (no name starting with '.': temporaries, stages) and not
 * the manifest, plus the NEXTRA paths EXTRA (relative to DIR, files still
 * to be written), sorted, after a comment naming WRITER.  Errors 73/74. */
int st_report_manifest_write(const char *dir, const char *writer,
			     const char *const extra[], size_t nextra,
			     st_error *err);

/* Write the report on the results directory RESULTS to F.  Links are made
 * relative to the directory BASE (the one the page will live in; it must
 * exist).  INFO may be NULL.  Errors: 66 RESULTS or BASE is missing or not a
 * directory; 65 a statistics file is malformed (a required column missing,
 * a cell that is no number), naming file, line and column; 74 a read or
 * write error or memory running out.  On error F holds a partial page: write
 * it through st_atomic_open and abort. */
int st_report_write(FILE *f, const char *results, const char *base,
		    st_report_info *info, st_error *err);

/* Write S to F with & < > " ' as character references, so that it is safe
 * in element content and in quoted attribute values.  C0 control
 * characters other than tab, LF and CR (not allowed in HTML) become U+FFFD.
 * S NULL writes nothing.  0, or -1 on a write error. */
int st_report_escape(FILE *f, const char *s);

/* Write PATH to F as a relative URL: bytes other than ASCII letters, digits,
 * "-._~/" percent-encoded (so the result is also safe in an attribute).
 * 0 or -1. */
int st_report_write_url(FILE *f, const char *path);

/* Format V with DECIMALS digits after the point, thousands grouped by
 * commas ("26,051.2"), as Python's format(v, ",.Nf") does; "-0.0" is
 * written "0.0"; NaN and infinities as "n/a".  Returns BUF. */
char *st_report_format_number(double v, int decimals, char *buf, size_t size);

/* A duration of SECONDS for people: "45 s", "12 min 5 s", "7 h 14 min",
 * "1 d 4 h" (rounded to the unit shown last); NaN or negative as "n/a".
 * Returns BUF. */
char *st_report_format_duration(double seconds, char *buf, size_t size);

/* The root element of the SVG document BUF (LEN bytes): skips a byte-order
 * mark, the XML declaration, processing instructions, comments, a DOCTYPE
 * (with an internal subset) and white space.  Returns a pointer into BUF at
 * "<svg", or NULL when the document does not start with an <svg> root. */
const char *st_report_svg_root(const char *buf, size_t len);

/* The relative path from directory FROM to TO, both absolute and
 * canonical (realpath): "statistics/x.csv", "../results/x.csv", "." when
 * equal.  New string (free), NULL when memory runs out. */
char *st_report_relpath(const char *from, const char *to);

#endif
