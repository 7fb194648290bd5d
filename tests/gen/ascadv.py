#!/usr/bin/env python3
"""ascadv.py - adversarial trace_view.json shapes for asc-ingest.

    python3 tests/gen/ascadv.py SHAPE N OUTDIR

Writes OUTDIR/<SHAPE>_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json
(no kernel table) and prints the profile path.  Shapes:
  nested N    N host events on one thread, each inside the one before
  overlap N   N host events on one thread, each starting 1 us after the one
              before and lasting N us: every pair overlaps, none nests
  tids N      N host events, each on a thread of its own
  bigstack N  one host event whose "Call stack" arg is N bytes long
Python 3 standard library only; streamed, so N can be millions.
"""
import os
import sys

HEAD = '[{"ph":"M","name":"process_name","pid":1,"args":{"name":"Python"}}'


def events(shape, n, out):
    w = out.write
    if shape == "nested":
        for i in range(n):
            w(',\n{"ph":"X","name":"n%d","pid":1,"tid":1,"ts":%d,"dur":%d}'
              % (i, i, 2 * (n - i)))
    elif shape == "overlap":
        for i in range(n):
            w(',\n{"ph":"X","name":"o%d","pid":1,"tid":1,"ts":%d,"dur":%d}'
              % (i, i, n))
    elif shape == "tids":
        for i in range(n):
            w(',\n{"ph":"X","name":"t","pid":1,"tid":%d,"ts":%d,"dur":1}'
              % (i + 1, i))
    elif shape == "bigstack":
        w(',\n{"ph":"X","name":"big","pid":1,"tid":1,"ts":0,"dur":10,'
          '"args":{"Call stack":"')
        frame = "a.py(1): f;\\r\\n"
        chunk = frame * (65536 // len(frame))
        left = n
        while left >= len(chunk):
            w(chunk)
            left -= len(chunk)
        w("x" * left)
        w('"}}')
        w(',\n{"ph":"X","name":"after","pid":1,"tid":1,"ts":20,"dur":1}')
    else:
        sys.exit("ascadv.py: unknown shape %s" % shape)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    shape, n, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    prof = os.path.join(outdir, shape + "_ascend_pt")
    d = os.path.join(prof, "ASCEND_PROFILER_OUTPUT")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "trace_view.json"), "w") as out:
        out.write(HEAD)
        events(shape, n, out)
        out.write("]\n")
    print(prof)


main()
