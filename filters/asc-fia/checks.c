/* asc-fia: the cross-verification checks of each pass (fia.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

#include "fia.h"

const struct ckind ckind[4] = {
	{ "fia_equals_layers", F_FIA, 0 },
	{ "dfc_equals_moe_dfc", F_DFC, 1u << T_DFC },
	{ "grouped_matmul_equals_moe_gmm_decode", F_GMM, 1u << T_GMM | 1u << T_DECODE },
	{ "gating_equals_moe", F_GATE, 1u << T_DFC | 1u << T_GMM | 1u << T_MOE | 1u << T_DECODE },
};

void
chk_add(struct chk *c, int kind, const struct layer *L, size_t i)
{
	int flag = ckind[kind].flag;
	int n = flag == F_FIA ? L->nfia : flag == F_DFC ? L->dfc :
	    flag == F_GMM ? L->gmm : L->gate;
	int want = flag == F_FIA ? 1 : !!(ckind[kind].mask & (1u << L->type));
	char s[64];

	c->expected += want;
	c->observed += n > 0;
	c->kernels += n;
	if (n > 0) {
		if (c->mn < 0 || n < c->mn)
			c->mn = n;
		if (n > c->mx)
			c->mx = n;
	}
	if (want && n == 0) {
		if (c->nlack++ < 5) {
			snprintf(s, sizeof s, "%s%zu (%s)", c->nlack > 1 ? ", " : "", i, tname[L->type]);
			strcat(c->lack, s);
		}
		c->lackdecode &= L->type == T_DECODE;
	} else if (!want && n > 0 && c->nextra++ < 5) {
		snprintf(s, sizeof s, "%s%zu (%s)", c->nextra > 1 ? ", " : "", i, tname[L->type]);
		strcat(c->extra, s);
	}
}

/* One cross-verification check of a pass. */
static void
check(const struct chk *c, int64_t pi, int kind, int anymoe, int fia, int bwd)
{
	int flag = ckind[kind].flag, nlack = c->nlack, nextra = c->nextra;
	const char *status;
	char s[200];

	tb.len = 0;
	if (bwd) {
		status = "not_applicable";
		buf_adds(&tb, "backward pass: the checks of forward layers do not apply");
	} else if (flag == F_FIA && !fia) {
		status = "not_applicable";
		buf_adds(&tb, "no FIA kernels: layers come from a fallback marker");
	} else if (nlack == 0 && nextra == 0) {
		if (c->kernels == c->observed) {
			status = "ok";
			buf_adds(&tb, c->observed ? "one per layer" : "none expected, none found");
		} else {
			status = "ok_multiple";
			if (c->mn == c->mx)
				snprintf(s, sizeof s, "%lld kernels = %lld per layer x %lld layers",
				    (long long)c->kernels, (long long)c->mn, (long long)c->observed);
			else
				snprintf(s, sizeof s, "%lld kernels in %lld layers (%lld-%lld per layer)",
				    (long long)c->kernels, (long long)c->observed, (long long)c->mn,
				    (long long)c->mx);
			buf_adds(&tb, s);
		}
	} else if (nextra == 0 && c->lackdecode && !anymoe && flag != F_FIA) {
		status = "explained";
		buf_adds(&tb, "no MoE layer in the capture: the decode layers are dense (");
		buf_adds(&tb, c->lack);
		buf_adds(&tb, ")");
	} else {
		status = "mismatch";
		if (nlack) {
			snprintf(s, sizeof s, "%d expected layer%s without it: ", nlack, nlack > 1 ? "s" : "");
			buf_adds(&tb, s);
			buf_adds(&tb, c->lack);
			if (nlack > 5)
				buf_adds(&tb, ", ...");
		}
		if (nextra) {
			snprintf(s, sizeof s, "%s%d other layer%s with it: ", nlack ? "; " : "",
			    nextra, nextra > 1 ? "s" : "");
			buf_adds(&tb, s);
			buf_adds(&tb, c->extra);
			if (nextra > 5)
				buf_adds(&tb, ", ...");
		}
	}
	head("fia_check");
	out_i64(&ob, "pass", pi);
	out_cstr(&ob, "check", ckind[kind].what);
	out_i64(&ob, "expected_layers", c->expected);
	out_i64(&ob, "observed_layers", c->observed);
	out_i64(&ob, "kernels", c->kernels);
	out_cstr(&ob, "status", status);
	out_str(&ob, "note", tb.p ? tb.p : "", tb.len);
	/* Did it test anything: a marker expected or seen, or a layer count. */
	out_bool(&ob, "tested", strcmp(status, "not_applicable") != 0 &&
	    (c->expected > 0 || c->observed > 0));
	rec_put(&ob, stdout);
}

/* Backward pass pi holds as many layers as forward pass fi. */
static void
check_bwd(const struct pass *b, int64_t pi, const struct pass *f, int64_t fi)
{
	int64_t nb = (int64_t)(b->l1 - b->l0), nf = f ? (int64_t)(f->l1 - f->l0) : 0;
	char s[160];

	if (f)
		snprintf(s, sizeof s, "%lld backward layers; forward pass %lld has %lld",
		    (long long)nb, (long long)fi, (long long)nf);
	else
		snprintf(s, sizeof s, "%lld backward layers; no forward pass before it",
		    (long long)nb);
	head("fia_check");
	out_i64(&ob, "pass", pi);
	out_cstr(&ob, "check", "backward_equals_forward");
	out_i64(&ob, "expected_layers", nf);
	out_i64(&ob, "observed_layers", nb);
	out_i64(&ob, "kernels", 0);
	out_cstr(&ob, "status", f && nf == nb ? "ok" : "mismatch");
	out_cstr(&ob, "note", s);
	out_bool(&ob, "tested", 1);
	rec_put(&ob, stdout);
}

/* The passes' checks; the k-th backward pass against the k-th forward pass
 * (micro-batch k). */
void
verify(const struct unit *u)
{
	const struct chain *ch = u->ch;
	int anymoe = u->anymoe, fia = u->fia;

	for (size_t pi = 0, nb = 0; pi < ch->nrec; pi++) {
		for (int j = 0; j < 4; j++)
			check(&ch->rec[pi].ck[j], (int64_t)pi, j, anymoe, fia, ch->rec[pi].dir);
		if (ch->rec[pi].dir) {
			size_t fi = 0, k = 0;
			const struct pass *f = NULL;

			for (fi = 0; fi < ch->nrec; fi++)
				if (!ch->rec[fi].dir && k++ == nb) {
					f = &ch->rec[fi];
					break;
				}
			check_bwd(&ch->rec[pi], (int64_t)pi, f, (int64_t)fi);
			nb++;
		}
	}
}
