/*
 * commjson: a streaming reader of communication.json.
 *
 * torch_npu nests step -> "p2p" | "collective" -> "<op>@<group>" ->
 * {"Communication Time Info": {...}, "Communication Bandwidth Info":
 * {transport: {..., "Size Distribution": {...}}}}; msprof writes the ops
 * flat at the top level: a top-level member whose
 * object starts with "Communication Time Info" or "Communication Bandwidth
 * Info" is such an op, reported with step NULL and kind "collective".
 *
 * The file is read in chunks by a small JSON tokenizer; only the fields of
 * one op are held at a time, so memory does not grow with the file.  The
 * whole file is validated as JSON (what libjq accepts: also NaN, Infinity
 * and a leading byte order mark), but ops already reported before an error
 * stay reported: a caller that must not use a bad file buffers or rolls
 * back its output.
 */
#ifndef ASC_COMMJSON_H
#define ASC_COMMJSON_H

#include <stddef.h>
#include <stdint.h>

struct buf;

enum cjkind {
	CJ_ABSENT,	/* the key is not there */
	CJ_NULL, CJ_FALSE, CJ_TRUE,
	CJ_NUMBER,	/* s: the literal exactly as written */
	CJ_STRING,	/* s: unescaped, invalid UTF-8 replaced by U+FFFD */
	CJ_ARRAY, CJ_OBJECT	/* s: the raw text, NULL if over CJ_MAXRAW */
};

#define CJ_MAXRAW	65536

struct cjval {
	enum cjkind	 kind;
	const char	*s;		/* NUL-terminated */
	size_t		 n;
};

struct cjtransport {
	const char	*name;		/* "RDMA", "HCCS", ... */
	size_t		 namelen;
	int		 isobj;		/* its value is an object */
	struct cjval	 size_mb, time_ms, bandwidth_gbps;
};

struct cjop {
	const char	*step;		/* step key; NULL in msprof's flat form */
	size_t		 steplen;
	const char	*kind;		/* "p2p", "collective", ... */
	size_t		 kindlen;
	const char	*key;		/* "<op>@<group>" as written, unescaped */
	size_t		 keylen;
	int		 isobj;		/* the op's value is an object */
	int		 has_time;	/* "Communication Time Info" is an object */
	struct cjval	 start_us, elapse_ms, transit_ms, wait_ms, sync_ms,
			 idle_ms, wait_ratio, sync_ratio;
	int		 has_bw;	/* "Communication Bandwidth Info" is an object */
	int		 ntransport;	/* in file order */
	const struct cjtransport *transport;
};

/* Called once per op, in file order; a nonzero return stops the reading. */
typedef int (*cj_fn)(const struct cjop *, void *arg);

#define CJ_ESYNTAX	(-1)	/* invalid or truncated JSON: err says where */
#define CJ_ENOTOBJ	(-2)	/* valid JSON, but the top level is not an object */
#define CJ_EIO		(-3)	/* open or read error: errno is set */
#define CJ_ESTOP	(-4)	/* the callback returned nonzero */

/*
 * Read path, calling fn per op (fn may be NULL: validate only).  Returns 0
 * or one of the CJ_E* codes with a message in err: for CJ_ESYNTAX
 * "line L, byte B: what" (L counts from 1, B from 0).
 */
int	cj_read(const char *path, cj_fn fn, void *arg, char *err, size_t errlen);

/*
 * One "comm" record (schemas/comm.schema.json), whatever it was read from:
 * communication.json here, or the SQLite export (lib/ingest/dbcomm.c).  Numbers
 * are written in libjq's shortest form of the double, as the text reader
 * always has; an absent or null value is null.
 */
struct cjrec {
	const char	*step;		/* NULL: null (no step) */
	size_t		 steplen;
	const char	*kind, *op;
	size_t		 kindlen, oplen;
	const char	*group;		/* NULL: null */
	size_t		 grouplen;
	int		 has_start;
	int64_t		 start_ns;	/* relative to the profile's origin */
	struct cjval	 elapse_ms, transit_ms, wait_ms, sync_ms, idle_ms,
			 wait_ratio, sync_ratio;
	int		 ntransport;
	const struct cjtransport *transport;
};

/* The record as one line ending in a newline, in b (emptied first). */
void	cj_putrec(struct buf *b, const char *profile, const char *src, const struct cjrec *);
/* The record of an op of communication.json: its kind, name, figures and
 * step (no group, no start). */
void	cj_oprec(const struct cjop *op, struct cjrec *r);
/* torch_npu's step key "step<N>" as the step: N; NULL for a bare "step". */
const char *cj_step(const char *key, size_t n, size_t *len);
/* A start in float us as exact ns, formatted to 3 decimals like torch_npu. */
int	cj_us2ns(double us, int64_t *ns);
/* torch_npu's ratio wait/(wait+transit) to 4 places (0 over 0), as number
 * text in t. */
void	cj_ratio(double part, double transit, char *t, size_t nt);

#endif
