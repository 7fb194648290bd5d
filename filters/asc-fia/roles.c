/* asc-fia: communication roles: the capture's parallel groups
 * (asc-ingest's metadata record), its comm groups matched to them, each comm
 * kernel's role and where it came from (fia.h). */
#define _GNU_SOURCE		/* strcasestr */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "dec.h"
#include "rec.h"
#include "util.h"

#include "fia.h"

struct meta M;
struct cg CG[MAXCG];
int ncg, cgdone;
struct cr CR[MAXCR];
int ncr;
int *opg;
size_t capopg, nopg;

static struct cg *
cgget(int g)
{
	for (int i = 0; i < ncg; i++)
		if (CG[i].g == g)
			return &CG[i];
	if (ncg == MAXCG)
		return NULL;
	memset(&CG[ncg], 0, sizeof CG[ncg]);
	CG[ncg].g = g;
	CG[ncg].meta = -1;
	return &CG[ncg++];
}

/* The first named group of n ranks, not yet taken, whose name starts
 * with pre ("" any); its M index or -1. */
static int
cgpick(const int *taken, int n, const char *pre)
{
	for (int i = 0; i < M.n; i++)
		if (!taken[i] && M.size[i] == n && strncmp(M.name[i], pre, strlen(pre)) == 0)
			return i;
	return -1;
}

static void
cgtake(struct cg *c, int *taken, int i, const char *why)
{
	if (i < 0 || c->meta >= 0)
		return;
	taken[i] = 1;
	c->meta = i;
	c->why = why;
}

/* What inferred the named group of the comm group g; NULL: none. */
const char *
cgwhy(int g)
{
	for (int k = 0; g >= 0 && k < ncg; k++)
		if (CG[k].g == g && CG[k].meta >= 0)
			return CG[k].why;
	return NULL;
}

/*
 * Each comm group's named group, strongest evidence first (asc-comm(1)):
 * send/recv is pp; reduce-scatter / all-gather dp*; 1 rank tp (or any
 * 1-rank name); a size only one name has; an all-reduce of at least 1 MB
 * on a link embd (else dp*), a smaller one mp.
 */
static void
cgmatch(void)
{
	int taken[MAXGROUP] = {0};

	cgdone = 1;
	for (int i = 0; i < ncg; i++)
		if (CG[i].p2p && CG[i].nrk)
			cgtake(&CG[i], taken, cgpick(taken, CG[i].nrk, "pp"),
			    "send/recv on a group of the size of parallel_group_info's pp");
	for (int i = 0; i < ncg; i++)
		if (CG[i].rsag && CG[i].nrk)
			cgtake(&CG[i], taken, cgpick(taken, CG[i].nrk, "dp"),
			    "reduce-scatter / all-gather on a group of the size of parallel_group_info's dp");
	for (int i = 0; i < ncg; i++)
		if (CG[i].nrk == 1) {
			int k = cgpick(taken, 1, "tp");

			cgtake(&CG[i], taken, k >= 0 ? k : cgpick(taken, 1, ""),
			    "1 rank: does nothing across ranks");
		}
	for (int i = 0; i < ncg; i++) {
		int k = CG[i].nrk ? cgpick(taken, CG[i].nrk, "") : -1, two = 0;

		for (int j = 0; k >= 0 && j < M.n; j++)
			two |= j != k && !taken[j] && M.size[j] == CG[i].nrk;
		if (k >= 0 && !two)
			cgtake(&CG[i], taken, k,
			    "the only name of parallel_group_info with this many ranks");
	}
	for (int i = 0; i < ncg; i++)
		if (CG[i].ar && CG[i].nrk && CG[i].maxmb >= 1) {
			int k = cgpick(taken, CG[i].nrk, "embd");

			cgtake(&CG[i], taken, k >= 0 ? k : cgpick(taken, CG[i].nrk, "dp"),
			    "all-reduce of at least 1 MB per link (gradients) on a group of that size");
		} else if (CG[i].ar && CG[i].nrk)
			cgtake(&CG[i], taken, cgpick(taken, CG[i].nrk, "mp"),
			    "all-reduce of under 1 MB per link (scalars) on a group of that size");
}

/* A comm_link record: a rank of its group and the size it moved. */
void
linkrec(struct rin *r)
{
	struct cg *c;
	const char *key[2] = { "src_rank", "dst_rank" };
	int64_t v[2];
	double mb = 0;
	const struct rfield *f;

	if (rin_scan(r) != 0 || rin_str(r, "group", &tmp) != 0 ||
	    (c = cgget(intern(tmp.p, tmp.len))) == NULL)
		return;
	for (int j = 0; j < 2; j++) {
		v[j] = -1;
		if (rin_str(r, key[j], &tmp) == 0 && tmp.len > 0 && tmp.len < 20)
			v[j] = strtoll(tmp.p, NULL, 10);
		else if (rin_i64(r, key[j], &v[j]) != 0)
			v[j] = -1;
		if (v[j] >= 0) {
			int k;

			for (k = 0; k < c->nrk && c->rk[k] != v[j]; k++)
				;
			if (k == c->nrk && c->nrk < MAXCGR)
				c->rk[c->nrk++] = v[j];
		}
	}
	if ((f = rin_get(r, "size_mb")) != NULL && !rf_isnull(f))
		mb = strtod(f->v, NULL);
	if (v[0] != v[1] && mb > c->maxmb)
		c->maxmb = mb;
}

/*
 * The role of a communication kernel: its group in the parallel-group
 * metadata; else the only parallel dimension with more than one rank;
 * else, for a collective after backward kernels, data parallel (gradient
 * buckets); else the name rules.
 */
int
commrole(const char *raw, size_t n, int fl, int namerole, int ph, int *group, int *src)
{
	int oi = lookup(raw, n);

	*group = oi >= 0 && (size_t)oi < capopg ? opg[oi] - 1 : -1;
	for (int i = 0; *group >= 0 && i < M.n; i++)
		if (M.role[i] >= 0 && strcmp(M.key[i], NT.v[*group].s) == 0) {
			*src = RS_GROUP;
			return M.role[i];
		}
	/* The named group its comm group matched: that name's role, or
	 * "other" for a name without one (default_group, mp): the
	 * parallel_group field names it. */
	if (!cgdone && M.have)
		cgmatch();
	for (int i = 0; *group >= 0 && i < ncg; i++)
		if (CG[i].g == *group && CG[i].meta >= 0) {
			*src = RS_INF;
			return M.role[CG[i].meta] >= 0 ? M.role[CG[i].meta] : rother;
		}
	if ((fl & F_P2P) && r_pp >= 0) {
		*src = M.ppsize > 1 ? RS_DIMS : RS_NAME;
		return r_pp;
	}
	/* An all-to-all is expert parallel by its nature. */
	if ((fl & F_A2A) && r_ep >= 0) {
		*src = M.epsize > 1 ? RS_DIMS : RS_NAME;
		return r_ep;
	}
	if (M.have && M.dims >= 0) {
		*src = RS_DIMS;
		return M.dims;
	}
	if (G.nbwd >= minbwd && ph != PH_FWD && r_dp >= 0) {
		*src = RS_POS;
		return r_dp;
	}
	*src = RS_NAME;
	return namerole;
}

void
comm_tally(const struct lk *x, int group, int src, int ph, int64_t dur)
{
	struct cb *c = NULL;

	for (int i = 0; i < G.ncb && c == NULL; i++)
		if (G.cb[i].name == x->name && G.cb[i].group == group &&
		    G.cb[i].role == x->role && G.cb[i].src == src)
			c = &G.cb[i];
	if (c == NULL && G.ncb < MAXCB) {
		c = &G.cb[G.ncb++];
		memset(c, 0, sizeof *c);
		c->name = x->name;
		c->group = group;
		c->role = x->role;
		c->src = src;
	} else if (c == NULL)
		c = &G.cb[MAXCB - 1];	/* full: the last one takes the rest */
	G.lastcb = (int)(c - G.cb);
	c->n++;
	c->sum += dur;
	c->nph[ph]++;
}

/*
 * The parallel groups of the profile's metadata record (asc-ingest reads
 * profiler_metadata.json): groups, the raw JSON of its "groups" (NULL, or
 * not an array: none, as at each profile record).
 */
void
readmeta(const char *groups, size_t n)
{
	jv pg;

	for (int i = 0; i < M.n; i++) {
		free(M.key[i]);
		free(M.name[i]);
	}
	memset(&M, 0, sizeof M);
	M.dims = -1;
	M.ppstage = M.ppstages = -1;
	if (groups == NULL)
		return;
	pg = jv_parse_sized(groups, (int)n);
	if (jv_get_kind(pg) != JV_KIND_ARRAY) {
		jv_free(pg);
		return;
	}
	M.have = 1;
	jv_array_foreach(pg, gi, v) {
		int isobj = jv_get_kind(v) == JV_KIND_OBJECT;
		jv k = isobj ? jv_object_get(jv_copy(v), jv_string("key")) : jv_invalid();
		jv gn = isobj ? jv_object_get(jv_copy(v), jv_string("name")) : jv_invalid();
		jv gr = isobj ? jv_object_get(jv_copy(v), jv_string("global_ranks")) : jv_invalid();

		if (M.n < MAXGROUP && jv_get_kind(gn) == JV_KIND_STRING && jv_get_kind(k) == JV_KIND_STRING) {
			int i = M.n++;

			M.key[i] = xstrdup(jv_string_value(k));
			M.name[i] = xstrdup(jv_string_value(gn));
			M.size[i] = jv_get_kind(gr) == JV_KIND_ARRAY ? jv_array_length(jv_copy(gr)) : 0;
			M.role[i] = -1;
			for (int g = 0; g < ngr && M.role[i] < 0; g++)
				for (const char *const *gl = grglob[g]; *gl; gl++)
					if (fnmatch(*gl, M.name[i], 0) == 0) {
						M.role[i] = roleidx(grname[g]);
						break;
					}
			/* The pipeline stage: this rank's place in its pp group. */
			if (M.role[i] == r_pp && M.role[i] >= 0 && M.ppstages < 0) {
				jv rk = jv_object_get(jv_copy(v), jv_string("group_rank"));

				if (jv_get_kind(rk) == JV_KIND_NUMBER && M.size[i] > 0 &&
				    jv_number_value(rk) >= 0 && jv_number_value(rk) < M.size[i]) {
					M.ppstage = (int)jv_number_value(rk);
					M.ppstages = M.size[i];
				}
				jv_free(rk);
			}
		}
		jv_free(gn);
		jv_free(gr);
		jv_free(k);
		jv_free(v);
	}
	jv_free(pg);
	/* The collective dimensions with more than one rank. */
	for (int i = 0, many = 0; i < M.n; i++) {
		if (M.role[i] < 0 || M.size[i] < 2 || M.role[i] == r_embd)
			continue;
		if (M.role[i] == r_pp) {
			if (M.size[i] > M.ppsize)
				M.ppsize = M.size[i];
			continue;
		}
		if (M.role[i] == r_ep && M.size[i] > M.epsize)
			M.epsize = M.size[i];
		if (M.dims < 0 && !many)
			M.dims = M.role[i];
		else if (M.dims != M.role[i]) {
			M.dims = -1;
			many = 1;
		}
	}
}

/* Tally a comm record's op by name and group (MAXCR at most). */
static void
cr_add(struct rin *r, int op, int g)
{
	const struct rfield *f = rin_get(r, "elapse_ms");
	int nm = kname(NT.v[op].s, NT.v[op].n)->norm, i;
	int64_t ns = 0;

	for (i = 0; i < ncr && (CR[i].name != nm || CR[i].group != g); i++)
		;
	if (i == ncr) {
		if (ncr == MAXCR)
			return;
		CR[ncr++] = (struct cr){ nm, op, g, 0, 0 };
	}
	CR[i].n++;
	if (f != NULL && !rf_isnull(f) && dec_parse(f->v, f->vlen, 6, &ns) == 0)
		CR[i].elapse += ns;
}

/* A comm record (communication.json): op -> group. */
void
commrec(struct rin *r)
{
	struct buf ob2 = {0};
	struct cg *c;
	int op;

	if (nopg >= OPGCAP || rin_scan(r) != 0 || rin_str(r, "op", &tmp) != 0)
		return;
	op = intern(tmp.p, tmp.len);
	if (rin_str(r, "group", &ob2) == 0) {
		int g = intern(ob2.p, ob2.len);

		if ((size_t)op >= capopg) {
			size_t nc = (size_t)op + 1 > 2 * capopg ? (size_t)op + 1 : 2 * capopg;

			opg = xreallocarray(opg, nc, sizeof *opg);
			memset(opg + capopg, 0, (nc - capopg) * sizeof *opg);
			capopg = nc;
		}
		if (opg[op] == 0)
			nopg++;
		opg[op] = g + 1;
		cr_add(r, op, g);
		if ((c = cgget(g)) != NULL) {
			const char *on = NT.v[op].s;

			if ((rin_str(r, "kind", &ob2) == 0 && strcmp(ob2.p, "p2p") == 0) ||
			    strcasestr(on, "send") || strcasestr(on, "recv") || strcasestr(on, "receive"))
				c->p2p = 1;
			else if (strcasestr(on, "reducescatter") || strcasestr(on, "allgather"))
				c->rsag = 1;
			else if (strcasestr(on, "allreduce"))
				c->ar = 1;
		}
	}
	buf_free(&ob2);
}

/* Without kernels: communication.json's ops by name and group, with roles. */
void
put_comm_ops(void)
{
	out_key(&ob, "comm_ops");
	buf_addc(&ob, '[');
	for (int i = 0; i < ncr; i++) {
		const struct rawname *kn = kname(NT.v[CR[i].raw].s, NT.v[CR[i].raw].n);
		const char *pg = NULL;
		int group, src, role;

		role = commrole(NT.v[CR[i].raw].s, NT.v[CR[i].raw].n, kn->flags,
		    kn->role >= 0 ? kn->role : rother, PH_FWD, &group, &src);
		for (int k = 0; k < ncg; k++)
			if (CG[k].g == CR[i].group && CG[k].meta >= 0)
				pg = M.name[CG[k].meta];
		buf_adds(&ob, i ? ",{" : "{");
		buf_adds(&ob, "\"op\":");
		out_esc(&ob, NT.v[CR[i].name].s, NT.v[CR[i].name].n);
		buf_adds(&ob, ",\"group\":");
		out_esc(&ob, NT.v[CR[i].group].s, NT.v[CR[i].group].n);
		buf_adds(&ob, ",\"parallel_group\":");
		if (pg)
			out_esc(&ob, pg, strlen(pg));
		else
			buf_adds(&ob, "null");
		buf_adds(&ob, ",\"role\":");
		out_esc(&ob, rolename(role), strlen(rolename(role)));
		buf_adds(&ob, ",\"role_source\":");
		out_esc(&ob, rsname[src], strlen(rsname[src]));
		out_cstr(&ob, "role_evidence", src == RS_INF ? cgwhy(group) : NULL);
		buf_adds(&ob, ",\"ops\":");
		out_int(&ob, CR[i].n);
		buf_adds(&ob, ",\"elapse_ns\":");
		out_int(&ob, CR[i].elapse);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}
