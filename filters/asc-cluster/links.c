/*
 * asc-cluster's links: msprof's matrix views of a link dropped where its
 * -total row is judged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "rules.h"
#include "util.h"

#include "cluster.h"

/*
 * msprof's matrix gives, per op class, views of the same links: the
 * "<class>-total" rows (all the class's ops) and "<class>-top1",
 * "-middle", "-bottomN" (single ops picked by time).  A link is counted
 * and judged once: a view is dropped when its link has a -total row.
 */
static int
istotal(const char *cls, const char *base, size_t n)
{
	return strncmp(cls, base, n) == 0 && strcmp(cls + n, "-total") == 0;
}

/* links[a] is the first entry of its link (rank, group, link, transport):
 * a link that carries several op classes is counted once. */
int
firstlink(size_t a)
{
	const struct link *l = &links[a];

	for (size_t b = 0; b < a; b++)
		if (links[b].rank == l->rank && strcmp(links[b].group, l->group) == 0 &&
		    strcmp(links[b].link, l->link) == 0 && strcmp(links[b].transport, l->transport) == 0)
			return 0;
	return 1;
}

void
dropviews(void)
{
	char *view = xcalloc(nlink + 1, 1);
	size_t k = 0;

	/* mark first, then drop: a dropped entry's strings are freed */
	for (size_t a = 0; a < nlink; a++) {
		const struct link *l = &links[a];
		const char *d = strrchr(l->cls, '-');

		for (size_t b = 0; d && strcmp(d, "-total") != 0 && b < nlink && !view[a]; b++)
			view[a] = links[b].rank == l->rank && strcmp(links[b].group, l->group) == 0 &&
			    strcmp(links[b].link, l->link) == 0 &&
			    strcmp(links[b].transport, l->transport) == 0 &&
			    istotal(links[b].cls, l->cls, (size_t)(d - l->cls));
	}
	for (size_t a = 0; a < nlink; a++) {
		struct link *l = &links[a];

		if (view[a]) {
			free(l->group), free(l->cls), free(l->link), free(l->transport), free(l->op);
			continue;
		}
		links[k++] = *l;
	}
	free(view);
	nlink = k;
}

/* The median bandwidth of the job's links of l's transport and op
 * class; their number in *n. */
static double
classmedian(const struct link *l, size_t nl, size_t *n)
{
	double *bw = xmalloc((nl + 1) * sizeof *bw), m;

	*n = 0;
	for (size_t b = 0; b < nlink; b++)
		if (ranks[links[b].rank].job == ranks[l->rank].job && links[b].bw > 0 &&
		    strcmp(links[b].transport, l->transport) == 0 &&
		    strcmp(links[b].cls, l->cls) == 0)
			bw[(*n)++] = links[b].bw;
	/* Median by selection: n is small (links of one class). */
	for (size_t x = 1; x < *n; x++)
		for (size_t y = x; y > 0 && bw[y - 1] > bw[y]; y--) {
			double tmp = bw[y];

			bw[y] = bw[y - 1];
			bw[y - 1] = tmp;
		}
	m = *n % 2 ? bw[*n / 2] : (bw[*n / 2 - 1] + bw[*n / 2]) / 2;
	free(bw);
	return m;
}

/* One verdict per link: its mean bandwidth and time lost over the steps
 * against the median m, into s; 0 unless links[a] is its first entry,
 * where it is told. */
static int
linkmean(size_t a, double m, struct slink *s)
{
	const struct link *l = &links[a];
	double sbw = 0, sloss = 0;
	int steps = 0;

	for (size_t b = 0; b < nlink; b++) {
		const struct link *q = &links[b];

		if (q->rank != l->rank || q->bw <= 0 || strcmp(q->group, l->group) != 0 ||
		    strcmp(q->cls, l->cls) != 0 || strcmp(q->link, l->link) != 0 ||
		    strcmp(q->transport, l->transport) != 0)
			continue;
		if (b < a)
			return 0;
		sbw += q->bw;
		sloss += q->time_ms - q->size_mb / m;
		steps++;
	}
	s->l = l;
	s->bw = sbw / steps;
	s->med = m;
	s->steps = steps;
	s->stake = (int64_t)(sloss / steps * 1e6);
	return 1;
}

/* Slow links: below a fraction of the median bandwidth of links of
 * the same transport and op class in the job; and what was read. */
void
linkscan(const struct job *j, struct lres *r)
{
	memset(r, 0, sizeof *r);
	dropviews();
	for (size_t a = 0; a < nlink; a++)
		if (ranks[links[a].rank].job == (int)(j - jobs)) {
			r->entries++;
			r->fromdb += links[a].fromdb;
			r->links += firstlink(a);
		}
	for (size_t a = 0; a < nlink; a++) {
		struct slink s;
		size_t n;
		double m;

		if (ranks[links[a].rank].job != (int)(j - jobs) || links[a].bw <= 0)
			continue;
		m = classmedian(&links[a], r->entries, &n);
		if (!linkmean(a, m, &s) || n < 3 || s.bw >= rules_num("cluster.slow_link_fraction") * m)
			continue;
		r->s = xreallocarray(r->s, r->n + 1, sizeof *r->s);
		r->s[r->n++] = s;
	}
}

/* The slow_link records, their recommendations and the report's
 * section. */
void
wlinks(const struct job *j, const struct lres *r)
{
	jv rows = jv_array();

	jsarray("slow_links");
	for (size_t k = 0; k < r->n; k++) {
		const struct slink *s = &r->s[k];
		const struct link *l = s->l;
		char nm[64], t[64];

		rbegin("slow_link", j);
		put_rank(&ranks[l->rank]);
		out_cstr(&rb, "group", l->group);
		out_cstr(&rb, "op_class", l->cls);
		out_cstr(&rb, "link", l->link);
		out_cstr(&rb, "transport", l->transport);
		out_i64(&rb, "entries", s->steps);
		snprintf(t, sizeof t, "%.4f", s->bw);
		out_raw(&rb, "bandwidth_gbps", t, strlen(t));
		snprintf(t, sizeof t, "%.4f", s->med);
		out_raw(&rb, "median_gbps", t, strlen(t));
		snprintf(t, sizeof t, "%.4f", s->bw / s->med);
		out_raw(&rb, "fraction", t, strlen(t));
		put_ns(&rb, "time_at_stake", s->stake);
		rput();
		/* the doubles, which the report rounds to 3 digits */
		rows = jv_array_append(rows, JV_OBJECT(jv_string("bandwidth"), jv_number(s->bw),
		    jv_string("median"), jv_number(s->med)));
		/* the recommendation's text is a record's: its figures
		 * printed here */
		addreco(s->stake, "%s: link %s (%s, %s) runs at %.3g GB/s against a median of %.3g GB/s: check that link (cabling, HCCS/RDMA port, HCCL_ALGO / HCCL_RDMA_TC settings).",
		    rname(&ranks[l->rank], nm), l->link, l->transport, l->cls, s->bw, s->med);
	}
	if (!md) {
		jv_free(rows);
		return;
	}
	doc_view("links", JV_OBJECT(jv_string("fraction"), jv_number(rules_num("cluster.slow_link_fraction")),
	    jv_string("min_size_mb"), jv_number(rules_num("cluster.link_min_size_mb")),
	    jv_string("entries"), jv_number((double)r->entries), jv_string("links"), jv_number((double)r->links),
	    jv_string("from_db"), jv_number((double)r->fromdb), jv_string("rows"), rows));
	mdsection("links");
}
