# asc-judge.jq: the decision tables of ANOMALY.md §6 and §9-§11.
# Input: {profile:[rec], step_metrics:[...], bubble:[significant ones],
# attribution:[...], ...} for one profile; output: the anomaly_discovery
# object.  Thresholds come from $rules.  Facts are copied from the
# records; only aggregates (averages, percentiles, shares) are computed
# here, in doubles, rounded to 6 decimals.

def r6: if type == "number" then (. * 1000000 | round) / 1000000 else . end;
def ms: if type == "number" then (. / 1000000 | r6) else null end;
def avg: if length == 0 then null else (add / length | r6) end;
def median: sort | if length == 0 then null
	elif length % 2 == 1 then .[(length - 1) / 2]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end | r6;
# Nearest-rank percentile.
def pct($p): sort | if length == 0 then null
	else .[([((length * $p / 100) | ceil) - 1, 0] | max)] end | r6;
def stats: map(select(. != null)) |
	if length == 0 then null
	else {avg: avg, median: median, p90: pct(90), p95: pct(95), min: min, max: max} end;
def uniq: reduce .[] as $x ([]; if index([$x]) then . else . + [$x] end);
def share($part; $whole): if $whole > 0 then ($part / $whole | r6) else 0 end;

# Absolute epoch microseconds of a relative ns time, exact: the integer
# part of the origin (< 2^53) and the ns are added as integers.
def absus($origin; $ns):
	($origin | split(".")) as $o |
	($o[0] | tonumber) as $ou |
	((($o[1] // "0") + "000")[0:3] | tonumber) as $of |
	($of + $ns) as $t |
	(($t / 1000) | floor) as $c |
	($t - $c * 1000) as $f |
	"\($ou + $c).\("\(1000 + $f)"[1:])";

$rules as $R |
$R.bubbles as $B |
$R.attribution as $A |
(.profile[0] // {}) as $P |
($P.origin_us // "0") as $origin |
(.step_metrics // []) as $M |
(.step // []) as $S |
(.bubble // []) as $BUB |
(.attribution // []) as $ATT |
((.step_groups // [])[0]) as $G |
((.capture_gaps // [])[0]) as $CG |
((.op // []) | map(select((.view // "name") == "name"))) as $OPS |
((.op_summary // [])[0]) as $OPSUM |
(.step_trace // []) as $ST |
(.warning // []) as $W |

# Attribution by bubble id.
(reduce $ATT[] as $a ({}; .[$a.bubble_id] = $a)) as $attr |
# Significant windows with what attribution says about them.
[ $BUB[] | . as $b | ($attr[$b.bubble_id] // null) as $a |
  $b + {
    attributed: ($a != null),
    boundary: ((.tags // []) | index(["PARTIAL_CAPTURE_BOUNDARY"]) != null),
    labels: (if $a == null then ["insufficient_evidence"]
	else ($a.labels // $a.candidate_labels // ["insufficient_evidence"]) end),
    cov: ($a.host_visible_coverage_ratio // null),
    sync: ($a.sync_marker_overlap_ratio // null),
    comm: ($a.comm_marker_overlap_ratio // null),
    par: ($a.host_parallelism // null),
    evidence: ($a.evidence // null),
    hostev: ($a.host_evidence // false),
    top_host_op: ($a.top_host_op // null)
  } ] as $WIN |

# Windows and torch_npu rows by step and by group: joins by key, not scans
# (a capture may have tens of thousands of steps).
(reduce $WIN[] as $w ({}; .[$w.step_id | tostring] += [$w])) as $WBS |
(reduce $WIN[] as $w ({}; .[$w.group_id // "null"] += [$w])) as $WBG |
(.step_trace_by_step // {}) as $STBY |

# Windows that may speak about the host: inside steps, not at an edge.
def hostwins: map(select(.boundary | not) | select(.scope != "global"));
def labelled($l): map(select(.labels | index([$l]) != null));
def dursum: map(.dur_ns) | add // 0;

# Evidence gaps: the fixed code list of the schema.
([ "no_trace_view", "no_step_markers", "no_host_events", "no_shapes",
   "no_stacks", "no_communication_json", "no_pmu", "level0",
   "db_export_only", "rows_rejected", "no_kernel_table", "pseudo_step",
   "step_id_windows", "unsorted_input" ]) as $codes |
(($P.degraded // []) +
  (if any($M[]; .window_source == "pseudo") then ["pseudo_step", "no_step_markers"] else [] end) +
  (if any($M[]; .window_source == "step_id_column") then ["step_id_windows", "no_step_markers"] else [] end) +
  (if any($W[]; .code == "kernels_unsorted") then ["unsorted_input"] else [] end)
  | map(select(. as $c | $codes | index([$c]) != null)) | uniq) as $gaps |
def gap($c): $gaps | index([$c]) != null;

# Group of each step, and group aggregates.
($M | group_by(.group_id) | map({
  id: .[0].group_id,
  steps: .,
  n: length
})) as $groups0 |
($groups0 | map(. as $g |
  ($g.steps | map(.service_ns) | avg) as $svc |
  ($g.steps | map(.prelaunch_gap_ns) | map(select(. != null))) as $pre |
  ($g.steps | map(.tail_gap_ns) | map(select(. != null))) as $tail |
  ($g.steps | map(.internal_bubble_total_ns) | avg) as $int |
  ($g.steps | map(.underfeed_ratio) | avg) as $uf |
  ($g.steps | map(select(.significant_bubble_count > 0)) | length) as $withsig |
  ($WBG[$g.id // "null"] // [] | hostwins) as $hw |
  ($hw | dursum) as $hwt |
  (($hw | map(select((.cov // 0) >= $A.launch_coverage)) | dursum)) as $covered |
  (($hw | map(select(.attributed and .hostev and (.cov // 0) < $A.untraced_coverage)) | dursum)) as $untraced |
  (($hw | labelled("possible_comm_wait") | dursum) + ($hw | labelled("possible_sync_or_h2d") | map(select(.labels | index(["possible_comm_wait"]) == null)) | dursum)) as $commsync |
  ($uf >= $B.high_underfeed_ratio) as $high |
  (($withsig / $g.n) >= $B.recurring_step_share) as $rec |
  ({prelaunch: ((if ($pre | length) > 0 then ($pre | avg) else 0 end)),
    tail: ((if ($tail | length) > 0 then ($tail | avg) else 0 end)),
    internal_bubble: $int}) as $parts |
  ($parts | to_entries | sort_by(-.value)) as $ord |
  (if $ord[0].value < ([10000, 0.01 * $svc] | max) then "none"
   elif ($ord[0].key == "prelaunch" and $parts.tail >= $ord[0].value / 2) or
	($ord[0].key == "tail" and $parts.prelaunch >= $ord[0].value / 2) then "inter_step"
   elif $ord[1].value >= 0.8 * $ord[0].value then "mixed"
   else $ord[0].key end) as $pattern |
  ([ (if $rec then "RECURRING_BUBBLE_PATTERN" else empty end),
     (if $high and $rec and share($covered; $hwt) >= $B.evidence_time_share then "HOST_ORIGINATED_RISK" else empty end),
     (if $high and $rec and share($untraced; $hwt) >= $B.evidence_time_share then "UNTRACED_HOST_BLOCKING_RISK" else empty end),
     (if $hwt > 0 and share($commsync; $hwt) >= $B.evidence_time_share then "COMM_SYNC_RISK" else empty end),
     (if (($OPSUM.tags_group // []) | index(["VARIABLE_SHAPE_SAME_TEMPLATE"])) != null and (($OPSUM.variable_shape.groups // []) | map(if type == "object" then .group_id else . end) | index([$g.id])) != null then "VARIABLE_SHAPE_SAME_TEMPLATE" else empty end)
   ]) as $gtags |
  ([$g.steps[] | .tags // [] | .[]] | group_by(.) |
     map(select(length * 2 >= $g.n) | .[0])) as $steptags |
  {
    group_id: $g.id,
    group_size: $g.n,
    steps: ($g.steps | map(.step_id)),
    service_ms_avg: ($svc | ms),
    device_busy_union_ms_avg: ($g.steps | map(.device_busy_union_ns) | avg | ms),
    underfeed_ratio_avg: $uf,
    prelaunch_gap_ms_avg: (if ($pre | length) > 0 then ($pre | avg | ms) else null end),
    tail_gap_ms_avg: (if ($tail | length) > 0 then ($tail | avg | ms) else null end),
    internal_bubble_total_ms_avg: ($int | ms),
    largest_internal_bubble_ms_p95: ($g.steps | map(.largest_internal_bubble_ns) | pct(95) | ms),
    recurring_bubble_pattern: $rec,
    steps_with_significant_bubbles: $withsig,
    dominant_idle_pattern: $pattern,
    dominant_anomaly_tags: (($gtags + $steptags) | uniq),
    requires_followup: (($gtags | index(["UNTRACED_HOST_BLOCKING_RISK"]) != null) or
      ($withsig > 0 and ($hw | length) > 0 and
       ($hw | map(select(.labels == ["insufficient_evidence"])) | length) * 2 >= ($hw | length))),
    significant_bubble_ms: ($hwt | ms),
    host_covered_share: share($covered; $hwt),
    untraced_share: share($untraced; $hwt),
    comm_sync_share: share($commsync; $hwt),
    high_underfeed: $high,
    stats: {
      service_ms: ($g.steps | map(.service_ns | ms) | stats),
      device_busy_union_ms: ($g.steps | map(.device_busy_union_ns | ms) | stats),
      underfeed_ms: ($g.steps | map(.underfeed_ns | ms) | stats),
      underfeed_ratio: ($g.steps | map(.underfeed_ratio) | stats),
      prelaunch_gap_ms: ($g.steps | map(.prelaunch_gap_ns | ms) | stats),
      tail_gap_ms: ($g.steps | map(.tail_gap_ns | ms) | stats),
      internal_bubble_total_ms: ($g.steps | map(.internal_bubble_total_ns | ms) | stats),
      largest_internal_bubble_ms: ($g.steps | map(.largest_internal_bubble_ns | ms) | stats),
      bubble_count: ($g.steps | map(.bubble_count) | stats),
      significant_bubble_count: ($g.steps | map(.significant_bubble_count) | stats),
      kernels: ($g.steps | map(.kernels) | stats)
    },
    median_kernels: ($g.steps | map(.kernels) | median)
  })) as $groups |

(($G.dominant_group_id) // ($groups | max_by(.service_ms_avg * .group_size) | .group_id) // null) as $dom |
($groups | map(select(.group_id == $dom)) | .[0] // null) as $DG |
(reduce $groups[] as $g ({}; .[$g.group_id] = $g)) as $gby |

(reduce (($OPSUM.aicpu_exposed_risk_steps // [])[] | if type == "object" then .step_id else . end) as $s ({}; .[$s | tostring] = true)) as $aicpusteps |

# Per step: tags that need the group or the windows.
($M | map(. as $m |
  ($WBS[$m.step_id | tostring] // [] | hostwins) as $sw |
  ($sw | dursum) as $swt |
  (($sw | map(select((.labels | index(["possible_comm_wait"])) or (.labels | index(["possible_sync_or_h2d"])))) | dursum)) as $cs |
  ($gby[$m.group_id].median_kernels // 0) as $medk |
  ([ (if $swt > 0 and share($cs; $swt) >= $B.evidence_time_share then "COMM_SYNC_RISK" else empty end),
     (if $medk > 0 and $m.kernels < $B.partial_step_kernel_share * $medk then "PARTIAL_CAPTURE_BOUNDARY" else empty end),
     (if $aicpusteps[$m.step_id | tostring] then "AICPU_EXPOSED_RISK" else empty end)
   ]) as $extra |
  ($STBY[$m.step_id // "" | tostring] // null) as $t |
  {
    step_id: ($m.step_id | tostring),
    group_id: $m.group_id,
    window_source: $m.window_source,
    service_ms: $m.service_ms,
    device_busy_union_ms: $m.device_busy_union_ms,
    underfeed_ms: $m.underfeed_ms,
    underfeed_ratio: $m.underfeed_ratio,
    prelaunch_gap_ms: $m.prelaunch_gap_ms,
    tail_gap_ms: $m.tail_gap_ms,
    internal_bubble_total_ms: $m.internal_bubble_total_ms,
    largest_internal_bubble_ms: $m.largest_internal_bubble_ms,
    bubble_count: $m.bubble_count,
    significant_bubble_count: $m.significant_bubble_count,
    kernels: $m.kernels,
    anomaly_tags: ((($m.tags // []) + $extra) | uniq),
    soft_labels: ($sw | map(.labels[]) | uniq),
    torch_npu_step_trace: (if $t == null then null else {
      src: $t.src,
      preparing_ms: ($t.preparing_ns | ms),
      free_ms: ($t.free_ns | ms),
      computing_ms: ($t.computing_ns | ms),
      comm_not_overlapped_ms: ($t.comm_not_overlapped_ns | ms),
      comm_ms: ($t.comm_ns | ms),
      stage_ms: ($t.stage_ns | ms),
      bubble_ms: ($t.bubble_ns | ms),
      busy_ms: (if $t.computing_ns != null and $t.comm_not_overlapped_ns != null
	then ($t.computing_ns + $t.comm_not_overlapped_ns | ms) else null end),
      prelaunch_minus_preparing_us: (if $m.prelaunch_gap_ns != null and $t.preparing_ns != null
	then (($m.prelaunch_gap_ns - $t.preparing_ns) / 1000 | r6) else null end),
      internal_minus_free_us: (if $t.free_ns != null
	then (($m.internal_bubble_total_ns - $t.free_ns) / 1000 | r6) else null end),
      busy_union_minus_busy_us: (if $t.computing_ns != null and $t.comm_not_overlapped_ns != null
	then (($m.device_busy_union_ns - $t.computing_ns - $t.comm_not_overlapped_ns) / 1000 | r6) else null end)
    } end)
  })) as $steps |

# Hidden issue, severity, host risk.
($DG != null and (($DG.high_underfeed) or
  ($steps | map(select(.group_id == $dom) | .anomaly_tags[]) |
   (index(["INTERNAL_BUBBLE_HEAVY"]) != null or index(["PRELAUNCH_GAP_HEAVY"]) != null or
    index(["TAIL_GAP_HEAVY"]) != null)))) as $hidden |
(if $hidden | not then "none"
 elif ($DG.recurring_bubble_pattern) then "high" else "medium" end) as $severity |
($DG.dominant_anomaly_tags // []) as $dtags |
(if $DG == null or (($hidden | not) and ($DG.high_underfeed | not)) then "low"
 elif ($dtags | index(["HOST_ORIGINATED_RISK"])) != null then "high"
 elif ($DG.comm_sync_share // 0) >= $B.evidence_time_share then "high"
 elif ($dtags | index(["UNTRACED_HOST_BLOCKING_RISK"])) != null then "medium"
 elif ($DG.host_covered_share // 0) >= 0.2 or ($DG.untraced_share // 0) >= 0.2 then "medium"
 else "low" end) as $hostrisk |

# Soft root causes: per group, each label's share of the host-facing
# significant bubble time.
([ $groups[] | . as $g |
   ($WBG[$g.group_id // "null"] // [] | hostwins) as $hw |
   ($hw | dursum) as $t |
   ($hw | map(.labels[]) | uniq)[] as $l |
   ($hw | labelled($l)) as $lw |
   share($lw | dursum; $t) as $sh |
   { label: $l,
     confidence: (if $l == "insufficient_evidence" then "low"
	elif $sh >= 0.7 and (gap("no_stacks") | not) then "high"
	elif $sh >= 0.4 then "medium" else "low" end),
     scope: "group",
     target_id: $g.group_id,
     share_of_significant_bubble_time: $sh,
     windows: ($lw | length),
     evidence: ([ "\($lw | length) of \($hw | length) significant windows, \($lw | dursum | ms) ms of \($t | ms) ms" ] +
	($lw | sort_by(-.dur_ns) | .[0:3] | map("\(.bubble_id): \(.duration_ms) ms" +
	  (if .top_host_op != null then ", host op \(.top_host_op.name)" + (if .top_host_op.frame then " at \(.top_host_op.frame)" else "" end) else "" end))))
   } ] | sort_by(-.share_of_significant_bubble_time)) as $soft |

# Wait anchors and polluted waits from asc-ops.
([ $OPS[] | select((.tags // []) | index(["WAIT_ANCHOR_FALSE_HOTSPOT"]) != null) |
   { op_name: .key,
     location: (.task_type // null),
     duration_us_avg: ((.dur_avg_ns // 0) / 1000 | r6),
     wait_us_avg: ((.wait_avg_ns // 0) / 1000 | r6),
     total_cost_us_avg: ((.total_cost_avg_ns // 0) / 1000 | r6),
     wait_ratio: (.wait_ratio // 0),
     is_false_hotspot_risk: true,
     evidence: ([ "total-cost rank \(.rank_total_cost)", "root-cause rank \(.rank_root_cause) after demotion", "\(.calls) calls" ] +
	(if ((.tags // []) | index(["WAIT_POLLUTION_RISK"])) != null then ["its wait overlaps communication: not a root cause"] else [] end))
   } ]) as $anchors |
([ $OPS[] | select((.tags // []) | index(["WAIT_POLLUTION_RISK"]) != null) | .key ]) as $polluted |
([ $OPS[] | select(.aicpu != null and (.aicpu.class == "AICPU_EXPOSED_NOT_ALLOWED" or
   ((.tags // []) | index(["AICPU_EXPOSED_RISK"]) != null))) | .key ]) as $aicpu |

# Follow-up and confidence.
(($dtags | index(["UNTRACED_HOST_BLOCKING_RISK"])) != null or
 ($hidden and (gap("no_trace_view") or gap("no_host_events") or
   (($soft | map(select(.target_id == $dom)) | .[0].label // "insufficient_evidence") |
     IN("insufficient_evidence", "possible_untraced_host_blocking"))))) as $hostfollow |
(3
 - (if gap("no_step_markers") or gap("pseudo_step") then 1 else 0 end)
 - (if gap("no_trace_view") or gap("no_host_events") then 1 else 0 end)
 - (if gap("no_stacks") then 0.5 else 0 end)
 - (if gap("rows_rejected") then 0.5 else 0 end)
 - (if ($groups | length) > 1 and ($DG.group_size // 0) * 2 <= ($M | length) then 0.5 else 0 end)
 - (if ($M | length) == 0 then 2 else 0 end)) as $score |
(if $score >= 2.5 then "high" elif $score >= 1.5 then "medium" else "low" end) as $confidence |

# Recommendations: each with scope, priority, follow-up and evidence gap.
def rec($text; $scope; $target; $prio; $follow; $gap):
	{text: $text, scope: $scope, target_id: $target, priority: $prio,
	 followup_required: $follow, evidence_gap: $gap};
($soft | map(select(.target_id == $dom)) | .[0] // null) as $top |
([
  (if ($M | length) == 0 then rec("No step could be measured (no kernel table). Export kernel_details.csv (Level0 or higher) or op_summary to find device idle time."; "global"; null; "P0"; true; (if gap("db_export_only") then "db_export_only" else "no_kernel_table" end)) else empty end),
  (if $hidden and ($DG.dominant_idle_pattern | IN("prelaunch", "inter_step")) then
     rec("The device idles before the first kernel of each step (prelaunch \($DG.prelaunch_gap_ms_avg) ms on average in \($dom)): look at what the host does between steps (data loading, optimizer step on host, logging, synchronisation).";
	 "step_group"; $dom; (if $severity == "high" then "P0" else "P1" end); $hostfollow; null) else empty end),
  (if $hidden and ($DG.dominant_idle_pattern | IN("internal_bubble", "mixed")) then
     rec("Internal device bubbles of \($DG.internal_bubble_total_ms_avg) ms per step in \($dom) (largest p95 \($DG.largest_internal_bubble_ms_p95) ms): check the host operations around the top bubbles listed in the report.";
	 "step_group"; $dom; (if $severity == "high" then "P0" else "P1" end); $hostfollow; null) else empty end),
  (if $hidden and $DG.dominant_idle_pattern == "tail" then
     rec("The device idles after the last kernel of each step (tail \($DG.tail_gap_ms_avg) ms): host work at the end of the step (loss.item(), logging, checkpointing) delays the next step.";
	 "step_group"; $dom; "P1"; $hostfollow; null) else empty end),
  (if $hidden and $top != null and $top.label == "possible_sync_or_h2d" then
     rec("Host synchronisation or host-to-device copies overlap \($top.share_of_significant_bubble_time * 100 | r6)% of the bubble time: remove .item()/.cpu()/.to() and explicit synchronisations from the step, or move copies off the critical path (pin_memory, non_blocking).";
	 "step_group"; $dom; "P1"; false; null) else empty end),
  (if $hidden and $top != null and $top.label == "possible_comm_wait" then
     rec("Communication waits overlap the bubbles: check stragglers across ranks and overlap communication with compute.";
	 "step_group"; $dom; "P1"; true; (if gap("no_communication_json") then "no_communication_json" else null end)) else empty end),
  (if $hidden and $top != null and $top.label == "possible_host_launch_lag" then
     rec("The host is busy launching ops during the bubbles (launch-bound): fuse small ops, use graph mode / torch.compile or larger batches.";
	 "step_group"; $dom; "P1"; false; null) else empty end),
  (if $hidden and $top != null and $top.label == "possible_python_serialization_or_lock" then
     rec("Only sparse single-thread host activity covers the bubbles: possible Python serialization or a lock (GIL, dataloader); sample the host with a Python profiler.";
	 "step_group"; $dom; "P2"; true; null) else empty end),
  (if $hostfollow then
     rec("The host evidence is too weak to name a cause: sample the host side during the bubbles (py-spy, perf, msprof --sys-cpu-profiling) and re-capture with activities CPU+NPU.";
	 "global"; null; "P1"; true; (if gap("no_trace_view") then "no_trace_view" elif gap("no_host_events") then "no_host_events" else null end)) else empty end),
  (if $hidden and gap("no_stacks") then
     rec("Re-capture with with_stack=True so each bubble leads to a line of Python."; "global"; null; "P2"; true; "no_stacks") else empty end),
  (if ($groups | length) > 1 and gap("no_shapes") then
     rec("Steps fall into \($groups | length) groups and shapes were not recorded: re-capture with record_shapes=True to tell shape changes from control-flow changes."; "global"; null; "P2"; true; "no_shapes") else empty end),
  (if gap("no_step_markers") and ($M | length) > 0 then
     rec("No step markers: windows come from \(if gap("pseudo_step") then "one pseudo-step" else "the Step Id column" end), so prelaunch and tail gaps are not measurable; capture with a torch_npu schedule (ProfilerStep#N)."; "global"; null; "P2"; true; "no_step_markers") else empty end),
  ($polluted[0:3][] | rec("The wait of \(.) overlaps communication: its wait time is not a root cause; look at the communication and synchronisation path instead."; "op"; .; "P2"; false; null)),
  ($anchors[0:3][] | rec("\(.op_name) ranks high by total cost only because of its wait (\(.wait_ratio * 100 | r6)% wait): a false hotspot, do not optimise the kernel."; "op"; .op_name; "P3"; false; null)),
  ($aicpu[0:3][] | rec("AI CPU op \(.) runs exposed (no concurrent AI Core work): move it to AI Core (supported dtype/shape) or off the critical path."; "op"; .; "P2"; false; null)),
  (if ($hidden | not) and ($M | length) > 0 then
     rec("No significant device idle time in the dominant group: the device is fed; optimise the top ops by total cost."; "global"; null; "P3"; false; null) else empty end)
] | to_entries | map(.value + {id: "R\(.key + 1)"})) as $recs |

{
  enabled: true,
  time_origin_us: $origin,
  hidden_issue_present: $hidden,
  severity: $severity,
  host_risk_level: $hostrisk,
  confidence: $confidence,
  requires_host_followup: $hostfollow,
  dominant_group_id: $dom,
  evidence_gaps: $gaps,
  global_device_gap_analysis: {
    capture_span_ms: ($CG.capture_span_ns // 0 | ms),
    device_busy_union_ms: ($CG.busy_union_ns // 0 | ms),
    device_gap_ms: ($CG.gap_ns // 0 | ms),
    device_gap_ratio: ($CG.gap_ratio // 0),
    largest_gap_ms: ($CG.largest_gap_ns // 0 | ms),
    gap_count: ($CG.gap_count // 0),
    top_gap_windows: ($WIN | sort_by(-.dur_ns) | .[0:$B.top_n] | map({
      bubble_id, scope, step_id,
      start_us, end_us, duration_ms,
      start_abs_us: absus($origin; .start_ns),
      end_abs_us: absus($origin; .end_ns)
    }))
  },
  step_group_anomalies: $groups | map(del(.high_underfeed)),
  bubble_windows: ($WIN | sort_by(-.dur_ns) | map({
    bubble_id, scope,
    step_id: (.step_id | tostring),
    group_id,
    start_us, end_us, duration_ms,
    start_abs_us: absus($origin; .start_ns),
    end_abs_us: absus($origin; .end_ns),
    tags: (.tags // []),
    host_visible_coverage_ratio: .cov,
    sync_marker_overlap_ratio: .sync,
    comm_marker_overlap_ratio: .comm,
    host_parallelism: .par,
    candidate_labels: .labels,
    evidence_ops: ([ (.evidence // []) | if type == "object" then (to_entries[] | .value) else . end |
      if type == "array" then .[] else . end |
      if type == "object" then (.name // empty) elif type == "string" then . else empty end ] | uniq | .[0:5]),
    top_host_op: .top_host_op,
    before: .before,
    after: .after
  })),
  significant_windows_total: (.bubble_total // 0),
  internal_gaps_total: ($M | map(.bubble_count // 0) | add // 0),
  wait_anchor_ops: $anchors,
  wait_polluted_ops: $polluted,
  soft_root_cause_summary: $soft,
  step_results: $steps,
  recommendations: $recs
}
