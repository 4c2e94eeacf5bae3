/* pq_dyn.h - libpq, loaded when the Distiller database is first asked
 * (dynlib.h).  Include it instead of <libpq-fe.h>, and call st_pq_load
 * before the first libpq call, which then goes through a pointer.  A
 * function not listed here is not linked: the build fails at it.
 */
#ifndef STREAMTIME_PQ_DYN_H
#define STREAMTIME_PQ_DYN_H

#include <libpq-fe.h>

#include "streamtime/dynlib.h"

#define ST_PQ_FNS(X) \
	X(PQcancel) X(PQclear) X(PQconnectdbParams) X(PQconninfo) \
	X(PQconninfoFree) X(PQconninfoParse) X(PQdb) X(PQerrorMessage) \
	X(PQexec) X(PQfinish) X(PQfreeCancel) X(PQfreemem) X(PQgetCancel) \
	X(PQgetResult) X(PQgetisnull) X(PQgetvalue) X(PQhost) X(PQnfields) \
	X(PQntuples) X(PQport) X(PQresultErrorField) X(PQresultErrorMessage) \
	X(PQresultStatus) X(PQsendQueryParams) X(PQsetSingleRowMode) \
	X(PQstatus) X(PQuser)

ST_DYNLIB_DECLARE(st_pq_fns, ST_PQ_FNS, st_pq_load)

#define PQcancel (st_pq_fns.PQcancel)
#define PQclear (st_pq_fns.PQclear)
#define PQconnectdbParams (st_pq_fns.PQconnectdbParams)
#define PQconninfo (st_pq_fns.PQconninfo)
#define PQconninfoFree (st_pq_fns.PQconninfoFree)
#define PQconninfoParse (st_pq_fns.PQconninfoParse)
#define PQdb (st_pq_fns.PQdb)
#define PQerrorMessage (st_pq_fns.PQerrorMessage)
#define PQexec (st_pq_fns.PQexec)
#define PQfinish (st_pq_fns.PQfinish)
#define PQfreeCancel (st_pq_fns.PQfreeCancel)
#define PQfreemem (st_pq_fns.PQfreemem)
#define PQgetCancel (st_pq_fns.PQgetCancel)
#define PQgetResult (st_pq_fns.PQgetResult)
#define PQgetisnull (st_pq_fns.PQgetisnull)
#define PQgetvalue (st_pq_fns.PQgetvalue)
#define PQhost (st_pq_fns.PQhost)
#define PQnfields (st_pq_fns.PQnfields)
#define PQntuples (st_pq_fns.PQntuples)
#define PQport (st_pq_fns.PQport)
#define PQresultErrorField (st_pq_fns.PQresultErrorField)
#define PQresultErrorMessage (st_pq_fns.PQresultErrorMessage)
#define PQresultStatus (st_pq_fns.PQresultStatus)
#define PQsendQueryParams (st_pq_fns.PQsendQueryParams)
#define PQsetSingleRowMode (st_pq_fns.PQsetSingleRowMode)
#define PQstatus (st_pq_fns.PQstatus)
#define PQuser (st_pq_fns.PQuser)

#endif
