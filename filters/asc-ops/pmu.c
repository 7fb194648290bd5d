/*
 * asc-ops: the PMU part (pmu.h): the profile's PMU status, each kernel's
 * values parsed and summed per op or joined from -M, each op judged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "intern.h"
#include "jscan.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#include "pmu.h"

const char *const pmu_col[NPMU] = {
	"aic_mac_ratio", "aic_scalar_ratio", "aic_mte1_ratio", "aic_mte2_ratio",
	"aic_fixpipe_ratio", "aiv_vec_ratio", "aiv_scalar_ratio", "aiv_mte2_ratio",
	"aiv_mte3_ratio", "mac_ratio", "scalar_ratio", "mte1_ratio", "mte2_ratio",
	"fixpipe_ratio", "vec_ratio", "mte3_ratio", "cube_utilization(%)",
	"aic_icache_miss_rate", "aiv_icache_miss_rate", "icache_miss_rate"
};
static uint64_t pmuhash[NPMU];

void
pmu_init(void)
{
	for (int i = 0; i < NPMU; i++)
		pmuhash[i] = fnv(FNV_INIT, pmu_col[i], strlen(pmu_col[i]));
}

/* Scan a flat object of numbers; unknown shapes of value end the scan. */
#define PMUCACHE	64
static struct {
	char	 k[48];
	size_t	 kn;
	int	 want;
} pc[PMUCACHE];		/* column i's key as last seen, and its P_* or -1 */

/*
 * The value of the JSON number [p, q) (js_num read it whole): the plain
 * decimals of the PMU columns ("0.123456") without strtod, which reads
 * the rest.  At most 15 digits make an exact integer and 10^k (k <= 15)
 * is exact, so one division is the correctly rounded value, strtod's own.
 */
static double
pmudbl(const char *p, const char *q)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	    1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	const char *s = p + (*p == '-'), *f;
	uint64_t m = 0;
	int nd = 0, frac = 0;

	for (; s < q && *s >= '0' && *s <= '9'; s++, nd++)
		m = m * 10 + (uint64_t)(*s - '0');
	if (s < q && *s == '.') {
		for (f = ++s; s < q && *s >= '0' && *s <= '9'; s++, nd++)
			m = m * 10 + (uint64_t)(*s - '0');
		frac = (int)(s - f);
	}
	if (s < q || nd > 15)	/* an exponent, or digits a double may not hold */
		return strtod(p, NULL);
	double d = (double)m / p10[frac];

	return *p == '-' ? -d : d;
}

/*
 * Scan the flat object of numbers [p, e) into val / has, with jscan.h's
 * blanks, string runs and number grammar.  0: it was exactly that (JSON
 * numbers and nulls, unescaped keys), as asc-ingest writes it; -1:
 * another shape, of which the values before the first one not understood
 * are kept.  tests/unit/pmu_test.c holds it to the record reader.
 */
int
pmu_scan(const char *p, const char *e, double *val, int *has)
{
	int col = 0, ok;

	memset(has, 0, NPMU * sizeof *has);
	p = js_ws(p, e);
	if (p >= e || *p != '{')
		return -1;
	p++;
	for (;;) {
		const char *k, *q;
		size_t kn;
		uint64_t h;

		p = js_ws(p, e);
		if (p < e && *p == '}' && col == 0)
			return js_ws(p + 1, e) == e ? 0 : -1;
		if (p >= e || *p != '"')
			return -1;
		k = ++p;
		/* Every kernel of a file has the same columns in the same order:
		 * the key column col had last time, when it is there again
		 * (a cached key is a plain run: no quote, backslash or control),
		 * is not scanned. */
		int cached = col < PMUCACHE && (kn = pc[col].kn) > 0 && (size_t)(e - p) > kn &&
		    p[kn] == '"' && memcmp(p, pc[col].k, kn) == 0;

		if (cached)
			p += kn;
		else {
			if ((p = js_stop(p, e)) >= e || *p != '"')
				return -1;
			kn = (size_t)(p - k);
		}
		p = js_ws(p + 1, e);
		if (p >= e || *p++ != ':')
			return -1;
		p = js_ws(p, e);
		if (p >= e)
			return -1;
		/* Only ratio, rate and percent columns are wanted. */
		int want = -1;

		if (cached)
			want = pc[col].want;
		else {
			if (kn > 3 && (k[kn - 1] == 'o' || k[kn - 1] == 'e' || k[kn - 1] == ')')) {
				h = fnv(FNV_INIT, k, kn);
				for (int i = 0; i < NPMU; i++)
					if (pmuhash[i] == h && strlen(pmu_col[i]) == kn) {
						want = i;
						break;
					}
			}
			if (col < PMUCACHE && kn < sizeof pc[col].k) {
				memcpy(pc[col].k, k, kn);
				pc[col].kn = kn;
				pc[col].want = want;
			}
		}
		col++;
		if (*p == 'n') {
			if (e - p < 4 || memcmp(p, "null", 4) != 0)
				return -1;
			p += 4;
			if (want >= 0)
				has[want] = 0;	/* a repeated key: the last wins, as in jq */
		} else {
			if ((q = js_num(p, e, &ok)) == NULL || !ok)
				return -1;
			if (want >= 0) {
				val[want] = pmudbl(p, q);
				has[want] = 1;
			}
			p = q;
		}
		p = js_ws(p, e);
		if (p < e && *p == ',') {
			p++;
			continue;
		}
		return p < e && *p == '}' && js_ws(p + 1, e) == e ? 0 : -1;
	}
}

static double
pv(const struct pmu_sum *o, int i)
{
	return o->pd[i] > 0 ? o->pw[i] / (double)o->pd[i] : -1;
}

static void
cand(struct pmu_judge *j, const struct pmu_sum *o, int col, const char *bound, double thr)
{
	double v = pv(o, col);

	if (v < 0)
		return;
	for (int i = 0; i < j->ncols; i++)
		if (j->cols[i] == col)
			goto have;
	j->cols[j->ncols++] = col;
have:
	if (v >= thr && (j->bound == NULL || v - thr > j->value - j->threshold)) {
		j->bound = bound;
		j->rule = pmu_col[col];
		j->value = v;
		j->threshold = thr;
		j->cond = NULL;
	}
}

/*
 * A cube kernel whose input pipe (MTE2, GM -> L1) is busy while the cube
 * (MAC) idles most of the time waits for its input: mte2_bound, even
 * below the plain mte2 limit (pmu.cube.starved_*).
 */
static void
starved(struct pmu_judge *j, const struct pmu_sum *o, int mte2, int mac)
{
	double thr = rules_num("pmu.cube.starved_mte2_ratio");
	double cthr = rules_num("pmu.cube.starved_mac_ratio");
	double v = pv(o, mte2), m = pv(o, mac);

	if (v < 0 || m < 0 || m >= cthr || v < thr ||
	    (j->bound != NULL && v - thr <= j->value - j->threshold))
		return;
	j->bound = "mte2_bound";
	j->rule = pmu_col[mte2];
	j->value = v;
	j->threshold = thr;
	j->cond = pmu_col[mac];
	j->cthr = cthr;
}

static int
sideused(const struct pmu_sum *o, int from, int to)
{
	for (int i = from; i <= to; i++)
		if (pv(o, i) > 0)
			return 1;
	return 0;
}

/*
 * The bound class (asc-ops(1), PMU judgements).  Attention ops (by name) use
 * the attention limits; otherwise the cube side (aic_) uses the cube
 * limits and the vector side (aiv_) the vector limits, each side only
 * when the task type runs on it and its ratios are not all zero.  The
 * class whose ratio exceeds its limit by the largest margin wins; with
 * none, "balanced" when the evaluated ratios of one side sum to the
 * balanced limit, else "unknown".
 */
void
pmu_judge(const struct pmu_sum *o, const struct pmu_who *w, struct pmu_judge *j)
{
	int attn = rules_match("pmu.attention_ops", w->key) ||
	    (w->name && rules_match("pmu.attention_ops", w->name));
	const char *tt = w->tt ? w->tt : "";
	int cube = strcmp(tt, "AI_VECTOR_CORE") != 0;
	int vec = strcmp(tt, "AI_CORE") != 0;
	double sc = rules_num("pmu.scalar_ratio");

	memset(j, 0, sizeof *j);
	if (attn) {
		cand(j, o, P_AIC_MTE2, "mte2_bound", rules_num("pmu.attention.mte2_ratio"));
		cand(j, o, P_AIV_MTE2, "mte2_bound", rules_num("pmu.attention.mte2_ratio"));
		cand(j, o, P_MTE2, "mte2_bound", rules_num("pmu.attention.mte2_ratio"));
		cand(j, o, P_AIC_FIXPIPE, "fixpipe_bound", rules_num("pmu.attention.fixpipe_ratio"));
		cand(j, o, P_FIXPIPE, "fixpipe_bound", rules_num("pmu.attention.fixpipe_ratio"));
		cand(j, o, P_AIV_VEC, "vector_bound", rules_num("pmu.attention.vec_ratio"));
		cand(j, o, P_VEC, "vector_bound", rules_num("pmu.attention.vec_ratio"));
		cand(j, o, P_AIC_SCALAR, "scalar_bound", sc);
		cand(j, o, P_AIV_SCALAR, "scalar_bound", sc);
		cand(j, o, P_SCALAR, "scalar_bound", sc);
		cand(j, o, P_AIC_MAC, "cube_bound", rules_num("pmu.cube.mac_ratio"));
		cand(j, o, P_MAC, "cube_bound", rules_num("pmu.cube.mac_ratio"));
		goto done;
	}
	if (cube && sideused(o, P_AIC_MAC, P_AIC_FIXPIPE)) {
		cand(j, o, P_AIC_MAC, "cube_bound", rules_num("pmu.cube.mac_ratio"));
		cand(j, o, P_AIC_MTE2, "mte2_bound", rules_num("pmu.cube.mte2_ratio"));
		cand(j, o, P_AIC_SCALAR, "scalar_bound", sc);
		cand(j, o, P_AIC_MTE1, "", 2);
		cand(j, o, P_AIC_FIXPIPE, "", 2);
		starved(j, o, P_AIC_MTE2, P_AIC_MAC);
	}
	if (vec && sideused(o, P_AIV_VEC, P_AIV_MTE3)) {
		cand(j, o, P_AIV_VEC, "vector_bound", rules_num("pmu.vector.vec_ratio"));
		cand(j, o, P_AIV_MTE2, "mte2_bound", rules_num("pmu.vector.mte2_ratio"));
		cand(j, o, P_AIV_MTE3, "mte3_bound", rules_num("pmu.vector.mte3_ratio"));
		cand(j, o, P_AIV_SCALAR, "scalar_bound", sc);
	}
	if (sideused(o, P_MAC, P_MTE3)) {
		/* Older chips: one unprefixed set; cube-like when mac >= vec. */
		int cubeish = pv(o, P_MAC) >= pv(o, P_VEC);

		cand(j, o, P_MAC, "cube_bound", rules_num("pmu.cube.mac_ratio"));
		cand(j, o, P_VEC, "vector_bound", rules_num("pmu.vector.vec_ratio"));
		cand(j, o, P_MTE2, "mte2_bound", cubeish ? rules_num("pmu.cube.mte2_ratio") :
		    rules_num("pmu.vector.mte2_ratio"));
		cand(j, o, P_MTE3, "mte3_bound", rules_num("pmu.vector.mte3_ratio"));
		cand(j, o, P_SCALAR, "scalar_bound", sc);
		cand(j, o, P_MTE1, "", 2);
		cand(j, o, P_FIXPIPE, "", 2);
		if (cubeish)
			starved(j, o, P_MTE2, P_MAC);
	}
done:
	if (j->bound == NULL && j->ncols > 0) {
		double sum[3] = { 0, 0, 0 };

		for (int i = 0; i < j->ncols; i++) {
			int c = j->cols[i];

			sum[c <= P_AIC_FIXPIPE ? 0 : c <= P_AIV_MTE3 ? 1 : 2] += pv(o, c);
		}
		if (sum[0] >= rules_num("pmu.balanced_sum") - 1e-9 ||
		    sum[1] >= rules_num("pmu.balanced_sum") - 1e-9 ||
		    sum[2] >= rules_num("pmu.balanced_sum") - 1e-9)
			j->bound = "balanced";
	}
	if (j->bound == NULL)
		j->bound = "unknown";
}

void
pmu_status(struct buf *b, int status, const struct buf *metrics)
{
	static struct buf t;

	if (status == 1)
		buf_adds(b, "available");
	else if (status == 2) {
		struct rfield f = { NULL, metrics->p, 0, metrics->len };

		t.len = 0;
		buf_adds(b, "unavailable (metrics=");
		if (rf_str(&f, &t) == 0)
			buf_add(b, t.p, t.len);
		buf_addc(b, ')');
	} else if (status == 3)
		buf_adds(b, "left_out");
	else
		buf_adds(b, "unavailable");
}

void
pmu_put(struct buf *ob, const struct pmu_sum *o, const struct pmu_who *w, int compute,
    int status, const struct buf *metrics)
{
	static struct buf tmp;
	struct pmu_judge j;
	char t[40];

	out_key(ob, "pmu");
	if (!compute) {
		buf_adds(ob, "null");
		return;
	}
	tmp.len = 0;
	pmu_status(&tmp, status, metrics);
	if (status != 1 || o->pk == 0) {
		buf_adds(ob, "{\"status\":");
		if (status == 1)
			out_esc(ob, "no_values", 9);
		else
			out_esc(ob, tmp.p, tmp.len);
		buf_adds(ob, ",\"bound\":null}");
		return;
	}
	pmu_judge(o, w, &j);
	buf_adds(ob, "{\"status\":\"available\",\"bound\":");
	out_esc(ob, j.bound, strlen(j.bound));
	out_key(ob, "rule");
	if (j.rule) {
		char r[96];

		if (j.cond)
			snprintf(r, sizeof r, "%s>=%g and %s<%g", j.rule, j.threshold, j.cond, j.cthr);
		else
			snprintf(r, sizeof r, "%s>=%g", j.rule, j.threshold);
		out_esc(ob, r, strlen(r));
		snprintf(t, sizeof t, "%.3f", j.value - j.threshold);
		out_raw(ob, "margin", t, strlen(t));
	} else {
		buf_adds(ob, "null");
		out_null(ob, "margin");
	}
	out_i64(ob, "kernels", o->pk);
	out_key(ob, "evidence");
	buf_addc(ob, '{');
	int aic = 0, aiv = 0, unp = 0;

	for (int c = 0; c < j.ncols; c++) {
		aic |= j.cols[c] <= P_AIC_FIXPIPE;
		aiv |= j.cols[c] >= P_AIV_VEC && j.cols[c] <= P_AIV_MTE3;
		unp |= j.cols[c] >= P_MAC && j.cols[c] <= P_MTE3;
	}
	for (int i = 0, first = 1; i < NPMU; i++) {
		int used = (i == P_CUBE_UTIL && (aic || unp)) || (i == P_AIC_ICACHE && aic) ||
		    (i == P_AIV_ICACHE && aiv) || (i == P_ICACHE && unp);

		for (int c = 0; c < j.ncols && !used; c++)
			used = j.cols[c] == i;
		if (!used || o->pd[i] <= 0)
			continue;
		if (!first)
			buf_addc(ob, ',');
		first = 0;
		out_esc(ob, pmu_col[i], strlen(pmu_col[i]));
		snprintf(t, sizeof t, ":%.3f", pv(o, i));
		buf_adds(ob, t);
	}
	buf_adds(ob, "}}");
}

void
pmu_add(struct pmu_sum *p, const double *pval, const int *phas, int64_t dur)
{
	p->pk++;
	for (int i = 0; i < NPMU; i++)
		if (phas[i]) {
			p->pw[i] += pval[i] * (double)dur;
			p->pd[i] += dur;
		}
}

static uint64_t
mkhash(const char *src, size_t n)
{
	return hash64(0, src, n) & ~(uint64_t)1;
}

/*
 * A pmu record as asc-ingest writes it (PREFIX,"src":"...","pmu":{...}},
 * PREFIX its type and profile), taken apart without the general scanner:
 * src's raw text, and the pmu value in [*v, *e).  -1: another shape.
 * tests/unit/pmu_test.c holds it to rin_scan.
 */
int
pmu_fast(const char *line, size_t len, const struct buf *pre, struct rfield *src,
    const char **v, const char **e)
{
	const char *p = line + pre->len, *end = line + len, *q;

	if (len <= pre->len + 8 || memcmp(line, pre->p, pre->len) != 0 ||
	    memcmp(p, ",\"src\":\"", 8) != 0 || end[-1] != '}')
		return -1;
	q = p + 7;
	if ((p = js_stop(q + 1, end)) >= end || *p != '"')
		return -1;
	src->v = q;
	src->vlen = (size_t)(p + 1 - q);
	p++;
	if (end - p < 8 || memcmp(p, ",\"pmu\":", 7) != 0)
		return -1;
	*v = p + 7;
	*e = end - 1;
	return 0;
}

/* A kernel of the input, for the join: its ops' sums, duration, and the
 * hash of its raw src (low bit: compute). */
struct pmu_mk {
	struct pmu_sum	*sum[PMU_VIEWS];
	int64_t		 dur;
	uint64_t	 h;
};

void
pmu_join_kernel(struct pmu_join *jn, struct pmu_sum *const sum[PMU_VIEWS], int64_t dur,
    const struct rfield *src, int compute)
{
	jn->mk = xgrow(jn->mk, jn->n, &jn->cap, 4096, sizeof *jn->mk);
	memcpy(jn->mk[jn->n].sum, sum, sizeof jn->mk[jn->n].sum);
	jn->mk[jn->n].dur = dur;
	jn->mk[jn->n++].h = mkhash(src ? src->v : "null", src ? src->vlen : 4) | (compute != 0);
}

/*
 * Read the file whole.  Each record must be the next kernel's (by src) or
 * a later one's: kernels without values have no record.
 */
int
pmu_join_file(struct pmu_join *jn, const char *path, size_t maxline, const char *prof,
    size_t nprof, int keep)
{
	struct pmu_mk *mk = jn->mk;
	size_t nmk = jn->n;
	struct rin *m;
	struct buf pre = { 0 };
	size_t at = 0;
	int st, rc = EX_OK;

	if (jn->done++)
		die("-M %s: the input holds more than one profile: -M takes one", path);
	if ((m = rin_new(path, maxline)) == NULL)
		dieerr("%s", path);
	while ((st = sr_aside_next(m, "-M", "pmu", prof, nprof, &pre)) != 0) {
		size_t j;
		struct rfield fsrc;
		const struct rfield *src = &fsrc, *f;
		const char *line, *v, *ve;
		size_t len;
		uint64_t h;
		double pval[NPMU];
		int phas[NPMU], pmu = 0, isnull = 0, fast;

		if (st < 0)
			goto bad;
		/* The fast shape, its values read once; else the record is
		 * checked whole and its values read as far as they go. */
		line = rin_line(m, &len);
		fast = pmu_fast(line, len, &pre, &fsrc, &v, &ve) == 0;
		if (fast && !(isnull = ve - v == 4 && memcmp(v, "null", 4) == 0))
			fast = pmu_scan(v, ve, pval, phas) == 0;
		if (!fast) {
			if (rin_scan(m) != 0)
				goto bad;
			if ((src = rin_get(m, "src")) == NULL || (f = rin_get(m, "pmu")) == NULL) {
				rin_error(m, "pmu record without \"src\" or \"pmu\"");
				goto bad;
			}
			if (!(isnull = rf_isnull(f)))
				pmu_scan(f->v, f->v + f->vlen, pval, phas);
		}
		h = mkhash(src->v, src->vlen);
		for (j = at; j < nmk && (mk[j].h & ~(uint64_t)1) != h; j++)
			;
		if (j == nmk) {
			rin_error(m, "pmu record of src %.*s matches no later kernel of the input",
			    (int)(src->vlen < 80 ? src->vlen : 80), src->v);
			goto bad;
		}
		at = j + 1;
		if (!(mk[j].h & 1) || isnull)
			continue;
		for (int i = 0; i < NPMU; i++)
			pmu |= phas[i];
		if (pmu)
			for (int k = 0; k < PMU_VIEWS; k++)
				if (mk[j].sum[k])
					pmu_add(mk[j].sum[k], pval, phas, mk[j].dur);
		continue;
bad:
		if (rin_bad(m, keep, &rc))
			exit(EX_DATA);
	}
	rin_free(m);
	buf_free(&pre);
	jn->n = 0;
	return rc;
}

/*
 * A kernel's PMU values.  With a join (-M) its sums are left for the file
 * and a "pmu" of its own is an error; else a compute kernel's "pmu" is
 * scanned into val / has.  1: values to add, 0: none, -1: an error, in r.
 */
int
pmu_kernel(struct rin *r, struct pmu_join *jn, struct pmu_sum *const sum[PMU_VIEWS],
    int64_t dur, const struct rfield *src, int compute, double *val, int *has)
{
	const struct rfield *f;
	int pmu = 0;

	if (jn) {
		if (rin_get(r, "pmu") != NULL) {
			rin_error(r, "kernel has \"pmu\": with -M the values come from the -M file only");
			return -1;
		}
		pmu_join_kernel(jn, sum, dur, src, compute);
	} else if (compute && (f = rin_get(r, "pmu")) != NULL && !rf_isnull(f)) {
		pmu_scan(f->v, f->v + f->vlen, val, has);
		for (int i = 0; i < NPMU; i++)
			pmu |= has[i];
	}
	return pmu;
}

/*
 * The profile's PMU status from its record line (pmu_status says what
 * each value means), and the raw JSON of its config.aic_metrics appended
 * to metrics.  joined: the values come from an -M file.
 */
int
pmu_profile(const char *line, size_t len, int joined, struct buf *metrics)
{
	jv p, cfg, m, pmu;
	int status;

	p = jv_parse_sized(line, (int)len);
	if (!jv_is_valid(p)) {
		jv_free(p);
		return 0;
	}
	cfg = jv_get_kind(p) == JV_KIND_OBJECT ? jv_object_get(jv_copy(p), jv_string("config")) :
	    jv_null();
	m = jv_get_kind(cfg) == JV_KIND_OBJECT ? jv_object_get(jv_copy(cfg), jv_string("aic_metrics")) :
	    jv_null();
	pmu = jv_get_kind(p) == JV_KIND_OBJECT ? jv_object_get(jv_copy(p), jv_string("kernel_table")) :
	    jv_null();
	int leftout = 0;

	if (jv_get_kind(pmu) == JV_KIND_OBJECT) {
		jv lo = jv_object_get(jv_copy(pmu), jv_string("pmu_left_out"));
		jv as = jv_object_get(jv_copy(pmu), jv_string("pmu_aside"));

		/* asc-ingest -M without asc-ops -M: the values are not here either. */
		leftout = jv_get_kind(lo) == JV_KIND_TRUE || (jv_get_kind(as) == JV_KIND_TRUE && !joined);
		jv_free(lo);
		jv_free(as);
	}
	pmu = jv_get_kind(pmu) == JV_KIND_OBJECT ? jv_object_get(pmu, jv_string("pmu")) :
	    (jv_free(pmu), jv_null());
	int ratios = 0;

	if (jv_get_kind(pmu) == JV_KIND_ARRAY)
		jv_array_foreach(pmu, i, c) {
			if (jv_get_kind(c) == JV_KIND_STRING && strstr(jv_string_value(c), "_ratio"))
				ratios = 1;
			jv_free(c);
			(void)i;
		}
	if (jv_get_kind(m) == JV_KIND_STRING) {
		jv d = jv_dump_string(jv_copy(m), 0);
		const char *s = jv_string_value(m);

		buf_adds(metrics, jv_string_value(d));
		jv_free(d);
		int pipe = strstr(s, "PIPE_UTILIZATION") || strstr(s, "PipeUtilization");
		int none = s[0] == '\0' || strstr(s, "NONE") != NULL;

		status = !pipe && !none ? 2 : ratios ? 1 : 0;
	} else
		status = ratios ? 1 : 0;
	if (status == 1 && leftout)
		status = 3;	/* asc-ingest -P or -M: collected, not read */
	jv_free(m);
	jv_free(cfg);
	jv_free(pmu);
	jv_free(p);
	return status;
}
