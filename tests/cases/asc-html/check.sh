# Shared by the asc-html cases: check.sh PAGE RECORDS (in $TMPDIR, the
# charts beside PAGE).  Not a case: it has no cmd.
set -euo pipefail
page=$1 rec=$2
echo "external references or scripts: $(grep -c -E '<script|src=|href=|url\(|@import' "$page" || true)"
python3 - "$page" "$rec" <<'PY'
import glob, json, re, sys, xml.etree.ElementTree as ET
page, rec = sys.argv[1], [json.loads(l) for l in open(sys.argv[2])]
ad = [r for r in rec if r['type'] == 'anomaly_discovery'][0]
drill = [r for r in rec if r['type'] == 'structure_drilldown'][0]['step_id']
sig = [r for r in rec if r['type'] == 'bubble' and r['significant'] and r['step_id'] == drill]
svg = {f: open(f).read() for f in sorted(glob.glob('chart_*.svg'))}
for f, t in svg.items():
    ET.fromstring(t.split('?>', 1)[1])
print('charts', ' '.join(svg), 'well-formed')
if 'chart_breakdown.svg' in svg:
    print('breakdown bars', svg['chart_breakdown.svg'].count('<g class="bar">'), 'steps', len(ad['step_results']))
else:
    print('no breakdown chart:', re.search(r'<p class="none">([^<]*step\(s\)[^<]*)', open(page).read()).group(1))
print('timeline bubble marks', svg['chart_timeline.svg'].count('class="bubble"'),
      'significant bubbles of step', drill, len(sig))
bins = [int(n) for n in re.findall(r'<title>(\d+) bubbles of', svg['chart_bubbles.svg'])]
print('bins', len(bins), 'holding', sum(bins), 'significant windows', len(ad['bubble_windows']))
# the bars weigh idle time: their heights add up to the windows' time
idle = sum(float(x) for x in re.findall(r'data-idle-ms="([^"]+)"', svg['chart_bubbles.svg']))
want = sum(w['duration_ms'] for w in ad['bubble_windows'])
print('bins idle', 'equal to' if abs(idle - want) < 1e-6 else 'NOT equal to', 'the windows\' idle time')
heights = [float(h) for h in re.findall(r'<g class="bin" data-idle-ms="[^"]*"><rect x="[^"]*" y="[^"]*" width="[^"]*" height="([^"]+)"', svg['chart_bubbles.svg'])]
ms = [float(x) for x in re.findall(r'data-idle-ms="([^"]+)"', svg['chart_bubbles.svg'])]
top = max(range(len(ms)), key=lambda i: ms[i])
print('tallest bar is the bin of most idle time:', heights[top] == max(heights))
if 'chart_timeline.svg' in svg:
    longest = max((r for r in rec if r['type'] == 'kernel' and r.get('step_id') == drill), key=lambda r: r['dur_ns'])
    labels = re.findall(r'<text class="span"[^>]*>([^<]*)</text>', svg['chart_timeline.svg'])
    print('timeline span labels', len(labels), '; the longest kernel named first:', bool(labels) and labels[0].startswith(longest['name'][:8]))
ops = [r for r in rec if r['type'] == 'op' and r['view'] == 'name']
print('op bars', svg['chart_ops.svg'].count('<g class="op">'), 'ops', len(ops), '(ten at most)')
PY
chromium --headless --no-sandbox --disable-gpu --user-data-dir=chr --enable-logging=stderr --v=0 \
	--dump-dom "file://$PWD/$page" > dom.html 2> chr.err
echo "console messages: $(grep -c 'CONSOLE' chr.err || true); svg in the rendered page: $(grep -o '<svg' dom.html | wc -l)"
chromium --headless --no-sandbox --disable-gpu --user-data-dir=chr --hide-scrollbars \
	--window-size=1280,2400 --screenshot="$PWD/shot.png" "file://$PWD/$page" 2>/dev/null >/dev/null
python3 -c 'import struct; d = open("shot.png", "rb").read(24); print("screenshot", *struct.unpack(">II", d[16:24]))'
