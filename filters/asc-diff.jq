# asc-diff: compare two profiles' records (mode "diff": the diff records),
# choose the ranks of a cluster (mode "pick") and render the report
# (mode "report").  Built into asc-diff; every time is integer ns.

def abs: if . == null then null elif . < 0 then -. else . end;
def idiv($d): if . == null or $d == 0 then null else (. / $d | floor) end;
def dlt($a; $b): if $a == null or $b == null then null else $b - $a end;
def sum: reduce .[] as $x (0; . + ($x // 0));
def index_by(f): reduce .[] as $x ({}; . + {(($x | f) | tostring): $x});

# ---- model parts: the one place that says what a part is and how the
# parts of two runs align.  Today from asc-fia's records (fia_layer, else
# fia_phase); a part has key (its kind and its occurrence of that kind),
# kind, pos (its place in the capture), ns (wall) and kernel_ns.
def part_kind:
  (if .loss then "loss " else "" end)
  + (.direction // "forward") + " " + (.layer_type // "layer")
  + (if .fia_class and .fia_class != "none" then " (" + .fia_class + ")" else "" end);
def numbered:
  group_by(.kind) | map(to_entries | map(.value + {key: (.value.kind + " #" + (.key + 1 | tostring))}))
  | add // [] | sort_by(.pos);
def parts:
  if ((.fia_layer // []) | length) > 0 then
    [.fia_layer[] | {src: "fia_layer", kind: part_kind, pos: .layer, ns: .wall_ns, kernel_ns: .kernel_sum_ns}] | numbered
  else
    [(.fia_phase // [])[] | {src: "fia_phase", kind: .phase, pos: .run, ns: .wall_ns, kernel_ns: .kernel_sum_ns}] | numbered
  end;
# Pairs {align, a, b} of parts: the same kinds at the head and at the end
# of the two sequences pair in order; between them (where the models
# differ) by kind and occurrence, what is left by position, the rest alone
# (a or b null).
def occ:	# n: the occurrence of the part's kind in the list
  to_entries | group_by(.value.kind)
  | map(to_entries | map(.value.value + {n: .key, i: .value.key})) | add // [] | sort_by(.i) | map(del(.i));
def align($pa; $pb):
  ($pa | length) as $na | ($pb | length) as $nb | ([$na, $nb] | min) as $m
  | (first(range(0; $m) | select($pa[.].kind != $pb[.].kind)) // $m) as $p
  | (first(range(0; $m - $p) | select($pa[$na - 1 - .].kind != $pb[$nb - 1 - .].kind)) // ($m - $p)) as $s
  | $pa[$p:$na - $s] as $xa | $pb[$p:$nb - $s] as $xb
  | ($xa | occ) as $xa | ($xb | occ) as $xb
  | ($xa | index_by([.kind, .n])) as $ka | ($xb | index_by([.kind, .n])) as $kb
  | [$xa[] | select($kb[[.kind, .n] | tostring] == null)] as $ra
  | [$xb[] | select($ka[[.kind, .n] | tostring] == null)] as $rb
  | [range(0; $p) | {align: "kind", a: $pa[.], b: $pb[.]}]
    + [$xa[] | select($kb[[.kind, .n] | tostring] != null) | {align: "kind", a: ., b: $kb[[.kind, .n] | tostring]}]
    + [range(0; [$ra, $rb | length] | max) | {align: (if $ra[.] and $rb[.] then "position" elif $ra[.] then "only_a" else "only_b" end), a: $ra[.], b: $rb[.]}]
    + [range(0; $s) | {align: "kind", a: $pa[$na - $s + .], b: $pb[$nb - $s + .]}]
  | map(.a |= (if . then del(.n) else . end) | .b |= (if . then del(.n) else . end));

# ---- the time breakdown of a set of steps: sums, and the mean step
def bfield: {compute: "compute_ns", comm_exposed: "comm_exposed_ns", comm_overlapped: "comm_overlapped_ns",
	free: "internal_bubble_total_ns", preparing: "prelaunch_gap_ns", tail: "tail_gap_ns", step: "service_ns"};
def additive: ["compute", "comm_exposed", "free", "preparing", "tail"];
def bmean: . as $ms | bfield | map_values(. as $f | [$ms[][$f]] | sum | idiv($ms | length));
def brows($scope; $key; $A; $B; $extra):
  ((bfield | keys_unsorted)[] as $p
    | {kind: "breakdown", scope: $scope, key: $key} + $extra
      + {part: $p, additive: (additive | index($p) != null), a_ns: $A[$p], b_ns: $B[$p], delta_ns: dlt($A[$p]; $B[$p])}),
  ({kind: "breakdown", scope: $scope, key: $key} + $extra
    + {part: "unexplained", additive: true, a_ns: null, b_ns: null,
       delta_ns: (dlt($A.step; $B.step) | if . == null then null else . - ([additive[] as $p | dlt($A[$p]; $B[$p])] | sum) end)});

def stepid: .step_id | tostring;
def steps_of($g): $g.step_metrics;
def mean_step($g): steps_of($g) | bmean | .step;

# ---- ops by key (view name: op, view op_type: op_type)
def oprows($A; $B; $view; $kind; $na; $nb):
  ([$A.op[]? | select(.view == $view)] | index_by(.key)) as $ma
  | ([$B.op[]? | select(.view == $view)] | index_by(.key)) as $mb
  | (($ma | keys) + ($mb | keys) | unique)[] as $k | $ma[$k] as $x | $mb[$k] as $y
  | {kind: $kind, key: $k, op_type: ($y.op_type // $x.op_type), task_type: ($y.task_type // $x.task_type),
     status: (if $x == null then "added" elif $y == null then "removed"
	      elif $x.dur_total_ns == $y.dur_total_ns and $x.calls == $y.calls and $x.wait_total_ns == $y.wait_total_ns then "same"
	      else "changed" end),
     a_calls: $x.calls, b_calls: $y.calls, delta_calls: dlt($x.calls // 0; $y.calls // 0),
     a_total_ns: $x.dur_total_ns, b_total_ns: $y.dur_total_ns, delta_total_ns: dlt($x.dur_total_ns // 0; $y.dur_total_ns // 0),
     a_mean_ns: $x.dur_avg_ns, b_mean_ns: $y.dur_avg_ns, delta_mean_ns: dlt($x.dur_avg_ns; $y.dur_avg_ns),
     a_wait_ns: $x.wait_total_ns, b_wait_ns: $y.wait_total_ns, delta_wait_ns: dlt($x.wait_total_ns // 0; $y.wait_total_ns // 0),
     delta_per_step_ns: (($y.dur_total_ns // 0 | idiv($nb)) - ($x.dur_total_ns // 0 | idiv($na)))};

# ---- bubbles
# A kernel's name without the communication group's number, which differs
# from run to run (hcom_allReduce__586_0_1).
def kname: sub("__[0-9]+_"; "__");
def bscope: if . == "step_internal" then "internal" else . end;
def windows($g):
  (steps_of($g) | to_entries | map({key: (.value | stepid), value: {ord: (.key + 1), start: .value.start_ns}}) | from_entries) as $st
  | ($g.attribution // [] | index_by(.bubble_id)) as $at
  | [$g.bubble[]? | . as $w | $st[$w | stepid] as $s
     | {ord: ($s.ord // 0), step: ($w | stepid), scope: ($w.scope | bscope), dur_ns, rel_ns: ($w.start_ns - ($s.start // 0)),
        before: $w.before.name, after: $w.after.name, bubble_id,
        cause: $at[$w.bubble_id].host_cause_top, label: $at[$w.bubble_id].label,
        k0: ("step #" + ($s.ord // 0 | tostring) + " " + ($w.scope | bscope)
	     + (if $w.scope == "step_internal" then " " + ($w.before.name // "start" | kname) + " > " + ($w.after.name // "end" | kname) else "" end))}]
  | group_by(.k0) | map(to_entries | map(.value + {key: (.value.k0 + (if .key > 0 then " #" + (.key + 1 | tostring) else "" end))})) | add // [];
def bubblerows($A; $B; $na; $nb):
  # global windows (between busy segments across steps) cover the tail
  # and prelaunch windows again: their own scope, never ranked
  ((["prelaunch", "internal", "tail"] + ([$A.bubble[]?, $B.bubble[]? | select(.scope == "global")] | if length > 0 then ["global"] else [] end))[] as $s
    | [$A.bubble[]? | select((.scope | bscope) == $s)] as $x | [$B.bubble[]? | select((.scope | bscope) == $s)] as $y
    | {kind: "bubble_scope", key: $s, a_count: ($x | length), b_count: ($y | length), delta_count: (($y | length) - ($x | length)),
       a_idle_ns: ([$x[].dur_ns] | sum), b_idle_ns: ([$y[].dur_ns] | sum), delta_idle_ns: (([$y[].dur_ns] | sum) - ([$x[].dur_ns] | sum)),
       delta_per_step_ns: (([$y[].dur_ns] | sum | idiv($nb)) - ([$x[].dur_ns] | sum | idiv($na)))}),
  (([$A.attribution[]?, $B.attribution[]? | .host_causes // {} | keys[]] | unique)[] as $f
    | ([$A.attribution[]? | .host_causes[$f]] | sum) as $x | ([$B.attribution[]? | .host_causes[$f]] | sum) as $y
    | select($x != 0 or $y != 0)
    | {kind: "bubble_cause", key: $f, a_ns: $x, b_ns: $y, delta_ns: ($y - $x), delta_per_step_ns: (($y | idiv($nb)) - ($x | idiv($na)))}),
  ((($A.step_metrics[0].min_bubble_us // 50) * 1000) as $min
    | (windows($A) | index_by(.key)) as $wa | (windows($B) | index_by(.key)) as $wb
    | (($wa | keys) + ($wb | keys) | unique)[] as $k | $wa[$k] as $x | $wb[$k] as $y
    | (if $x == null then "new" elif $y == null then "gone" elif $y.dur_ns - $x.dur_ns >= $min then "grown"
       elif $x.dur_ns - $y.dur_ns >= $min then "shrunk" else empty end) as $status
    | ($y // $x) as $w
    | {kind: "bubble_window", key: $k, status: $status, scope: $w.scope, a_step: $x.step, b_step: $y.step,
       before: $w.before, after: $w.after, a_rel_ns: $x.rel_ns, b_rel_ns: $y.rel_ns,
       a_ns: $x.dur_ns, b_ns: $y.dur_ns, delta_ns: (($y.dur_ns // 0) - ($x.dur_ns // 0)),
       delta_per_step_ns: ((($y.dur_ns // 0) - ($x.dur_ns // 0)) | idiv([$na, $nb] | max)),
       cause: $w.cause, label: $w.label, bubble_id: $w.bubble_id});

# ---- communication: ops by name (the group's number left out) and
# occurrence, groups by id
def commkey: .op | kname;
def commrows($A; $B; $na; $nb):
  def agg: {n: length, elapsed: ([.[].elapsed_ns] | sum), wait: ([.[].wait_ns] | sum),
	    transfer: ([.[].transfer_ns] | sum), bytes: ([.[].transfer_bytes] | sum)}
	   | . + {gbps: (if .transfer > 0 then (.bytes / .transfer * 1000 | round) / 1000 else null end)};
  def byop($g): [$g.comm_op[]?] | group_by(commkey) | map({key: (.[0] | commkey), value: agg}) | from_entries;
  (byop($A) as $ma | byop($B) as $mb
   | (($ma | keys) + ($mb | keys) | unique)[] as $k | $ma[$k] as $x | $mb[$k] as $y
   | {kind: "comm_op", key: $k, status: (if $x == null then "added" elif $y == null then "removed" else "both" end),
      a_elapsed_ns: $x.elapsed, b_elapsed_ns: $y.elapsed, delta_elapsed_ns: dlt($x.elapsed // 0; $y.elapsed // 0),
      a_wait_ns: $x.wait, b_wait_ns: $y.wait, delta_wait_ns: dlt($x.wait // 0; $y.wait // 0),
      a_transfer_ns: $x.transfer, b_transfer_ns: $y.transfer, delta_transfer_ns: dlt($x.transfer // 0; $y.transfer // 0),
      a_gbps: $x.gbps, b_gbps: $y.gbps,
      delta_per_step_ns: (($y.elapsed // 0 | idiv($nb)) - ($x.elapsed // 0 | idiv($na)))}),
  (($A.comm_group // [] | index_by(.group)) as $ma | ($B.comm_group // [] | index_by(.group)) as $mb
   | (($ma | keys) + ($mb | keys) | unique)[] as $k | $ma[$k] as $x | $mb[$k] as $y
   | {kind: "comm_group", key: $k, size: ($y.size // $x.size), a_ops: $x.ops, b_ops: $y.ops,
      a_elapsed_ns: $x.elapsed_ns, b_elapsed_ns: $y.elapsed_ns, delta_elapsed_ns: dlt($x.elapsed_ns // 0; $y.elapsed_ns // 0),
      a_exposed_ns: $x.exposed_ns, b_exposed_ns: $y.exposed_ns, delta_exposed_ns: dlt($x.exposed_ns // 0; $y.exposed_ns // 0),
      delta_per_step_ns: (($y.exposed_ns // 0 | idiv($nb)) - ($x.exposed_ns // 0 | idiv($na)))});

# ---- verdicts: the recommendations by finding, scope and target
def stake: if .time_at_stake_ms == null then null else .time_at_stake_ms * 1000000 | round end;
def findrows($A; $B):
  def fmap($g): [$g.anomaly_discovery[0].recommendations[]?] | index_by([.finding, .scope, .target_id // empty] | map(tostring) | join(" "));
  fmap($A) as $ma | fmap($B) as $mb
  | (($ma | keys) + ($mb | keys) | unique)[] as $k | $ma[$k] as $x | $mb[$k] as $y
  | {kind: "finding", key: $k, finding: ($y.finding // $x.finding),
     status: (if $x == null then "appeared" elif $y == null then "disappeared"
	      elif ($x | stake) != ($y | stake) then "changed" else "same" end),
     a_id: $x.id, b_id: $y.id, a_stake_ns: ($x | stake), b_stake_ns: ($y | stake),
     delta_stake_ns: dlt($x | stake; $y | stake), headline: ($y.headline // $x.headline)};

# ---- parts rows
def partrows($A; $B; $na; $nb):
  ($A | parts) as $pa | ($B | parts) as $pb
  | (align($pa; $pb)[]
     | {kind: "part", key: (if .align == "position" then "position \(.a.pos)" + (if .a.pos != .b.pos then "/\(.b.pos)" else "" end)
			    elif .a and .b and .a.key != .b.key then .a.key + " / " + .b.key else .a.key // .b.key end), align, source: (.a.src // .b.src), a_kind: .a.kind, b_kind: .b.kind,
	a_pos: .a.pos, b_pos: .b.pos, a_ns: .a.ns, b_ns: .b.ns, delta_ns: ((.b.ns // 0) - (.a.ns // 0)),
	a_kernel_ns: .a.kernel_ns, b_kernel_ns: .b.kernel_ns,
	delta_per_step_ns: ((.b.ns // 0 | idiv($nb)) - (.a.ns // 0 | idiv($na)))}),
    ((($pa + $pb) | map(.kind) | unique)[] as $t
     | [$pa[] | select(.kind == $t)] as $x | [$pb[] | select(.kind == $t)] as $y
     | {kind: "part_kind", key: $t, a_count: ($x | length), b_count: ($y | length),
	a_ns: ([$x[].ns] | sum), b_ns: ([$y[].ns] | sum), delta_ns: (([$y[].ns] | sum) - ([$x[].ns] | sum)),
	delta_per_step_ns: (([$y[].ns] | sum | idiv($nb)) - ([$x[].ns] | sum | idiv($na)))});

# ---- what cannot be compared
def chas($g; $what):
  if $what == "op types" then [$g.op[]? | select(.view == "op_type")]
  elif $what | startswith("torch_npu") then $g.step_trace // []
  elif $what | startswith("communication ops") then $g.comm_op // []
  elif $what == "communication groups" then $g.comm_group // []
  elif $what == "host cause attribution" then [$g.attribution[]? | select(.host_evidence)]
  elif $what | startswith("model parts") then ($g.fia_layer // []) + ($g.fia_phase // [])
  elif $what | startswith("kernel table") then $g.step_metrics // []
  else $g.anomaly_discovery // [] end | length > 0;
def caveats($A; $B):
  def cfg($g): $g.profile[0].config // {};
  def side($g; f): [$g | f] | length > 0;
  (if (cfg($A).level // null) != (cfg($B).level // null) then
     {kind: "caveat", key: "level", a_value: cfg($A).level, b_value: cfg($B).level,
      text: "the captures differ in profiler level (A \(cfg($A).level // "unknown"), B \(cfg($B).level // "unknown")): what only one level records is not compared (below)"}
   else empty end),
  (if (cfg($A).export_type // null) != (cfg($B).export_type // null) then
     {kind: "caveat", key: "export_type", a_value: cfg($A).export_type, b_value: cfg($B).export_type,
      text: "the captures differ in export type (A \(cfg($A).export_type // "unknown"), B \(cfg($B).export_type // "unknown"))"}
   else empty end),
  (if ($A.profile[0].framework) != ($B.profile[0].framework) then
     {kind: "caveat", key: "framework", a_value: $A.profile[0].framework, b_value: $B.profile[0].framework,
      text: "the captures come from different frameworks"}
   else empty end),
  (($A | parts | map(.kind)) as $ka | ($B | parts | map(.kind)) as $kb
   | if ($ka | length) > 0 and ($kb | length) > 0 and $ka != $kb then
       {kind: "caveat", key: "model", a_value: ($ka | length), b_value: ($kb | length),
	text: "the models differ: A has \($ka | length) parts, B \($kb | length), of other kinds or order; parts are aligned by kind, by position where the kinds differ"}
     else empty end),
  (["kernel table (step breakdown, ops, idle windows)", "op types", "torch_npu step breakdown (step_trace_time.csv)", "communication ops (HCCL tasks)", "communication groups",
     "host cause attribution", "model parts (asc-fia)", "findings (anomaly_discovery)"][] as $what
  | chas($A; $what) as $x | chas($B; $what) as $y
  | select($x != $y)
  | {kind: "caveat", key: $what, a_value: $x, b_value: $y,
     text: "\($what): only \(if $x then "A" else "B" end)'s records have them; not compared"});

def plabel($g): $g.profile[0].profile;

def diff:
  .a as $A | .b as $B
  # per step: the totals of a capture without steps (no kernel table) count as one
  | ([$A.step_metrics | length, 1] | max) as $na | ([$B.step_metrics | length, 1] | max) as $nb
  | ($A.step_metrics | bmean) as $ma | ($B.step_metrics | bmean) as $mb
  | {type: "diff", a: plabel($A), b: plabel($B)} as $h
  # per step: by id when both captures hold the same steps, else by position
  | ($A.step_metrics | map(stepid)) as $ia | ($B.step_metrics | map(stepid)) as $ib
  | ($ia == $ib) as $byid
  | [ (brows("mean"; "mean"; $ma; $mb; {a_steps: ($A.step_metrics | length), b_steps: ($B.step_metrics | length)})),
      ((($A.step_metrics | map(.group_id) | unique) - (($A.step_metrics | map(.group_id) | unique) - ($B.step_metrics | map(.group_id) | unique)))[] as $gid
	| brows("group"; $gid; ([$A.step_metrics[] | select(.group_id == $gid)] | bmean); ([$B.step_metrics[] | select(.group_id == $gid)] | bmean);
		{a_steps: ([$A.step_metrics[] | select(.group_id == $gid)] | length), b_steps: ([$B.step_metrics[] | select(.group_id == $gid)] | length)})),
      (range(0; [$A.step_metrics, $B.step_metrics | length] | min) as $i | $A.step_metrics[$i] as $x | $B.step_metrics[$i] as $y
	| brows("step"; (if $byid then $ia[$i] else "#\($i + 1)" end); ([$x] | bmean); ([$y] | bmean); {a_step: $ia[$i], b_step: $ib[$i]})),
      (if ($A.step_trace // [] | length) > 0 and ($B.step_trace // [] | length) > 0 then
	 ["computing_ns", "comm_not_overlapped_ns", "overlapped_ns", "free_ns", "preparing_ns", "stage_ns"][] as $f
	 | ([$A.step_trace[][$f]] | sum | idiv($A.step_trace | length)) as $x | ([$B.step_trace[][$f]] | sum | idiv($B.step_trace | length)) as $y
	 | {kind: "step_trace", key: ($f | sub("_ns$"; "")), a_ns: $x, b_ns: $y, delta_ns: dlt($x; $y)}
       else empty end),
      # a section one side does not record is named by a caveat, not compared
      (def both($w): chas($A; $w) and chas($B; $w);
       (if both("model parts (asc-fia)") then partrows($A; $B; $na; $nb) else empty end),
       (if both("kernel table (step breakdown, ops, idle windows)") then oprows($A; $B; "name"; "op"; $na; $nb) else empty end),
       (if both("op types") then oprows($A; $B; "op_type"; "op_type"; $na; $nb) else empty end),
       (if both("kernel table (step breakdown, ops, idle windows)") then
	  bubblerows($A; $B; $na; $nb) | select(.kind != "bubble_cause" or both("host cause attribution")) else empty end),
       (commrows($A; $B; $na; $nb) | select(if .kind == "comm_op" then both("communication ops (HCCL tasks)") else both("communication groups") end)),
       (if both("findings (anomaly_discovery)") then findrows($A; $B) else empty end)),
      caveats($A; $B) ] as $rows
  # ranked: the rows of one thing each (not the sums by type or scope)
  | ([$rows[] | select((.kind == "op" or .kind == "part" or (.kind == "bubble_window" and .scope != "global") or .kind == "comm_op")
		       and (.delta_per_step_ns // 0) != 0)]
     | sort_by([-(.delta_per_step_ns | abs), .kind, .key]) | to_entries
     | map({key: (.value.kind + " " + .value.key), value: (.key + 1)}) | from_entries) as $rank
  | ([$rows[] | select(.kind == "breakdown" and .scope == "mean")] | index_by(.part)) as $bm
  | ($h + {kind: "summary", key: "mean step", mode: (if .cluster then "cluster" else "pair" end),
	   a_input: .a_input, b_input: .b_input, a_file: $A.file, b_file: $B.file,
	   a_level: $A.profile[0].config.level, b_level: $B.profile[0].config.level,
	   a_rank: $A.profile[0].config.rank, b_rank: $B.profile[0].config.rank,
	   a_steps: ($A.step_metrics | length), b_steps: ($B.step_metrics | length), a_step_ns: $ma.step, b_step_ns: $mb.step, delta_ns: dlt($ma.step; $mb.step),
	   explained_ns: (if $bm.step.delta_ns == null then null else [additive[] as $p | $bm[$p].delta_ns] | sum end), unexplained_ns: $bm.unexplained.delta_ns,
	   top: ([$rank | to_entries[] | select(.value == 1) | .key][0])}
     + (if .cluster then {ranks: .ranks, a_role: "median rank", b_role: "slowest rank"} else {} end)),
    ($rows[] | $h + . + (if $rank[.kind + " " + .key] then {rank: $rank[.kind + " " + .key]} else {} end));

# ---- --cluster: [median rank's file, slowest rank's file]
def pick:
  [.ranks[] | select((.step_metrics // []) | length > 0) | {file, step: mean_step(.)}]
  | sort_by(.step)
  | if length < 2 then empty else [.[(length - 1) / 2 | floor].file, .[-1].file] end;

# ---- the report
def t: if . == null then "–"
       elif (. | abs) >= 1000000 then "\((. / 1000 | round) / 1000) ms"
       else "\(. / 1000 | tostring) µs" end;
def st: if . == null then "–" elif . > 0 then "+" + t else t end;
def md:
  .records as $r
  | ($r[] | select(.kind == "summary")) as $s
  | [$r[] | select(.kind == "breakdown" and .scope == "mean")] as $bm
  | def row(c): "| " + (c | map(if . == null then "–" else tostring end) | join(" | ")) + " |";
    def rowdesc: (if .kind == "op" then "op \(.key) (\(.status))"
		  elif .kind == "part" then "part \(.key)" + (if .align == "position" then " (A \(.a_kind), B \(.b_kind))" else "" end)
		  elif .kind == "bubble_window" then "\(.status) bubble \(.key)" + (if .cause then ", host cause \(.cause)" else "" end)
		  else "\(.kind) \(.key)" end);
  "# asc-diff: \($s.a) → \($s.b)\n\n"
  + "A: \($s.a_input) (\($s.a_level // "level unknown"), \($s.a_steps) step(s)); B: \($s.b_input) (\($s.b_level // "level unknown"), \($s.b_steps) step(s)).\n\n"
  + (if $s.mode == "cluster" then "Cluster of \($s.ranks) ranks, by mean step time: A is the median rank (\($s.a)), B the slowest (\($s.b)).\n\n" else "" end)
  + "B's mean step is " + (if $s.delta_ns == null then "not compared with A's (one of them has no step breakdown: below)"
			   elif $s.delta_ns == 0 then "as long as A's"
			   else "\($s.delta_ns | abs | t) " + (if $s.delta_ns > 0 then "longer" else "shorter" end) + " than A's" end)
  + " (A \($s.a_step_ns | t) over \($s.a_steps) step(s), B \($s.b_step_ns | t) over \($s.b_steps)).\n"
  + ([$r[] | select(.rank == 1)][0] as $top
     | if $top then "The biggest change: \($top | rowdesc), \($top.delta_per_step_ns | st) per step.\n" else "No op, part, idle window or communication op compared on both sides changed.\n" end)
  + "\n## Where the step time went\n\nThe parts of the mean step, largest change first; they sum to the change of the step.\n\n"
  + row(["part", "A", "B", "delta"]) + "\n" + row(["---", "---:", "---:", "---:"]) + "\n"
  + ([$bm[] | select(.additive and .part != "unexplained")] | sort_by(-(.delta_ns // 0 | abs)) | map(row([.part, (.a_ns | t), (.b_ns | t), (.delta_ns | st)]) + "\n") | add // "")
  + ([$bm[] | select(.part == "unexplained")][0] | row(["unexplained", "", "", (.delta_ns | st)]) + "\n")
  + ([$bm[] | select(.part == "step")][0] | row(["**step**", (.a_ns | t), (.b_ns | t), (.delta_ns | st)]) + "\n")
  + ([$bm[] | select(.part == "comm_overlapped")][0] | "\nCommunication overlapped by compute (not in the sum): A \(.a_ns | t), B \(.b_ns | t), \(.delta_ns | st).\n")
  + ([$r[] | select(.kind == "step_trace")] as $c
     | if ($c | length) > 0 then "\ntorch_npu's own breakdown (step_trace_time.csv, mean per step): "
	+ ($c | map("\(.key) \(.delta_ns | st)") | join(", ")) + ".\n" else "" end)
  + "\n## Biggest changes (per step)\n\nOps, model parts, idle windows and communication ops by the change of their time per step; A and B are over the whole capture.\n\n"
  + row(["#", "what", "A", "B", "delta per step"]) + "\n" + row(["---:", "---", "---:", "---:", "---:"]) + "\n"
  + ([$r[] | select(.rank != null and .rank <= 20)] | sort_by(.rank)
     | map(row([.rank, rowdesc, ((.a_total_ns // .a_elapsed_ns // .a_ns) | t), ((.b_total_ns // .b_elapsed_ns // .b_ns) | t), (.delta_per_step_ns | st)]) + "\n") | add // "(none)\n")
  + ([$r[] | select(.kind == "caveat")] as $c
     | if ($c | length) > 0 then "\n## What cannot be compared\n\n" + ($c | map("- " + .text + "\n") | add) else "" end)
  + ([$r[] | select(.kind == "op" and .status != "same")] | sort_by(-(.delta_total_ns // 0 | abs)) as $o
     | "\n## Ops\n\nBy name; totals over the capture.\n\n"
       + row(["op", "type", "status", "calls A", "calls B", "total A", "total B", "delta", "mean delta", "wait delta"]) + "\n"
       + row(["---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]) + "\n"
       + ($o[:30] | map(row([.key, .op_type, .status, .a_calls, .b_calls, (.a_total_ns | t), (.b_total_ns | t), (.delta_total_ns | st), (.delta_mean_ns | st), (.delta_wait_ns | st)]) + "\n") | add // "")
       + (if ($o | length) > 30 then "\n\($o | length - 30) more in the diff records.\n" else "" end))
  + "\n## Bubbles\n\n" + row(["scope", "count A", "count B", "idle A", "idle B", "delta"]) + "\n" + row(["---", "---:", "---:", "---:", "---:", "---:"]) + "\n"
  + ([$r[] | select(.kind == "bubble_scope")] | map(row([.key, .a_count, .b_count, (.a_idle_ns | t), (.b_idle_ns | t), (.delta_idle_ns | st)]) + "\n") | add // "")
  + ([$r[] | select(.kind == "bubble_cause" and .delta_ns != 0)] as $c
     | if ($c | length) > 0 then "\nIdle time under host work, by cause family (attribution): "
	+ ($c | sort_by(-(.delta_ns // 0 | abs)) | map("\(.key) \(.delta_ns | st)") | join(", ")) + ".\n" else "" end)
  + ([$r[] | select(.kind == "bubble_window")] | sort_by(-(.delta_ns // 0 | abs)) as $w
     | if ($w | length) > 0 then "\nWindows new, gone, grown or shrunk:\n\n"
	+ ($w[:20] | map("- \(.status) \(.key): \(.delta_ns | st)" + (if .b_rel_ns != null then ", at \(.b_rel_ns | t) into B's step" else "" end)
			 + (if .cause then ", host cause \(.cause)" else "" end) + "\n") | add) else "" end)
  + ([$r[] | select(.kind == "part_kind")] as $p
     | if ($p | length) > 0 then "\n## Model parts\n\n" + row(["kind", "count A", "count B", "A", "B", "delta"]) + "\n" + row(["---", "---:", "---:", "---:", "---:", "---:"]) + "\n"
	+ ($p | sort_by(-(.delta_ns // 0 | abs)) | map(row([.key, .a_count, .b_count, (.a_ns | t), (.b_ns | t), (.delta_ns | st)]) + "\n") | add)
	+ ([$r[] | select(.kind == "part" and .align != "kind")] | if length > 0 then "\nWhere the models differ: "
	   + (map(if .align == "position" then "\(.key): A \(.a_kind), B \(.b_kind)" elif .align == "only_a" then "\(.key) only in A" else "\(.key) only in B" end) | join("; ")) + ".\n" else "" end)
       else "" end)
  + ([$r[] | select(.kind == "comm_op")] as $c
     | if ($c | length) > 0 then "\n## Communication\n\n" + row(["op", "elapsed A", "elapsed B", "delta", "wait delta", "transfer delta", "GB/s A", "GB/s B"]) + "\n"
	+ row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]) + "\n"
	+ ($c | sort_by(-(.delta_elapsed_ns // 0 | abs)) | .[:20] | map(row([.key, (.a_elapsed_ns | t), (.b_elapsed_ns | t), (.delta_elapsed_ns | st), (.delta_wait_ns | st), (.delta_transfer_ns | st), (.a_gbps // "–"), (.b_gbps // "–")]) + "\n") | add)
       else "" end)
  # in the records' order: each group's, then each step's rows, one after the other
  + ([$r[] | select(.kind == "breakdown" and (.scope == "step" or .scope == "group"))]
     | (reduce .[] as $x ([]; if length > 0 and (last[0] | [.scope, .key]) == [$x.scope, $x.key]
			      then (length - 1) as $l | .[$l] += [$x] else . + [[$x]] end)) as $g
     | if ($g | length) > 2 then "\n## Per step group and per step\n\n"
	+ row(["group or step", "A", "B", "delta", "largest part change"]) + "\n" + row(["---", "---:", "---:", "---:", "---"]) + "\n"
	+ ($g | map((index_by(.part)) as $p
	    | ([.[] | select(.additive and .part != "unexplained")] | sort_by(-(.delta_ns // 0 | abs)) | .[0]) as $m
	    | row(["\(.[0].scope) \(.[0].key)", ($p.step.a_ns | t), ($p.step.b_ns | t), ($p.step.delta_ns | st),
		   (if ($m.delta_ns // 0) != 0 then "\($m.part) \($m.delta_ns | st)" else "–" end)]) + "\n") | add)
       else "" end)
  + ([$r[] | select(.kind == "finding" and .status != "same")] as $f
     | "\n## Findings\n\n" + (if ($f | length) == 0 then "The same findings, with the same time at stake.\n"
	else ($f | map("- \(.status): \(.finding) (\(.key))" + (if .status == "changed" then ", at stake \(.a_stake_ns | t) → \(.b_stake_ns | t)" else "" end) + "\n") | add) end));

# A waterfall: A's step, each part's change (unexplained included), B's
# step.  The bars start at a floor below the smallest running total, said
# on the chart, so that a change of a few % is seen.
def svg:
  .records as $r
  | [$r[] | select(.kind == "breakdown" and .scope == "mean")] as $bm
  | ([$bm[] | select(.part == "step")][0]) as $s
  | ([$bm[] | select(.additive)] | map(select(.delta_ns != 0))) as $d
  | def r1: . * 10 | round / 10;
  if $s.a_ns == null or $s.b_ns == null then
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"40\"><text x=\"10\" y=\"20\" font-size=\"12\">No step breakdown on one side (no kernel table): no waterfall.</text></svg>\n"
  else
    ([$s.a_ns] + [foreach $d[] as $x ($s.a_ns; . + $x.delta_ns)] + [$s.b_ns]) as $run
    | ($run | max) as $top | ($run | min) as $low
    | ([0, $low - ([($top - $low) * 2, $low / 10] | max)] | max | floor) as $lo
    | (if $top > $lo then 280 / ($top - $lo) else 0 end) as $k
    | 100 as $w | (($d | length) + 2) as $n
    | def y($v): 340 - ($v - $lo) * $k;
      def bar($i; $y0; $y1; $fill; $name; $val):
	"<rect x=\"\(40 + $i * $w)\" y=\"\(y([$y0, $y1] | max) | r1)\" width=\"\($w - 20)\" height=\"\((([$y1 - $y0, $y0 - $y1] | max) * $k + 0.5) | r1)\" fill=\"\($fill)\"/>"
	+ "<text x=\"\(40 + $i * $w)\" y=\"356\" font-size=\"10\">\($name)</text>"
	+ "<text x=\"\(40 + $i * $w)\" y=\"\(y([$y0, $y1] | max) - 6 | r1)\" font-size=\"10\">\($val)</text>\n";
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(80 + $n * $w)\" height=\"380\">\n"
    + "<text x=\"10\" y=\"16\" font-size=\"12\">Mean step, A → B: the change by part (waterfall)"
    + (if $lo > 0 then "; the bars start at \($lo | t)" else "" end) + "</text>\n"
    + bar(0; $lo; $s.a_ns; "#4a78b5"; "A step"; ($s.a_ns | t))
    + ([foreach range(0; $d | length) as $i ({y: $s.a_ns}; {i: $i, y0: .y, y: (.y + $d[$i].delta_ns)})
	| bar(.i + 1; .y0; .y; (if $d[.i].delta_ns > 0 then "#c0504d" else "#6aa84f" end); $d[.i].part; ($d[.i].delta_ns | st))] | add // "")
    + bar($n - 1; $lo; $s.b_ns; "#4a78b5"; "B step"; ($s.b_ns | t))
    + "</svg>\n"
  end;

if .mode == "pick" then pick
elif .mode == "report" then {file: "diff_report.md", text: md}, {file: "diff_waterfall.svg", text: svg}
else diff end
