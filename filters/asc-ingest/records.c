/*
 * asc-ingest: the rest of a profile's records in stream order; with -H the
 * host records written to their file by a second thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ingest.h"

/* The host writers of a profile, run beside the kernel writers (-H). */
struct hostjob {
	struct source	*src;
	int		 nsrc;
	FILE		*fp;
	const char	*name;
	int64_t		 origin;
};

static void *
hostmain(void *arg)
{
	const struct hostjob *j = arg;

	for (int i = 0; i < j->nsrc; i++)
		if (src_put(&j->src[i], SRC_HOST, j->fp, j->name, j->origin) != 0)
			die("%s", src_err(&j->src[i]));
	if (fflush(j->fp) != 0)
		dieerr("%s", hpath);
	return NULL;
}

/* Every other record of the profile, in stream order. */
void
put_records(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	for (int i = 0; i < x->nsrc; i++)
		if (src_put(&x->src[i], SRC_MARKERS, stdout, p->name, x->origin) != 0)
			die("%s", src_err(&x->src[i]));
	if (tables.len && fwrite(tables.p, 1, tables.len, stdout) != tables.len)
		dieerr("stdout");
	if (fk[F_COMM])
		tab_comm_put(fk[F_COMM], p->name, x->origin);
	else if (x->db && db_put_comm(x->db, stdout, p->name, x->origin) != 0)
		die("%s", db_err(x->db));
	if (fk[F_COMMX])
		tab_commx_put(fk[F_COMMX], p->name);
	if (x->tr && x->tc.comm_tasks)
		trace_put_comm_tasks(x->tr, stdout, p->name, x->origin);
	else if (x->tr && x->tc.notify_waits)	/* Level0: the ops' waits */
		trace_put_notify_waits(x->tr, stdout, p->name, x->origin);
	else if (x->db && db_put_comm_tasks(x->db, stdout, p->name, x->origin) != 0)
		die("%s", db_err(x->db));
	if (x->tr)
		trace_put_dev_tasks(x->tr, stdout, p->name, x->origin);
	else if (x->db && db_put_dev_tasks(x->db, stdout, p->name, x->origin) != 0)
		die("%s", db_err(x->db));
	/*
	 * -H: the host events (the timeline's, millions in a large capture)
	 * are written to their file by a second thread while the kernels go
	 * to standard output, when no reader writes both: the merge of their
	 * sorted runs no longer holds back the end of the stream.
	 */
	struct hostjob hj = { x->src, x->nsrc, hfp, p->name, x->origin };
	pthread_t hth;
	int apart = hfp != NULL;

	for (int i = 0; i < x->nsrc; i++)
		if (x->src[i].kernels && x->src[i].kind != SRC_KTAB)
			apart = 0;
	if (apart && (errno = pthread_create(&hth, NULL, hostmain, &hj)) != 0)
		dieerr("pthread_create");
	for (int i = 0; i < x->nsrc; i++)
		if (src_put(&x->src[i], SRC_KERNELS, stdout, p->name, x->origin) != 0)
			die("%s", src_err(&x->src[i]));
	/* asc-ops -M reads the file at the first host record on stdout. */
	if (rec_out_pmufp && (fflush(rec_out_pmufp) != 0 || ferror(rec_out_pmufp)))
		dieerr("%s", mpath);
	if (hostnull)
		;	/* the merge and the writing would go to nothing */
	else if (apart) {
		if ((errno = pthread_join(hth, NULL)) != 0)
			dieerr("pthread_join");
	} else if (hfp)
		hostmain(&hj);
	else
		for (int i = 0; i < x->nsrc; i++)
			if (src_put(&x->src[i], SRC_HOST, stdout, p->name, x->origin) != 0)
				die("%s", src_err(&x->src[i]));
}
