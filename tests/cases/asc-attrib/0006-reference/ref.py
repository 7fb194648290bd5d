#!/usr/bin/python3
# Brute-force reference (independent of the C code) of asc-attrib's window figures: for every bubble,
# every host event of the profile (step markers excluded) is clipped to
# the window; unions by sorting.  Leaf: no other event of the same
# (pid, tid) lies wholly inside it (pairwise check).  Causes: every event
# but the step's context (markers, events holding a marker of their
# thread or a step window) at any depth, its family the first in the
# rules' order along its parents (an op_compile name only when the event
# lasts compile_min_us), but the holder's under a holding family, and for
# a copy call h2d_copy only when a copy's evidence lies under it, else
# launch and no sync marker (parent: the latest-starting earlier
# event of its tid, any pid, wholly containing it); the events under a
# long sync (serial_families, >= serial_min_us) that the device was busy
# for at least half of come first, as serial wait.  Prints one line per
# window: bubble_id cov sync comm threads busy labels top_op causes
# covered any frame_self untraced serial_wait (frame_self: time the
# step's context frames, markers aside, cover and no counted event does)
import json, sys, fnmatch
from fractions import Fraction as F

rules = json.load(open(sys.argv[1]))["attribution"]
def match(key, name):
    return any(fnmatch.fnmatchcase(name, p) for p in rules[key])
def union(iv):
    tot, cs, ce = 0, None, None
    for a, b in sorted(iv):
        if cs is None or a > ce:
            if cs is not None:
                tot += ce - cs
            cs, ce = a, b
        else:
            ce = max(ce, b)
    return tot + (ce - cs if cs is not None else 0)
def ge(num, den, th):
    return F(num) >= F(str(th)) * den

profiles = []
for line in sys.stdin:
    r = json.loads(line)
    t = r["type"]
    if t == "profile":
        profiles.append((r["profile"], [], [], [], []))
    elif t == "bubble":
        profiles[-1][1].append(r)
    elif t == "host":
        profiles[-1][2].append(r)
    elif t == "marker":
        profiles[-1][3].append(r)
    elif t == "step" and "start_ns" in r:
        profiles[-1][4].append(r)
for prof, bubbles, hosts, markers, steps in profiles:
    byth = {}
    for i, h in enumerate(hosts):
        h["i"] = i
        byth.setdefault((h["pid"], h["tid"]), []).append(h)
    def inside(g, h):   # g lies wholly inside h (identical: the later one)
        return (g is not h and g["end_ns"] > g["start_ns"] and h["start_ns"] <= g["start_ns"]
                and g["end_ns"] <= h["end_ns"] and g["start_ns"] < h["end_ns"]
                and ((g["start_ns"], g["end_ns"]) != (h["start_ns"], h["end_ns"]) or g["i"] > h["i"]))
    for v in byth.values():
        for h in v:
            h["ctx"] = any(inside(g, h) for g in v)
    real = [h for h in hosts if not match("step_markers", h["name"])]
    leaf = [h for h in real if not h["ctx"]]
    order = rules["host_cause_order"]
    def family(h):
        # an op_compile name shorter than compile_min_us is a cache lookup
        short = h["end_ns"] - h["start_ns"] < rules["compile_min_us"] * 1000
        for f in order:
            c = rules["host_causes"][f]
            if (any(fnmatch.fnmatchcase(h["name"], p) for p in c["names"]) and not (f == "op_compile" and short)) or \
               (h.get("cat") is not None and any(fnmatch.fnmatchcase(h["cat"], p) for p in c["cats"])):
                return f
        return "other"
    def holds(h, x):
        return h["start_ns"] <= x["start_ns"] and x["end_ns"] <= h["end_ns"]
    ctx = lambda h: match("step_markers", h["name"]) or any(holds(h, w) for w in steps) or \
        any(holds(h, m) and m["tid"] == h["tid"] for m in markers)
    counted = [h for h in hosts if not ctx(h)]
    loops = [h for h in hosts if ctx(h) and not match("step_markers", h["name"])]
    fams = order + ["other"]
    bytid = {}
    for h in counted:
        bytid.setdefault(h["tid"], []).append(h)
    for v in bytid.values():
        for h in v:
            par = None
            for a in v:
                if a["i"] < h["i"] and a["start_ns"] <= h["start_ns"] and h["end_ns"] <= a["end_ns"] \
                   and h["start_ns"] < a["end_ns"]:
                    if par is None or (a["start_ns"], a["i"]) > (par["start_ns"], par["i"]):
                        par = a
            h["par"] = par
    nonglobal = [b for b in bubbles if b["scope"] != "global"]
    def idle(s, e):
        return sum(max(0, min(e, b["end_ns"]) - max(s, b["start_ns"])) for b in nonglobal)
    serialf = rules["serial_families"]
    hold = rules["holding_families"]
    H2D, LAUNCH = fams.index("h2d_copy"), fams.index(rules["dispatch_family"])
    kids = {}
    for h in counted:
        if h["par"] is not None:
            kids.setdefault(h["par"]["i"], []).append(h)
    def evidence(h):    # a copy's evidence anywhere under h
        return any(match("copy_evidence", k["name"]) or evidence(k) for k in kids.get(h["i"], []))
    def fam(h):
        # under a holding family: the holder's; a copy call not under a
        # copy (or op_compile): h2d_copy when a call under it is a copy's
        # evidence, else launch (and no sync marker); else the first in
        # the order along the parents
        if "cf" not in h:
            p = h["par"]
            pf = fam(p) if p is not None else len(fams) - 1
            if p is not None and fams[pf] in hold:
                f = pf
            elif match("copy_calls", h["name"]):
                f = pf if pf <= H2D else min(H2D if evidence(h) else LAUNCH, pf)
                h["nocopy"] = f != H2D and pf > H2D
            else:
                f = min(fams.index(family(h)), pf)
            h["cf"] = f
        return h["cf"]
    def serial(h):     # under a long sync that the device was mostly busy for
        if "sp" not in h:
            p = h["par"]
            d = h["end_ns"] - h["start_ns"]
            if fams[fam(h)] in serialf and not (p is not None and fams[fam(p)] in serialf) \
               and d >= rules["serial_min_us"] * 1000:
                h["sp"] = 2 * idle(h["start_ns"], h["end_ns"]) <= d
            else:
                h["sp"] = serial(p) if p is not None else False
        return h["sp"]
    for h in sorted(counted, key=lambda h: h["i"]):
        fam(h); serial(h)
    for h in real:
        h["fam"] = family(h)
    first = min((h["start_ns"] for h in hosts), default=None)
    for b in bubbles:
        s, e = b["start_ns"], b["end_ns"]
        L = e - s
        allov = []
        for h in real:
            a, z = max(s, h["start_ns"]), min(e, h["end_ns"])
            if z > a:
                allov.append((a, z, h))
        ov = [x for x in allov if not x[2]["ctx"]]
        cov = union([(a, z) for a, z, h in ov])
        sync = union([(a, z) for a, z, h in allov if match("sync_markers", h["name"]) and not h.get("nocopy")])
        comm = union([(a, z) for a, z, h in allov if match("comm_markers", h["name"])])
        cov2 = []
        for h in counted:
            a, z = max(s, h["start_ns"]), min(e, h["end_ns"])
            if z > a:
                cov2.append((a, z, h))
        prev = union([(a, z) for a, z, h in cov2 if h["sp"]])
        wait, causes = prev, []
        for k, f in enumerate(fams):
            u = union([(a, z) for a, z, h in cov2 if h["sp"] or h["cf"] <= k])
            causes.append("%s=%d" % (f, u - prev))
            prev = u
        covered = first is not None and first <= s
        lz = [(max(s, h["start_ns"]), min(e, h["end_ns"])) for h in loops]
        allu = union([(a, z) for a, z, h in cov2] + [(a, z) for a, z in lz if z > a])
        fself = allu - prev
        th = {}
        for a, z, h in ov:
            th.setdefault((h["pid"], h["tid"]), []).append((a, z))
        busy = sum(union(v) for v in th.values())
        labels = []
        partial = "PARTIAL_CAPTURE_BOUNDARY" in b["tags"]
        if not hosts or (partial and not covered):
            labels = ["insufficient_evidence"]
        else:
            if ge(sync, L, rules["sync_ratio"]): labels.append("possible_sync_or_h2d")
            if ge(comm, L, rules["comm_ratio"]): labels.append("possible_comm_wait")
            if not ge(cov, L, rules["untraced_coverage"]): labels.append("possible_untraced_host_blocking")
            if not labels and ge(cov, L, rules["launch_coverage"]): labels.append("possible_host_launch_lag")
            if not labels and cov > 0 and not ge(busy, cov, rules["serial_parallelism"]):
                labels.append("possible_python_serialization_or_lock")
            if not labels: labels = ["insufficient_evidence"]
        best = None
        for a, z, h in ov:
            if best is None or z - a > best[0]:
                best = (z - a, h)
        if best:
            top = "%s@%d+%d" % (best[1]["name"], best[1]["start_ns"], best[0])
        else:
            before = [h for h in leaf if h["end_ns"] <= s and h["start_ns"] < s]
            if before:
                m = max(h["end_ns"] for h in before)
                hb = [h for h in before if h["end_ns"] == m][-1]
                top = "%s@%d+0" % (hb["name"], hb["start_ns"])
            else:
                top = "null"
        print(prof, b["bubble_id"], cov if hosts else None, sync if hosts else None,
              comm if hosts else None, len(th) if hosts else None, busy if hosts else None,
              ",".join(labels), top, ",".join(causes) if hosts else None, covered,
              prev if hosts else None, fself if hosts else None, L - allu if hosts else None,
              wait if hosts else None)
