#!/usr/bin/python3
"""The per-step bubble metrics of asc-steps | asc-merge | asc-gaps, written
the straightforward way with pandas: all columns of kernel_details.csv
read, exact decimal times, step markers from json.load(trace_view.json).

It is the baseline `make bench` measures asc against, and a differential
check in the tests: both must give the same integer nanoseconds.

usage: pandas_steps.py PROFILE_DIR  -> one TSV line per step on stdout:
step service_ns busy_ns prelaunch_ns tail_ns internal_ns largest_ns gaps
"""
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

import numpy as np
import pandas as pd


def us_to_ns(series):
    """Exact decimal microsecond text -> int64 ns (no float)."""
    s = series.astype(str).str.strip().str.strip('"').str.strip()
    parts = s.str.split(".", n=1, expand=True)
    whole = parts[0].astype(np.int64)
    if parts.shape[1] > 1:
        frac = parts[1].fillna("").str.ljust(3, "0").str[:3]
        frac = frac.replace("", "0").astype(np.int64)
    else:
        frac = 0
    return whole * 1000 + frac


def dec_ns(text):
    """Decimal microsecond text -> ns, rounded half up like asc."""
    return int((Decimal(str(text).strip()) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def main():
    prof = sys.argv[1]
    out = prof + "/ASCEND_PROFILER_OUTPUT"
    k = pd.read_csv(out + "/kernel_details.csv", dtype=str, keep_default_na=False)
    start = us_to_ns(k["Start Time(us)"])
    dur = us_to_ns(k["Duration(us)"])
    with open(out + "/trace_view.json") as f:
        events = json.load(f)
    pat = re.compile(r"^ProfilerStep#(\d+)$")
    marks = []
    for e in events:
        if e.get("ph") == "X":
            m = pat.match(str(e.get("name", "")))
            if m:
                marks.append((int(m.group(1)), dec_ns(e["ts"]), dec_ns(repr(e["dur"]))))
    marks.sort(key=lambda m: m[1])
    df = pd.DataFrame({"start": start.values, "end": (start + dur).values})
    df = df.sort_values("start", kind="stable")
    starts = df["start"].to_numpy()
    ends = df["end"].to_numpy()
    for i, (num, s, d) in enumerate(marks):
        lo = np.searchsorted(starts, s, side="left")
        if i + 1 < len(marks) and marks[i + 1][0] == num + 1:
            wend = marks[i + 1][1]
            hi = np.searchsorted(starts, wend, side="left")
        else:
            nxt = marks[i + 1][1] if i + 1 < len(marks) else None
            hi = np.searchsorted(starts, nxt, side="left") if nxt is not None else len(starts)
            wend = max([s + d] + ([int(ends[lo:hi].max())] if hi > lo else []))
        a = np.clip(starts[lo:hi], s, wend)
        b = np.clip(ends[lo:hi], s, wend)
        keep = b > a
        a, b = a[keep], b[keep]
        service = wend - s
        if len(a) == 0:
            print(f"{num}\t{service}\t0\t{service}\t0\t0\t0\t0")
            continue
        # Merge: a new segment starts where start > running max of ends.
        runmax = np.maximum.accumulate(b)
        newseg = np.empty(len(a), dtype=bool)
        newseg[0] = True
        newseg[1:] = a[1:] > runmax[:-1]
        seg_id = np.cumsum(newseg) - 1
        seg_start = a[newseg]
        seg_end = pd.Series(b).groupby(seg_id).max().to_numpy()
        busy = int((seg_end - seg_start).sum())
        gaps = seg_start[1:] - seg_end[:-1]
        internal = int(gaps.sum())
        largest = int(gaps.max()) if len(gaps) else 0
        pre = int(seg_start[0] - s)
        tail = int(wend - seg_end[-1])
        print(f"{num}\t{service}\t{busy}\t{pre}\t{tail}\t{internal}\t{largest}\t{len(gaps)}")


if __name__ == "__main__":
    main()
