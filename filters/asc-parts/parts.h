/*
 * asc-parts's modules: assign.c puts each kernel in a kind of part (from
 * asc-fia's records), write.c cuts the parts and writes them; asc-parts.c
 * reads the records.  Linked into asc-parts alone.
 */
#ifndef ASC_PARTS_H
#define ASC_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "rec.h"
#include "util.h"

#define TOPK		3	/* top kernels by kernel sum, per part and kind */
#define PART_STEPS	16	/* steps with "part" records; step_parts: all */
#define MAXROLE		64

enum kind {
	K_EMBED, K_FWD, K_LMHEAD, K_PWAIT, K_P2P, K_BPRO, K_BWD, K_BEPI,
	K_GSYNC, K_OPT, K_INPUT, K_CONV, K_FC, K_LOSS, K_BACK, K_PREFILL,
	K_DECODE, K_PASS, K_BETWEEN, K_DGAP, K_OTHER, K_EBWD, K_CLIP,
	K_POSTLOSS, K_GPOOL, K_N
};
/* Where a pipeline wait lies (kern.sub): between which layers. */
enum { W_NONE, W_FWDBWD, W_FWDFWD, W_BWDBWD, W_BWDFWD };
struct kern {
	int64_t		 s, e, dur, wait;
	int64_t		 at;		/* moved: where its part's wall may start */
	int64_t		 stream;	/* -1: none */
	size_t		 no;		/* name in S.names, NUL-terminated */
	size_t		 ko;		/* its op key (opkey(3)) in S.names */
	int		 step;		/* index in S.step, -1: none */
	int		 kind, role, layer, pass;
	long		 key;
	unsigned	 comm:1, p2p:1, loss:1, conv:1, mm:1, lmhead:1;
	unsigned	 embed:1, egrad:1, gnorm:1, lsm:1, drop:1, pool:1, late:1, moved:1, sub:3;
	unsigned	 metric:1, seed:1, gpool:1;
	unsigned	 cls:3, block:1;	/* tt_class; block: asc-segment(1)'s */
};
struct layer { int64_t start, end, ksum; long kernels; size_t first; int idx, pass, lip, bwd, cls; char type[24]; };
struct pass { int idx, bwd, prefill, decode, mb; int64_t start, end; };
struct run { int phase, idx; int64_t start, end, gs; };	/* 0 fwd 1 bwd 2 opt; gs -1 */
struct step { char *id; int64_t s, e, service, ksum; int have; };

struct partstate {
	struct kern	*k;
	size_t		 nk, capk;
	struct buf	 names, prof, dev;
	struct layer	*l;
	size_t		 nl, capl;
	struct pass	*p;
	size_t		 np, capp;
	struct run	*r;
	size_t		 nr, capr;
	struct step	*st;
	size_t		 nst, capst;
	int		 active, training, inference, layered, mismatch;
	int		 conv;		/* a convolution stage was cut */
	long		 runs;		/* asc-fia's phase runs, recorded or not */
	int		 capped;	/* its layer or pass records are capped */
	char		 method[16], phase[16];
};


extern struct partstate S;
extern struct buf ob;
extern char *rolename[MAXROLE];
extern int nrole;
extern const char *const kname[K_N], *const klabel[K_N];

/* lo: where its wall may start at the earliest (a gradient sync that
 * holds a collective begun inside the backward starts at the sync). */
struct part { size_t a, b; int kind, step, layer, mb; long key; int64_t lo; };
extern struct part *P;
extern size_t np;

#define PENDING	(-1)

void	assign(void);
void	buildparts(void);
void	putpart(size_t, int);
void	putstep(size_t, size_t);

#endif
