/*
 * asc-archmd: whether the comm records of a profile without kernels hold
 * gradient traffic (section 1 says so; asc-archmd.jq writes sections
 * 7-8 and asks the same of them in its commgrad) (archmd.h).
 */
#define _GNU_SOURCE		/* strcasestr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "archmd.h"

/* Is a comm op gradient traffic: a dp reduce-scatter / all-gather, an embd all-reduce? */
static int
isgrad(const char *role, const char *op)
{
	return strcmp(role, "embd_comm") == 0 || (strcmp(role, "dp_comm") == 0 &&
	    (strcasestr(op, "reducescatter") || strcasestr(op, "allgather")));
}

/* Do the comm records of a profile without kernels hold gradient traffic? */
int
commgrad(void)
{
	jv ops = get(P.summary, "comm_ops");
	int grad = 0;

	for (int i = 0; i < len(ops); i++) {
		jv c = at(ops, i);

		grad |= isgrad(gs(c, "role"), gs(c, "op"));
		jv_free(c);
	}
	jv_free(ops);
	return grad;
}
