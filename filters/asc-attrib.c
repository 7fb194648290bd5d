/*
 * asc-attrib: soft host attribution of bubbles.  Per profile, hold the
 * "bubble" windows, sweep the "host" events once in start order against
 * them, and at the end of the profile write an "attribution" record per
 * bubble (host coverage, sync / comm marker overlap, host parallelism,
 * named host causes, candidate labels with their evidence, the nearest
 * host op), an "attribution_step" record per step (COMM_SYNC_RISK) and an
 * "attribution_summary" record.
 *
 * Leafness is decided here, not taken from the records: an event is
 * context only when another event of its thread (pid, tid) lies wholly
 * inside it; a partial overlap does not make it context.  Python and
 * CANN record the same OS thread under two pids: keeping them apart
 * keeps a Python op's own time as evidence when a CANN call lies inside
 * it.  An event waits in a queue until its leafness is known (a
 * contained event arrives, or the sweep passes its end); the queue is
 * processed in start order.
 *
 * Causes come from the call chain instead: on one OS thread (tid, any
 * pid) an event's parent is the latest-starting earlier event that
 * wholly contains it, and its family is the first in the rules' order
 * among its own and its parent's (so a sync inside aten::to is a copy),
 * with two exceptions: under a holding family (item_sync) every call
 * takes the holder's family (the memcpy of .item() is its read-back),
 * and a copy call (aten::to, _to_copy, copy_) is a copy only when a call
 * under it is a copy's evidence (a memcpy, a synchronisation): until
 * then it waits in the queue; when it ends without one it is dispatch
 * work (a dtype cast on the device, a no-op) and no sync marker.
 * Every event counts for the families and for the host-covered time,
 * whatever its depth, except the step's context: step markers and the
 * events around a marker or a step window (the training loop's frames),
 * which would cover every bubble.  Time such a frame covers and no other
 * event does is that frame's own code (frame_self), not untraced: only
 * time no event of any depth covers (step markers aside) is untraced.
 *
 * This file reads the records and the rules and drives the modules of
 * filters/asc-attrib/ (attrib.h).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "dec.h"
#include "filter.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#include "asc-attrib/attrib.h"

struct prof P;
int nfam;
const char *famname[MAXFAM + 1];
const char *const *famnames[MAXFAM], *const *famcats[MAXFAM];
int64_t syncppm, commppm, untrppm, launchppm, serialppm, shareppm;
int64_t serialmin, compilemin;
int famcompile = -1, famh2d = -1, famlaunch = -1;
const char *const *stepmarks, *const *syncmarks, *const *commmarks;
const char *const *dispops;
unsigned char famsync[MAXFAM + 1], famhold[MAXFAM + 1];
const char *const *copycalls, *const *copyev, *const *todevcalls;
struct buf ob, tmp;

/*
 * -H: the host records of the input's one profile are in a file of their
 * own (asc-ingest -H), read whole when the profile's other records end.
 * They are consumed here, not written on.
 */
static const char *hpath;
static int hdone, kflag, hrc = EX_OK;
static int ownonly;	/* -n: the profile records and ours, not the rest */
static size_t hmaxline;

static void
hostfile(void)
{
	struct rin *h;
	struct buf pre = { 0 };
	int st;

	if (hdone++)
		die("-H %s: the input holds more than one profile: -H takes one", hpath);
	if ((h = rin_new(hpath, hmaxline)) == NULL)
		dieerr("%s", hpath);
	while ((st = sr_aside_next(h, "-H", "host", P.prof.p, P.prof.len, &pre)) != 0) {
		if (st > 0 && sr_sect_need(&P.sect, h, "host") == 0 && hostrec(h) == 0)
			continue;
		if (rin_bad(h, kflag, &hrc))
			exit(EX_DATA);
	}
	rin_free(h);
	buf_free(&pre);
}

/* A profile ends: its -H host records are read, its attribution written. */
static void
onprofend(struct rin *r, void *arg)
{
	if (hpath && P.sect.active)
		hostfile();
	profile_end();
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	if (sr_is(t, n, "marker")) {
		if (markrec(r) != 0)
			return -1;
	} else if (sr_is(t, n, "device_task")) {
		if (dtaskrec(r) != 0)
			return -1;
	} else if (sr_is(t, n, "bubble") || sr_is(t, n, "host") || sr_is(t, n, "step")) {
		int rc;

		if (sr_sect_need(&P.sect, r, t[0] == 'b' ? "bubble" : t[0] == 'h' ? "host" : "step") != 0)
			return -1;
		rc = t[0] == 'b' ? bubblerec(r) : t[0] == 'h' ? hostrec(r) : steprec(r);
		if (rc != 0)
			return -1;
	}
	if (!ownonly || sr_is(t, n, "profile"))
		sr_pass(r);
	return 0;
}

/* The index of a family a rules key names. */
static int
famindex(const char *key, const char *name)
{
	for (int i = 0; i < nfam; i++)
		if (strcmp(famname[i], name) == 0)
			return i;
	die("rules: \"%s\": %s is not in \"attribution.host_cause_order\"", key, name);
	return -1;
}

/* The host cause families, from the rules, in priority order. */
static void
famrules(void)
{
	const char *const *ord = rules_list("attribution.host_cause_order");
	const char *const *sf = rules_list("attribution.serial_families");
	const char *const *hf = rules_list("attribution.holding_families");
	const char *lf = rules_str("attribution.dispatch_family");
	char key[256];

	for (nfam = 0; ord[nfam]; nfam++) {
		if (nfam == MAXFAM)
			die("rules: more than %d families in \"attribution.host_cause_order\"",
			    MAXFAM);
		if (strcmp(ord[nfam], "other") == 0)
			die("rules: \"other\" is implicit in \"attribution.host_cause_order\"");
		famname[nfam] = ord[nfam];
		snprintf(key, sizeof key, "attribution.host_causes.%s.names", ord[nfam]);
		famnames[nfam] = rules_list(key);
		snprintf(key, sizeof key, "attribution.host_causes.%s.cats", ord[nfam]);
		famcats[nfam] = rules_list(key);
	}
	famname[nfam] = "other";
	for (; *sf; sf++)
		famsync[famindex("attribution.serial_families", *sf)] = 1;
	for (; *hf; hf++)
		famhold[famindex("attribution.holding_families", *hf)] = 1;
	famlaunch = famindex("attribution.dispatch_family", lf);
	for (int i = 0; i < nfam; i++)
		if (strcmp(famname[i], "op_compile") == 0)
			famcompile = i;
		else if (strcmp(famname[i], "h2d_copy") == 0)
			famh2d = i;
}

static int64_t
ppm(const char *key)
{
	return llround(rules_num(key) * PPM);
}

int
main(int argc, char *argv[])
{
	struct filter f = {
		.rec = onrec,
		.own = FILTER_OWN("attribution", "attribution_step", "attribution_summary"),
		.sect = &P.sect,
		.prof = &P.prof,
		.profile_end = onprofend,
	};
	struct filter_opts o = FILTER_OPTS("[-kn] [-H hostfile] [-m maxline] [-r rules] [file ...]",
	    .args = FILTER_ARGS({ .letter = 'H', .to = &hpath }),
	    .flags = FILTER_FLAGS({ .letter = 'n', .to = &ownonly }));
	int rc;

	filter_getopt(argc, argv, "H:n", &o);
	if (ownonly) {
		/* The kernels, most of the input, are dropped unread. */
		f.bulk = "kernel";
		f.bulk_drop = 1;
	}
	kflag = o.kflag;
	rules_load(o.rules);
	P.last.name = NOID;
	syncppm = ppm("attribution.sync_ratio");
	commppm = ppm("attribution.comm_ratio");
	untrppm = ppm("attribution.untraced_coverage");
	launchppm = ppm("attribution.launch_coverage");
	serialppm = ppm("attribution.serial_parallelism");
	shareppm = ppm("bubbles.evidence_time_share");
	stepmarks = rules_list("attribution.step_markers");
	syncmarks = rules_list("attribution.sync_markers");
	commmarks = rules_list("attribution.comm_markers");
	dispops = rules_list("attribution.dispatch_ops");
	copycalls = rules_list("attribution.copy_calls");
	copyev = rules_list("attribution.copy_evidence");
	todevcalls = rules_list("attribution.to_device_calls");
	serialmin = rules_ns("attribution.serial_min_us", 1e3);
	compilemin = rules_ns("attribution.compile_min_us", 1e3);
	famrules();
	hmaxline = o.maxline;
	rc = filter_main(argc, argv, &o, &f);
	if (getenv("ASC_ATTRIB_STATS"))
		fprintf(stderr, "%s: host records %lu, by the fast reader %lu\n", progname, nhostrec, nfast);
	return rc == EX_OK ? hrc : rc;
}
