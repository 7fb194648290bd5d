# asc-html.jq: the anomaly report of one profile as one HTML page with
# inline SVG charts, and the charts as .svg files.
# Input: {profile:[rec], anomaly_discovery:[rec], structure_drilldown:[rec],
# op:[rec], drill_step, kernels:[the drill-down step's kernels],
# bubbles:[its significant bubble records]}.
# Output: {file, text} objects: "anomaly_report.html", one "chart_*.svg"
# per chart drawn, and "charts.md" (the Markdown links to them, a file of
# its own beside them).
# Colours are the Okabe-Ito palette (told apart with every common colour
# blindness); every mark has a <title> (the hover text) and every colour
# a legend entry.  A chart needs two data points, else the page says so.

def h: tostring | @html;
def p: (. * 10 | round) / 10;
def clip($n): if length > $n then .[0:$n - 1] + "…" else . end;
# A round tick step giving about five ticks up to this maximum.
def tickstep: (if . <= 0 then 1 else . end / 5) as $raw |
	pow(10; $raw | log10 | floor) as $m | ($raw / $m) as $f |
	(if $f <= 1 then 1 elif $f <= 2 then 2 elif $f <= 5 then 5 else 10 end) * $m;
def ticks: tickstep as $s | [range(0; (. / $s | floor) + 1)] | map(. * $s);

def C: {compute: "#0072B2", comm: "#009E73", free: "#E69F00", preparing: "#CC79A7",
	tail: "#56B4E9", wait: "#D55E00", other: "#7F7F7F", text: "#1A1A1A", grid: "#D0D0D0"};
def svg($w; $hgt; $title; $body):
	"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\($w)\" height=\"\($hgt)\" viewBox=\"0 0 \($w) \($hgt)\" " +
	"role=\"img\" aria-label=\"\($title | h)\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"13\" fill=\"\(C.text)\">" +
	"<title>\($title | h)</title><rect width=\"\($w)\" height=\"\($hgt)\" fill=\"#FFFFFF\"/>" + $body + "</svg>\n";
def rect($x; $y; $w; $hh; $fill; $title):
	"<rect x=\"\($x | p)\" y=\"\($y | p)\" width=\"\($w | p)\" height=\"\($hh | p)\" fill=\"\($fill)\"><title>\($title | h)</title></rect>";
def text($x; $y; $anchor; $s): "<text x=\"\($x | p)\" y=\"\($y | p)\" text-anchor=\"\($anchor)\">\($s | h)</text>";
def legend($x; $y; $items):
	reduce $items[] as $i ({x: $x, s: ""};
		.s += "<rect x=\"\(.x)\" y=\"\($y - 11)\" width=\"14\" height=\"14\" fill=\"\($i[1])\" stroke=\"#333\" stroke-width=\"0.5\"/>" +
			text(.x + 19; $y; "start"; $i[0]) |
		.x += 34 + ($i[0] | length) * 7.5) | .s;
def kclass: if . == "COMMUNICATION" then "comm"
	elif . == null then "other"
	elif . == "AI_CORE" or . == "AI_VECTOR_CORE" or . == "MIX_AIC" or . == "MIX_AIV" or
	    . == "AIC" or . == "AIV" then "compute"
	else "other" end;

. as $ALL |
(.profile[0] // {}) as $P |
.anomaly_discovery[0] as $A |
($P.profile // $A.profile // "?") as $NAME |
($A.step_results // []) as $S |
($A.step_group_anomalies // [] | map(select(.group_id == $A.dominant_group_id)) | .[0]) as $DG |
($A.bubble_windows // []) as $W |
($W | map({key: .bubble_id, value: .}) | from_entries) as $WB |
(.structure_drilldown[0] // null) as $DD |
.drill_step as $DS |
(.kernels | sort_by(.start_ns)) as $K |
(.bubbles | sort_by(.start_ns)) as $B |
(.op | map(select(.view == "name" and .rank_total_cost != null)) | sort_by(.rank_total_cost) | .[0:10]) as $OPS |
[["compute", "compute_ms", C.compute], ["communication not overlapped", "comm_exposed_ms", C.comm],
 ["free (bubbles)", "free_ms", C.free], ["preparing", "preparing_ms", C.preparing],
 ["tail", "tail_ms", C.tail]] as $PARTS |

# 1. Per-step breakdown: one stacked bar per step.
(if ($S | length) < 2 then {none: "\($S | length) step(s): a per-step chart needs two; the table above is the breakdown."}
 else
  1200 as $w | 70 as $l | 30 as $r | 48 as $top | 300 as $ph |
  ($S | map(.service_ms // 0) | max) as $max |
  ($max | ticks) as $ty | ($ty[-1] | if . < $max then . + ($max | tickstep) else . end) as $ymax |
  (($w - $l - $r) / ($S | length)) as $slot |
  (if $slot >= 3 then $slot * 0.7 else $slot end) as $bw |
  (($S | length) / 25 | ceil) as $every |
  {file: "chart_breakdown.svg", caption: "Where each step's time goes (\($S | length) steps, stacked, ms)",
   svg: svg($w; $top + $ph + 50; "Time breakdown per step";
    legend($l; 20; $PARTS | map([.[0], .[2]])) +
    ($ty | map(($top + $ph - . / $ymax * $ph) as $y |
      "<line x1=\"\($l)\" x2=\"\($w - $r)\" y1=\"\($y | p)\" y2=\"\($y | p)\" stroke=\"\(C.grid)\"/>" +
      text($l - 6; $y + 4; "end"; "\(. | dur)")) | join("")) +
    ([$S | to_entries[] | .key as $i | .value as $s |
      ($l + $i * $slot + ($slot - $bw) / 2) as $x |
      "<g class=\"bar\"><title>\("step \($s.step_id) (\($s.group_id // "no group")): \($s.service_ms | dur); " +
        ($PARTS | map("\(.[0]) \($s[.[1]] // 0 | dur)") | join(", ")) | h)</title>" +
      (reduce $PARTS[] as $q ({y: ($top + $ph), s: ""};
        (($s[$q[1]] // 0) / $ymax * $ph) as $hh |
        .s += rect($x; .y - $hh; $bw; $hh; $q[2]; "step \($s.step_id): \($q[0]) \($s[$q[1]] // 0 | dur)") |
        .y -= $hh) | .s) + "</g>" +
      (if $i % $every == 0 then text($x + $bw / 2; $top + $ph + 16; "middle"; $s.step_id) else "" end)] | join("")) +
    text($l + ($w - $l - $r) / 2; $top + $ph + 40; "middle"; "step (ProfilerStep id)"))}
 end) as $C1 |

# 2. The drill-down step's timeline: kernels per stream, bubbles shaded.
(if $DS == null then {none: "No drill-down step (no step with kernels)."}
 elif ($K | length) == 0 then {none: "Step \($DS): no kernel records in the stream."}
 else
  1200 as $w | 90 as $l | 20 as $r | 62 as $top | 24 as $rh | 6 as $gap |
  ($K | map(.stream) | unique) as $streams |
  ([$DD.step_structure.start_ns // null, ($K | map(.start_ns) | min), ($B | map(.start_ns) | min)] | map(select(. != null)) | min) as $t0 |
  ([$DD.step_structure.end_ns // null, ($K | map(.start_ns + .dur_ns) | max), ($B | map(.end_ns) | max)] | map(select(. != null)) | max) as $t1 |
  (($w - $l - $r) / ([$t1 - $t0, 1] | max)) as $sc |
  ($top + ($streams | length) * ($rh + $gap)) as $bot |
  # The five longest are numbered; labels close in x go on three levels.
  ($B | sort_by(-.dur_ns) | .[0:5] | to_entries | map(.value + {num: (.key + 1)}) | sort_by(.start_ns) |
   to_entries | map({key: .value.bubble_id, value: {num: .value.num, level: (.key % 3)}}) | from_entries) as $NUM |
  {file: "chart_timeline.svg",
   caption: "Step \($DS): kernels per stream; shaded: its \($B | length) significant bubbles (the five longest numbered); hover for the evidence",
   svg: svg($w; $bot + 62; "Timeline of step \($DS)";
    # bubbles first, under the kernels
    ([$B[] | ($WB[.bubble_id] // {}) as $e |
      ($l + (.start_ns - $t0) * $sc) as $x |
      "<rect class=\"bubble\" x=\"\($x | p)\" y=\"\($top - 4)\" width=\"\([.dur_ns * $sc, 1.5] | max | p)\" height=\"\($bot - $top + 4)\" fill=\"\(C.free)\" fill-opacity=\"0.55\"><title>\(
        ("\(.bubble_id): \(.dur_ns / 1e6 | dur) idle (\(.scope)), from \($e.start_abs_us // "?") µs\n" +
         "labels: \($e.candidate_labels // [] | join(", "))\n" +
         "host causes: \($e.host_causes // {} | to_entries | map("\(.key) \(if .value == null then "not recorded" else (.value | dur) end)") | if length == 0 then "none named" else join(", ") end)\n" +
         "host op: \($e.top_host_op.name // "none")\n" +
         "before: \(.before.name // "(capture edge)") \(.before.src // "")\n" +
         "after: \(.after.name // "(capture edge)") \(.after.src // "")") | h)</title></rect>" +
      (if $NUM[.bubble_id] then
        ([[$x + .dur_ns * $sc / 2, $l + 30] | max, $w - $r - 34] | min) as $cx |
        ($top - 18 - $NUM[.bubble_id].level * 15) as $ty |
        "<line x1=\"\($cx | p)\" x2=\"\($cx | p)\" y1=\"\($ty + 3)\" y2=\"\($top - 4)\" stroke=\"#333\"/>" +
        text($cx; $ty; "middle"; "#\($NUM[.bubble_id].num) \(.dur_ns / 1e6 | dur)")
       else "" end)] | join("")) +
    ([$streams | to_entries[] | .key as $i | .value as $st |
      ($top + $i * ($rh + $gap)) as $y |
      # a missing stream (HCCL rows of kernel_details) as the Markdown says it
      (if $st == null then "no stream id" else "stream \($st)" end) as $sl |
      text($l - 8; $y + $rh / 2 + 4; "end"; $sl) +
      "<rect x=\"\($l)\" y=\"\($y)\" width=\"\($w - $l - $r)\" height=\"\($rh)\" fill=\"none\" stroke=\"\(C.grid)\"/>" +
      ([$K[] | select(.stream == $st)] |
       reduce .[] as $k ([];
         ($l + ($k.start_ns - $t0) * $sc) as $x0 | ($x0 + $k.dur_ns * $sc) as $x1 | ($k.task_type | kclass) as $c |
         if length > 0 and .[-1].c == $c and $x0 <= .[-1].x1 + 0.5
         then .[-1].x1 = ([.[-1].x1, $x1] | max) | .[-1].n += 1 | .[-1].last = $k
         else . + [{x0: $x0, x1: $x1, c: $c, n: 1, first: $k, last: $k}] end) |
       map(rect(.x0; $y + 3; [.x1 - .x0, 0.8] | max; $rh - 6; C[.c];
         if .n == 1 then "\(.first.name) (\(.first.task_type // "?")), \($sl): \(.first.dur_ns / 1e6 | dur), wait before \((.first.wait_ns // 0) / 1e6 | dur), \(.first.src // "")"
         else "\(.n) kernels: \(.first.name) (\(.first.src // "")) … \(.last.name) (\(.last.src // ""))" end)) | join(""))] | join("")) +
    # The three longest kernels wide enough for a label are named on
    # their bar (an exposed collective is usually one of them).
    ([$K | sort_by(-.dur_ns) | .[0:3][] | . as $k |
      ($k.dur_ns * $sc) as $kw | select($kw >= 90) |
      ($streams | index($k.stream)) as $i |
      ($top + $i * ($rh + $gap)) as $y |
      "<text class=\"span\" x=\"\($l + ($k.start_ns - $t0) * $sc + 4 | p)\" y=\"\($y + $rh / 2 + 4)\" fill=\"#FFFFFF\">" +
        ("\($k.name | clip((($kw - 70) / 7.5 | floor) | [., 4] | max)) \($k.dur_ns / 1e6 | dur)" | h) + "</text>"] | join("")) +
    ((($t1 - $t0) / 1e6) as $span | ($span | ticks) | map(
      ($l + . * 1e6 * $sc) as $x |
      "<line x1=\"\($x | p)\" x2=\"\($x | p)\" y1=\"\($bot)\" y2=\"\($bot + 5)\" stroke=\"#333\"/>" +
      text($x; $bot + 18; "middle"; "\(. | dur)")) | join("")) +
    text($l; $bot + 36; "start"; "time since the start of step \($DS)") +
    legend($l + 560; $bot + 52; [["compute", C.compute], ["communication", C.comm], ["other", C.other], ["significant bubble", C.free]]))}
 end) as $C2 |

# 3. Bubble sizes: significant windows in 1-2-5 bins.
($W | map(.duration_ms) | map(select(. != null))) as $D |
(if ($D | length) < 2 then {none: "\($D | length) significant bubble(s): a distribution needs two."}
 else
  ([range(-3; 7)] | map(pow(10; .) as $m | [$m, 2 * $m, 5 * $m]) | flatten) as $E |
  ($E | map(select(. <= ($D | max))) | map(select(. * 10 > ($D | min))) ) as $E2 |
  ([range(0; $E2 | length)] | map($E2[.] as $lo | ($E2[. + 1] // null) as $hi |
    ($D | map(select(. >= $lo and ($hi == null or . < $hi)))) as $in |
    {lo: $lo, hi: $hi, n: ($in | length), ms: ($in | add // 0)}) | map(select(.lo * 2 >= ($D | min) or .n > 0))) as $H |
  1200 as $w | 70 as $l | 30 as $r | 30 as $top | 260 as $ph |
  # Bar height is the idle time in the bin, not the count: a few long
  # bubbles outweigh many short ones, as they do in the step.
  ($H | map(.ms) | max) as $max | ($max | ticks) as $ty | ($ty[-1] | if . < $max then . + ($max | tickstep) else . end) as $ymax |
  (($w - $l - $r) / ($H | length)) as $slot |
  {file: "chart_bubbles.svg", caption: "Idle time of the \($D | length) significant bubbles by bubble size (bar: the idle time in the size bin; label: how many bubbles)",
   svg: svg($w; $top + $ph + 56; "Bubble-size distribution";
    ($ty | map(($top + $ph - . / $ymax * $ph) as $y |
      "<line x1=\"\($l)\" x2=\"\($w - $r)\" y1=\"\($y | p)\" y2=\"\($y | p)\" stroke=\"\(C.grid)\"/>" +
      text($l - 6; $y + 4; "end"; "\(. | dur)")) | join("")) +
    ([$H | to_entries[] | .key as $i | .value as $b |
      ($l + $i * $slot + $slot * 0.1) as $x | ($b.ms / $ymax * $ph) as $hh |
      ("\($b.lo | dur)–\(if $b.hi == null then "" else ($b.hi | dur) end)") as $lab |
      "<g class=\"bin\" data-idle-ms=\"\($b.ms)\">" + rect($x; $top + $ph - $hh; $slot * 0.8; $hh; C.free;
        "\($b.n) bubbles of \($lab), \($b.ms | dur) idle in all") + "</g>" +
      (if $b.n > 0 then text($x + $slot * 0.4; $top + $ph - $hh - 4; "middle";
        "\($b.ms | dur) in \($b.n)") else "" end) +
      text($x + $slot * 0.4; $top + $ph + 16; "middle"; $lab)] | join("")) +
    text(12; $top - 10; "start"; "idle time") +
    text($l + ($w - $l - $r) / 2; $top + $ph + 40; "middle"; "bubble length (from – to)"))}
 end) as $C3 |

# 4. Top ops by total cost, the wait apart from the duration.
(if ($OPS | length) < 2 then {none: "\($OPS | length) op(s): a ranking needs two."}
 else
  1200 as $w | 400 as $l | 170 as $r | 36 as $top | 26 as $rh |
  ($OPS | map(.total_cost_ms) | max) as $max |
  (($w - $l - $r) / $max) as $sc |
  {file: "chart_ops.svg", caption: "Top \($OPS | length) ops by total cost (duration + wait before them); a long wait is not the op's own cost",
   svg: svg($w; $top + ($OPS | length) * $rh + 30; "Top ops by total cost";
    legend($l; 20; [["duration", C.compute], ["wait before the op", C.wait]]) +
    ([$OPS | to_entries[] | .key as $i | .value as $o | ($top + $i * $rh) as $y |
      "<g class=\"op\">" +
      "<text x=\"\($l - 8)\" y=\"\($y + 17)\" text-anchor=\"end\"><title>\($o.key | h)</title>\("\($i + 1). \($o.key | clip(44))" | h)</text>" +
      rect($l; $y + 4; [$o.dur_total_ms * $sc, 0.8] | max; $rh - 8; C.compute;
        "\($o.key): duration \($o.dur_total_ms | dur) in \($o.calls) calls") +
      rect($l + $o.dur_total_ms * $sc; $y + 4; $o.wait_total_ms * $sc; $rh - 8; C.wait;
        "\($o.key): wait before it \($o.wait_total_ms | dur) (\($o.wait_ratio | pctx) of its cost)\(if $o.wait_anchor then "; a wait anchor" else "" end)") +
      text($l + $o.total_cost_ms * $sc + 6; $y + 17; "start";
        "\($o.total_cost_ms | dur) (wait \($o.wait_total_ms | dur))\(if $o.wait_anchor then " anchor" else "" end)") +
      "</g>"] | join("")) +
    text($l; $top + ($OPS | length) * $rh + 20; "start"; "total cost, ms (scale 0 – \($max | dur))"))}
 end) as $C4 |

[$C1, $C2, $C3, $C4] as $CH |
def fig($c): if $c.svg then "<figure>\($c.svg)<figcaption>\($c.caption | h)</figcaption></figure>"
	else "<p class=\"none\">\($c.none | h)</p>" end;
def hrow($cells): "<tr>" + ($cells | map("<td>\(. | h)</td>") | join("")) + "</tr>";
def htable($head; $rows): "<table><tr>" + ($head | map("<th>\(. | h)</th>") | join("")) + "</tr>" + ($rows | map(hrow(.)) | join("")) + "</table>";

# The long bubble table (the page's own: the report shows the five longest).
("<p>The \([$W | length, 10] | min) longest of the \($A.significant_windows_total // ($W | length)) significant bubbles\(if ($W | length) > 10 then " (\(if ($W | length) == $A.significant_windows_total then "all" else "the \($W | length) longest" end) in anomaly_discovery.json, bubble_windows)" else "" end):</p>" +
 "<div class=\"nw\">" + htable(["bubble", "duration", "start (abs µs)", "labels", "host causes", "kernel before", "kernel after", "device tasks (no kernels) inside"];
  $W[0:10] | map([.bubble_id, (.duration_ms | dur), .start_abs_us // "n/a", (.candidate_labels // [] | join(", ")),
    (.host_causes // {} | to_entries | map("\(.key) \(if .value == null then "not recorded" else (.value | dur) end)") | join(", ")),
    (if .before == null then "(capture edge)" else "\(.before.name) (\(.before.src // ""))" end),
    (if .after == null then "(capture edge)" else "\(.after.name) (\(.after.src // ""))" end),
    ((.device_tasks // []) | map("\(.name) \(.overlap_ms | dur)") | join(", ") | if . == "" then "—" else . end)])) + "</div>") as $LONG |
def extra($t):
	if $t == "Where the step's time goes" then ["c1", fig($C1)]
	elif ($t | startswith("Structure of step")) then ["c2", fig($C2)]
	elif $t == "Idle windows and their host causes" then ["c3", fig($C3) + $LONG]
	elif $t == "Top ops" then ["c4", fig($C4)]
	else null end;
# The Markdown report as HTML (the helpers in fmt.jq).  Each chart goes
# after the section it illustrates, the longest bubbles after the idle
# windows; a chart whose section is missing goes in a last section.
# (A Charts section at the end, which older asc appended to the report,
# is left out, as is the report's pointer to charts.md: the page holds
# the charts itself.)
def mdhtml:
	(split("\n## Charts\n")[0] | split("\n") | map(select(startswith("Charts: charts.md") | not))) as $L |
	(reduce ($L[], "## ") as $l ({out: [], k: null, b: [], sec: null, placed: {}};
		($l | lkind) as $k |
		# a list item's continuation (indented) stays in the item
		if $k == "text" and (.k == "ul" or .k == "ol") and ($l | test("^\\s+\\S")) then .b[-1] += " " + ($l | sub("^\\s+"; ""))
		elif $k == "text" and .k == "p" then .b += [$l]
		elif $k == "blank" then .out += [mdblock(.k; .b)] | .k = null | .b = []
		elif $k == "h" then
			.out += [mdblock(.k; .b)] | .k = null | .b = [] |
			(if .sec != null then extra(.sec) else null end) as $x |
			(if $x != null then .out += [$x[1]] | .placed[$x[0]] = true else . end) |
			($l | capture("^(?<h>#+) (?<t>.*)$")) as $h |
			(if $h.h == "##" then .sec = ($h.t | gsub("\\\\(?<c>[!-/:-@\\[-`{-~])"; "\(.c)") | gsub("`"; "")) else . end) |
			(if $h.t == "" then . else .out += ["<h\($h.h | length)>" + ($h.t | inl) + "</h\($h.h | length)>"] end)
		elif $k == .k then .b += [$l]
		else .out += [mdblock(.k; .b)] | .k = (if $k == "text" then "p" else $k end) | .b = [$l] end)) as $R |
	($R.out | map(select(. != "")) | join("\n")) +
	([["c1", $C1], ["c2", $C2], ["c3", $C3], ["c4", $C4]] | map(select($R.placed[.[0]] | not)) |
	 if length == 0 then "" else "\n<h2>Charts</h2>\n" + (map(fig(.[1]) + (if .[0] == "c3" then $LONG else "" end)) | join("\n")) end);

({file: "anomaly_report.html", text: ([
"<!DOCTYPE html>",
"<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
"<title>Anomaly report: \($NAME | h)</title>",
"<style>body{font:15px/1.45 \"DejaVu Sans\",Arial,sans-serif;color:#1A1A1A;background:#FFF;max-width:1240px;margin:0 auto;padding:8px 16px}",
"h1{font-size:24px}h2{font-size:19px;border-bottom:2px solid #0072B2;padding-bottom:2px;margin-top:28px}",
"table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #BBB;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere;font-size:14px}th{background:#EEF3F8}",
"figure{margin:10px 0}figcaption{color:#333;font-style:italic}svg{max-width:100%;height:auto}p.none{color:#333;border-left:4px solid #E69F00;padding-left:8px}.nw th,.nw td:nth-child(-n+3){overflow-wrap:normal;white-space:nowrap}</style></head><body>",
(if ($ALL.md | type) == "string" then
 ($ALL.md | mdhtml) + "\n<p>The page is the Markdown report (anomaly_report.md) with its charts inline; exact figures are in anomaly_discovery.json.</p>"
else ([
"<h1>Anomaly report: \($NAME | h)</h1>",
"<p>\($P.path // "" | h): \($P.framework // "n/a" | h) \($P.source // "" | h) export, level \($P.config.level // "unknown" | h); \($P.counts.kernel // 0) kernels, \($S | length) step(s). Confidence <b>\($A.confidence // "n/a" | h)</b>, severity <b>\($A.severity // "n/a" | h)</b>.</p>",
"<h2>Verdict</h2>",
(if ($A.recommendations // []) | length > 0 then
  "<p>" + ($A.recommendations | map(select(.headline != null)) | .[0:3] | map(.headline | h) | join(" ")) + "</p>"
 else "<p>No recommendation: nothing stands out.</p>" end),
"<h2>Where the step's time goes</h2>",
(if $DG == null then "<p>No step group.</p>" else
 "<p>Group <code>\($DG.group_id | h)</code>: \($DG.group_size) step(s), \($DG.service_ms_avg | dur) per step on average.</p>" +
 htable(["part", "per step", "share of step"];
   [["compute", "compute"], ["communication not overlapped", "comm_exposed"], ["free (bubbles between kernels)", "free"],
    ["preparing (before the first kernel)", "preparing"], ["tail (after the last kernel)", "tail"],
    ["(communication overlapped with compute)", "comm_overlapped"]] |
   map([.[0], ($DG.breakdown_ms_avg[.[1]] | dur), ($DG.breakdown_share[.[1]] | pctx)]))
 end),
fig($C1),
"<h2>Recommendations</h2>",
"<div class=\"nw\">" + htable(["#", "priority", "at stake per step", "recommendation"];
  ($A.recommendations // []) | map([.id // "", .priority // "", (if .time_at_stake_ms == null then "n/a" else "\(.time_at_stake_ms | dur) (\(.share_of_step | pctx))" end), .text // .headline // ""])) + "</div>",
"<h2>The drill-down step</h2>",
fig($C2),
"<h2>Bubbles</h2>",
fig($C3),
"<p>The \([$W | length, 10] | min) longest of the \($A.significant_windows_total // ($W | length)) significant bubbles\(if ($W | length) > 10 then " (\(if ($W | length) == $A.significant_windows_total then "all" else "the \($W | length) longest" end) in anomaly_discovery.json, bubble_windows)" else "" end):</p>",
"<div class=\"nw\">" + htable(["bubble", "duration", "start (abs µs)", "labels", "host causes", "kernel before", "kernel after"];
  $W[0:10] | map([.bubble_id, (.duration_ms | dur), .start_abs_us // "n/a", (.candidate_labels // [] | join(", ")),
    (.host_causes // {} | to_entries | map("\(.key) \(if .value == null then "not recorded" else (.value | dur) end)") | join(", ")),
    (if .before == null then "(capture edge)" else "\(.before.name) (\(.before.src // ""))" end),
    (if .after == null then "(capture edge)" else "\(.after.name) (\(.after.src // ""))" end)])) + "</div>",
"<h2>Top ops</h2>",
fig($C4),
"<p>Written by asc-html from the anomaly_discovery verdict; exact figures are in anomaly_discovery.json.</p>"] | join("\n")) end),
"</body></html>", ""] | join("\n"))}),
($CH[] | select(.svg) | {file, text: ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + .svg)}),
{file: "charts.md", text: ("# Charts of the anomaly report\n\n" +
  # no chart drawn: say why, each chart's reason (a capture with no
  # kernel table has neither the timeline nor bubbles nor ops to draw)
  (if any($CH[]; .svg) then
     ($CH | map(select(.svg) | "![\(.caption)](\(.file))\n\n") | join("")) +
     "The same charts with hover text (the evidence of each bubble) are in anomaly_report.html.\n"
   else
     "No chart could be drawn for this profile" +
     (if ($P.counts.kernel // 0) == 0 then ": its capture has no kernel timeline" else "" end) + ". " +
     ([$CH[] | .none // empty | sub("; the table above is the breakdown\\.$"; ".")] | join(" ")) +
     " anomaly_report.html has none either.\n" end))}
