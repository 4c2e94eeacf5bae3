/* savetimes.h - the save-time statistics of the file-transfer formula
 * (SPEC 5.13), from the counting jobs' own records.
 *
 * The counting jobs append, per scan, one record a run to save_times.json:
 *
 *   { "00014": [ { "count_time": 3.79, "total_time": 4.11,
 *                  "save_time": 0.259, ... }, ... ], ... }
 *
 * A map says which scan is which size and whether it was a Real scan or a
 * Blank one (the paper's notebook wrote it into its code; here it is data:
 * st_save_rule).  The statistics are the paper's save_time_stats.csv: per
 * size and type, the mean and the standard deviation (n - 1) of total_time,
 * count_time and save_time over every record of every scan of the group. */
#ifndef STREAMTIME_SAVETIMES_H
#define STREAMTIME_SAVETIMES_H

#include <stdbool.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/experiments.h"

/* The columns of save_time_stats.csv, in the paper's order. */
#define ST_SAVE_STATS_HEADER "Size,Type,Stat,total_time,count_time,save_time\n"

/* Scans FIRST..LAST are of type BLANK (else Real); scan FIRST + i has the
 * size SIZES[i % NSIZES]: one size for the whole range, or sizes taken in
 * turn as the scans were (the paper's Real scans 14..29 cycle 128, 256,
 * 512, 1024). */
typedef struct st_save_rule {
	st_range scans;
	bool blank;
	int64_t sizes[8];
	size_t nsizes;              /* 1..8 */
} st_save_rule;

/* The size and type of SCAN by the first rule of RULES that holds it:
 * 0, or -1 when none does. */
int st_save_rule_find(const st_save_rule *rules, size_t n, int64_t scan,
		      int64_t *size, bool *blank);

/* What st_save_stats_write found besides the statistics. */
typedef struct st_save_stats_info {
	size_t records;             /* records used */
	size_t groups;              /* (size, type) groups written */
	size_t unmapped;            /* scans no rule holds, left out */
	int64_t first_unmapped;     /* the first of them, for a message */
} st_save_stats_info;

/* Read the save-time records PATH (JSON as above), group them by RULES and
 * write save_time_stats.csv to OUT: sizes ascending, Real then Blank, the
 * mean row then the std row (empty cells for a group of one record).
 * Scans no rule holds are left out and counted in INFO (may be NULL).
 * Errors: 66 PATH missing; 65 anything wrong inside, naming the file and
 * the record ("save_times.json: \"00014\"[3]: 'save_time' is not a
 * number"), or JSON that does not parse (file:line); 65 also when no
 * record falls in any rule; 74 writing. */
int st_save_stats_write(const char *path, const st_save_rule *rules,
			size_t nrules, FILE *out, st_save_stats_info *info,
			st_error *err);

/* The paper's map (the notebook of scripts/overhead/eval.ipynb): scans
 * 14..29 Real, cycling 128, 256, 512, 1024; scans 93..96 Blank at 128,
 * 256, 512, 1024.  Borrowed, *N set. */
const st_save_rule *st_save_rules_paper(size_t *n);

#endif
