/*
 * asc-comm: the comm groups: their members, their roles from the
 * metadata record's parallel groups, and the "comm_group" records.
 */
#define _GNU_SOURCE		/* strcasestr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "nsms.h"

#include "comm.h"

/* A named group of profiler_metadata.json's parallel_group_info (the
 * metadata record of asc-ingest). */
struct named {
	char		*name;
	int		 n;		/* its global ranks */
	int64_t		*gr;		/* the global ranks, n of them */
	int		 taken;
};

/* The comm groups matched so far in this profile. */
static struct gmap *GM;
static size_t ngm, cgm;

void
cleargm(void)
{
	for (size_t i = 0; i < ngm; i++)
		free(GM[i].group), free(GM[i].gr);
	ngm = 0;
}

/* What an op does, by its name (and the comm record's kind). */
static const char *const opkinds[] = { "send/recv", "reduce-scatter", "all-gather",
	"all-reduce", "all-to-all", "broadcast", "other" };
enum { NOPKIND = sizeof opkinds / sizeof opkinds[0] };

static int
opkind(const char *name, const char *kind)
{
	if ((kind && strcmp(kind, "p2p") == 0) || strcasestr(name, "send") || strcasestr(name, "receive") ||
	    strcasestr(name, "recv"))
		return 0;
	if (strcasestr(name, "reducescatter"))
		return 1;
	if (strcasestr(name, "allgather"))
		return 2;
	if (strcasestr(name, "allreduce"))
		return 3;
	if (strcasestr(name, "alltoall"))
		return 4;
	if (strcasestr(name, "broadcast"))
		return 5;
	return 6;
}

/* What the capture says of a comm group, to find its role. */
struct gev {
	const char	*group;
	int64_t		 size;
	int		 p2p, rs_ag, ar;	/* send/recv, reduce-scatter or
					   all-gather, all-reduce ops */
	long		 nk[NOPKIND];	/* comm records of each opkinds[] */
	double		 maxmb;		/* largest link transfer (MB) */
	char		*role;
	const char	*from;
	int64_t		 elapsed, exposed;	/* exposed -1: no kernels */
	long		 ops;
	int64_t		 gradgap, gradcu;	/* -1: no embedding gradient
						   before its ops */
};

/* The last embedding-gradient kernel's end before t, or -1. */
static int64_t
gradend(int64_t t)
{
	int64_t e = -1;

	for (size_t i = 0; i < S.neg; i++)
		if (S.eg[i].e <= t && S.eg[i].e > e)
			e = S.eg[i].e;
	return e;
}

/* The ranks v[0], v[1] (-1: none) added to the n of m not yet there, up
 * to cap; the new count. */
static size_t
addranks(int64_t *m, size_t n, size_t cap, const int64_t v[2])
{
	for (int j = 0; j < 2; j++) {
		size_t k;

		if (v[j] < 0)
			continue;
		for (k = 0; k < n && m[k] != v[j]; k++)
			;
		if (k == n && n < cap)
			m[n++] = v[j];
	}
	return n;
}

/* The group's members from communication_matrix links, as local ranks. */
size_t
members(const char *group, int64_t *m, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < S.nlk; i++) {
		int64_t v[2] = { S.lk[i].a, S.lk[i].b };

		if (group == NULL || S.lk[i].group == NULL || strcmp(group, S.lk[i].group) != 0)
			continue;
		n = addranks(m, n, cap, v);
	}
	if (n == 0)	/* no matrix: the ranks the group's tasks name */
		for (size_t i = 0; i < S.nt; i++) {
			const struct op *o = S.t[i].oi >= 0 ? &S.op[S.t[i].oi] : NULL;
			int64_t v[2] = { S.t[i].src, S.t[i].peer };

			if (o == NULL || o->rec == NULL || o->rec->group == NULL ||
			    group == NULL || strcmp(o->rec->group, group) != 0)
				continue;
			n = addranks(m, n, cap, v);
		}
	for (size_t i = 1; i < n; i++)	/* insertion sort: small */
		for (size_t j = i; j > 0 && m[j - 1] > m[j]; j--) {
			int64_t x = m[j];

			m[j] = m[j - 1];
			m[j - 1] = x;
		}
	return n;
}

static int
haslinks(const char *group)
{
	for (size_t i = 0; i < S.nlk; i++)
		if (S.lk[i].group && strcmp(S.lk[i].group, group) == 0)
			return 1;
	return 0;
}

/* The metadata record's groups (parallel_group_info): names and global
 * ranks. */
static size_t
readnamed(struct named *nm, size_t cap)
{
	jv pg;
	size_t n = 0;

	if (S.groups == NULL)
		return 0;
	pg = jv_parse_sized(S.groups, (int)strlen(S.groups));
	if (jv_get_kind(pg) != JV_KIND_ARRAY) {
		jv_free(pg);
		return 0;
	}
	jv_array_foreach(pg, gi, v) {
		int isobj = jv_get_kind(v) == JV_KIND_OBJECT;
		jv gn = isobj ? jv_object_get(jv_copy(v), jv_string("name")) : jv_invalid();
		jv gr = isobj ? jv_object_get(jv_copy(v), jv_string("global_ranks")) : jv_invalid();

		if (n < cap && jv_get_kind(gn) == JV_KIND_STRING && jv_get_kind(gr) == JV_KIND_ARRAY) {
			nm[n].name = xstrdup(jv_string_value(gn));
			nm[n].n = jv_array_length(jv_copy(gr));
			nm[n].gr = xcalloc((size_t)nm[n].n + 1, sizeof *nm[n].gr);
			for (int q = 0; q < nm[n].n; q++) {
				jv x = jv_array_get(jv_copy(gr), q);

				nm[n].gr[q] = jv_get_kind(x) == JV_KIND_NUMBER ? (int64_t)jv_number_value(x) : -1;
				jv_free(x);
			}
			nm[n].taken = 0;
			n++;
		}
		jv_free(gn);
		jv_free(gr);
		jv_free(v);
	}
	jv_free(pg);
	return n;
}

/* The first named group of n ranks, not yet taken, whose name starts
 * with pre ("" any); its index or -1. */
static int
pick(struct named *nm, size_t nn, int64_t n, const char *pre)
{
	for (size_t i = 0; i < nn; i++)
		if (!nm[i].taken && nm[i].n == n && strncmp(nm[i].name, pre, strlen(pre)) == 0)
			return (int)i;
	return -1;
}

static void
take(struct gev *g, struct named *nm, int i, const char *from)
{
	if (i < 0 || g->role)
		return;
	nm[i].taken = 1;
	g->role = xstrdup(nm[i].name);
	g->from = from;
	PUSH(GM, ngm, cgm);
	GM[ngm].group = xstrdup(g->group);
	GM[ngm].n = nm[i].n;
	GM[ngm].gr = xcalloc((size_t)nm[i].n + 1, sizeof *GM[ngm].gr);
	memcpy(GM[ngm].gr, nm[i].gr, (size_t)nm[i].n * sizeof *GM[ngm].gr);
	ngm++;
}

const struct gmap *
findgm(const char *group)
{
	for (size_t i = 0; group && i < ngm; i++)
		if (strcmp(GM[i].group, group) == 0)
			return &GM[i];
	return NULL;
}

/*
 * Each comm group's role, from the named groups of its size, strongest
 * evidence first: send/recv is the pipeline (pp); reduce-scatter /
 * all-gather is data parallel (dp*); a 1-rank group does nothing across
 * ranks; a size only one name has; an all-reduce moving at least 1 MB on
 * a link is gradients (embd, then dp*), a smaller one scalars (mp).
 */
static void
roles(struct gev *g, size_t ng)
{
	struct named nm[256];
	size_t nn = readnamed(nm, sizeof nm / sizeof nm[0]);

	for (size_t i = 0; i < ng; i++)
		if (g[i].p2p)
			take(&g[i], nm, pick(nm, nn, g[i].size, "pp"), "send/recv on a group of the size of parallel_group_info's pp");
	for (size_t i = 0; i < ng; i++)
		if (g[i].rs_ag)
			take(&g[i], nm, pick(nm, nn, g[i].size, "dp"), "reduce-scatter / all-gather on a group of the size of parallel_group_info's dp");
	for (size_t i = 0; i < ng; i++)
		if (g[i].size == 1) {
			int k = pick(nm, nn, 1, "tp");

			take(&g[i], nm, k >= 0 ? k : pick(nm, nn, 1, ""), "1 rank: does nothing across ranks");
		}
	for (size_t i = 0; i < ng; i++) {
		int k = pick(nm, nn, g[i].size, ""), k2 = -1;

		for (size_t j = 0; k >= 0 && j < nn; j++)
			if ((int)j != k && !nm[j].taken && nm[j].n == g[i].size)
				k2 = (int)j;
		if (k >= 0 && k2 < 0)
			take(&g[i], nm, k, "the only name of parallel_group_info with this many ranks");
	}
	for (size_t i = 0; i < ng; i++)
		if (g[i].ar && g[i].maxmb >= 1) {
			int k = pick(nm, nn, g[i].size, "embd");

			take(&g[i], nm, k >= 0 ? k : pick(nm, nn, g[i].size, "dp"),
			    "all-reduce of at least 1 MB per link (gradients) on a group of that size");
		} else if (g[i].ar)
			take(&g[i], nm, pick(nm, nn, g[i].size, "mp"), "all-reduce of under 1 MB per link (scalars) on a group of that size");
	for (size_t i = 0; i < nn; i++)
		free(nm[i].name), free(nm[i].gr);
	if (nn == 0)
		for (size_t i = 0; i < ng; i++)
			g[i].from = S.meta == 0 ? "no metadata record in the input (asc-ingest writes it): no parallel_group_info" :
			    S.meta == 1 ? "no profiler_metadata.json beside the profile: no parallel_group_info" :
			    "no parallel_group_info in profiler_metadata.json";
}

/* The group's global ranks (parallel_group_info) and the others than
 * this profile's rank: its peers; null when no named group matched. */
static void
putglobal(struct buf *b, const char *group)
{
	const struct gmap *m = findgm(group);

	if (m == NULL) {
		out_null(b, "global_ranks");
		out_null(b, "peer_global_ranks");
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		int n = 0;

		out_key(b, pass ? "peer_global_ranks" : "global_ranks");
		buf_addc(b, '[');
		for (int k = 0; k < m->n; k++) {
			if (pass && m->gr[k] == S.rank)
				continue;
			if (n++)
				buf_addc(b, ',');
			out_int(b, m->gr[k]);
		}
		buf_addc(b, ']');
	}
}

/* "ops_kind": what the group's comm records are, the most first
 * ("3 all-reduce, 1 all-gather"). */
static void
putkinds(struct buf *b, const long *nk)
{
	struct buf t = {0};
	int done[NOPKIND] = {0};

	for (;;) {
		int best = -1;
		char n[32];

		for (int k = 0; k < NOPKIND; k++)
			if (!done[k] && nk[k] > 0 && (best < 0 || nk[k] > nk[best]))
				best = k;
		if (best < 0)
			break;
		done[best] = 1;
		snprintf(n, sizeof n, "%s%ld ", t.len ? ", " : "", nk[best]);
		buf_adds(&t, n);
		buf_adds(&t, opkinds[best]);
	}
	out_cstr(b, "ops_kind", t.p ? t.p : "");
	buf_free(&t);
}

void
putgroups(void)
{
	int64_t m[4096];
	struct gev *ge = xcalloc(S.ncr + 1, sizeof *ge);
	size_t ng = 0;

	/* the groups and their evidence */
	for (size_t i = 0; i < S.ncr; i++) {
		const struct cop *c = &S.cr[i];
		size_t j;

		if (c->group == NULL)
			continue;
		for (j = 0; j < ng && strcmp(ge[j].group, c->group) != 0; j++)
			;
		if (j == ng) {
			ge[ng].group = c->group;
			ge[ng].size = (int64_t)members(c->group, m, sizeof m / sizeof m[0]);
			ge[ng].gradgap = ge[ng].gradcu = -1;
			for (size_t l = 0; l < S.nlk; l++)
				if (S.lk[l].group && strcmp(S.lk[l].group, c->group) == 0 &&
				    S.lk[l].a != S.lk[l].b && S.lk[l].mb > ge[ng].maxmb)
					ge[ng].maxmb = S.lk[l].mb;
			ng++;
		}
		ge[j].nk[opkind(c->name, c->kind)]++;
		if (c->kind && strcmp(c->kind, "p2p") == 0)
			ge[j].p2p = 1;
		else if (strcasestr(c->name, "reducescatter") || strcasestr(c->name, "allgather"))
			ge[j].rs_ag = 1;
		else if (strcasestr(c->name, "allreduce"))
			ge[j].ar = 1;
	}
	for (size_t i = 0; i < S.nop; i++) {
		const struct cop *c = S.op[i].rec;

		for (size_t j = 0; c && c->group && j < ng; j++)
			if (strcmp(ge[j].group, c->group) == 0) {
				int64_t g0 = gradend(S.op[i].start);

				/* from the embedding gradient to the op: the
				 * compute left to hide the op under */
				if (g0 >= 0 && ge[j].ar) {
					if (ge[j].gradgap < 0)
						ge[j].gradgap = ge[j].gradcu = 0;
					ge[j].gradgap += S.op[i].start - g0;
					ge[j].gradcu += undercompute(g0, S.op[i].start);
				}
				ge[j].elapsed += S.op[i].end - S.op[i].start;
				ge[j].exposed += S.op[i].end - S.op[i].start -
				    undercompute(S.op[i].start, S.op[i].end);
				ge[j].ops++;
			}
	}
	/* no kernels (a rank without a kernel table): the comm records' elapse */
	for (size_t j = 0; j < ng; j++)
		if (ge[j].ops == 0) {
			ge[j].exposed = -1;
			for (size_t i = 0; i < S.ncr; i++)
				if (S.cr[i].group && strcmp(S.cr[i].group, ge[j].group) == 0 &&
				    S.cr[i].elapse >= 0) {
					ge[j].elapsed += S.cr[i].elapse;
					ge[j].ops++;
				}
		}
	roles(ge, ng);

	for (size_t i = 0; i < ng; i++) {
		const char *g = ge[i].group;
		size_t n = members(g, m, sizeof m / sizeof m[0]);

		out_begin(&ob, "comm_group");
		out_raw(&ob, "profile", S.profile, strlen(S.profile));
		out_cstr(&ob, "group", g);
		if (n) {
			out_i64(&ob, "size", (int64_t)n);
			out_cstr(&ob, "size_from", haslinks(g) ? "communication_matrix" : "comm_tasks");
		} else {
			out_null(&ob, "size");
			out_null(&ob, "size_from");
		}
		out_key(&ob, "members");
		buf_addc(&ob, '[');
		for (size_t k = 0; k < n; k++) {
			if (k)
				buf_addc(&ob, ',');
			out_int(&ob, m[k]);
		}
		buf_addc(&ob, ']');
		if (S.rank < 0)
			out_null(&ob, "rank");
		else
			out_i64(&ob, "rank", S.rank);
		out_i64(&ob, "ranks_in_input", 1);
		putglobal(&ob, g);
		out_cstr(&ob, "role", ge[i].role);
		out_cstr(&ob, "role_from", ge[i].from);
		putkinds(&ob, ge[i].nk);
		out_i64(&ob, "ops", ge[i].ops);
		out_nsms(&ob, "elapsed", ge[i].elapsed);
		out_nsms_or_null(&ob, "exposed", ge[i].exposed >= 0, ge[i].exposed);
		if (ge[i].gradgap >= 0 && ge[i].role && strncmp(ge[i].role, "embd", 4) == 0) {
			out_nsms(&ob, "after_grad", ge[i].gradgap);
			out_nsms(&ob, "after_grad_compute", ge[i].gradcu);
		}
		rec_put(&ob, stdout);
		free(ge[i].role);
	}
	free(ge);
}
