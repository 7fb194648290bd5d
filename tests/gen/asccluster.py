#!/usr/bin/env python3
"""asccluster.py - a synthetic multi-rank torch_npu job, with ground truth.

    tests/gen/asccluster.py [options] OUTDIR

Writes OUTDIR/JOB/rank<R>_ascend_pt for R in 0..N-1 (one ascgen.py run per
rank, same seed: every rank runs the same kernels) and OUTDIR/JOB.truth.json.
Ranks share one hcom_allReduce group.  Injected faults:

  --slow-rank R:US    rank R's dataloader takes US more microseconds before
                      every step (ascgen's --prelaunch-us): it reaches every
                      allReduce late, the others wait for it
  --slow-link R:F     in rank R's communication_matrix.json its HCCS link
                      R-(R+1) runs at F times the bandwidth of the others

Every rank gets its own clock offset (--jitter-us, drawn from --seed), so
rank origins differ as on real machines.  ascgen.py is not changed: its
files are post-processed (communication_matrix.json is written here,
profiler_metadata.json names every rank of the group).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HCCS_GBPS = 18.0
SIZE_MB = 16.388


def main():
    ap = argparse.ArgumentParser(description="synthetic multi-rank job")
    ap.add_argument("outdir")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--kernels-per-layer", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--job", default="job")
    ap.add_argument("--jitter-us", type=int, default=20)
    ap.add_argument("--base-us", type=int, default=1750000000000000)
    ap.add_argument("--slow-rank", action="append", default=[])
    ap.add_argument("--slow-link", action="append", default=[])
    ap.add_argument("--no-matrix", action="store_true")
    a = ap.parse_args()

    slow = {int(r): int(us) for r, us in (s.split(":") for s in a.slow_rank)}
    slowlink = {int(r): float(f) for r, f in (s.split(":") for s in a.slow_link)}
    rnd = random.Random(a.seed)
    job = os.path.join(a.outdir, a.job)
    os.makedirs(job, exist_ok=True)
    truth = {"generator": "asccluster.py", "argv": sys.argv[1:], "job": a.job,
             "ranks": a.ranks, "steps": a.steps, "slow_ranks": [], "slow_links": []}
    for r in range(a.ranks):
        jit = rnd.randint(0, a.jitter_us)
        name = "rank%d_ascend_pt" % r
        subprocess.run([sys.executable, os.path.join(HERE, "ascgen.py"), "-q",
                        "--steps", str(a.steps), "--layers", str(a.layers),
                        "--kernels-per-layer", str(a.kernels_per_layer),
                        "--comm", "--rank", str(r), "--seed", str(a.seed),
                        "--name", name, "--base-us", str(a.base_us + jit),
                        "--prelaunch-us", str(200 + slow.get(r, 0)), job],
                       check=True)
        os.remove(os.path.join(job, name + ".truth.json"))
        pdir = os.path.join(job, name)
        out = os.path.join(pdir, "ASCEND_PROFILER_OUTPUT")
        meta = os.path.join(pdir, "profiler_metadata.json")
        with open(meta) as f:
            md = json.load(f)
        group = None
        for g, info in md.get("parallel_group_info", {}).items():
            info["global_ranks"] = list(range(a.ranks))
            group = g
        with open(meta, "w") as f:
            json.dump(md, f, indent=4)
        if not a.no_matrix:
            with open(os.path.join(out, "communication.json")) as f:
                comm = json.load(f)
            mx = {}
            for step, kinds in comm.items():
                coll = {}
                for key in kinds.get("collective", {}):
                    if key.startswith("Total"):
                        continue
                    op, grp = key.rsplit("@", 1)
                    links = {"%d-%d" % (r, r): {"Transport Type": "LOCAL",
                             "Transit Size(MB)": SIZE_MB / 4, "Transit Time(ms)": 0.008,
                             "Bandwidth(GB/s)": round(SIZE_MB / 4 / 0.008, 4), "Op Name": op}}
                    bw = HCCS_GBPS * (1 + rnd.uniform(-0.03, 0.03)) * slowlink.get(r, 1.0)
                    links["%d-%d" % (r, (r + 1) % a.ranks)] = {
                        "Transport Type": "HCCS", "Transit Size(MB)": SIZE_MB,
                        "Transit Time(ms)": SIZE_MB / bw, "Bandwidth(GB/s)": round(bw, 4),
                        "Op Name": op}
                    coll["allreduce-top1@" + grp] = links
                mx[step] = {"p2p": {}, "collective": coll}
            with open(os.path.join(out, "communication_matrix.json"), "w") as f:
                json.dump(mx, f)
        if r in slow:
            truth["slow_ranks"].append({"rank": r, "preparing_extra_us": slow[r]})
        if r in slowlink:
            truth["slow_links"].append({"rank": r, "link": "%d-%d" % (r, (r + 1) % a.ranks),
                                        "fraction": slowlink[r]})
        truth.setdefault("clock_offset_us", []).append(jit)
        truth["group"] = group
    with open(os.path.join(a.outdir, a.job + ".truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")
    print(job)


if __name__ == "__main__":
    main()
