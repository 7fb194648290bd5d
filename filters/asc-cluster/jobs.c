/*
 * asc-cluster's jobs: the profiles grouped by parent directory and
 * capture metadata, each job's ranks by rank id, and the profiles held
 * twice.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "cluster.h"

struct job *jobs;
int njob;

static int
byrankid(const void *a, const void *b)
{
	const struct rank *x = &ranks[*(const int *)a], *y = &ranks[*(const int *)b];

	if (x->rankid != y->rankid)
		return x->rankid < y->rankid ? -1 : 1;
	return strcmp(x->profile, y->profile);
}

void
makejobs(int onejob)
{
	for (int i = 0; i < nrank; i++) {
		struct rank *r = &ranks[i];
		int j;

		for (j = 0; j < njob; j++) {
			struct rank *q = &ranks[jobs[j].r[0]];

			if (onejob || (strcmp(q->parent, r->parent) == 0 && strcmp(q->sig, r->sig) == 0))
				break;
		}
		if (j == njob) {
			jobs = xreallocarray(jobs, (size_t)njob + 1, sizeof *jobs);
			memset(&jobs[njob], 0, sizeof jobs[0]);
			jobs[njob].name = xstrdup(onejob ? "cluster" : r->parent);
			/* Same dir name, other metadata: a different job. */
			for (int k = 0; k < njob; k++)
				if (strcmp(jobs[k].name, jobs[njob].name) == 0) {
					char t[32];

					snprintf(t, sizeof t, "-%d", njob + 1);
					jobs[njob].name = xrealloc(jobs[njob].name, strlen(jobs[njob].name) + 32);
					strcat(jobs[njob].name, t);
					break;
				}
			njob++;
		}
		jobs[j].r = xreallocarray(jobs[j].r, (size_t)jobs[j].nr + 1, sizeof *jobs[j].r);
		jobs[j].r[jobs[j].nr++] = i;
		r->job = j;
	}
	for (int j = 0; j < njob; j++)
		qsort(jobs[j].r, (size_t)jobs[j].nr, sizeof *jobs[j].r, byrankid);
}

static int
byprofile(const void *a, const void *b)
{
	const struct rank *x = &ranks[*(const int *)a], *y = &ranks[*(const int *)b];
	int c = strcmp(x->profile, y->profile);

	return c ? c : *(const int *)a - *(const int *)b;
}

void
jwarn(struct job *j, const char *code, int a, int b, const char *fmt, ...)
{
	va_list ap;
	struct buf m = {0};

	va_start(ap, fmt);
	bvprintf(&m, fmt, ap);
	va_end(ap);
	if (!quiet)
		warnmsg("%s", m.p);
	j->warn = xreallocarray(j->warn, (size_t)j->nwarn + 1, sizeof *j->warn);
	j->warn[j->nwarn++] = (struct jwarn){ code, m.p, a, b };
}

/*
 * Nothing merged or counted twice without a word: the same profile from
 * two inputs is refused; two profiles of one name, or of one rank id, in
 * a job are both kept and said, and the rank counts once.
 */
void
dupcheck(void)
{
	for (int j = 0; j < njob; j++) {
		struct job *jb = &jobs[j];
		int *o = xmalloc((size_t)jb->nr * sizeof *o);

		memcpy(o, jb->r, (size_t)jb->nr * sizeof *o);
		qsort(o, (size_t)jb->nr, sizeof *o, byprofile);
		for (int i = 1; i < jb->nr; i++) {
			struct rank *a = &ranks[o[i - 1]], *b = &ranks[o[i]];

			if (strcmp(a->profile, b->profile) != 0)
				continue;
			if (sameprofile(a, b)) {
				warnmsg("%s: profile %s is already in %s (same path and origin): one profile given twice",
				    dispname(b->input), b->profile, dispname(a->input));
				exit(EX_DATA);
			}
			jwarn(jb, "duplicate_profile", o[i - 1], o[i],
			    "job %s: two profiles named %s (from %s and %s, other path or origin): both are analysed, apart",
			    jb->name, a->profile, dispname(a->input), dispname(b->input));
		}
		free(o);
		jb->nids = jb->nr;
		for (int i = 1; i < jb->nr; i++) {
			struct rank *a = &ranks[jb->r[i - 1]], *b = &ranks[jb->r[i]];

			if (a->rankid < 0 || a->rankid != b->rankid)
				continue;
			jb->nids--;
			jwarn(jb, "duplicate_rank", jb->r[i - 1], jb->r[i],
			    "job %s: rank %d is held by two profiles (%s and %s): counted once, both shown; the cross-rank figures are unsure",
			    jb->name, a->rankid, a->profile, b->profile);
		}
	}
}

/* What lowers a job's confidence, each one level (high, medium, low):
 * one step (a single sample of every skew), a group with members the
 * input does not hold (a wait on them is only bounded), and a rank
 * without HCCL tasks (its waits are not split by peer).  A rank held
 * twice makes it low.  Writes the reasons as a JSON array into b. */
const char *
jobconf(const struct job *j, struct buf *b)
{
	int n = 0, steps = 0, partial = 0, notasks = 0;

	for (int i = 0; i < j->nr; i++) {
		int ri = j->r[i], tasks = 0;

		if (ranks[ri].nstep > steps)
			steps = ranks[ri].nstep;
		for (size_t a = 0; a < npw && !tasks; a++)
			tasks = pws[a].rank == ri;
		notasks |= !tasks;
		for (size_t k = 0; k < nrg; k++) {
			int64_t in = 0;

			if (rgs[k].rank != ri || rgs[k].size == UNSET || rgs[k].elapsed <= 0)
				continue;
			for (size_t q = 0; q < nrg; q++)
				in += injob(j, rgs[q].rank) && strcmp(rgs[q].group, rgs[k].group) == 0;
			partial |= rgs[k].size > in;
		}
	}
	buf_addc(b, '[');
	if (steps < 2)
		buf_adds(b, n++ ? ",\"one_step\"" : "\"one_step\"");
	if (partial)
		buf_adds(b, n++ ? ",\"uncaptured_group_members\"" : "\"uncaptured_group_members\"");
	if (notasks)
		buf_adds(b, n++ ? ",\"no_comm_tasks\"" : "\"no_comm_tasks\"");
	if (j->nwarn)
		buf_adds(b, n++ ? ",\"duplicate_ranks\"" : "\"duplicate_ranks\"");
	buf_addc(b, ']');
	return j->nwarn || n >= 2 ? "low" : n == 1 ? "medium" : "high";
}
