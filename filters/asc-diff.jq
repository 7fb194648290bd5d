# asc-diff: compare two profiles' records (mode "diff": the diff records),
# choose the ranks of a cluster (mode "pick") and render the report
# (mode "report").  Built into asc-diff; every time is integer ns.

def abs: if . == null then null elif . < 0 then -. else . end;
def idiv($d): if . == null or $d == 0 then null else (. / $d | floor) end;
def dlt($a; $b): if $a == null or $b == null then null else $b - $a end;
def sum: reduce .[] as $x (0; . + ($x // 0));
def index_by(f): reduce .[] as $x ({}; . + {(($x | f) | tostring): $x});
# a time: from 1 ms in ms to the µs, else in µs to the ns
def t: if . == null then "–"
       elif (. | abs) >= 1000000 then "\((. / 1000 | round) / 1000) ms"
       else "\(. / 1000 | tostring) µs" end;
def st: if . == null then "–" elif . > 0 then "+" + t else t end;

# ---- model parts: the one place that says what a part is and how the
# parts of two runs pair.  From asc-parts' part records, keyed by their
# fields, never by their names (those change with the version of
# asc-parts): a part is its kind, layer type, direction and micro-batch,
# and its place among the parts of those in its step (layer k of
# micro-batch m); its group is its kind and layer type.  A part's
# figures are means per step over the run's steps with parts (pns).
def pid: [.kind, .layer_type, .direction, .micro_batch];
def pgroup: [.kind, .layer_type] | tojson;
def glabel: .layer_type as $lt
  | (.kind | gsub("_"; " ")) + (if $lt != null and $lt != "" and (.kind | contains($lt) | not) then " (" + $lt + ")" else "" end);
def pns($g): [$g.part // [] | .[].step_id] | unique | length;
def partkeyed:
  sort_by(.part) | reduce .[] as $p ({c: {}, out: []};
    ($p | pid | tojson) as $k | .c[$k] = ((.c[$k] // 0) + 1) | .c[$k] as $n
    | .out += [$p + {pk: ([($p | pid[]), $n] | tojson), n: $n}]) | .out;
def parts($g):
  pns($g) as $ns
  | [$g.part // [] | group_by(.step_id)[] | partkeyed | sort_by(.part)
     | . as $s | range(0; length) as $i | $s[$i] + {adjoins: ($i + 1 < ($s | length) and $s[$i].end_ns == $s[$i + 1].start_ns)}] as $ps
  | ([$g.op[]? | select(.view == "name")] | map({key, value: .op_type}) | from_entries) as $otype
  | ($g.part_op // [] | group_by(.step_id) | map({key: .[0].step_id, value: (group_by(.part) | map({key: (.[0].part | tostring), value: .}) | from_entries)}) | from_entries) as $ops
  | [$ps | group_by(.pk)[]
     | ([.[].name] | unique) as $names
     | {key: .[0].pk, kind: .[0].kind, layer_type: .[0].layer_type, direction: .[0].direction, micro_batch: .[0].micro_batch, n: .[0].n,
	group: (.[0] | pgroup), glabel: (.[0] | glabel), name: (if ($names | length) == 1 then $names[0] else null end),
	ord: ([.[].part] | min), steps: length,
	wall: ([.[].wall_ns] | sum | idiv($ns)), busy: ([.[].busy_union_ns] | sum | idiv($ns)),
	kernel: ([.[].kernel_sum_ns] | sum | idiv($ns)), cost: ([.[].total_cost_ns] | sum | idiv($ns)),
	# time only other parts' kernels keep the device busy in the wall, and
	# the device idle in it (null from an asc-parts that did not write them)
	others: (if any(.[]; .busy_others_ns == null) then null else [.[].busy_others_ns] | sum | idiv($ns) end),
	idle: (if any(.[]; .bubble_ns == null) then null else [.[].bubble_ns] | sum | idiv($ns) end),
	bubbles: (if any(.[]; .bubbles == null) then null else [.[].bubbles] | sum | idiv($ns) end),
	# its end is the next part's start in every step
	adjoins: all(.[]; .adjoins),
	kernels: ([.[].kernels] | sum),
	ops: ([.[] | $ops[.step_id][.part | tostring] // [] | .[]] | group_by(.op)
	      | map({key: .[0].op, value: {op_type: (.[0].op_type // $otype[.[0].op]), calls: ([.[].calls] | sum), dur: ([.[].dur_ns] | sum), wait: ([.[].wait_ns] | sum)}}) | from_entries)}]
  # the name, unless it changes from step to step or two parts share it
  | (map(.name) | group_by(.) | map(select(length > 1) | .[0]) ) as $dup
  | map(.name as $nm | .label = (if $nm != null and ($dup | any(.[]; . == $nm) | not) then $nm
		  else .glabel + " #\(.n)" + (if .micro_batch != null then " (micro-batch \(.micro_batch))" else "" end) end))
  | sort_by(.ord) | . as $l | [range(0; length) as $i | $l[$i] + {next: $l[$i + 1].key, next_label: $l[$i + 1].label}];
# Groups of parts: {group: {a: [parts], b: [parts], paired}}; the parts of
# a group pair one by one when both runs have the same parts of it (the
# same count per micro-batch), else the group is compared as a whole.
def pgroups($pa; $pb):
  ([$pa[].group] + [$pb[].group] | unique) as $gs
  | [$gs[] as $gk | [$pa[] | select(.group == $gk)] as $x | [$pb[] | select(.group == $gk)] as $y
     | {group: $gk, label: (($x + $y)[0].glabel), ord: (($x + $y)[0].ord), a: $x, b: $y,
	how: (if ($x | length) == 0 then "only_b" elif ($y | length) == 0 then "only_a"
	      elif ($x | map(.key) | sort) == ($y | map(.key) | sort) then "paired" else "count_differs" end)}]
  | sort_by(.ord);
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
     a_names: $x.raw_names, b_names: $y.raw_names, names_more: (($x.raw_names_more // false) or ($y.raw_names_more // false)),
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
# Where a window starts in the model: the part holding its start, else
# before the first, between two or after the last part of its step.
# A part is named by its label in the parts table ($lab: key to label).
def wherein($g; $lab; $sid; $t):
  [$g.part // [] | .[] | select((.step_id | tostring) == $sid)] as $ps0
  | ($ps0 | partkeyed | map(. + {name: ($lab[.pk] // .name)})) as $ps
  | if ($ps | length) == 0 or $t == null then null
    else ([$ps[] | select(.start_ns <= $t and $t < .end_ns)][0]) as $in
    | if $in then "in part " + ($in.name // $in.kind)
      elif $t < ($ps | map(.start_ns) | min) then "before the first part"
      elif $t >= ($ps | map(.end_ns) | max) then "after the last part"
      else ([$ps[] | select(.end_ns <= $t)] | max_by(.end_ns)) as $p | ([$ps[] | select(.start_ns > $t)] | min_by(.start_ns)) as $q
	| "between part " + ($p.name // $p.kind) + " and part " + ($q.name // $q.kind) end end;
def windows($g):
  (parts($g) | map({key, value: .label}) | from_entries) as $lab
  | (steps_of($g) | to_entries | map({key: (.value | stepid), value: {ord: (.key + 1), start: .value.start_ns}}) | from_entries) as $st
  | ($g.attribution // [] | index_by(.bubble_id)) as $at
  | [$g.bubble[]? | . as $w | $st[$w | stepid] as $s
     | {ord: ($s.ord // 0), step: ($w | stepid), scope: ($w.scope | bscope), dur_ns, rel_ns: ($w.start_ns - ($s.start // 0)),
        where: wherein($g; $lab; $w | stepid; $w.start_ns),
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
       a_where: $x.where, b_where: $y.where,
       delta_per_step_ns: ((($y.dur_ns // 0) - ($x.dur_ns // 0)) | idiv([$na, $nb] | max)),
       cause: $w.cause, label: $w.label, bubble_id: $w.bubble_id});

# ---- communication: ops by name (the group's number left out) and
# occurrence, groups by id
def commkey: .op | kname;
# A capture's communication ops: by HCCL tasks (comm_op), else (Level0)
# by the device's Notify Wait and SDMA tasks (comm_op_wait: wait is the
# Notify Wait time, transfer the SDMA time, no bytes).
def commsrc($g): if ($g.comm_op // [] | length) > 0 then "hccl_tasks"
		 elif ($g.comm_op_wait // [] | length) > 0 then "notify_wait_tasks" else null end;
def commops($g): if commsrc($g) == "hccl_tasks" then $g.comm_op
		 else [$g.comm_op_wait // [] | .[] | . + {transfer_ns: .moving_ns, transfer_bytes: null}] end;
def commrows($A; $B; $na; $nb):
  def agg: {n: length, names: ([.[].op] | unique), groups: ([.[].group | select(. != null)] | unique), elapsed: ([.[].elapsed_ns] | sum), wait: ([.[].wait_ns] | sum),
	    transfer: ([.[].transfer_ns] | sum), bytes: (if any(.[]; .transfer_bytes == null) then null else [.[].transfer_bytes] | sum end)}
	   | . + {gbps: (if .bytes != null and .transfer > 0 then (.bytes / .transfer * 1000 | round) / 1000 else null end)};
  def byop($g): commops($g) | group_by(commkey) | map({key: (.[0] | commkey), value: agg}) | from_entries;
  # do a group's ops in a step carry the number after the group's in the
  # order they start (hcom_allReduce__586_0_1, __586_1_1, ...)?
  def numbered($g): [commops($g)[] | select(.group != null)] | group_by([.group, .step])
    | all(.[]; sort_by(.start_ns) | map(.op | capture("__[0-9]+_(?<n>[0-9]+)") | .n | tonumber) | . == (sort | unique));
  # over the sides whose records name the groups
  ([$A, $B | select(any(commops(.)[]; .group != null)) | numbered(.)] | length > 0 and all) as $ord
  |
  (byop($A) as $ma | byop($B) as $mb
   | (($ma | keys) + ($mb | keys) | unique)[] as $k | $ma[$k] as $x | $mb[$k] as $y
   | {kind: "comm_op", key: $k, status: (if $x == null then "added" elif $y == null then "removed" else "both" end),
      a_src: commsrc($A), b_src: commsrc($B), a_names: $x.names, b_names: $y.names,
      a_groups: $x.groups, b_groups: $y.groups, numbered_in_order: $ord,
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

# The wait inside all communication ops per step, each side, and the late
# peer its exposed communication waits for (asc-judge's finding).
def lpeer($g): [$g.anomaly_discovery[0].recommendations[]? | select(.finding == "COMM_EXPOSED_HEAVY")][0]
  | if . == null then null
    else {rank: (if .late_peer_wait_ms != null then .stake_on else null end),
	  wait_ns: ((.late_peer_wait_ms // .measured_wait_ms) | if . == null then null else . * 1000000 | round end),
	  measured_by: (if .late_peer_wait_ms != null then "late_peer" elif .measured_wait_ms != null then "notify_wait" else null end)} end;
def commwait($A; $B; $na; $nb):
  def tot($g; f): [commops($g)[] | f] | sum;
  select(commsrc($A) != null and commsrc($B) != null)
  | {kind: "comm_wait", key: "communication ops", a_src: commsrc($A), b_src: commsrc($B),
     a_elapsed_ns: (tot($A; .elapsed_ns) | idiv($na)), b_elapsed_ns: (tot($B; .elapsed_ns) | idiv($nb)),
     a_wait_ns: (tot($A; .wait_ns) | idiv($na)), b_wait_ns: (tot($B; .wait_ns) | idiv($nb)),
     a_late_peer: lpeer($A).rank, b_late_peer: lpeer($B).rank,
     a_late_wait_ns: lpeer($A).wait_ns, b_late_wait_ns: lpeer($B).wait_ns}
  | . + {delta_elapsed_ns: (.b_elapsed_ns - .a_elapsed_ns), delta_wait_ns: (.b_wait_ns - .a_wait_ns)};

# ---- verdicts: the recommendations by finding, scope and target
def stake: if .time_at_stake_ms == null then null else .time_at_stake_ms * 1000000 | round end;
# What a finding's time at stake is: an upper bound (asc-judge says so),
# else measured; the communication finding's two rules named.
def stakekind: if . == null or .time_at_stake_ms == null then null
  elif .finding == "COMM_EXPOSED_HEAVY" and .late_peer_wait_ms != null then "measured: what the late peer's arriving on time wins back, its wait less the next-latest peers'"
  elif .finding == "COMM_EXPOSED_HEAVY" and .measured_wait_ms != null and .stake_upper_bound == true then "upper bound: all the Notify Wait time not under compute, no peer named"
  elif .stake_upper_bound == true then "upper bound" elif .stake_upper_bound == false then "measured" else null end;
def findrows($A; $B):
  def fmap($g): [$g.anomaly_discovery[0].recommendations[]?] | index_by([.finding, .scope, .target_id // empty] | map(tostring) | join(" "));
  fmap($A) as $ma | fmap($B) as $mb
  | (($ma | keys) + ($mb | keys) | unique)[] as $k | $ma[$k] as $x | $mb[$k] as $y
  | {kind: "finding", key: $k, finding: ($y.finding // $x.finding),
     status: (if $x == null then "appeared" elif $y == null then "disappeared"
	      elif ($x | stake) != ($y | stake) then "changed" else "same" end),
     a_id: $x.id, b_id: $y.id, a_stake_ns: ($x | stake), b_stake_ns: ($y | stake),
     a_stake_kind: ($x | stakekind), b_stake_kind: ($y | stakekind),
     delta_stake_ns: dlt($x | stake; $y | stake), headline: ($y.headline // $x.headline)};

# ---- parts rows: each part (paired, or in one run only), each group of
# parts summed, the ops in each part, and what the parts' walls add up to
def clocks($x; $y):
  {a_wall_ns: $x.wall, b_wall_ns: $y.wall, delta_wall_ns: dlt($x.wall // 0; $y.wall // 0),
   a_busy_ns: $x.busy, b_busy_ns: $y.busy, delta_busy_ns: dlt($x.busy // 0; $y.busy // 0),
   a_kernel_ns: $x.kernel, b_kernel_ns: $y.kernel, delta_kernel_ns: dlt($x.kernel // 0; $y.kernel // 0),
   a_cost_ns: $x.cost, b_cost_ns: $y.cost, delta_cost_ns: dlt($x.cost // 0; $y.cost // 0),
   a_others_ns: $x.others, b_others_ns: $y.others, delta_others_ns: dlt($x.others; $y.others),
   a_idle_ns: $x.idle, b_idle_ns: $y.idle, delta_idle_ns: dlt($x.idle; $y.idle),
   a_bubbles: $x.bubbles, b_bubbles: $y.bubbles,
   # the part's own time in its wall: its busy union and the idle in it
   a_own_ns: (if $x.idle == null then null else $x.busy + $x.idle end),
   b_own_ns: (if $y.idle == null then null else $y.busy + $y.idle end)}
  | . + {delta_own_ns: dlt(.a_own_ns; .b_own_ns)};
# A wall change that is mostly time only other parts' kernels fill (the
# same sign, over half of it) is not the part's: it ranks by its own.
def covered: .delta_others_ns != null and .delta_own_ns != null and .delta_wall_ns != 0
  and .delta_others_ns * .delta_wall_ns > 0 and 2 * (.delta_others_ns | abs) > (.delta_wall_ns | abs);
# A part across a shared boundary from a covered part whose wall changes
# the other way: its wall change is the time that moved across that
# boundary (the covered part's others), not its own: it ranks by its
# kernel sum, which no boundary moves.
def boundaryrank:
  ([.[] | select(.kind == "part")] | index_by(.key)) as $by
  | map(if .kind != "part" or .align != "paired" or .covered then .
	else . as $p
	| ([if $p.next_part != null then $by[$p.next_part] else null end] + [$by[] | select(.next_part == $p.key)]
	   | map(select(. != null and .covered and .delta_wall_ns * $p.delta_wall_ns < 0)) | .[0].key) as $q
	| if $q == null then . else . + {boundary_with: $q, delta_per_step_ns: .delta_kernel_ns} end end
      | if .kind == "part" and .align == "paired" then .ranked_by = (if .covered then "own" elif .boundary_with then "kernel_sum" else "wall" end) else . end);
def gsum: {wall: ([.[].wall] | sum), busy: ([.[].busy] | sum), kernel: ([.[].kernel] | sum), cost: ([.[].cost] | sum),
	   others: (if any(.[]; .others == null) then null else [.[].others] | sum end),
	   idle: (if any(.[]; .idle == null) then null else [.[].idle] | sum end),
	   bubbles: (if any(.[]; .bubbles == null) then null else [.[].bubbles] | sum end),
	   ops: ([.[].ops | to_entries[]] | group_by(.key)
		 | map({key: .[0].key, value: {op_type: .[0].value.op_type, calls: ([.[].value.calls] | sum), dur: ([.[].value.dur] | sum), wait: ([.[].value.wait] | sum)}}) | from_entries)};
def oprows_in($where; $x; $y; $na; $nb; $rk):
  (($x.ops // {} | keys) + ($y.ops // {} | keys) | unique)[] as $k | $x.ops[$k] as $u | $y.ops[$k] as $v
  | ($u.dur // 0 | idiv($na)) as $da | ($v.dur // 0 | idiv($nb)) as $db
  | ((($u.dur // 0) + ($u.wait // 0)) | idiv($na)) as $ca | ((($v.dur // 0) + ($v.wait // 0)) | idiv($nb)) as $cb
  | ($u.calls // 0 | idiv($na)) as $ka | ($v.calls // 0 | idiv($nb)) as $kb
  | {kind: "part_op", key: ($where + " / " + $k), part: $where, op: $k, op_type: ($v.op_type // $u.op_type),
     status: (if $u == null and $x != null then "added" elif $v == null and $y != null then "removed"
	      elif $u == null then "only_b" elif $v == null then "only_a"
	      elif $da == $db and $ca == $cb and $ka == $kb then "same" else "changed" end),
     ranked: $rk,
     # a side without the op (or without the part) is null, counted 0 in the change
     a_calls: $u.calls, b_calls: $v.calls, a_steps: $na, b_steps: $nb,
     a_kernel_ns: (if $u then $da else null end), b_kernel_ns: (if $v then $db else null end), delta_kernel_ns: ($db - $da),
     a_cost_ns: (if $u then $ca else null end), b_cost_ns: (if $v then $cb else null end), delta_cost_ns: ($cb - $ca),
     delta_per_step_ns: ($db - $da)}
  | select(.status != "same");
def partrows($A; $B):
  parts($A) as $pa | parts($B) as $pb | pns($A) as $na | pns($B) as $nb
  | pgroups($pa; $pb) as $gs
  | ($gs[] as $g
     | ( (if $g.how == "paired" then ($g.a[] as $x | ($g.b[] | select(.key == $x.key)) as $y | {x: $x, y: $y})
	  else ($g.a[] | {x: ., y: null}), ($g.b[] | {x: null, y: .}) end)
	 | .x as $x | .y as $y
	 | {kind: "part", key: ($x.label // $y.label), group: $g.label,
	    align: (if $g.how == "paired" then "paired" elif $g.how == "count_differs" then (if $x then "unpaired_a" else "unpaired_b" end) else $g.how end),
	    part_kind: ($x.kind // $y.kind), layer_type: ($x.layer_type // $y.layer_type), direction: ($x.direction // $y.direction),
	    micro_batch: ($x.micro_batch // $y.micro_batch),
	    a_steps: $x.steps, b_steps: $y.steps}
	   + clocks($x; $y) + {a_ns: $x.wall, b_ns: $y.wall, delta_ns: (($y.wall // 0) - ($x.wall // 0)),
			       next_part: (if $g.how == "paired" and $x.adjoins and $y.adjoins and $x.next != null and $x.next == $y.next then $x.next_label else null end)}
	   | .covered = ($g.how == "paired" and covered)
	   | if $g.how == "count_differs" then . else .delta_per_step_ns = (if .covered then .delta_own_ns else .delta_wall_ns end) end,
	 (if $g.how == "paired" then oprows_in($x.label; $x; $y; $na; $nb; true) else empty end) ),
       ( ($g.a | gsum) as $x | ($g.b | gsum) as $y
	 | {kind: "part_kind", key: $g.label, align: $g.how, a_count: ($g.a | length), b_count: ($g.b | length)}
	   + clocks(if ($g.a | length) > 0 then $x else null end; if ($g.b | length) > 0 then $y else null end)
	   + {a_ns: $x.wall, b_ns: $y.wall, delta_ns: ($y.wall - $x.wall)}
	   + (if $g.how == "count_differs" then {delta_per_step_ns: ($y.wall - $x.wall)} else {} end),
	 (if $g.how != "paired" then oprows_in($g.label; (if ($g.a | length) > 0 then $x else null end);
					       (if ($g.b | length) > 0 then $y else null end); $na; $nb; $g.how == "count_differs") else empty end) )),
    ( # the service less the parts' walls: between, before the first and after the last part
      def between($g): [$g.step_parts // [] | .[] | .between_parts_ns + (.before_parts_ns // 0) + (.after_parts_ns // 0)]
		       | sum | idiv($g.step_parts // [] | length);
      def service($g): [$g.step_parts // [] | .[].service_ns] | sum | idiv($g.step_parts // [] | length);
      # null where an older asc-parts did not write the piece apart
      def outside($g; f): if any($g.step_parts // [] | .[]; f == null) then null
			  else [$g.step_parts // [] | .[] | f] | sum | idiv($g.step_parts // [] | length) end;
      (([$pb[].wall] | sum) - ([$pa[].wall] | sum)) as $dw | dlt(between($A); between($B)) as $db | dlt(service($A); service($B)) as $ds
      | {kind: "part_total", key: "all parts", a_steps: $na, b_steps: $nb,
	 a_service_ns: service($A), b_service_ns: service($B), delta_service_ns: $ds,
	 a_wall_ns: ([$pa[].wall] | sum), b_wall_ns: ([$pb[].wall] | sum), delta_wall_ns: $dw,
	 a_between_ns: between($A), b_between_ns: between($B), delta_between_ns: $db,
	 # its three pieces: before the first part (the step's preparing), in
	 # the gaps between parts, after the last (its tail)
	 delta_before_ns: dlt(outside($A; .before_parts_ns); outside($B; .before_parts_ns)),
	 delta_gaps_ns: dlt(outside($A; .between_parts_ns); outside($B; .between_parts_ns)),
	 delta_after_ns: dlt(outside($A; .after_parts_ns); outside($B; .after_parts_ns)),
	 rounding_ns: (if $ds == null or $db == null then null else $ds - $dw - $db end),
	 a_unplaced: (([$A.part // [] | .[].kernels] | sum) - ([$A.part_op // [] | .[].calls] | sum)),
	 b_unplaced: (([$B.part // [] | .[].kernels] | sum) - ([$B.part_op // [] | .[].calls] | sum))} );

# Are A and B one run?  A run passes a step once, and the ranks of one
# run start a step less than a step apart (its collectives bind them):
# the same step id starting further apart than the longer of the two
# steps is two runs.  Exact: the clocks' origins are decimal strings.
def runs($A; $B):
  def oint: tostring | split(".") | [(.[0] | tonumber), (((.[1] // "") + "000")[:3] | tonumber)];
  ($A.profile[0].origin_us) as $oa | ($B.profile[0].origin_us) as $ob
  | ([$A.step_metrics // [] | .[] | stepid] - ([$A.step_metrics // [] | .[] | stepid] - [$B.step_metrics // [] | .[] | stepid]))[0] as $sid
  | if $oa == null or $ob == null or $sid == null then {kind: "runs", key: "runs", verdict: null, step: $sid}
    else ($A.step_metrics[] | select(stepid == $sid)) as $x | ($B.step_metrics[] | select(stepid == $sid)) as $y
    | ($oa | oint) as $a | ($ob | oint) as $b
    | ((($b[0] - $a[0]) * 1000 + $b[1] - $a[1]) + $y.start_ns - $x.start_ns) as $d
    | ([$x.service_ns, $y.service_ns] | max) as $lim
    | {kind: "runs", key: "runs", step: $sid, start_delta_ns: $d, longer_step_ns: $lim,
       verdict: (if ($d | abs) > $lim then "different" else "same_or_unknown" end)} end;

# ---- what cannot be compared
def chas($g; $what):
  if $what == "op types" then [$g.op[]? | select(.view == "op_type")]
  elif $what | startswith("torch_npu") then $g.step_trace // []
  elif $what | startswith("communication ops") then commops($g)
  elif $what == "communication groups" then $g.comm_group // []
  elif $what == "host cause attribution" then [$g.attribution[]? | select(.host_evidence)]
  elif $what | startswith("model parts") then $g.part // []
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
  # a wait for a late peer moves the comm ops' time: say it, with the peer
  (lpeer($A) as $x | lpeer($B) as $y | (runs($A; $B) | .verdict) as $rv
   | select($x.rank != null or $y.rank != null)
   | {kind: "caveat", key: "late_peer", a_value: $x.rank, b_value: $y.rank,
      text: ("the exposed communication waits for a late peer: "
	+ ([["A", $x], ["B", $y] | select(.[1] != null and .[1].wait_ns != null)
	    | "\(.[0]) " + (if .[1].rank != null then "for \(.[1].rank), \(.[1].wait_ns | t) per step"
			    else "waits \(.[1].wait_ns | t) per step not under compute by its Notify Wait tasks, for a peer its level does not name" end)] | join("; "))
	+ (if $x.rank != null and $y.rank != null and $x.rank != $y.rank then " (a different late rank"
	     + (if $rv == "different" then ", in different runs)" else ")" end) else "" end)
	# a Level0 side's figure bounds the wait, the other measures it
	+ ([$x, $y | select(. != null and .wait_ns != null) | .measured_by] | unique | if length == 2 then
	     " (figures of different kinds: \(if $x.measured_by == "notify_wait" then "A" else "B" end)'s, all the Notify Wait time not under compute, is an upper bound on the wait for a late peer; \(if $x.measured_by == "notify_wait" then "B" else "A" end)'s is the wait for that rank alone, not under compute, by HCCL tasks)"
	   else "" end)
	+ ": the change of the communication ops' wait is the change of that wait, another rank's lateness, not of the ops' own work")}),
  (select(commsrc($A) != null and commsrc($B) != null and commsrc($A) != commsrc($B))
   | {kind: "caveat", key: "comm_source", a_value: commsrc($A), b_value: commsrc($B),
      text: ("the communication ops are measured differently: "
	+ ([(["A", commsrc($A)], ["B", commsrc($B)]) | "\(.[0]) by " + (if .[1] == "hccl_tasks" then "HCCL tasks (wait: Notify_Wait tasks while no data moves, transfer: the tasks moving data; the peer waited for named)"
								       else "the device's Notify Wait and SDMA tasks (wait: Notify Wait while no SDMA task moves data, transfer: SDMA; no peer named, no bytes)" end)] | join("; "))
	+ "; elapsed, wait and transfer are compared, bandwidth and the peer only where both have them")}),
  (if ($A.profile[0].framework) != ($B.profile[0].framework) then
     {kind: "caveat", key: "framework", a_value: $A.profile[0].framework, b_value: $B.profile[0].framework,
      text: "the captures come from different frameworks"}
   else empty end),
  (pgroups(parts($A); parts($B)) | map(select(.how != "paired")) as $d
   | if ($A.part // [] | length) > 0 and ($B.part // [] | length) > 0 and ($d | length) > 0 then
       {kind: "caveat", key: "model", a_value: ([parts($A)[]] | length), b_value: ([parts($B)[]] | length),
	text: ("the models differ: " + ($d | map(.label + ": " + (if .how == "only_a" then "only in A (\(.a | length) per step)"
							       elif .how == "only_b" then "only in B (\(.b | length) per step)"
							       else "A \(.a | length), B \(.b | length) per step" end)) | join("; "))
	      + "; " + (if ($d | map(select(.how == "count_differs")) | length) > 0
			then "where the counts differ the parts are compared as a whole, not one by one" else "not compared" end))}
     else empty end),
  (["A", "B"][] as $s | (if $s == "A" then $A else $B end) as $g
   | (([$g.part // [] | .[].kernels] | sum) - ([$g.part_op // [] | .[].calls] | sum)) as $u
   | select($u != 0)
   | {kind: "caveat", key: "part ops \($s)", a_value: null, b_value: $u,
      text: "\($u) of \($s)'s kernels in model parts could not be placed in their part by start time: the parts' ops are short of them"}),
  (["kernel table (step breakdown, ops, idle windows)", "op types", "torch_npu step breakdown (step_trace_time.csv)", "communication ops (HCCL tasks)", "communication groups",
     "host cause attribution", "model parts (asc-parts)", "findings (anomaly_discovery)"][] as $what
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
       (if both("model parts (asc-parts)") then partrows($A; $B) else empty end),
       (if both("kernel table (step breakdown, ops, idle windows)") then oprows($A; $B; "name"; "op"; $na; $nb) else empty end),
       (if both("op types") then oprows($A; $B; "op_type"; "op_type"; $na; $nb) else empty end),
       (if both("kernel table (step breakdown, ops, idle windows)") then
	  bubblerows($A; $B; $na; $nb) | select(.kind != "bubble_cause" or both("host cause attribution")) else empty end),
       (commrows($A; $B; $na; $nb) | select(if .kind == "comm_op" then both("communication ops (HCCL tasks)") else both("communication groups") end)),
       (if both("findings (anomaly_discovery)") then findrows($A; $B) else empty end)),
      commwait($A; $B; $na; $nb),
      runs($A; $B),
      caveats($A; $B) ] as $rows
  | ($rows | boundaryrank) as $rows
  # ranked: the rows of one thing each (not the sums by type or scope)
  | ([$rows[] | select((.kind == "op" or .kind == "part" or .kind == "part_kind" or (.kind == "part_op" and .ranked)
			 or (.kind == "bubble_window" and .scope != "global") or .kind == "comm_op")
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
    ($rows[] | del(.ranked) | $h + . + (if $rank[.kind + " " + .key] then {rank: $rank[.kind + " " + .key]} else {} end));

# ---- --cluster: [median rank's file, slowest rank's file]
def pick:
  [.ranks[] | select((.step_metrics // []) | length > 0) | {file, step: mean_step(.)}]
  | sort_by(.step)
  | if length < 2 then length else [.[(length - 1) / 2 | floor].file, .[-1].file] end;

# ---- the report.  Names (profiles, paths, ops, parts) are data: in the
# Markdown each is a code span whose fence is longer than any run of
# backticks in it, control characters shown, as asc-report writes them;
# in a table '|' is escaped, in code spans too (as GFM reads tables):
# md, code and cell of fmt.jq.
def idlec($ns; $n): if $ns == null then null else ($ns | t) + (if $n != null then " in \($n)" else "" end) end;
# Two adjacent parts (the first's wall ends where the next one's starts,
# in both runs) whose walls change in opposite directions: time moved
# across their boundary counts in one wall or the other, so their sum is
# the change.
def offsets($r):
  ([$r[] | select(.kind == "part")] | index_by(.key)) as $by
  | [$r[] | select(.kind == "part" and .next_part != null) | . as $x | $by[$x.next_part] as $y
     | select($y != null and $x.delta_wall_ns * $y.delta_wall_ns < 0)
     | {a: $x, b: $y, sum: ($x.delta_wall_ns + $y.delta_wall_ns)}];
def coveredtxt: "wall \(.delta_wall_ns | st), \(.delta_others_ns | st) of it time in which only other parts' kernels run, its own busy + idle \(.delta_own_ns | st)";
def offsettxt: "the walls of \(.a.key | code) (\(.a.delta_wall_ns | st)) and \(.b.key | code) (\(.b.delta_wall_ns | st)) share a boundary and change in opposite directions: together \(.sum | st)";
# The model parts: each part with its four clocks, A, B and the change,
# and the op in it that changed most; what the parts' walls add up to.
def partsmd($r):
  def row(c): "| " + (c | map(if . == null then "–" else cell end) | join(" | ")) + " |";
  [$r[] | select(.kind == "part")] as $p
  | ($r | map(select(.kind == "part_op")) | group_by(.part) | map({key: .[0].part, value: (sort_by([-(.delta_kernel_ns | abs), .op]) | .[0])}) | from_entries) as $top
  | ([$r[] | select(.kind == "part_total")][0]) as $tot
  | if ($p | length) == 0 then "" else
    "\n## Model parts\n\nThe parts of the model as asc-parts cuts the steps, in time order, per step (mean over A's \($tot.a_steps) and B's \($tot.b_steps) step(s) with parts): wall; in the wall, the busy union of the part's own kernels, the time only other parts' kernels keep the device busy (others) and the device idle (idle, with its count of gaps), which add up to the wall; kernel sum and total cost (kernel sum + wait); and the op whose kernel sum in the part changed most.\n\n"
    + row(["part", "wall A", "wall B", "wall delta", "busy A", "busy B", "busy delta", "others A", "others B", "others delta", "idle A", "idle B", "idle delta", "kernel A", "kernel B", "kernel delta", "cost A", "cost B", "cost delta", "op that changed most"]) + "\n"
    + row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---"]) + "\n"
    + ($p | map(row([(.key | code) + (if .align == "only_a" or .align == "unpaired_a" then " (A only)" elif .align == "only_b" or .align == "unpaired_b" then " (B only)" else "" end),
		     (.a_wall_ns | t), (.b_wall_ns | t), (if .align == "paired" then .delta_wall_ns | st else null end),
		     (.a_busy_ns | t), (.b_busy_ns | t), (if .align == "paired" then .delta_busy_ns | st else null end),
		     (.a_others_ns | t), (.b_others_ns | t), (if .align == "paired" then .delta_others_ns | st else null end),
		     idlec(.a_idle_ns; .a_bubbles), idlec(.b_idle_ns; .b_bubbles), (if .align == "paired" then .delta_idle_ns | st else null end),
		     (.a_kernel_ns | t), (.b_kernel_ns | t), (if .align == "paired" then .delta_kernel_ns | st else null end),
		     (.a_cost_ns | t), (.b_cost_ns | t), (if .align == "paired" then .delta_cost_ns | st else null end),
		     ($top[.key] | if . == null or .delta_kernel_ns == 0 then null else "\(.op | code) \(.delta_kernel_ns | st)" end)]) + "\n") | add)
    + ([$p[] | select(.covered)] as $c
       | if ($c | length) == 0 then "" else "\nA wall change that is mostly time in which only other parts' kernels run is not the part's own, and the part is ranked by its own busy + idle: "
	 + ($c | map("\(.key | code), \(coveredtxt)") | join("; ")) + ".\n" end)
    + ([$p[] | select(.boundary_with != null)] as $c
       | if ($c | length) == 0 then "" else "\nA part whose wall shares a boundary with such a part's and changes the other way holds in its wall change the time that moved across that boundary, and it is ranked by its kernel sum: "
	 + ($c | map("\(.key | code) (boundary with \(.boundary_with | code)), wall \(.delta_wall_ns | st), kernel sum \(.delta_kernel_ns | st)") | join("; ")) + ".\n" end)
    + (offsets($r) as $o | if ($o | length) == 0 then "" else "\n" + ($o | map(offsettxt | "T" + .[1:]) | join("; ")) + ".\n" end)
    + ([$r[] | select(.kind == "part_kind" and .align != "paired")] as $g
       | if ($g | length) == 0 then "" else "\nNot paired one by one: "
	 + ($g | map("\(.key | code): " + (if .align == "only_a" then "only in A (\(.a_count) per step, wall \(.a_wall_ns | t))"
					    elif .align == "only_b" then "only in B (\(.b_count) per step, wall \(.b_wall_ns | t))"
					    else "A has \(.a_count) per step, B \(.b_count): compared as a whole, wall \(.a_wall_ns | t) → \(.b_wall_ns | t) (\(.delta_wall_ns | st)), kernel sum \(.delta_kernel_ns | st)"
						 + ($top[.key] | if . == null or .delta_kernel_ns == 0 then "" else ", most in op \(.op | code) (\(.delta_kernel_ns | st))" end) end))
	    | join("; ")) + ".\n" end)
    + (if $tot.delta_service_ns == null then "" else
       "\nThe parts' walls change by \($tot.delta_wall_ns | st) per step and the time outside them by \($tot.delta_between_ns | st)"
       + (if $tot.delta_before_ns != null then " (before the first part \($tot.delta_before_ns | st), between parts \($tot.delta_gaps_ns | st), after the last \($tot.delta_after_ns | st))" else "" end)
       + (if $tot.rounding_ns != 0 then ", and the integer means round by \($tot.rounding_ns | st)" else "" end)
       + ": \($tot.delta_service_ns | st), the change of the mean step over the steps with parts (A \($tot.a_service_ns | t), B \($tot.b_service_ns | t)).\n" end)
    end;

# The part (or the group compared as a whole) whose wall, else kernel
# sum, changed most, and the op in it whose kernel sum changed most.
def leadpart($r):
  [$r[] | select((.kind == "part" and (.align | startswith("unpaired") | not)) or (.kind == "part_kind" and .align == "count_differs"))]
  | sort_by([-(.delta_per_step_ns // .delta_wall_ns // 0 | abs), -(.delta_kernel_ns // 0 | abs)]) | .[0];
def leadop($r; $p): [$r[] | select(.kind == "part_op" and .part == $p.key)] | sort_by([-(.delta_kernel_ns | abs), .op]) | .[0];
def partlead($r):
  leadpart($r) as $p | leadop($r; $p) as $o
     # walls that changed more than the lead part, by other parts' kernels:
     # named, so that the owner does not look for a change in them
     | ([$r[] | select(.kind == "part" and .covered and .key != $p.key and (.delta_wall_ns | abs) > ($p.delta_per_step_ns // 0 | abs))
	| select(. as $c | offsets($r) | any(.[]; (.a.key == $c.key and .b.key == $p.key) or (.b.key == $c.key and .a.key == $p.key)) | not)]
	| sort_by(-(.delta_wall_ns | abs)) | .[:2]
	| map("The wall of \(.key | code) changed \(.delta_wall_ns | st) per step, \(.delta_others_ns | st) of it time in which only other parts' kernels run: its own busy + idle changed \(.delta_own_ns | st).\n") | add // "") as $cov
     | if $p == null or (($p.delta_per_step_ns // $p.delta_wall_ns // 0) == 0 and ($p.delta_kernel_ns // 0) == 0) then
	 (if $cov == "" then "" else "By model part, no part's own time (busy + idle) changed. " + $cov end)
       else "By model part, " + (if $p.kind == "part_kind" then "the \($p.key | code) parts (A \($p.a_count), B \($p.b_count) per step)" else "\($p.key | code)" end)
	    + (if $p.align == "only_a" then " (only in A)" elif $p.align == "only_b" then " (only in B)" else "" end)
	    + " changed most: " + (if $p.covered then "its own busy + idle \($p.delta_own_ns | st) (wall \($p.delta_wall_ns | st), mostly time in which only other parts' kernels run), "
				   elif $p.boundary_with then "" else "wall \($p.delta_wall_ns | st), " end)
	    + "kernel sum \($p.delta_kernel_ns | st) per step"
	    + (if $o != null and $o.delta_kernel_ns != 0 then ", most in op \($o.op | code) (kernel sum \($o.delta_kernel_ns | st))" else "" end)
	    + (if $p.boundary_with then "; it is ranked by its kernel sum, for its wall's change, \($p.delta_wall_ns | st), holds the time that moved across its boundary with \($p.boundary_with | code)" else "" end) + ".\n"
	    # a wall change that is partly its neighbour's, and a neighbour whose wall change is not its own
	    + ([offsets($r)[] | select(.a.key == $p.key or .b.key == $p.key)]
	       | map("Its wall and " + (if .a.key == $p.key then .b else .a end | "\(.key | code)'s share a boundary, and \(.key | code)'s changed "
			+ (if .covered then "\(.delta_wall_ns | st), \(.delta_others_ns | st) of it time in which only other parts' kernels run (its own busy + idle \(.delta_own_ns | st))" else "\(.delta_wall_ns | st)" end))
		     + ": the two walls together change \(.sum | st) per step.\n") | add // "") + $cov end;

# Whether the two captures are one run, as the step starts tell.
def runsmd($r):
  ([$r[] | select(.kind == "runs")][0]) as $u
  | def secs: if (. | abs) >= 1000000000 then "\(. / 1000000000) s" else t end;
  if $u == null or $u.start_delta_ns == null then ""
  elif $u.verdict == "different" then "A and B are different runs: both hold step \($u.step | code), and B's starts \($u.start_delta_ns | abs | secs) "
    + (if $u.start_delta_ns > 0 then "after" else "before" end) + " A's by their clocks, more than a step (\($u.longer_step_ns | t)) apart: a run passes a step once, and its collectives keep its ranks less than a step apart.\n"
  else "Both hold step \($u.step | code), B's starting \($u.start_delta_ns | abs | t) " + (if $u.start_delta_ns >= 0 then "after" else "before" end)
    + " A's by their clocks, less than a step (\($u.longer_step_ns | t)) apart, which fits one run.\n" end;
def iscomm: .kind == "comm_op" or .task_type == "COMMUNICATION" or ((.op // .key // "") | test("^hcom_|^hccl_"));
def srcname: if . == "hccl_tasks" then "HCCL tasks" elif . == "notify_wait_tasks" then "the device's Notify Wait tasks" else "unknown" end;
# A communication change is mostly a wait for a peer: say how much of it
# is waiting and whom each side waits for, so no op is taken for the cause.
def commlead($r; $row):
  ([$r[] | select(.kind == "comm_wait")][0]) as $w
  | ([$r[] | select(.kind == "runs")][0].verdict == "different") as $diffrun
  | if $row == null or ($row | iscomm | not) or $w == null then "" else
    (if $row.kind == "comm_op" and $row.status == "both" then {e: $row.delta_elapsed_ns, d: $row.delta_wait_ns, a: $row.a_wait_ns, b: $row.b_wait_ns, what: "this op's", its: "its"}
     else {e: $w.delta_elapsed_ns, d: $w.delta_wait_ns, a: $w.a_wait_ns, b: $w.b_wait_ns, what: "all communication ops'", its: "their"} end) as $c
    | "Of the change of \($c.what) elapsed time (\($c.e | st) per step) \($c.its) wait for peers is \($c.d | st) (A \($c.a | t) by \($w.a_src | srcname), B \($c.b | t) by \($w.b_src | srcname))"
      + (if ($c.e | abs) > 0 and (($c.e - $c.d) | abs) * 10 <= ($c.e | abs) then ", so the change is waiting, not the ops' own work"
	 else ", the other \(($c.e - $c.d) | st) their own work (moving data and the rest)" end)
      + (if $w.a_late_peer != null and $w.b_late_peer != null then
	   (if $w.a_late_peer == $w.b_late_peer then "; both wait for \($w.a_late_peer), A \($w.a_late_wait_ns | t) and B \($w.b_late_wait_ns | t) per step: the change is how long each waits for that rank"
	    else "; A waits for \($w.a_late_peer), \($w.a_late_wait_ns | t) per step, B for \($w.b_late_peer), \($w.b_late_wait_ns | t)"
		 + (if $diffrun then ", different late ranks in different runs" else ", a different late rank" end)
		 + ": the late peer's wait lands in different ops in the two captures, which is no change of the ops themselves" end)
	 elif $w.a_late_peer != null or $w.b_late_peer != null then
	   "; " + (if $w.a_late_peer != null then "A" else "B" end) + " waits for \($w.a_late_peer // $w.b_late_peer), "
	   + (if $w.a_late_peer != null then $w.a_late_wait_ns else $w.b_late_wait_ns end | t) + " per step, "
	   + (if $w.a_late_peer != null then "B's" else "A's" end) + " capture names none"
	   + ((if $w.a_late_peer != null then $w.b_src else $w.a_src end) | if . == "notify_wait_tasks" then " (no HCCL tasks at its level)" else "" end)
	   + (if $diffrun then ", and the runs differ" else "" end)
	 else "" end) + ".\n" end;
def stakemd: if .status != "changed" then ""
  elif .a_stake_kind == null and .b_stake_kind == null then ""
  elif .a_stake_kind == .b_stake_kind then " (both " + (.a_stake_kind | sub("^upper bound"; "upper bounds") | md) + ")"
  else " (A's " + (.a_stake_kind // "not said" | md) + "; B's " + (.b_stake_kind // "not said" | md) + ": figures of different kinds, so part of the change is the change of rule)" end;
# What a communication op's raw name is made of, on one of the report's
# ops: only the parts its records show (the group's name ends in the
# digits after the type; the next number follows the ops' start order).
def commparts($r):
  ([$r[] | select(.kind == "comm_op")] | sort_by(.rank // 1000000) | .[0]) as $c
  | if $c == null then "" else
    ([(($c.a_names // []) | .[0]) as $n | select($n != null) | {n: $n, g: ($c.a_groups // [])[0]}]
     + [(($c.b_names // []) | .[0]) as $n | select($n != null) | {n: $n, g: ($c.b_groups // [])[0]}]
     | sort_by(.g == null) | .[0]) as $e
    | ($e.n | capture("^(?<t>.+?)__(?<g>[0-9]+)_(?<k>[0-9]+)(?<rest>.*)$")? // null) as $p
    | if $p == null then "" else
      " A communication op's raw name, here \($e.n | code), is the op (\($p.t | code)), then "
      + (if $e.g != null and ($e.g | endswith($p.g)) then "\($p.g | code), the last digits of its communication group's name (\($e.g | code)), "
	 else "\($p.g | code), a number of its communication group, " end)
      + "then \($p.k | code), " + (if $c.numbered_in_order then "which follows the order in which the group's ops start in this capture (the count need not start at 0 in a step: the same number in two runs is the same op only if both issued the same collectives on the group before it)"
				 else "a number the captures do not explain" end)
      + (if $p.rest != "" then ", and \($p.rest | code), which the captures do not explain" else "" end) + "." end end;
# The names the report uses and the raw names they stand for.
def namesmd($r):
  ([$r[] | select((.kind == "op" or .kind == "comm_op") and ((.a_names // []) + (.b_names // []) | any(. != null)))
    | select(.kind == "comm_op" or (.rank != null and .rank <= 20))
    | select(((.a_names // []) + (.b_names // []) | unique) != [.key])]
   | unique_by([.kind, .key])) as $n
  | if ($n | length) == 0 then "" else
    "\n## Names\n\nAn op is keyed by its kernel name without the instance suffix (the rules' `ops.name_strip_regex`, `hcom_allReduce__586_0_1` → `hcom_allReduce`), a communication op by its name without the communication group's number, which differs from run to run (`hcom_allReduce__586_0_1` → `hcom_allReduce__0_1`), and so is a kernel named at either end of an idle window." + commparts($r) + " The names in this report stand for these raw names:\n\n"
    + ($n | map("- \(.kind | sub("comm_op"; "communication op")) \(.key | code): A " + (.a_names // [] | if length == 0 then "none" else map(code) | join(", ") end)
		+ "; B " + (.b_names // [] | if length == 0 then "none" else map(code) | join(", ") end)
		+ (if .names_more then " (and more; the op records list three)" else "" end) + "\n") | add) end;

def report:
  .records as $r
  | ($r[] | select(.kind == "summary")) as $s
  | [$r[] | select(.kind == "breakdown" and .scope == "mean")] as $bm
  | def row(c): "| " + (c | map(if . == null then "–" else cell end) | join(" | ")) + " |";
    def rowdesc: (if .kind == "op" then "op \(.key | code) (\(.status))"
		  elif .kind == "part" then "part \(.key | code)" + (if .align == "only_a" then " (only in A)" elif .align == "only_b" then " (only in B)" else "" end)
		    + (if .covered then ", its own busy + idle (wall \(.delta_wall_ns | st), \(.delta_others_ns | st) of it only other parts' kernels)"
		       elif .boundary_with then ", its kernel sum (wall \(.delta_wall_ns | st), moved with its boundary with \(.boundary_with | code))" else "" end)
		  elif .kind == "part_op" then "op \(.op | code) in part \(.part | code)" + (if .status == "added" then " (new in B)" elif .status == "removed" then " (gone in B)" else "" end)
		  elif .kind == "part_kind" then "the \(.key | code) parts (A \(.a_count), B \(.b_count) per step)"
		  elif .kind == "comm_op" and ((.a_names // []) + (.b_names // []) | unique) != [.key] then
		    "comm_op \(.key | code) (A " + (.a_names // [] | if length == 0 then "none" else map(code) | join(", ") end)
		    + ", B " + (.b_names // [] | if length == 0 then "none" else map(code) | join(", ") end) + ")"
		  elif .kind == "bubble_window" then "\(.status) bubble \(.key | code)" + (if .cause then ", host cause \(.cause | code)" else "" end)
		  else "\(.kind) \(.key | code)" end);
  "# asc-diff: \($s.a | code) → \($s.b | code)\n\n"
  + "A: \($s.a_input | code) (\($s.a_level // "level unknown" | md), \($s.a_steps) step(s)); B: \($s.b_input | code) (\($s.b_level // "level unknown" | md), \($s.b_steps) step(s)).\n\n"
  + runsmd($r)
  + (if $s.mode == "cluster" then "Cluster of \($s.ranks) ranks, by mean step time: A is the median rank (\($s.a | code)), B the slowest (\($s.b | code)).\n\n" else "" end)
  + "B's mean step is " + (if $s.delta_ns == null then "not compared with A's (one of them has no step breakdown: below)"
			   elif $s.delta_ns == 0 then "as long as A's"
			   else "\($s.delta_ns | abs | t) " + (if $s.delta_ns > 0 then "longer" else "shorter" end) + " than A's" end)
  + " (A \($s.a_step_ns | t) over \($s.a_steps) step(s), B \($s.b_step_ns | t) over \($s.b_steps)).\n"
  + ([$r[] | select(.rank == 1)][0] as $top
     | if $top then "The biggest change: \($top | rowdesc), \($top.delta_per_step_ns | st) per step.\n" else "No op, part, idle window or communication op compared on both sides changed"
	  + (if any($r[]; .kind == "part" and .covered) then " (a part by its own busy + idle)" else "" end) + ".\n" end)
  # the wait for peers, after the line that names a communication op
  + ([$r[] | select(.rank == 1)][0] as $top | leadop($r; leadpart($r)) as $o
     | if $top != null and ($top | iscomm) then commlead($r; $top) else "" end
       + partlead($r)
       + (if ($top == null or ($top | iscomm | not)) and $o != null and $o.delta_kernel_ns != 0 then commlead($r; $o) else "" end))
  + "\n## Where the step time went\n\nThe parts of the mean step, largest change first; they sum to the change of the step.\n\n"
  + row(["part", "A", "B", "delta"]) + "\n" + row(["---", "---:", "---:", "---:"]) + "\n"
  + ([$bm[] | select(.additive and .part != "unexplained")] | sort_by(-(.delta_ns // 0 | abs)) | map(row([.part, (.a_ns | t), (.b_ns | t), (.delta_ns | st)]) + "\n") | add // "")
  + ([$bm[] | select(.part == "unexplained")][0] | row(["unexplained", "", "", (.delta_ns | st)]) + "\n")
  + ([$bm[] | select(.part == "step")][0] | row(["**step**", (.a_ns | t), (.b_ns | t), (.delta_ns | st)]) + "\n")
  + ([$bm[] | select(.part == "comm_overlapped")][0] | "\nCommunication overlapped by compute (not in the sum): A \(.a_ns | t), B \(.b_ns | t), \(.delta_ns | st).\n")
  + ([$r[] | select(.kind == "step_trace")] as $c
     | if ($c | length) > 0 then "\ntorch_npu's own breakdown (step_trace_time.csv, mean per step): "
	+ ($c | map("\(.key) \(.delta_ns | st)") | join(", ")) + ".\n" else "" end)
  + "\n## Biggest changes (per step)\n\nOps, model parts and the ops in them, idle windows and communication ops by the change of their time per step (a part by its wall, or by its own busy + idle when its wall change is mostly time in which only other parts' kernels run, or by its kernel sum when its wall shares a boundary with such a part's and changes the other way, for then the time that moved across the boundary is in its wall change; an op in a part by its kernel sum); A and B are over the whole capture, for a part or an op in a part per step.\n\n"
  + row(["#", "what", "A", "B", "delta per step"]) + "\n" + row(["---:", "---", "---:", "---:", "---:"]) + "\n"
  + ([$r[] | select(.rank != null and .rank <= 20)] | sort_by(.rank)
     | map(row([.rank, rowdesc, ((if .covered then .a_own_ns elif .boundary_with then .a_kernel_ns else .a_total_ns // .a_elapsed_ns // .a_ns // .a_kernel_ns end) | t),
		((if .covered then .b_own_ns elif .boundary_with then .b_kernel_ns else .b_total_ns // .b_elapsed_ns // .b_ns // .b_kernel_ns end) | t), (.delta_per_step_ns | st)]) + "\n") | add // "(none)\n")
  + ([$r[] | select(.kind == "caveat")] as $c
     | if ($c | length) > 0 then "\n## What cannot be compared\n\n" + ($c | map("- " + (.text | md) + "\n") | add) else "" end)
  + namesmd($r)
  + partsmd($r)
  + ([$r[] | select(.kind == "op" and .status != "same")] | sort_by(-(.delta_total_ns // 0 | abs)) as $o
     | "\n## Ops\n\nBy name; totals over the capture.\n\n"
       + row(["op", "type", "status", "calls A", "calls B", "total A", "total B", "delta", "mean delta", "wait delta"]) + "\n"
       + row(["---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]) + "\n"
       + ($o[:30] | map(row([(.key | code), (.op_type | code), .status, .a_calls, .b_calls, (.a_total_ns | t), (.b_total_ns | t), (.delta_total_ns | st), (.delta_mean_ns | st), (.delta_wait_ns | st)]) + "\n") | add // "")
       + (if ($o | length) > 30 then "\n\($o | length - 30) more in the diff records.\n" else "" end))
  + "\n## Bubbles\n\n" + row(["scope", "count A", "count B", "idle A", "idle B", "delta"]) + "\n" + row(["---", "---:", "---:", "---:", "---:", "---:"]) + "\n"
  + ([$r[] | select(.kind == "bubble_scope")] | map(row([.key, .a_count, .b_count, (.a_idle_ns | t), (.b_idle_ns | t), (.delta_idle_ns | st)]) + "\n") | add // "")
  + ([$r[] | select(.kind == "bubble_cause" and .delta_ns != 0)] as $c
     | if ($c | length) > 0 then "\nIdle time under host work, by cause family (attribution): "
	+ ($c | sort_by(-(.delta_ns // 0 | abs)) | map("\(.key | code) \(.delta_ns | st)") | join(", ")) + ".\n" else "" end)
  + ([$r[] | select(.kind == "bubble_window")] | sort_by(-(.delta_ns // 0 | abs)) as $w
     | if ($w | length) > 0 then "\nWindows new, gone, grown or shrunk:\n\n"
	+ ($w[:20] | map("- \(.status) \(.key | code): \(.delta_ns | st)"
			 + (if .b_rel_ns != null then ", at \(.b_rel_ns | t) into B's step" + (if .b_where then ", " + (.b_where | md) else "" end)
			    elif .a_rel_ns != null then ", at \(.a_rel_ns | t) into A's step" + (if .a_where then ", " + (.a_where | md) else "" end) else "" end)
			 + (if .cause then ", host cause \(.cause | code)" else "" end) + "\n") | add) else "" end)
  + ([$r[] | select(.kind == "comm_op")] as $c
     | if ($c | length) > 0 then "\n## Communication\n\nBy name without the communication group's number (Names, above).\n\n" + row(["op", "elapsed A", "elapsed B", "delta", "wait delta", "transfer delta", "GB/s A", "GB/s B"]) + "\n"
	+ row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]) + "\n"
	+ ($c | sort_by(-(.delta_elapsed_ns // 0 | abs)) | .[:20] | map(row([(.key | code), (.a_elapsed_ns | t), (.b_elapsed_ns | t), (.delta_elapsed_ns | st), (.delta_wait_ns | st), (.delta_transfer_ns | st), (.a_gbps // "–"), (.b_gbps // "–")]) + "\n") | add)
       else "" end)
  # in the records' order: each group's, then each step's rows, one after the other
  + ([$r[] | select(.kind == "breakdown" and (.scope == "step" or .scope == "group"))]
     | (reduce .[] as $x ([]; if length > 0 and (last[0] | [.scope, .key]) == [$x.scope, $x.key]
			      then (length - 1) as $l | .[$l] += [$x] else . + [[$x]] end)) as $g
     | if ($g | length) > 2 then "\n## Per step group and per step\n\n"
	+ row(["group or step", "A", "B", "delta", "largest part change"]) + "\n" + row(["---", "---:", "---:", "---:", "---"]) + "\n"
	+ ($g | map((index_by(.part)) as $p
	    | ([.[] | select(.additive and .part != "unexplained")] | sort_by(-(.delta_ns // 0 | abs)) | .[0]) as $m
	    | row(["\(.[0].scope) \(.[0].key | code)", ($p.step.a_ns | t), ($p.step.b_ns | t), ($p.step.delta_ns | st),
		   (if ($m.delta_ns // 0) != 0 then "\($m.part) \($m.delta_ns | st)" else "–" end)]) + "\n") | add)
       else "" end)
  + ([$r[] | select(.kind == "finding" and .status != "same")] as $f
     | "\n## Findings\n\n" + (if ($f | length) == 0 then "The same findings, with the same time at stake.\n"
	else ($f | map("- \(.status): \(.finding | code) (\(.key | code))" + (if .status == "changed" then ", at stake \(.a_stake_ns | t) → \(.b_stake_ns | t)" + stakemd else "" end) + "\n") | add) end));

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


# The page: the Markdown report as HTML, as asc-html renders the anomaly
# report (the same subset: headings, paragraphs, pipe tables, lists, code
# spans, backslash escapes, the entities of the report), the waterfall
# after the section it illustrates.  Every name reaches it escaped.  The
# block and inline helpers are fmt.jq's, shared with asc-html.
def mdhtml($fig):
	split("\n") as $L |
	(reduce ($L[], "## ") as $l ({out: [], k: null, b: [], sec: null};
		($l | lkind) as $k |
		if $k == "text" and (.k == "ul" or .k == "ol") and ($l | test("^\\s+\\S")) then .b[-1] += " " + ($l | sub("^\\s+"; ""))
		elif $k == "text" and .k == "p" then .b += [$l]
		elif $k == "blank" then .out += [mdblock(.k; .b)] | .k = null | .b = []
		elif $k == "h" then
			.out += [mdblock(.k; .b)] | .k = null | .b = [] |
			(if .sec == "Where the step time went" then .out += [$fig] else . end) |
			($l | capture("^(?<h>#+) (?<t>.*)$")) as $h |
			(if $h.h == "##" then .sec = $h.t else . end) |
			(if $h.t == "" then . else .out += ["<h\($h.h | length)>" + ($h.t | inl) + "</h\($h.h | length)>"] end)
		elif $k == .k then .b += [$l]
		else .out += [mdblock(.k; .b)] | .k = (if $k == "text" then "p" else $k end) | .b = [$l] end)) as $R |
	$R.out | map(select(. != "")) | join("\n");
def html($md; $svg):
  ([.records[] | select(.kind == "summary")][0]) as $s
  | ["<!DOCTYPE html>",
     "<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
     "<title>asc-diff: \("\($s.a) → \($s.b)" | esc)</title>",
     "<style>body{font:15px/1.45 \"DejaVu Sans\",Arial,sans-serif;color:#1A1A1A;background:#FFF;max-width:1240px;margin:0 auto;padding:8px 16px}",
     "h1{font-size:24px}h2{font-size:19px;border-bottom:2px solid #0072B2;padding-bottom:2px;margin-top:28px}",
     "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #BBB;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere;font-size:14px}th{background:#EEF3F8}",
     "figure{margin:10px 0}svg{max-width:100%;height:auto}.nw th,.nw td:nth-child(-n+1){overflow-wrap:normal}</style></head><body>",
     ($md | mdhtml("<figure>" + $svg + "</figure>")),
     "<p>The page is the Markdown report (diff_report.md) with its waterfall inline; exact figures are in the diff records.</p>",
     "</body></html>", ""] | join("\n");

if .mode == "pick" then pick
elif .mode == "report" then report as $md | svg as $svg
  | {file: "diff_report.md", text: $md}, {file: "diff_waterfall.svg", text: $svg}, {file: "diff_report.html", text: html($md; $svg)}
else diff end
