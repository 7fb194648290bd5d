# Validate the records of the given types (comma-separated) read from stdin
# against schemas/<type>.schema.json; print counts; exit 1 on any invalid one.
import json, sys, jsonschema, os
root = sys.argv[1]
sch = {}
for f in os.listdir(root):
    if f.endswith('.schema.json'):
        s = json.load(open(os.path.join(root, f)))
        sch[s['title'].split()[1] if s['title'].startswith('asc ') else s['title']] = s
want = set(sys.argv[2].split(','))
n = {}
bad = 0
for line in sys.stdin:
    r = json.loads(line)
    t = r['type']
    if t not in want:
        continue
    try:
        jsonschema.validate(r, sch[t])
        n[t] = n.get(t, 0) + 1
    except jsonschema.ValidationError as e:
        bad += 1
        if bad < 5:
            print(t, e.message[:300], list(e.path))
for t in sorted(n):
    print(t, n[t], 'valid')
sys.exit(1 if bad else 0)
