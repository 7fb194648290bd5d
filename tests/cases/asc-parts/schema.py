"""Validate every part and step_parts record of the file argv[2] against
schemas/<type>.schema.json (argv[1] is the schemas directory); print the
number of records per type."""
import json
import sys

import jsonschema

seen = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r['type'] in ('part', 'step_parts'):
        jsonschema.validate(r, json.load(open('%s/%s.schema.json' % (sys.argv[1], r['type']))))
        seen[r['type']] = seen.get(r['type'], 0) + 1
print('valid:', ' '.join('%s=%d' % kv for kv in sorted(seen.items())))
