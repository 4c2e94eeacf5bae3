/* trace_sys.h - what the trace commands say of system-trace sets on
 * stderr. */
#ifndef STREAMTIME_CMD_TRACE_SYS_H
#define STREAMTIME_CMD_TRACE_SYS_H

#include "streamtime/systrace.h"

/* Say the sets' bad lines (the first ten, FILE:LINE) on stderr. */
void trace_sys_report(const st_systrace_list *l);

#endif
