/* dbread's parts (dbread.c, dbscan.c, dbstep.c, dbkern.c, dbhost.c,
 * dbcomm.c, dbctask.c, dbdtask.c, dbutil.c): the reader's state and its
 * shared helpers.  Calls go one way: dbread.c -> dbscan.c -> dbstep.c,
 * dbhost.c -> dbstep.c, dbcomm.c -> dbkern.c, and every part -> dbutil.c,
 * which calls none of them. */
#ifndef ASC_DBREAD_INT_H
#define ASC_DBREAD_INT_H

#include <stdint.h>

#include <sqlite3.h>

#include "dbread.h"
#include "util.h"
#include "warns.h"

#define NCACHE		8192		/* string-id cache slots */
#define INVALID32	4294967295LL	/* "invalid" in the DB, as in the CSVs */

/* Tables we read, and the columns that decide what we can write. */
enum { T_TASK, T_CTI, T_COMM, T_PY, T_CANN, T_PMU, T_CONN, T_CHAIN, T_STEP,
	T_RANKDEV, T_META, T_NTAB };
extern const char *const dbi_tabname[T_NTAB];

struct scache {
	int64_t		 id;
	char		*s;
	size_t		 n;
	int		 used;
};

struct dmark {
	int64_t		 start, dur, pid, tid, rowid;
	char		*name;
	size_t		 kind;		/* length of the name before '#' */
	int		 from_step;	/* from STEP_TIME, not PYTORCH_API */
};

struct srange {
	int64_t		 start, end, rowid;
	char		*step;
};

struct dbread {
	sqlite3		*db;
	char		*path, *disp, *pattern, *python;
	size_t		 npattern;
	void		(*bad)(void *, const char *);
	void		*arg;
	char		 err[1024];
	int		 has[T_NTAB];
	char		**cols[T_NTAB];	/* column names, NULL-terminated */
	int		*cint[T_NTAB];	/* column has INTEGER affinity */
	struct scache	*cache;
	sqlite3_stmt	*strq;
	struct db_counts c;
	int64_t		 minkern, minhost;
	int64_t		*dev;
	int		 ndev;
	int64_t		 commdev, hostdev;
	struct dmark	*mk;
	size_t		 nmk;
	struct srange	*rg;
	size_t		 nrg;
	struct warns	 w;
	struct buf	 pmunames, ob, sc, q;
	struct buf	 dtin;		/* dbdtask.c: the device task types, an SQL list */
	int		 nopmu;		/* db_opts.nopmu */
};


/* The parts' shared helpers (dbutil.c unless said). */
int		 dbi_sqlerr(struct dbread *, const char *what);
sqlite3_stmt	*dbi_prep(struct dbread *, const char *sql);
/* Where and how a part writes its records. */
struct dbi_put {
	FILE		*fp;
	const char	*profile;
	int64_t		 origin;
};
typedef void dbi_rowput(struct dbread *, struct buf *, sqlite3_stmt *,
    const struct dbi_put *);
/* A record by put for each row of sql (see dbutil.c). */
int		 dbi_put_rows(struct dbread *, const char *sql, const char *what,
    const struct dbi_put *, dbi_rowput *put);
/* Run a query whose first row's first column is an integer. */
int		 dbi_qint(struct dbread *, const char *sql, int64_t *v);
int		 dbi_hascol(const struct dbread *, int t, const char *col);
/* Does column col of table t have INTEGER affinity? */
int		 dbi_intcol(const struct dbread *, int t, const char *col);
/* The first of the spellings that table t has, or NULL. */
const char	*dbi_anycol(const struct dbread *, int t, const char *a, const char *b);
/* SQL for a time column (see dbutil.c). */
void		 dbi_tx(struct buf *, const char *col);
/* PRE.startNs SEP PRE.endNs, each by dbi_tx (pre NULL: no prefix). */
void		 dbi_txspan(struct buf *, const char *pre, const char *sep);
/* A row's times are valid: PRE.endNs >= PRE.startNs, each read by dbi_tx. */
void		 dbi_txvalid(struct buf *, const char *pre);
/* SELECT of COMMUNICATION_OP c's valid rows: rowid, s, end, opName, col,
 * waitNs when wait; the caller adds conditions and the order. */
void		 dbi_commsel(struct buf *, const char *col, int wait);
/* printf into d->q: SQL text. */
const char	*dbi_qstr(struct dbread *, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A text column: a STRING_IDS id, or the text itself.  0, or -1 (null). */
int		 dbi_coltext(struct dbread *, sqlite3_stmt *, int i, const char **s, size_t *n);
/* Integer field: NULL and 4294967295 (invalid) are null. */
void		 dbi_put_int(struct buf *, const char *key, sqlite3_stmt *, int i);
/* A number value exactly as JSON text (see dbutil.c). */
int		 dbi_numtext(sqlite3_stmt *, int i, char *t, size_t nt);
/* Percent-encode what a file: URI path cannot hold as is. */
char		*dbi_fileuri(const char *path);
/* The start of every record of a table: "src" is FILE:TABLE:rowid. */
void		 dbi_srcprefix(struct dbread *, struct buf *pre, const char *type, const char *profile,
		    int table);
/* A record's "src" for one row: FILE:TABLE:rowid. */
void		 dbi_putsrc(struct dbread *, struct buf *b, const char *table, long long rowid);
/* analysis.db beside the database (caller frees), or NULL if none. */
char		*dbi_analysispath(struct dbread *);
/* ", alias.col" or ", NULL" */
void		 dbi_selcol(struct buf *, const char *alias, const char *col);
/* dbscan.c: the schema and counts of db_open(), then the markers. */
extern const char dbi_kjoin[];
int		 dbi_scan(struct dbread *);
/* dbstep.c: is name a step marker (kind: the length before '#')?  The
 * markers and step ranges, loaded once by dbi_scan(). */
int		 dbi_ismarker(const struct dbread *, const char *s, size_t n, size_t *kind);
int		 dbi_loadmarkers(struct dbread *);
/* dbkern.c: the step of a start (rg: a cursor moving forward, 0 at first). */
const char	*dbi_stepof(struct dbread *, size_t *rg, int64_t s);

#endif
