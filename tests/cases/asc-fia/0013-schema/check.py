"""Validate every fia_* record on stdin against schemas/<type>.schema.json;
print the number of records per type."""
import json
import sys

import jsonschema

root = sys.argv[1]
seen = {}
sch = {}
for line in sys.stdin:
    r = json.loads(line)
    t = r['type']
    if not t.startswith('fia_'):
        continue
    if t not in sch:
        sch[t] = json.load(open('%s/%s.schema.json' % (root, t)))
    jsonschema.validate(r, sch[t])
    seen[t] = seen.get(t, 0) + 1
print(' '.join('%s=%d' % kv for kv in sorted(seen.items())))
