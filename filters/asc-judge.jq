# asc-judge.jq: the decision tables of the verdict (asc-judge(1)).
# Input: {profile:[rec], step_metrics:[...], bubble:[significant ones],
# attribution:[...], ..., asc:{version, rules_file}} for one profile;
# output: the anomaly_discovery object.  Thresholds come from $rules.  Facts are copied from the
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
# Percentiles only where they can vary (groups of >= 5 steps).
def stats: map(select(. != null)) |
	if length == 0 then null
	else {avg: avg, median: median,
	  p90: (if length >= $rules.verdict.percentile_min_steps then pct(90) else null end),
	  p95: (if length >= $rules.verdict.percentile_min_steps then pct(95) else null end),
	  min: min, max: max} end;
def navg: map(select(. != null)) | if length == 0 then null else avg end;
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
# Steps measured from kernels; without a kernel table, torch_npu's own
# step_trace rows are the step results, labelled as such.  The
# step is Stage, the span of its kernels as with a kernel table; Preparing
# lies before it and is reported beside it, not added.
((.step_metrics // []) | map(. + {breakdown_source: "kernels"})) as $MK |
(.step_trace // []) as $ST0 |
(if ($MK | length) > 0 then $MK
 else [ $ST0[] | select(.stage_ns != null) |
   (.stage_ns // 0) as $svc |
   ((.computing_ns // 0) + (.comm_not_overlapped_ns // 0)) as $busy |
   { step_id: (.step // "?"), group_id: "g0", window_source: "step_trace",
     breakdown_source: "step_trace",
     service_ns: $svc, service_ms: ($svc / 1000000),
     device_busy_union_ns: $busy, device_busy_union_ms: ($busy / 1000000),
     underfeed_ns: ($svc - $busy), underfeed_ms: (($svc - $busy) / 1000000),
     underfeed_ratio: (if $svc > 0 then (($svc - $busy) / $svc * 1000000 | round) / 1000000 else 0 end),
     compute_ns: .computing_ns, comm_exposed_ns: .comm_not_overlapped_ns,
     comm_overlapped_ns: .overlapped_ns,
     prelaunch_gap_ns: null, prelaunch_gap_ms: null,
     tail_gap_ns: null, tail_gap_ms: null,
     internal_bubble_total_ns: (.free_ns // 0), internal_bubble_total_ms: ((.free_ns // 0) / 1000000),
     largest_internal_bubble_ns: 0, largest_internal_bubble_ms: 0,
     bubble_count: 0, significant_bubble_count: 0, kernels: 0,
     tags: [] } ] end) as $M |
(.comm // []) as $C |
(.comm_pipeline // []) as $CP0 |
(.step // []) as $S |
(.bubble // []) as $BUB |
(.attribution // []) as $ATT |
((.step_groups // [])[0]) as $G |
((.capture_gaps // [])[0]) as $CG |
((.op // []) | map(select((.view // "name") == "name"))) as $OPS |
((.op_summary // [])[0]) as $OPSUM |
$ST0 as $ST |
(.warning // []) as $W |

# Median kernel count per group, and the steps cut by the capture edge
# (fewer than half of it).
(reduce ($M | group_by(.group_id))[] as $g ({};
   .[$g[0].group_id // "null"] = ($g | map(.kernels) | median))) as $MEDK |
(reduce $M[] as $m ({};
   ($MEDK[$m.group_id // "null"] // 0) as $mk |
   .[$m.step_id | tostring] = ($mk > 0 and $m.kernels < $B.partial_step_kernel_share * $mk))) as $CUT |

# Attribution by bubble id.
(reduce $ATT[] as $a ({}; .[$a.bubble_id] = $a)) as $attr |
# Significant windows with what attribution says about them.
[ $BUB[] | . as $b | ($attr[$b.bubble_id] // null) as $a |
  $b + {
    attributed: ($a != null),
    # An edge window is an artefact only when the capture does not
    # cover it (no host event recorded before it) or its step is cut.
    edge: ((.tags // []) | index(["PARTIAL_CAPTURE_BOUNDARY"]) != null),
    boundary: (((.tags // []) | index(["PARTIAL_CAPTURE_BOUNDARY"]) != null) and
      ($a == null or ($a.capture_covered // false) != true or ($CUT[$b.step_id | tostring] // false))),
    causes: ($a.host_causes // {}),
    labels: (if $a == null then ["insufficient_evidence"]
	else ($a.labels // $a.candidate_labels // ["insufficient_evidence"]) end),
    cov: ($a.host_visible_coverage_ratio // null),
    sync: ($a.sync_marker_overlap_ratio // null),
    comm: ($a.comm_marker_overlap_ratio // null),
    par: ($a.host_parallelism // null),
    evidence: ($a.evidence // null),
    hostev: ($a.host_evidence // false),
    # Time any host event of any depth covers, none covers, and the
    # host blocked in a serialisation point; each family's call chain.
    hany: ($a.host_any_ns // null),
    untr: ($a.untraced_ns // null),
    # time a loop frame (holding the whole step) covers with no child
    # event there: that frame's own code, not untraced
    fself: ($a.frame_self_ns // 0),
    fselfname: ($a.frame_self // null),
    # device tasks that are no kernels (input copies, event waits) in it
    dtns: ($a.device_task_ns // null),
    dtasks: ($a.device_tasks // []),
    swait: ($a.serial_wait_ns // 0),
    chains: ($a.host_chains // []),
    # the host's top calls in it and the kernels they launch
    roots: ($a.host_roots // []),
    top_host_op: ($a.top_host_op // null)
  } ] as $WIN |

# GC is recorded only when the profiler was asked to (torch_npu:
# profiler_info _gc_detect_threshold), or when a GC event says so; else
# its time is unknown, not zero.
($P.config.gc_detect_threshold // null) as $gcth |
(if ($gcth | type) == "number" then {recorded: true, from: "profiler_info _gc_detect_threshold \($gcth)"}
 elif any($WIN[]; (.causes.gc // 0) > 0) then {recorded: true, from: "GC events in the capture"}
 elif ($P.framework // "") == "torch_npu" then {recorded: false, from: "profiler_info _gc_detect_threshold is \(if ($P.config // {}) | has("gc_detect_threshold") then "null" else "absent" end): torch_npu records no GC events"}
 else {recorded: false, from: "no GC event in the capture, and nothing in it says whether GC was recorded"} end) as $GC |
def gcnull: if $GC.recorded or (has("gc") | not) then . else .gc = null end;

# Windows and torch_npu rows by step and by group: joins by key, not scans
# (a capture may have tens of thousands of steps).
(reduce $WIN[] as $w ({}; .[$w.step_id | tostring] += [$w])) as $WBS |
(reduce $WIN[] as $w ({}; .[$w.group_id // "null"] += [$w])) as $WBG |
(.step_trace_by_step // {}) as $STBY |

# Windows that may speak about the host: inside steps, not at an edge.
def hostwins: map(select(.boundary | not) | select(.scope != "global"));
def labelled($l): map(select(.labels | index([$l]) != null));
def dursum: map(.dur_ns) | add // 0;

# Periodicity (seed Phase 9): a bubble's position in its step is its scope,
# its rank among the step's gaps of that scope (the n of its bubble_id)
# and the kernels before and after it: the same place in steps that run
# the same kernels.  A position recurs when at least verdict.recurring_min_steps steps and
# bubbles.recurring_step_share of the group's steps hold it.  Its period is
# the mean distance between its first bubble in consecutive steps holding
# it.  Input: the group's significant windows; $g: the group.
def periodicity($g):
  (reduce $g.steps[] as $s ({}; .[$s.step_id | tostring] = $s.start_ns)) as $st |
  if $g.n < $R.verdict.recurring_min_steps then
    {assessable: false, steps: $g.n, min_steps: $R.verdict.recurring_min_steps, recurring: []}
  else
    map(select(.scope != "global") | . + {pos: "\(.scope)\u0001\(.bubble_id | split(":")[-1])\u0001\(.before.name // "")\u0001\(.after.name // "")"}) |
    group_by(.pos) |
    map(. as $p | ($p | group_by(.step_id | tostring) | map(min_by(.start_ns).start_ns) | sort) as $first |
      ($first | length) as $ns |
      { scope: $p[0].scope, before: ($p[0].before.name // null), after: ($p[0].after.name // null),
	steps_with: $ns, bubbles: ($p | length),
	offset_ms: ($p | map(.start_ns - ($st[.step_id | tostring] // .start_ns) | ms) | {min: min, max: max}),
	duration_ms: ($p | map(.dur_ns | ms) | {avg: avg, min: min, max: max}),
	period_ms: (if $ns > 1 then (($first[-1] - $first[0]) / ($ns - 1) | ms) else null end),
	idle_ms_per_step: ($p | dursum / $g.n | ms),
	recurs: ($ns >= $R.verdict.recurring_min_steps and $ns >= $B.recurring_step_share * $g.n) }) as $pos |
    ($pos | map(select(.recurs))) as $rec |
    ($pos | map(select(.recurs | not))) as $iso |
    {assessable: true, steps: $g.n, min_steps: $R.verdict.recurring_min_steps,
     min_step_share: $B.recurring_step_share,
     positions: ($pos | length),
     recurring_positions: ($rec | length),
     recurring_idle_ms_per_step: ($rec | map(.idle_ms_per_step) | add // 0 | r6),
     isolated_positions: ($iso | length),
     isolated_idle_ms_per_step: ($iso | map(.idle_ms_per_step) | add // 0 | r6),
     recurring: ($rec | sort_by(-.idle_ms_per_step) | .[0:$B.top_n] | map(del(.recurs)))}
  end;

# Evidence gaps: the fixed code list of the schema.
([ "no_trace_view", "no_step_markers", "no_host_events", "no_shapes",
   "no_stacks", "no_communication_json", "no_pmu", "level0",
   "db_export_only", "rows_rejected", "no_kernel_table", "pseudo_step",
   "step_id_windows", "unsorted_input", "file_unusable", "counts_mismatch",
   "few_steps", "no_comm_records", "no_comm_tasks", "kernels_outside_trace" ]) as $codes |
# Is there communication at all (comm kernels or torch_npu's comm time)?
(any($M[]; (.comm_exposed_ns // 0) + (.comm_overlapped_ns // 0) > 0) or
 any($ST0[]; (.comm_ns // 0) > 0)) as $hascomm |
((($P.degraded // []) |
   # comm records from SQLite stand for communication.json
   # and a capture without communication needs no comm file.
   map(select(. != "no_communication_json" or (($C | length) == 0 and $hascomm)))) +
  (if any($M[]; .window_source == "pseudo") then ["pseudo_step", "no_step_markers"] else [] end) +
  (if any($M[]; .window_source == "step_id_column") then ["step_id_windows", "no_step_markers"] else [] end) +
  (if any($W[]; .code == "kernels_unsorted") then ["unsorted_input"] else [] end) +
  (if any($W[]; .code == "counts_mismatch") then ["counts_mismatch"] else [] end) +
  (if ($C | length) == 0 and $hascomm then ["no_comm_records"] else [] end) +
  # profiler_info says stacks were off: no host cause can reach a source
  # line, even from a trace_view.json recovered later
  (if $P.config.with_stack == false then ["no_stacks"] else [] end)
  | map(select(. as $c | $codes | index([$c]) != null)) | uniq) as $gaps0 |

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
  ($hw | map(.hany // 0) | add // 0) as $covered |
  ($hw | map(select(.attributed and .hostev) | .untr // 0) | add // 0) as $untraced |
  ($hw | map(select(.attributed and .hostev))) as $hwa |
  ($hwa | map(.fself) | add // 0) as $fself |
  ($hw | map(.dtns // 0) | add // 0) as $dtns |
  ($hw | map(.swait) | add // 0) as $swait |
  (($hw | labelled("possible_comm_wait") | dursum) + ($hw | labelled("possible_sync_or_h2d") | map(select(.labels | index(["possible_comm_wait"]) == null)) | dursum)) as $commsync |
  ($uf >= $B.high_underfeed_ratio) as $high |
  # A pattern needs at least verdict.recurring_min_steps steps.
  ($g.n >= $R.verdict.recurring_min_steps and ($withsig / $g.n) >= $B.recurring_step_share) as $rec |
  # Where the step's time goes, averaged over the group (ns).
  ({ compute: ($g.steps | map(.compute_ns) | navg),
     comm_exposed: ($g.steps | map(.comm_exposed_ns) | navg),
     comm_overlapped: ($g.steps | map(.comm_overlapped_ns) | navg),
     free: ($g.steps | map(.internal_bubble_total_ns) | navg),
     preparing: ($g.steps | map(.prelaunch_gap_ns) | navg),
     tail: ($g.steps | map(.tail_gap_ns) | navg) }) as $bd |
  (($bd.comm_exposed // 0) >= $B.comm_exposed_min_ms * 1000000 and
   ($bd.comm_exposed // 0) >= $B.comm_exposed_service_share * $svc) as $commheavy |
  # Host time by family in the host-facing windows, per step.
  (reduce ($hw[] | .causes | to_entries[]) as $e ({}; .[$e.key] += $e.value)) as $causes |
  ({prelaunch: ((if ($pre | length) > 0 then ($pre | avg) else 0 end)),
    tail: ((if ($tail | length) > 0 then ($tail | avg) else 0 end)),
    internal_bubble: $int}) as $parts |
  ($parts | to_entries | sort_by(-.value)) as $ord |
  (if $ord[0].value < ([10000, 0.01 * $svc] | max) then "none"
   elif ($ord[0].key == "prelaunch" and $parts.tail >= $ord[0].value / 2) or
	($ord[0].key == "tail" and $parts.prelaunch >= $ord[0].value / 2) then "inter_step"
   elif $ord[1].value >= 0.8 * $ord[0].value then "mixed"
   else $ord[0].key end) as $pattern |
  ([ (if $commheavy then "COMM_EXPOSED_HEAVY" else empty end),
     (if $rec then "RECURRING_BUBBLE_PATTERN" else empty end),
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
    # a percentile only where it can vary (groups of >= 5 steps)
    # (left out of the output for smaller groups: step_group_anomalies)
    largest_internal_bubble_ms_p95: (if $g.n >= $R.verdict.percentile_min_steps then ($g.steps | map(.largest_internal_bubble_ns) | pct(95) | ms) else null end),
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
    median_kernels: ($g.steps | map(.kernels) | median),
    breakdown_ms_avg: ($bd | map_values(if . == null then null else ms end)),
    breakdown_share: ($bd | map_values(if . == null then null else share(.; $svc) end)),
    host_bubble_ms_per_step: ($hwt / $g.n | ms),
    host_causes_ms_per_step: ($causes | map_values(. / $g.n | ms) | gcnull),
    untraced_ms_per_step: ($untraced / $g.n | ms),
    frame_self_ms_per_step: ($fself / $g.n | ms),
    frame_self_share: share($fself; $hwt),
    frame_self: (if $fself > 0 then $hwa | max_by(.fself) | .fselfname else null end),
    # Device tasks the kernel table leaves out, inside the idle windows:
    # still idle in every figure (as in torch_npu), said beside them.
    device_task_ms_per_step: ($dtns / $g.n | ms),
    device_task_names: ($hw | map(.dtasks[].name) | unique),
    serial_wait_ms_per_step: ($swait / $g.n | ms),
    # Per family, the chain of the window where the family has most time.
    host_cause_chains: ([ $hw[] | . as $w | .chains[] | . + {bubble_id: $w.bubble_id, window_ms: $w.duration_ms} ]
      | group_by(.family) | map(max_by(.ns) | {family, bubble_id, window_ms, ms: (.ns | ms), chain, frame, overlap_ms: (.overlap_ns | ms), call_ms: (.call_ns | ms), copy_start_ms: (.copy_start_ns | ms), to_device: .to_device,
        copy_after_ms: (if .copy_start_ns == null or .call_ns == null then null else (.call_ns - .copy_start_ns | ms) end)})
      | sort_by(-.ms)),
    comm_exposed_heavy: $commheavy,
    recurring_assessable: ($g.n >= $R.verdict.recurring_min_steps),
    bubble_periodicity: ($WBG[$g.id // "null"] // [] | periodicity($g))
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
     (if $m.breakdown_source == "step_trace" and ($m.comm_exposed_ns // 0) >= $B.comm_exposed_min_ms * 1000000 and
	 ($m.comm_exposed_ns // 0) >= $B.comm_exposed_service_share * $m.service_ns then "COMM_EXPOSED_HEAVY" else empty end),
     (if $medk > 0 and $m.kernels < $B.partial_step_kernel_share * $medk then "PARTIAL_CAPTURE_BOUNDARY" else empty end),
     (if $aicpusteps[$m.step_id | tostring] then "AICPU_EXPOSED_RISK" else empty end)
   ]) as $extra |
  ($STBY[$m.step_id // "" | tostring] // null) as $t |
  {
    step_id: ($m.step_id | tostring),
    group_id: $m.group_id,
    window_source: $m.window_source,
    breakdown_source: $m.breakdown_source,
    service_ms: ($m.service_ns | ms),
    compute_ms: ($m.compute_ns | ms),
    comm_exposed_ms: ($m.comm_exposed_ns | ms),
    comm_overlapped_ms: ($m.comm_overlapped_ns | ms),
    free_ms: ($m.internal_bubble_total_ns | ms),
    preparing_ms: ($m.prelaunch_gap_ns | ms),
    tail_ms: ($m.tail_gap_ns | ms),
    device_busy_union_ms: ($m.device_busy_union_ns | ms),
    underfeed_ms: ($m.underfeed_ns | ms),
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
      overlapped_ms: ($t.overlapped_ns | ms),
      stage_ms: ($t.stage_ns | ms),
      bubble_ms: ($t.bubble_ns | ms),
      busy_ms: (if $t.computing_ns != null and $t.comm_not_overlapped_ns != null
	then ($t.computing_ns + $t.comm_not_overlapped_ns | ms) else null end),
      prelaunch_minus_preparing_us: (if $m.prelaunch_gap_ns != null and $t.preparing_ns != null
	then (($m.prelaunch_gap_ns - $t.preparing_ns) / 1000 | r6) else null end),
      compute_minus_computing_us: (if $m.compute_ns != null and $t.computing_ns != null
	then (($m.compute_ns - $t.computing_ns) / 1000 | r6) else null end),
      comm_exposed_minus_not_overlapped_us: (if $m.comm_exposed_ns != null and $t.comm_not_overlapped_ns != null
	then (($m.comm_exposed_ns - $t.comm_not_overlapped_ns) / 1000 | r6) else null end),
      comm_overlapped_minus_overlapped_us: (if $m.comm_overlapped_ns != null and $t.overlapped_ns != null
	then (($m.comm_overlapped_ns - $t.overlapped_ns) / 1000 | r6) else null end),
      internal_minus_free_us: (if $t.free_ns != null
	then (($m.internal_bubble_total_ns - $t.free_ns) / 1000 | r6) else null end),
      busy_union_minus_busy_us: (if $t.computing_ns != null and $t.comm_not_overlapped_ns != null
	then (($m.device_busy_union_ns - $t.computing_ns - $t.comm_not_overlapped_ns) / 1000 | r6) else null end)
    } end)
  })) as $steps |

# The dominant group decides; evidence gaps that need it.
($gaps0 + (if $DG != null and $DG.group_size < $R.verdict.recurring_min_steps then ["few_steps"] else [] end)
 | uniq) as $gaps |
def gap($c): $gaps | index([$c]) != null;
# Host data present at all (no trace: the host side was not assessed).
((.profile[0].counts.host // 0) > 0) as $hosted |

# Hidden issue when underfeed is high, a gap is heavy, or
# communication is heavily exposed.
($DG != null and (($DG.high_underfeed) or $DG.comm_exposed_heavy or
  ($steps | map(select(.group_id == $dom) | .anomaly_tags[]) |
   (index(["INTERNAL_BUBBLE_HEAVY"]) != null or index(["PRELAUNCH_GAP_HEAVY"]) != null or
    index(["TAIL_GAP_HEAVY"]) != null)))) as $hidden |
($DG.dominant_anomaly_tags // []) as $dtags |
# Without host events the risk is not assessed: null, not "low".
(if ($hosted | not) then null
 elif $DG == null or (($hidden | not) and ($DG.high_underfeed | not)) then "low"
 elif ($dtags | index(["HOST_ORIGINATED_RISK"])) != null then "high"
 elif ($DG.comm_sync_share // 0) >= $B.evidence_time_share then "high"
 elif ($dtags | index(["UNTRACED_HOST_BLOCKING_RISK"])) != null then "medium"
 elif ($DG.host_covered_share // 0) >= 0.2 or ($DG.untraced_share // 0) >= 0.2 then "medium"
 else "low" end) as $hostrisk |

# The comm records per op family and group (instance suffixes
# stripped: hcom_allReduce__586_0_1 is hcom_allReduce), with the
# wait / transit / idle split and bandwidth per transport.
($R.comm) as $CR |
# Transit, wait and idle are the file's own (Transit Time, Wait Time, Idle
# Time; idle what remains when the file has none).  link_time_ms is apart:
# the transfer time of its links summed per transport (HCCS, PCIE, SIO,
# RDMA; SDMA only without them, as it repeats their sum), which is not
# wall time (some exports write Transit Time 0 beside megabytes moved).
([ $C[] | select(.op != null) |
   ((.bandwidth // {}) | ((.HCCS.time_ms // 0) + (.PCIE.time_ms // 0) + (.SIO.time_ms // 0)) as $on |
      (if $on > 0 then $on else (.SDMA.time_ms // 0) end) + (.RDMA.time_ms // 0)) as $lt |
   . + {transit_ms: (.transit_ms // 0), link_time_ms: $lt,
	bandwidth: ((.bandwidth // {}) | if ((.HCCS.size_mb // 0) + (.PCIE.size_mb // 0) + (.SIO.size_mb // 0)) > 0 then del(.SDMA) else . end),
	idle_ms: (.idle_ms // ([((.elapse_ms // 0) - (.transit_ms // 0) - (.wait_ms // 0)), 0] | max))} ]
 | group_by([.kind, (.op | sub("__?[0-9_]+$"; "")), .group]) | map(
   (.[0].op | sub("__?[0-9_]+$"; "")) as $key |
   (map(.elapse_ms // 0) | add) as $el |
   (map(.transit_ms // 0) | add) as $tr |
   (map(.link_time_ms // 0) | add) as $lt |
   (map(.wait_ms // 0) | add) as $wa |
   (map(.sync_ms // 0) | add) as $sy |
   (map(.idle_ms // 0) | add) as $id |
   (if $wa + $tr > 0 then $wa / ($wa + $tr) | r6 else null end) as $wr |
   ([ .[] | .bandwidth // {} | to_entries[] ] | group_by(.key) | map(
      (map(.value.size_mb // 0) | add) as $mb | (map(.value.time_ms // 0) | add) as $t |
      select($mb > 0) |
      { key: .[0].key, value: { size_mb: ($mb | r6), time_ms: ($t | r6),
	bandwidth_gbps: (if $t > 0 then $mb / $t | r6 else null end) } }) | from_entries) as $bw |
   # Transports below their floor, judged only on transfers large
   # enough to reach line rate.
   ([ $bw | to_entries[] | select(.value.size_mb >= $CR.bandwidth_min_size_mb and
	.value.bandwidth_gbps != null and ($CR.bandwidth_low_gbps[.key] // null) != null and
	.value.bandwidth_gbps < $CR.bandwidth_low_gbps[.key]) | .key ]) as $slow |
   { op: $key, kind: .[0].kind, group: .[0].group, calls: length,
     ops: (map(.op) | uniq | .[0:5]),
     elapse_ms: ($el | r6), transit_ms: ($tr | r6), link_time_ms: ($lt | r6), wait_ms: ($wa | r6),
     sync_ms: ($sy | r6), idle_ms: ($id | r6), wait_ratio: $wr,
     bandwidth: $bw, slow_transports: $slow,
     tags: ([ (if $wr != null and $wr >= $CR.wait_dominant_ratio then "COMM_WAIT_DOMINANT" else empty end),
	      (if ($slow | length) > 0 and ($wr == null or $wr < $CR.wait_dominant_ratio) then "COMM_BANDWIDTH_LOW" else empty end) ]) }
 ) | sort_by(-.elapse_ms)) as $COPS |
([ $C[] | .step ] | uniq | length | if . == 0 then 1 else . end) as $csteps |
(if ($C | length) == 0 then null else {
   # The file and table the comm records come from: "communication.json",
   # "analysis.db CommAnalyzerTime".
   source: ($C[0].src | tostring | if test("\\.db:") then split(":") | .[0:2] | join(" ") else "communication.json" end),
   records: ($C | length),
   steps: $csteps,
   elapse_ms: ($COPS | map(.elapse_ms) | add | r6),
   transit_ms: ($COPS | map(.transit_ms) | add | r6),
   link_time_ms: ($COPS | map(.link_time_ms) | add | r6),
   wait_ms: ($COPS | map(.wait_ms) | add | r6),
   sync_ms: ($COPS | map(.sync_ms) | add | r6),
   idle_ms: ($COPS | map(.idle_ms) | add | r6),
   p2p_elapse_ms: ($COPS | map(select(.kind == "p2p") | .elapse_ms) | add // 0 | r6),
   p2p_wait_ms: ($COPS | map(select(.kind == "p2p") | .wait_ms) | add // 0 | r6),
   collective_elapse_ms: ($COPS | map(select(.kind == "collective") | .elapse_ms) | add // 0 | r6),
   # each send/recv op as the file gives it (the pipeline's, in order)
   p2p_ops: ([ $C[] | select(.kind == "p2p" and .op != null) ] | sort_by(.start_ns) |
     map({op, group, step, elapse_ms, wait_ms, transit_ms, idle_ms})),
   ops: $COPS
 } end) as $COMM |

# The split of each op's elapsed time from its HCCL tasks (asc-comm:
# comm_op per op instance, comm_peer per step, group and peer, comm_group),
# per step; communication.json's own wait / transit only beside it.
# The groups, their size and role (asc-comm's comm_group), longest first.
((.comm_group // []) | map(del(.type, .profile)) | sort_by(-(.elapsed_ns // 0))) as $CGR |
(.comm_op // []) as $CO |
# Without HCCL tasks (Level0): each op's wait measured by the device's
# Notify Wait tasks (asc-comm's comm_op_wait); the peer is not in them.
(.comm_op_wait // []) as $OWT |
# the ranks of the input's profiles (asc-analyze -I), [] when not given
(.input_ranks // []) as $INR |
(if ($CO | length) == 0 then null else
   ([ $CO[] | .step ] | uniq | length | if . == 0 then 1 else . end) as $ts |
   def per: add // 0 | . / $ts | ms;
   ($CO | map(select(.comm_json != null))) as $CJ |
   { source: $CO[0].src, ops: ($CO | length), steps: $ts,
     elapsed_ms: ($CO | map(.elapsed_ns) | per),
     exposed_ms: ($CO | map(.exposed_ns) | per),
     transfer_ms: ($CO | map(.transfer_ns) | per),
     wait_ms: ($CO | map(.wait_ns) | per),
     exposed_wait_ms: ($CO | map(.exposed_wait_ns) | per),
     rest_ms: ($CO | map(.rest_ns) | per),
     transfer_bytes: ($CO | map(.transfer_bytes) | add // 0),
     peers: ((.comm_peer // []) | group_by([.group, .rank]) | map({
	group: .[0].group, rank: .[0].rank, global_rank: .[0].global_rank, group_size: .[0].group_size,
	in_input: .[0].in_input, ops: (map(.ops) | add),
	wait_ms: (map(.wait_ns) | per), exposed_wait_ms: (map(.exposed_wait_ns) | per),
	own_wait_ms: (map(.own_wait_ns // 0) | per), own_exposed_wait_ms: (map(.own_exposed_wait_ns // 0) | per) })
       | sort_by(-.own_exposed_wait_ms, -.exposed_wait_ms)),
     groups: ((.comm_group // []) | map(del(.type, .profile))),
     comm_json_wait_ms: (if ($CJ | length) == 0 then null else $CJ | map(.comm_json.wait_ns // 0) | per end),
     comm_json_transit_ms: (if ($CJ | length) == 0 then null else $CJ | map(.comm_json.transit_ns // 0) | per end) }
 end) as $CT |
# The waits on the other peers of $lr's group that fixing $lr leaves: in
# each op a peer's own wait not under compute, at most the wait on $lr
# there, summed, per step, by rank (ms); asc-cluster(1) says the same.
def undercap($lr; $grp):
	reduce ($CO[] | select(.group == $grp) |
	  ([.peers[]? | select(.rank == $lr) | .exposed_wait_ns // 0] | add // 0) as $lw |
	  .peers[]? | select(.rank != null and .rank != $lr) |
	  {r: (.rank | tostring), v: ([$lw, (.own_exposed_wait_ns // 0)] | min)}) as $x ({}; .[$x.r] += $x.v) |
	to_entries | map({rank: (.key | tonumber), ms: (.value / ([$CT.steps, 1] | max) | ms)}) | sort_by(-.ms, .rank);

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
# Confidence (asc-judge(1)): 3 points less each reason's weight; high
# from 2.5, medium from 1.5, else low.  Few steps, host times inflated by
# the capture's options and missing evidence each lower it.
(["with_stack", "record_shapes", "profile_memory"] | map(select($P.config[.] == true))) as $INFL0 |
([ (if ($M | length) == 0 then {reason: "no_steps", weight: 2} else empty end),
   (if gap("no_step_markers") or gap("pseudo_step") then {reason: "no_step_markers", weight: 1} else empty end),
   (if gap("few_steps") then {reason: "few_steps", weight: 1} else empty end),
   (if gap("no_trace_view") or gap("no_host_events") then {reason: "no_host_events", weight: 1}
    elif ($INFL0 | length) > 0 then {reason: "host_time_inflated", weight: 0.5} else empty end),
   (if gap("no_kernel_table") then {reason: "no_kernel_table", weight: 1} else empty end),
   (if gap("level0") then {reason: "level0", weight: 0.5} else empty end),
   (if gap("no_comm_records") or gap("no_communication_json") then {reason: "no_comm_records", weight: 0.5} else empty end),
   (if gap("no_comm_tasks") then {reason: "no_comm_tasks", weight: 0.5} else empty end),
   (if gap("no_stacks") then {reason: "no_stacks", weight: 0.5} else empty end),
   (if gap("rows_rejected") then {reason: "rows_rejected", weight: 0.5} else empty end),
   (if gap("counts_mismatch") then {reason: "counts_mismatch", weight: 1} else empty end),
   (if gap("kernels_outside_trace") then {reason: "kernels_outside_trace", weight: 2} else empty end),
   (if ($groups | length) > 1 and ($DG.group_size // 0) * 2 <= ($M | length) then {reason: "no_dominant_group", weight: 0.5} else empty end)
 ]) as $CONFWHY |
# at least 0: the reasons' weights can add up to more than the 3 points,
# and a score below nothing would claim a precision the reasons lack
([3 - ($CONFWHY | map(.weight) | add // 0), 0] | max) as $score |
(if $score >= 2.5 then "high" elif $score >= 1.5 then "medium" else "low" end) as $confidence |

# Recommendations: each carries the time at stake per step of its
# group and they are ranked by it; P0 is the largest share of the step.
# How a figure compares with another: "1.2 ms less than", "the same as".
# The groups' roles and times per step, as one clause.
def roleclause($n): map(select((.ops // 0) > 0)) |
	if length == 0 or all(.[]; .role == null) then ""
	else " By group role (" + (if .[0].role_from | test("no parallel_group_info") then "no parallel_group_info: groups by id" else "parallel_group_info and what each group does" end) + "), per step: " +
	  (map("\(.role // "group \(.group | tostring | .[0:8])…") (\(.size // "?") rank\(if .size == 1 then "" else "s" end)) \(.ops_kind) \(.elapsed_ms / $n | fmt)" +
	    (if .exposed_ms != null then ", \(.exposed_ms / $n | fmt) not under compute" else "" end) +
	    (if .size == 1 then ", moving nothing between ranks" else "" end)) | join("; ")) + "." end;
def rec($text; $scope; $target; $stake; $follow; $gap; $finding):
	{text: $text, scope: $scope, target_id: $target,
	 time_at_stake_ms: (if $stake == null then null else $stake | r6 end),
	 followup_required: $follow, evidence_gap: $gap, finding: $finding};
(($DG.service_ms_avg // 0)) as $svcms |
($DG.breakdown_ms_avg // {}) as $BD |
($DG.host_causes_ms_per_step // {}) as $HC |
($DG.host_bubble_ms_per_step // 0) as $HB |
($soft | map(select(.target_id == $dom)) | .[0] // null) as $top |
# The framework's own profiler options only where it has them.
(($P.framework // "") | IN("torch_npu", "MindSpore")) as $fw |
($P.config.schedule != null) as $scheduled |
# Per family: which share of the host-facing bubble time it explains.
($A.host_cause_order |
  map(. as $f | {family: $f, ms: ($HC[$f] // 0)}) |
  map(select($HB > 0 and .ms >= $R.verdict.host_cause_share * $HB))) as $FAM |
# Idle time some named family covers (every family but "other").
($A.host_cause_order |
  map($HC[.] // 0) | add) as $explained |
($A.host_cause_order |
  map(. as $f | {family: $f, ms: ($HC[$f] // 0)}) |
  map(select(.ms > 0 and ($HB <= 0 or .ms < $R.verdict.host_cause_share * $HB))) | sort_by(-.ms)) as $MINOR |
# Idle time worth advice: high underfeed, a heavy gap, or idle time of at
# least max(1 ms, verdict.idle_share of the step).
($DG != null and ($DG.high_underfeed or
  ((($BD.free // 0) + ($BD.preparing // 0) + ($BD.tail // 0)) >= ([1, $R.verdict.idle_share * $svcms] | max)) or
  ($steps | map(select(.group_id == $dom) | .anomaly_tags[]) |
   (index(["INTERNAL_BUBBLE_HEAVY"]) != null or index(["PRELAUNCH_GAP_HEAVY"]) != null or index(["TAIL_GAP_HEAVY"]) != null)))) as $idleheavy |
# With HCCL tasks the comm records are only a cross-check.
(if $CT != null then [] else $COMM.ops // [] end) as $COPS1 |
($COPS1 | map(select(.tags | index(["COMM_WAIT_DOMINANT"]) != null))) as $WAITOPS |
($COPS1 | map(select(.tags | index(["COMM_BANDWIDTH_LOW"]) != null))) as $SLOWOPS |
# Capture options that inflate host times, and the caveat every
# host-side conclusion then carries.
(["with_stack", "record_shapes", "profile_memory"] | map(select($P.config[.] == true))) as $INFL |
(if ($INFL | length) == 0 then ""
 else " Host times are inflated by \($INFL | join(", ")) (on in this capture, profiler_info): re-capture without them to size the host side." end) as $caveat |
# A family's chain where it has most time: outer op → aten op → runtime call.
def chaintext($f): ($DG.host_cause_chains // [] | map(select(.family == $f)) | .[0]) as $c |
	if $c == null or ($c.chain | length) == 0 then ""
	else " In \($c.bubble_id) (\($c.window_ms | fmt)) it holds \($c.ms | fmt); its longest call chain there: \($c.chain | join(" → "))" +
	  (if $c.frame != null then " at \($c.frame)" else "" end) +
	  (if $c.overlap_ms != null then ", whose last call overlaps the window \($c.overlap_ms | fmt)" else "" end) + "." end;
# The device side of a copy chain: when the copy's device task (linked
# to its memcpy call) starts inside the chain's deepest call, the time
# before it is host work (staging a pageable batch), not the transfer.
def copytext: ($DG.host_cause_chains // [] | map(select(.family == "h2d_copy")) | .[0]) as $c |
	if $c == null or $c.copy_start_ms == null or $c.call_ms == null then ""
	else ($c.chain | last) as $call | $c.copy_after_ms as $rest |
	  " The copy's device transfer (the task its memcpy call is linked to) starts \($c.copy_start_ms | fmt) into the \($c.call_ms | fmt) of \($call), which returns \($rest | fmt) after that: " +
	  (if $c.copy_start_ms * 2 >= $c.call_ms then
	     "the host waits \($c.copy_start_ms | fmt) before the transfer even starts (most likely staging a pageable batch on the host), and at most \($rest | fmt) is the transfer itself: pinned memory removes that wait."
	   else "most of the call is the transfer itself; non_blocking=True lets it overlap." end) end;
# Why a capture has no HCCL tasks: Level0 collects none; at Level1 and
# above they are in trace_view.json (or the SQLite export).
(($P.config.level // "") | test("level0"; "i")) as $LEVEL0 |
(if $LEVEL0 then "a Level0 capture collects none"
 elif (($P.degraded // []) | index(["no_trace_view"])) != null then
   "trace_view.json, which holds them" + (if ($P.config.level // null) != null then " at \($P.config.level)" else "" end) + ", is not in this copy"
 else "none in trace_view.json or the SQLite export" end) as $NOTASKS |
# A pp group's stages compared, from its send/recv ops in the first step
# (comm records' start and elapse).  From the end of one op to the end of
# the next, the peer stage took this rank's data and answered: when this
# stage waited in the later op (its elapse at least a tenth of that
# span), the span is the peer's time for one micro-batch (its forward and
# backward on a first / last stage pair).  This stage's own time per
# micro-batch: its time outside the ops from the step's start to the
# first op of another multi-rank group after the last send/recv, over
# the number of spans; unknown without the step's start (kernel table).
# Stages are imbalanced when one side's time per micro-batch is at least
# 10% above the other's.  A once-per-step part (asc-parts: gradient sync,
# gradient clipping, optimizer) that begins after the last op and before
# that next op ends the last stretch: its kernels and idle are the step's,
# not a micro-batch's.
(.part // []) as $PTS0 |
def ppstage($g):
	($C | map(select(.group == $g.group and .kind == "p2p" and .start_ns != null and .elapse_ms != null)) |
	  group_by(.step) | .[0] // [] | sort_by(.start_ns) |
	  map({op, step, start_ns, end_ns: (.start_ns + (.elapse_ms * 1000000 | round)), elapse_ms})) as $o |
	if ($o | length) < 2 then null else
	($o[0].step) as $st |
	([ $CGR[] | select((.size // 0) > 1 and .group != $g.group) | .group ]) as $multi |
	([ $C[] | select(.step == $st and .start_ns != null and .start_ns >= $o[-1].end_ns and
	    (.group as $x | $multi | index([$x]) != null)) ] | min_by(.start_ns) // null) as $next |
	($M | map(select((.step_id | tostring) == ($st | tostring) and .start_ns != null and .window_source != "step_trace")) | .[0].start_ns // null) as $s0 |
	[ range(1; $o | length) | {ms: (($o[.].end_ns - $o[. - 1].end_ns) / 1000000 | r6), waited: ($o[.].elapse_ms >= 0.1 * ($o[.].end_ns - $o[. - 1].end_ns) / 1000000)} ] as $turn |
	([ range(1; $o | length) | ($o[.].start_ns - $o[. - 1].end_ns) / 1000000 | r6 ]) as $between |
	(if $next == null then null else ($next.start_ns - $o[-1].end_ns) / 1000000 | r6 end) as $after |
	(if $next == null then null else
	   $PTS0 | map(select((.step_id | tostring) == ($st | tostring) and (.kind | IN("gradient_sync", "gradient_clipping", "optimizer")) and
	     .start_ns != null and .start_ns >= $o[-1].end_ns and .start_ns < $next.start_ns)) | min_by(.start_ns) // null end) as $cut |
	(if $cut == null then null else
	   ($PTS0 | map(select((.step_id | tostring) == ($st | tostring) and .start_ns >= $o[-1].end_ns and .end_ns <= $cut.start_ns) | .busy_union_ns) | add // 0) end) as $cutbusy |
	(if $cut == null then $after else ($cut.start_ns - $o[-1].end_ns) / 1000000 | r6 end) as $aftermb |
	(if $s0 == null then null else ($o[0].start_ns - $s0) / 1000000 | r6 end) as $before |
	($turn | map(select(.waited) | .ms)) as $pt |
	# Without the step's start the first forward is taken as long as the
	# stretch after the first op (the next forward), said as an estimate.
	(if $after == null then null elif $before != null then $before
	 elif ($between | length) > 0 then $between[0] else null end) as $first |
	(if $first == null then null else (($first + ($between | add) + $aftermb) / ($turn | length) | r6) end) as $here |
	# Of it, the device's idle (asc-comm's comm_pipeline, from the
	# kernels): the same stretches, the last one up to the same next op.
	($CP0 | map(select(.group == $g.group and (.step | tostring) == ($st | tostring))) | .[0] // null) as $cp |
	(if $here == null or $before == null or $cp == null or $cp.to_next_op == null or
	    $cp.to_next_op.before != ($next.op // null) then null
	 else ([$cp.segments[] | select(.before != null)] + [$cp.to_next_op] | map(.idle_ns)) end) as $idles |
	# the last stretch's idle up to the cut: its wall less its parts' busy
	(if $idles == null or $cut == null then null else $cut.start_ns - $o[-1].end_ns - $cutbusy end) as $cutidle |
	(if $idles == null then null elif $cutidle == null then $idles else $idles[:-1] + [$cutidle] end) as $mbidles |
	# 1F1B with batched send/recv: m + p - 1 ops per step on a stage.
	($g.size // null) as $p |
	(if $p == null or $p < 2 then null else ($o | length) - $p + 1 end) as $m |
	(if ($pt | length) == 0 then null else ($pt | add / length | r6) end) as $peer |
	{ group: $g.group, step: $st, ops: ($o | map(.op)), spans_ms: ($turn | map(.ms)), peer_ms: $peer,
	  before_ms: $before, between_ms: $between, after_ms: $after, next_op: ($next.op // null), here_ms: $here,
	  # the last stretch as counted per micro-batch, and the once-per-step
	  # part that ends it (null: it runs to next_op)
	  after_microbatch_ms: $aftermb, per_step_part: ($cut.name // null),
	  per_step_ms: (if $cut == null then null else ($next.start_ns - $cut.start_ns) / 1000000 | r6 end),
	  per_step_idle_ms: (if $cutidle == null then null else $idles[-1] - $cutidle | ms end),
	  here_estimated: ($before == null and $here != null), stages: $p,
	  here_idle_ms: (if $mbidles == null then null else ($mbidles | add) / ($turn | length) | ms end),
	  here_idle_stretches_ms: (if $idles == null then null else $idles | map(ms) end),
	  here_idle_microbatch_stretches_ms: (if $mbidles == null then null else $mbidles | map(ms) end),
	  microbatches: (if $m != null and $m >= 1 then $m else null end),
	  schedule_share: (if $m != null and $m >= 1 then ($p - 1) / ($m + $p - 1) | r6 else null end),
	  imbalance: (if $here == null or $peer == null then null
	    elif $peer >= 1.1 * $here then "peer" elif $here >= 1.1 * $peer then "here" else "none" end),
	  imbalance_ms_per_step: (if $here == null or $peer == null or $peer < 1.1 * $here then null
	    else (($peer - $here) * ($pt | length)) | r6 end),
	  slower_by_ratio: (if $here == null or $peer == null or $here == 0 or $peer == 0 then null
	    else ([$peer / $here, $here / $peer] | max) - 1 | r6 end),
	  # 1F1B with stage times t_i per micro-batch: the step's pipeline
	  # runs about sum t_i + (m - 1) max t_i; with the work moved so that
	  # every stage takes the mean, (m + p - 1) mean.  Only for p = 2,
	  # where both stages are known: the gain is (m - 1) |t_1 - t_0| / 2.
	  critical_path_ms: (if $p != 2 or $m == null or $m < 1 or $here == null or $peer == null then null
	    else $here + $peer + ($m - 1) * ([$here, $peer] | max) | r6 end),
	  mean_stage_ms: (if $p != 2 or $here == null or $peer == null then null
	    else ($here + $peer) / $p | r6 end),
	  balanced_path_ms: (if $p != 2 or $m == null or $m < 1 or $here == null or $peer == null then null
	    else ($m + $p - 1) * ($here + $peer) / $p | r6 end),
	  rebalance_ms_per_step: (if $p != 2 or $m == null or $m < 1 or $here == null or $peer == null then null
	    else ($m - 1) * (($peer - $here) | fabs) / 2 | r6 end) } end;
# Where the step's idle lies around a pp group's send/recv ops
# (asc-comm's comm_pipeline stretches, which need the kernel table): idle
# in a stretch that ends at an op is hidden under the peer stage's work up
# to that op's time, from the stretch's end to the next one's start (the
# peer kept this stage waiting there anyway); the rest of it, and all
# idle after the last op, is on the pipeline's critical path.  Per step:
# the mean over the group's steps.
($CP0 | map(select(.group as $x | $CGR | any(.group == $x and ((.role // "") | startswith("pp")))))) as $CPP |
(if ($CPP | length) == 0 then null else
   ($CPP | map(.group) | uniq | .[0]) as $pg |
   [ $CPP[] | select(.group == $pg) | .segments as $sv |
     # the op ending a stretch runs from its end to the next one's start
     [ range(0; $sv | length) as $i | $sv[$i] |
       (if .before == null or $i + 1 >= ($sv | length) then 0 else $sv[$i + 1].start_ns - .end_ns end) as $oe |
       . + {hidden_ns: ([.idle_ns, $oe] | min)} ] as $segs |
     {step, segments: $segs, hidden_ns: ($segs | map(.hidden_ns) | add), idle_ns: ($segs | map(.idle_ns) | add)} ] as $ps |
   ($ps | length) as $n |
   { group: $pg, step: $ps[0].step, segments: ($ps[0].segments | map({after, before, wall_ms, idle_ms, hidden_ms: (.hidden_ns | ms)})),
     idle_ms: ($ps | map(.idle_ns) | add / $n | ms),
     hidden_ms: ($ps | map(.hidden_ns) | add / $n | ms),
     critical_ms: ($ps | map(.idle_ns - .hidden_ns) | add / $n | ms) } end) as $PIPE |
# What a pp group's bubble calls for, by ppstage's comparison; $bms is
# the bubble per step (null where not known), split into the imbalance
# and the 1F1B schedule's own warm-up / flush, (p-1)/(m+p-1) of a step.
def ppsched($s; $bms):
	if $s.microbatches == null then "" else
	  ($s.stages - 1) as $q | ($s.microbatches * 4) as $m4 |
	  (if $bms == null then "" else
	     ([$bms - ($s.imbalance_ms_per_step // 0), 0] | max) as $own |
	     (if ($s.imbalance_ms_per_step // 0) == 0 then " All of the bubble, \($bms | fmt) per step,"
	      else " The rest of the bubble, \($own | fmt) per step of the \($bms | fmt)," end) +
	     " is the 1F1B schedule's own warm-up and flush:" end) +
	  (if $bms == null then " The 1F1B schedule's own warm-up and flush:" else "" end) +
	  " with p = \($s.stages) stages (parallel_group_info's pp group) and m = \($s.microbatches) micro-batches (\($s.ops | length) send/recv ops in the step, m + p - 1 under 1F1B) a stage idles \($q)/\($s.microbatches + $q) of an ideal step even with balanced stages; m = \($m4) would cut that to \($q)/\($m4 + $q)." end;
# What acting on a pp bubble's advice could win per step ($bms the
# bubble, $xms the data its ops move by the comm records' bandwidth
# table, which no schedule removes): the imbalance (were the slower peer
# stage as fast as this one) and, of the schedule's own share, what m x 4
# micro-batches of the same work would cut (that share scales with 1/m).
# Without the stages compared, the bubble less the transfer, at most.
def ppwin($s; $bms; $xms):
	([$bms - $xms, 0] | max) as $b |
	if $s == null or $s.microbatches == null then
	  {bubble_ms: ($bms | r6), imbalance_ms: null, schedule_ms: null, schedule_won_ms: null, schedule_left_ms: null, transfer_ms: ($xms | r6), microbatches_advised: null, won_ms: ($b | r6)}
	else
	  (if $s.imbalance == "peer" then [$s.imbalance_ms_per_step // 0, $b] | min else 0 end) as $i |
	  # The imbalance is won only were the peer stage as fast as this one;
	  # rebalancing (the advice) moves work here and wins what ppstage's
	  # critical path gives, within the imbalance.
	  (if $s.imbalance != "peer" then 0 elif $s.rebalance_ms_per_step == null then null
	   else [$s.rebalance_ms_per_step, $i] | min end) as $rb |
	  ($b - $i) as $own | ($s.microbatches * 4) as $m4 |
	  ($own * (1 - $s.microbatches / $m4)) as $swall |
	  # Only a micro-batch's compute shrinks with its size; its device
	  # idle (launches, host work per micro-batch) stays.  With this
	  # stage's split measured, the peer's taken as the same, that idle's
	  # share is not won here (the device-idle finding holds this stage's);
	  # else all of it, an upper bound.
	  (if $s.here_idle_ms != null and ($s.here_ms // 0) > 0 then ([1 - $s.here_idle_ms / $s.here_ms, 0] | max) else null end) as $f |
	  # That idle comes with every micro-batch: m x 4 of them add
	  # (m x 4 - m) x it per step, which the shrink must outweigh to be
	  # won; without the split, whether it does cannot be told.
	  (if $f == null then null else $swall * $f end) as $sw |
	  (if $f == null then null else ($m4 - $s.microbatches) * $s.here_idle_ms end) as $add |
	  (if $f == null or $sw - $add <= 0 then null else $sw - $add end) as $net |
	  {bubble_ms: ($bms | r6), imbalance_ms: ($i | r6), rebalance_ms: ($rb | if . == null then null else r6 end), schedule_ms: ($own | r6), schedule_won_ms: ($net | if . == null then null else r6 end), schedule_left_ms: ($own - ($net // 0) | r6), transfer_ms: ($xms | r6),
	   microbatches_advised: $m4, won_ms: (($rb // 0) + ($net // 0) | r6),
	   schedule_won_if_all_scales_ms: ($swall | r6), scaling_share: (if $f == null then null else $f | r6 end),
	   schedule_shrink_ms: (if $f == null then null else $sw | r6 end), schedule_idle_added_ms: (if $f == null then null else $add | r6 end),
	   schedule_net_ms: (if $f == null then null else $sw - $add | r6 end),
	   here_busy_ms: (if $f == null then null else $s.here_ms - $s.here_idle_ms | r6 end), here_idle_ms: $s.here_idle_ms, here_ms: $s.here_ms,
	   upper_bound: ($f == null), won_if_all_scales_ms: (($rb // 0) + $swall | r6),
	   stages: $s.stages, microbatches: $s.microbatches, peer_ms: $s.peer_ms,
	   critical_path_ms: $s.critical_path_ms, mean_stage_ms: $s.mean_stage_ms, balanced_path_ms: $s.balanced_path_ms} end;
# What rebalancing wins against what the imbalance is (its clause).
def pprebtext($w):
	(if $w.rebalance_ms == null then "rebalancing the stages, not counted: with p = \($w.stages) stages the others' times are not in this profile"
	 else "rebalancing the stages, about \($w.rebalance_ms | fmt) (1F1B, p = 2, m = \($w.microbatches): the step's pipeline runs about this stage's time per micro-batch plus m x the slower stage's, \($w.here_ms | fmt) + \($w.microbatches) x \($w.peer_ms | fmt) = \($w.critical_path_ms | fmt), and with the work moved so that both stages take their mean, \($w.mean_stage_ms | fmt), (m + p - 1) x the mean = \($w.balanced_path_ms | fmt))" end) +
	"; the imbalance's \($w.imbalance_ms | fmt) of the bubble is won only were the peer stage as fast as this one with no work moved here: an upper bound for making that stage faster (what profiling it would show), not for rebalancing";
# Its sentence.
def ppwintext($w):
	" At stake per step: \(if ($w.rebalance_ms // 0) > 0 then "about" else "at most" end) \($w.won_ms | fmt), what the advice could win" +
	(if $w.schedule_ms == null then " (the bubble less its transfer; which share rebalancing or more micro-batches would win cannot be told)"
	 elif $w.scaling_share == null then
	   ": " + (if $w.imbalance_ms > 0 then "an estimate, on this stage's time per micro-batch estimated (no kernel table): " + pprebtext($w) else "nothing of the bubble is counted" end) +
	   ". No part of the schedule's share less the transfer, \($w.schedule_ms | fmt), is counted for more micro-batches: only a micro-batch's compute shrinks with its size, its device idle comes with each micro-batch's launches, host work and waits, and m = \($w.microbatches_advised) micro-batches bring more of it; how much of a micro-batch idles cannot be told without this rank's kernel table, so whether more micro-batches win cannot be told"
	 else
	   ": " + (if $w.imbalance_ms > 0 then pprebtext($w) else "" end) +
	   (if $w.schedule_won_ms != null then
	      (if $w.imbalance_ms > 0 then ", and " else "" end) +
	      "\($w.schedule_won_ms | fmt) of the schedule's share less the transfer, \($w.schedule_ms | fmt): split into m = \($w.microbatches_advised) micro-batches, only the compute of a micro-batch shrinks with it (\($w.here_busy_ms | fmt) of this stage's \($w.here_ms | fmt) per micro-batch), so the warm-up and flush shrink by \($w.schedule_shrink_ms | fmt), less the device idle (\($w.here_idle_ms | fmt) per micro-batch, no kernel running) that the more micro-batches add, \($w.schedule_idle_added_ms | fmt), leaving \($w.schedule_left_ms | fmt) (the peer stage's split taken as this stage's: it is not in this profile)"
	    else
	      (if $w.imbalance_ms > 0 then "" else "nothing of the bubble now" end) +
	      ". Raising the micro-batch count does not win yet: split into m = \($w.microbatches_advised) micro-batches, only the compute of a micro-batch shrinks with it (\($w.here_busy_ms | fmt) of this stage's \($w.here_ms | fmt) per micro-batch), so the schedule's share less the transfer, \($w.schedule_ms | fmt), shrinks by \($w.schedule_shrink_ms | fmt), but the device idle of a micro-batch (\($w.here_idle_ms | fmt), no kernel running) comes with each micro-batch's launches, host work and waits rather than its size, and the more micro-batches add \($w.schedule_idle_added_ms | fmt) of it per step, more than the shrink. Remove that idle first (on this stage, the device-idle finding); after that, m = \($w.microbatches_advised) would win \($w.schedule_shrink_ms | fmt) of the schedule's share, not at stake now (the peer stage's split taken as this stage's: it is not in this profile)" end) end) +
	"; the \($w.transfer_ms | fmt) the send/recv moves data (the comm records' bandwidth table) stays." ;
# The advice to raise the micro-batch count, as ppwin($w) finds it pays.
def ppraise($w):
	if $w == null or $w.schedule_ms == null then "raise the micro-batch count"
	elif $w.scaling_share == null then "raise the micro-batch count only if this rank's kernel table shows it wins (below)"
	elif $w.schedule_won_ms == null then "remove this stage's device idle per micro-batch (the device-idle finding) before raising the micro-batch count (below)"
	else "raise the micro-batch count" end;
def ppadvice($g; $bms; $w):
	ppstage($g) as $s |
	(if ($g.peer_global_ranks // [] | length) == 1 then "global rank \($g.peer_global_ranks[0])" else "the peer stage" end) as $pn |
	if $s == null then " Shorten the bubble with more micro-batches, an interleaved schedule or balanced stages; one send/recv op does not show the peer stage's time, so which of them cannot be told."
	else
	  (if $s.peer_ms == null then " The send/recv ops end \($s.spans_ms | map(fmt) | join(" and ")) apart with this stage hardly waiting in them: those spans are this stage's own work, and \($pn) is not the slower stage"
	   else " From the end of one send/recv op to the end of the next, \($pn) answered in \($s.spans_ms | map(fmt) | join(" and ")) (this stage waiting in the later op): about \($s.peer_ms | fmt) per micro-batch on its stage" end) +
	  (if $s.here_ms == null then
	     "; this stage works \($s.between_ms | map(fmt) | join(", ")) between the ops" +
	     (if $s.after_ms != null then " and \($s.after_ms | fmt) from the last to \($s.next_op)" else "" end) +
	     ", but its time before the first op is unknown (no kernel table: the step's start is not in the comm records), so whether the stages are balanced cannot be told; the kernel table of this rank would tell."
	   elif $s.here_estimated then
	     "; from the op times alone, this stage works \($s.between_ms | map(fmt) | join(", ")) between the ops and \($s.after_ms | fmt) from the last to \($s.next_op) (with whatever once-per-step work, such as a gradient-norm check, runs before it: without the kernel table the model parts are not known); its first forward, before the first op, is not in the comm records (no kernel table), so taking it as long as the stretch after the first op (\($s.between_ms[0] | fmt)), its own time per micro-batch is about \($s.here_ms | fmt)"
	   else
	     "; this stage's own time per micro-batch is \($s.here_ms | fmt) (\($s.before_ms | fmt) before the first op, \($s.between_ms | map(fmt) | join(", ")) between the ops, " +
	     (if $s.per_step_part == null then "\($s.after_ms | fmt) from the last to \($s.next_op)"
	      else "\($s.after_microbatch_ms | fmt) from the last to the \($s.per_step_part) part" end) +
	     ", over \($s.spans_ms | length) micro-batches" +
	     (if $s.per_step_part == null then "" else "; the \($s.per_step_part) part (asc-parts) is once-per-step work, not a micro-batch's: its \($s.per_step_ms | fmt) before \($s.next_op) is left out" end) + ")" +
	     (if $s.here_idle_ms == null then "" else
		", of which the device idles \($s.here_idle_ms | fmt) per micro-batch (no kernel runs: \($s.here_idle_microbatch_stretches_ms | map(fmt) | join(", ")) in those stretches)" end) end) +
	  (if $s.here_ms == null then ""
	   elif $s.imbalance == "peer" then
		". The stages are imbalanced: \($pn)'s stage takes \($s.slower_by_ratio * 100 | round)% longer per micro-batch, about \($s.imbalance_ms_per_step | fmt) per step of the bubble. What takes its time (its layers, the output layer and loss, or host idle as on this stage) is not in this profile: profile \($pn) first to see it, then rebalance the stages and \(ppraise($w))." + ppsched($s; $bms)
	   elif $s.imbalance == "here" then ". This stage is the slower one (by \($s.slower_by_ratio * 100 | round)% per micro-batch): see what takes its time here (its idle and its kernels), then move layers off it and \(ppraise($w))." + ppsched($s; null)
	   elif $s.imbalance == "none" then ". The stages are balanced within 10%: the bubble is the schedule's own; \(ppraise($w)) or use an interleaved schedule." + ppsched($s; $bms)
	   else "." end) end;
def ppadvice($g; $bms): ppadvice($g; $bms; null);
# Pipeline send/recv per pp group of parallel_group_info: the peer stage
# by global rank, each op of the first step in order with the comm
# records' wait and idle, and the op that holds the longest of them.  No
# warm-up / flush label: which op is which depends on the schedule, not
# on the op's position.
def ppclause($n):
	[ $CGR[] | select((.role // "") | startswith("pp")) | . as $g |
	  ($C | map(select(.group == $g.group and .kind == "p2p")) | group_by(.step) | .[0] // [] | sort_by(.start_ns)) as $ops |
	  select(($ops | length) > 0) |
	  ($ops | max_by((.wait_ms // 0) + (.idle_ms // 0))) as $lo |
	  " Pipeline send/recv on group \($g.group) (\($g.role), \($g.size // "?") ranks" +
	  (if ($g.peer_global_ranks // null) != null then ", with global rank\(if ($g.peer_global_ranks | length) == 1 then "" else "s" end) \($g.peer_global_ranks | map(tostring) | join(", ")) by parallel_group_info, not in this profile" else "" end) +
	  "): \($ops | length) op\(if ($ops | length) == 1 then "" else "s" end) in step \($ops[0].step), " +
	  ($ops | map("\(.op) \(.elapse_ms | fmt) (wait \(.wait_ms // 0 | fmt), idle \(.idle_ms // 0 | fmt))") | join(", ")) +
	  (if ($ops | length) > 1 then "; the longest wait and idle is in \($lo.op)" else "" end) +
	  ". With a single peer, all of it is this stage waiting for " +
	  (if ($g.peer_global_ranks // [] | length) == 1 then "global rank \($g.peer_global_ranks[0])" else "its peer stage" end) +
	  " or exchanging with it: the pipeline bubble" +
	  (if ($WAITOPS | map(select(.wait_ms / $csteps >= ([0.1, 0.01 * $svcms] | max))) | .[0:3] | any(.group == $g.group and .kind == "p2p"))
	   then ", whose own finding compares the stages." else "." + ppadvice($g; null) end) ] | join("");
# The send/recv ops of a pp group with most waiting (COMM_WAIT_DOMINANT):
# their whole time, wait and idle of every op, is the pipeline bubble, at
# stake on its own and not again in the exposed-communication finding.
def ppgroup($grp): $CGR | map(select(.group == $grp and ((.role // "") | startswith("pp")))) | .[0] // null;
[ $WAITOPS | map(select(.wait_ms / $csteps >= ([0.1, 0.01 * $svcms] | max))) | .[0:3][] |
  select(.kind == "p2p" and ppgroup(.group) != null) |
  {op, group, ms: ([(.wait_ms + .idle_ms) / $csteps, ($BD.comm_exposed // 0)] | min)} ] as $PPW |
($PPW | map(.ms) | add // 0) as $PPST |
# Collectives on 1-rank groups: their time not under compute (all of it
# where that is not measured) is at stake in their own finding, when it
# has one, and not again in the exposed-communication finding.
([ $CGR[] | select(.size == 1 and (.elapsed_ms // 0) > 0) ] as $g1 |
 (($g1 | map(.elapsed_ms) | add // 0) / $csteps) as $e1 |
 if ($g1 | length) == 0 or $e1 < $B.comm_exposed_min_ms then 0
 else ($g1 | map(.exposed_ms // .elapsed_ms) | add) / $csteps end) as $ONEST |
# Data-parallel reduce-scatter / all-gather not under compute: overlap.
def dpclause($n):
	[ $CGR[] | select(((.role // "") | startswith("dp")) and (.ops_kind | test("reduce-scatter|all-gather"))) |
	  # step_trace_time.csv's Overlapped 0: no communication overlaps compute
	  if .exposed_ms == null and ($BD.comm_overlapped // null) == 0 and ($M | all(.window_source == "step_trace")) then " None of the \(.role) \(.ops_kind) (\(.elapsed_ms / $n | fmt) per step) overlaps compute (step_trace_time.csv: Overlapped 0): overlap it with the backward and forward (Megatron overlap_grad_reduce / overlap_param_gather, DDP buckets)."
	  elif .exposed_ms == null then " Whether the \(.role) \(.ops_kind) (\(.elapsed_ms / $n | fmt) per step) overlaps compute is unknown here (no kernel table)."
	  elif .exposed_ms >= 0.9 * .elapsed_ms then " The \(.role) \(.ops_kind) (\(.elapsed_ms / $n | fmt) per step, \(.exposed_ms / $n | fmt) not under compute) is not overlapped: overlap it with the backward and forward (Megatron overlap_grad_reduce / overlap_param_gather, DDP buckets)."
	  else "" end ] | join("");
# A collective group (not pp, not a dp reduce-scatter / all-gather) whose
# ops move data for at least 80% of their elapse by the comm records'
# bandwidth table is transfer-bound: at most the rest of the elapse can be
# a wait on a peer, so overlap is the advice, not profiling the peer.
def xferlist($n):
	[ $CGR[] | select((.size // 0) > 1 and ((.role // "") | startswith("pp") | not) and
	    ((((.role // "") | startswith("dp")) and (.ops_kind | test("reduce-scatter|all-gather"))) | not)) | . as $g |
	  [ $C[] | select(.group == $g.group and .op != null and .elapse_ms != null) |
	    ((.bandwidth // {}) | ((.HCCS.time_ms // 0) + (.PCIE.time_ms // 0) + (.SIO.time_ms // 0)) as $on |
	      (if $on > 0 then $on else (.SDMA.time_ms // 0) end) + (.RDMA.time_ms // 0)) as $lt |
	    ((.bandwidth // {}) | ((.HCCS.size_mb // 0) + (.PCIE.size_mb // 0) + (.SIO.size_mb // 0)) as $onm |
	      (if $onm > 0 then $onm else (.SDMA.size_mb // 0) end) + (.RDMA.size_mb // 0)) as $mb |
	    {el: .elapse_ms, lt: ([$lt, .elapse_ms] | min), mb: $mb} ] as $o |
	  ($o | map(.el) | add // 0) as $el | ($o | map(.lt) | add // 0) as $lt | ($o | map(.mb) | add // 0) as $mb |
	  select($el > 0 and $lt >= 0.8 * $el and $el / $n >= 1) |
	  {group: $g.group, role: $g.role, ops_kind: $g.ops_kind, peer_global_ranks: $g.peer_global_ranks, exposed_ms: $g.exposed_ms,
	   after_grad_ms: (if $g.after_grad_ms == null then null else $g.after_grad_ms / $n | r6 end),
	   after_grad_compute_ms: (if $g.after_grad_compute_ms == null then null else $g.after_grad_compute_ms / $n | r6 end),
	   mb: ($mb / $n | r6), transfer_ms: ($lt / $n | r6), elapsed_ms: ($el / $n | r6), gbps: ($mb / $lt | r6),
	   wait_at_most_ms: (($el - $lt) / $n | r6)} ];
def xferclause($n):
	[ xferlist($n)[] | . as $g | $g.mb as $mb | $g.transfer_ms as $lt | $g.elapsed_ms as $el |
	  (if ($g.peer_global_ranks // [] | length) > 0 then " on global rank\(if ($g.peer_global_ranks | length) == 1 then "" else "s" end) \($g.peer_global_ranks | map(tostring) | join(", "))" else " on a peer" end) as $on |
	  " The \($g.role // "group \($g.group)") \($g.ops_kind) moves \($mb | . * 100 | round / 100) MB in \($lt | fmt) of its \($el | fmt) per step by the comm records' bandwidth table (\($g.gbps | . * 100 | round / 100) GB/s): it is transfer-bound, so at most \($g.wait_at_most_ms | fmt) of it can be a wait\($on)" +
	  (if $g.exposed_ms != null then ", and \($g.exposed_ms / $n | fmt) of it is not under compute"
	   elif ($BD.comm_overlapped // null) == 0 and ($M | all(.window_source == "step_trace")) then ", and none of it overlaps compute (step_trace_time.csv: Overlapped 0)"
	   else "" end) +
	  # The embedding gradient computed last (a first stage): no backward
	  # left after it to hide the all-reduce under.
	  ([ $CGR[] | select(((.role // "") | startswith("dp")) and ((.ops_kind // "") | test("reduce-scatter"))) ] | .[0] // null) as $dp |
	  (if $g.after_grad_compute_ms != null and $g.after_grad_compute_ms < $el then
	     ": only \($g.after_grad_compute_ms | fmt) of compute per step runs between the embedding gradient (its last EmbeddingDenseBackward kernel) and it, \($g.after_grad_ms | fmt) later, so there is no backward left to hide it under on this stage; " +
	     (if $dp != null then "run it concurrently with the \($dp.role) reduce-scatter (a different group and peer) or " else "" end) +
	     "shrink it (an FP32 gradient reduced in BF16 moves half the \($mb | . * 100 | round / 100) MB); profiling the peer would not shorten it."
	   elif gap("no_kernel_table") then
	     ": whether any backward is left to hide it under after its gradients are ready cannot be told without the kernel table (on a first pipeline stage the embedding gradient is computed last); overlap it with that compute if there is some, else " +
	     (if $dp != null then "run it concurrently with the \($dp.role) reduce-scatter (a different group and peer) or " else "" end) +
	     "shrink it (reduce the gradient in a lower precision); profiling the peer would not shorten it."
	   else ": overlap it with compute (issue it as soon as its gradients are ready, under the rest of the backward) or shrink it; profiling the peer would not shorten it." end) ] | join("");
# What the other collectives' advice could win per step, by group
# (not pp, not 1-rank): overlap hides at most the compute there is; a
# transfer-bound group with too little compute after its gradient, that
# compute plus, for shrinking it (BF16), half its measured transfer
# (running it beside another group's collective is not counted: its gain
# is not measured); a group whose ops move data under 20% of their time
# (the transfer-bound rule's other end) and mostly wait by the comm
# records waits on its peers: at stake on them, not here.
# Without the kernel table, step_trace_time.csv's Overlapped 0 still says
# that a group's whole time is not under compute (exposed_from); what is
# unknown is how much compute could run beside it.  A transfer-bound
# group whose compute after its gradient is unknown: only the half of
# its transfer that BF16 saves is counted (compute_unknown).  A wait for
# a peer in the input is the cluster report's (it compares arrivals).
def collstakes($n):
	(xferlist($n) | map({key: .group, value: .}) | from_entries) as $xf |
	(($BD.comm_overlapped // null) == 0 and ($M | all(.window_source == "step_trace"))) as $st0 |
	[ $CGR[] | select((.size // 0) > 1 and ((.role // "") | startswith("pp") | not)) | . as $g |
	  ((.exposed_ms // .elapsed_ms // 0) / $n) as $ex |
	  [ $C[] | select(.group == $g.group and .op != null) ] as $o |
	  ($o | map(.elapse_ms // 0) | add // 0) as $el |
	  ($o | map(.wait_ms // 0) | add // 0) as $wt |
	  # the data moved, as xferlist counts it (SDMA repeats the links)
	  ($o | map((.bandwidth // {}) | ((.HCCS.time_ms // 0) + (.PCIE.time_ms // 0) + (.SIO.time_ms // 0)) as $on |
	    (if $on > 0 then $on else (.SDMA.time_ms // 0) end) + (.RDMA.time_ms // 0)) | add // 0) as $lt |
	  $xf[$g.group] as $x |
	  {group: $g.group, role: $g.role, peer_global_ranks: $g.peer_global_ranks, exposed_ms: ($ex | r6),
	   exposed_from: (if $g.exposed_ms != null then "kernels" elif $st0 then "step_trace" else "elapsed" end),
	   peers_in_input: (($g.peer_global_ranks // []) | map(select(. as $m | $INR | index([$m]) != null)))} +
	  (if $el > 0 and $lt < 0.2 * $el and $wt >= 0.5 * $el then
	     {how: "peers", stake_ms: 0, wait_ms: ($wt / $n | r6), upper_bound: ($g.exposed_ms == null)}
	   elif $x != null and $x.after_grad_compute_ms != null and $x.after_grad_compute_ms < $x.elapsed_ms then
	     {how: "shrink", stake_ms: ([$ex, $x.after_grad_compute_ms + $x.transfer_ms / 2] | min | r6),
	      compute_ms: $x.after_grad_compute_ms, half_transfer_ms: ($x.transfer_ms / 2 | r6), upper_bound: false}
	   elif $x != null and $x.after_grad_compute_ms == null and gap("no_kernel_table") then
	     {how: "shrink", stake_ms: ([$ex, $x.transfer_ms / 2] | min | r6), compute_ms: null, compute_unknown: true,
	      half_transfer_ms: ($x.transfer_ms / 2 | r6), upper_bound: false}
	   # without the kernel table, the compute that could hide it is not known
	   else {how: "overlap", stake_ms: ([$ex, ($BD.compute // $ex)] | min | r6), upper_bound: ($g.exposed_ms == null)} end) +
	  (if $wt > 0 and ($el <= 0 or $lt >= 0.2 * $el or $wt < 0.5 * $el) then {comm_wait_ms: ($wt / $n | r6)} else {} end) ];
(.attribution_summary[0] // {}) as $ASUM |
(([$ASUM.steps // 1, 1] | max)) as $asteps |
($ASUM.dispatch_ops // [] | map({name, ms_per_step: (.ns / $asteps | ms)})) as $DISP |
# Compile calls (op_compile by name) and the task queue's dequeue events.
($ASUM.op_compile_events // null | if . == null then null else
   {calls, compiles, total_ms: (.ns | ms), longest_ms: (.longest_ns | ms), compile_min_us: $A.compile_min_us} end) as $OCE |
($ASUM.dequeue_events // 0) as $DEQ |
($ASUM.untraced_longest // null | if . == null then null else
   {bubble_id, dur_ms: (.dur_ns | ms), offset_ms: (.offset_ns | ms), before, after, inside: (.inside // null)} end) as $ULONG |
# Where HCCL tasks come from, for a capture without them.
(if ($P.config.level // "") == "Level0" then "Level1 or higher records them"
 else "this input has none: they are in trace_view.json's HCCL process or the SQLite export" end) as $TASKSWHERE |
# The length of a union of [start, end] pairs.
def unionlen: sort_by(.[0]) | reduce .[] as $i ({t: 0, s: null, e: null};
	if .s == null then .s = $i[0] | .e = $i[1]
	elif $i[0] > .e then .t += .e - .s | .s = $i[0] | .e = $i[1]
	else .e = ([.e, $i[1]] | max) end) | .t + (if .s == null then 0 else .e - .s end);
# What the host waited on in a serialisation point [$s, $e): the
# device's work in flight; with HCCL tasks, the communication ops in it
# and the peer those ops waited for longest.
def inflight($s; $e): [ $CO[] | select(.start_ns < $e and .end_ns > $s) ] as $o |
	([ $o[] | {group, p: .peers[]?} ] | group_by([.group, .p.rank]) |
	  map({group: .[0].group, rank: .[0].p.rank, wait_ns: (map(.p.wait_ns // 0) | add)}) | max_by(.wait_ns)) as $pk |
	{ comm_ms: ($o | map([([.start_ns, $s] | max), ([.end_ns, $e] | min)]) | unionlen | ms),
	  comm_ops: ($o | length),
	  comm_op_names: ($o | map(.op | sub("__?[0-9_]+$"; "")) | uniq),
	  comm_elapsed_ms: ($o | map(.elapsed_ns // 0) | add // 0 | ms),
	  waited_for: (if $pk == null or $pk.wait_ns <= 0 then null else
	    {rank: $pk.rank, group: $pk.group, wait_ms: ($pk.wait_ns | ms),
	     in_input: (($CT.peers // []) | map(select(.group == $pk.group and .rank == $pk.rank)) | if length == 0 then null else .[0].in_input end)} end) };
# The same without HCCL tasks: the ops in it and what their Notify Wait
# tasks wait (for a peer the tasks do not name).
def owinflight($s; $e): [ $OWT[] | select(.start_ns < $e and .end_ns > $s) ] as $o |
	{ comm_ms: ($o | map([([.start_ns, $s] | max), ([.end_ns, $e] | min)]) | unionlen | ms),
	  comm_ops: ($o | length),
	  comm_op_names: ($o | map(.op | sub("__?[0-9_]+$"; "")) | uniq),
	  comm_elapsed_ms: ($o | map(.elapsed_ns // 0) | add // 0 | ms),
	  waited_for: null,
	  notify_wait_ops: ($o | map(select(.wait_ns > 0) | {op, wait_ms, start_before_ms: ([$s - .start_ns, 0] | max | ms)})) };
($ASUM.serialisation_points // [] | map({family, step_id, start_ns, end_ns, offset_ms: (.offset_ns | ms),
   dur_ms: (.dur_ns | ms), blocked_ms: (.blocked_ns | ms), device_idle_ms: (.device_idle_ns | ms),
   blocked_offset_ms: (.blocked_offset_ns // .offset_ns | ms),
   before_block_ms: (((.blocked_offset_ns // .offset_ns) - .offset_ns) | ms),
   before_block_dequeue_ms: (.before_block_dequeue_ns // 0 | ms),
   device_busy_ms: ((.dur_ns - .device_idle_ns) | ms),
   to_step_end_ms: (.step_id as $sid | ($M | map(select((.step_id | tostring) == $sid)) | .[0].service_ns) as $svc |
     if $svc == null then null else ($svc - .offset_ns - .dur_ns | ms) end),
   chain, frame,
   # the idle windows of its step where the same call site holds host
   # time (the rest of a print's reads and formatting, say): the call
   # blocks while the device is busy, but its site may still cost idle
   python_frames: (.python_frames // []),
   site_windows: (.frame as $fr | (.python_frames // []) as $pf | (.step_id | tostring) as $sid | if $fr == null then [] else
     [ $WIN[] | select((.step_id | tostring) == $sid and (.chains | any(.frame == $fr))) |
       {bubble_id, scope, dur_ms: (.dur_ns | ms), site_ms: ([.chains[] | select(.frame == $fr) | .ns] | add | ms),
	noframe_ms: ([.chains[] | select(.frame == null) | .ns] | add // 0 | ms),
	# that time by the Python frame of user code the trace nests its
	# calls under (asc-attrib's by_frame): the call's own function, a
	# caller of it, another frame, or none; apart, each frame's own lines
	noframe_by_frame: ([.chains[] | select(.frame == null) | .by_frame // [] | .[]] | group_by([.frame, .own == true]) |
	  map({frame: .[0].frame, own: (.[0].own == true), ms: (map(.ns) | add | ms),
	       # the profiler's own code (asc-attrib: attribution.profiler_frames)
	       relation: (.[0].frame as $f | if $f == null and all(.[]; .profiler == true) then "profiler"
			  elif $f == null then "none" elif ($pf | length) > 0 and $pf[-1] == $f then "site_function"
			  elif ($pf | index([$f])) != null then "caller" else "other" end),
	       # no frame in the call tree: the loop frame that calls it
	       called_by: (if .[0].frame == null then (map(.called_by // empty) | first // null) else null end),
	       calls: (if .[0].own == true then [] else sort_by(-.ns) | map(.call | if . == null then "others" else sub(" at 0x[0-9a-fA-F]+>$"; ">") end) end)}) | sort_by(-.ms)),
	host_ms: (.causes | to_entries | map(select(.value != null and .value > 0) | .value |= ms) | sort_by(-.value) | from_entries)} |
       # its sums, as the report states them
       ([.noframe_by_frame[].ms] | add // 0 | r6) as $pl |
       . + {placed_ms: $pl, unplaced_ms: ([.noframe_ms - $pl, 0] | max | r6),
	    site_frames_ms: ([.noframe_by_frame[] | select(.relation == "site_function" or .relation == "caller") | .ms] | add // 0 | r6),
	    site_own_ms: ([.noframe_by_frame[] | select(.own and (.relation == "site_function" or .relation == "caller")) | .ms] | add // 0 | r6),
	    site_calls_ms: ([.noframe_by_frame[] | select((.own | not) and (.relation == "site_function" or .relation == "caller")) | .ms] | add // 0 | r6),
	    profiler_ms: ([.noframe_by_frame[] | select(.relation == "profiler") | .ms] | add // 0 | r6),
	    elsewhere_ms: ([.noframe_by_frame[] | select(.relation == "other" or .relation == "none") | .ms] | add // 0 | r6)} ] end)}
   + (if ($CO | length) > 0 then {in_flight: inflight(.start_ns; .end_ns)}
     elif ($OWT | length) > 0 then {in_flight: owinflight(.start_ns; .end_ns)} else {in_flight: null} end))) as $SERIAL |
# Idle time ahead of a wait for a late peer only moves into that
# wait.  The peer is the one the communication finding names (exposed
# wait of at least max(comm.straggler_min_ms, comm.straggler_share of the
# exposed communication)); per step, the idle windows that end before the
# last op waiting for it give up to the step's exposed wait for it, each
# the same fraction (af), on the assumption that the peer arrives when it
# does whatever this rank does.
# Without HCCL tasks or comm records (Level0): per step, one group's
# ops (the same name but for its last two numbers), at least 3, the
# longest at least comm.late_op_ratio times the median of the others, is
# the late-peer pattern: that op most likely waits for a peer, its time
# over that median (excess) the estimated wait.
# With the device's Notify Wait tasks the wait is measured instead: the
# ops that wait at least comm.straggler_min_ms not under compute.
(if $DG != null and $DG.comm_exposed_heavy and $CT == null and $COMM == null and ($OWT | length) > 0 then
   [ $OWT[] | select(.exposed_wait_ms >= $R.comm.straggler_min_ms) |
     {step: (.step | tostring), op, measured: true, dur_ms: .elapsed_ms, wait_ms, exposed_wait_ms,
      op_exposed_ms: .exposed_ms, excess_ns: .exposed_wait_ns, end_ns} ] | sort_by(-.excess_ns)
 elif $DG != null and $DG.comm_exposed_heavy and $CT == null and $COMM == null then
   [.comm_kernel // [] | .[] | select(.step_id != null and .dur_ns != null and .start_ns != null)] |
   group_by([(.step_id | tostring), (.name | sub("_[0-9]+_[0-9]+$"; ""))]) |
   map(select(length >= 3) | sort_by(.start_ns) | . as $ops | max_by(.dur_ns) as $l |
     ($ops | map(select(. != $l) | .dur_ns) | median) as $m |
     select($m > 0 and $l.dur_ns >= $R.comm.late_op_ratio * $m) |
     {step: ($l.step_id | tostring), op: $l.name, group: ($l.name | sub("_[0-9]+_[0-9]+$"; "")),
      ops: ($ops | length), first: ($ops[0] == $l), dur_ms: ($l.dur_ns | ms), others_median_ms: ($m | ms),
      others_min_ms: ($ops | map(select(. != $l) | .dur_ns) | min | ms),
      others_max_ms: ($ops | map(select(. != $l) | .dur_ns) | max | ms),
      excess_ns: ($l.dur_ns - $m), end_ns: $l.end_ns}) | sort_by(-.excess_ns)
 else [] end) as $OPW |
# The wait those Notify Wait tasks measure not under compute, per step.
(if ($OPW | length) > 0 and $OPW[0].measured then ($OWT | map(.exposed_wait_ns) | add) / ([$DG.group_size // 1, 1] | max) | ms else null end) as $MWAIT |
(if $DG != null and $DG.comm_exposed_heavy and $CT != null then
   ($BD.comm_exposed // 0) as $ce |
   ($CT.peers | map(select(.rank != null and .exposed_wait_ms >= ([$R.comm.straggler_min_ms, $R.comm.straggler_share * $ce] | max))) | .[0] // null)
 else null end) as $LATE |
(if $LATE == null then
   # the late-peer pattern of op durations: its estimated wait
   reduce $OPW[] as $o ({}; .[$o.step] |= {w: ((.w // 0) + $o.excess_ns), t: ([(.t // $o.end_ns), $o.end_ns] | max)})
 else
   reduce ($CO[] | select(.group == $LATE.group)) as $o ({};
     ([$o.peers[]? | select(.rank == $LATE.rank) | .exposed_wait_ns // 0] | add // 0) as $w |
     if $w > 0 then .[$o.step | tostring] |= {w: ((.w // 0) + $w), t: ([(.t // $o.end_ns), $o.end_ns] | max)} else . end)
 end) as $LWS |
([ $WBG[$dom // "null"] // [] | hostwins | .[] | ($LWS[.step_id | tostring] // null) as $l |
   {step: (.step_id | tostring), dur: .dur_ns, causes, before: ($l != null and .end_ns <= $l.t)} ]) as $HWL |
(reduce ($HWL[] | select(.before)) as $x ({}; .[$x.step] += $x.dur)) as $BEF |
($HWL | map(. + {af: (if .before then ([$LWS[.step].w, $BEF[.step]] | min) / $BEF[.step] else 0 end)})) as $HWA |
(([$DG.group_size // 1, 1] | max)) as $gn |
def absorbed($f): $HWA | map((.causes[$f] // 0) * .af) | add // 0 | . / $gn | ms;
# A host family's time at stake ($t its idle per step): less what only
# lengthens a wait for the late peer; with the pp ops placed and no such
# peer, its share of the idle on the pipeline's critical path.
def famstake($f; $t):
	if absorbed($f) <= 0 and $PIPE != null and $PIPE.idle_ms > 0 then $t * ([$PIPE.critical_ms / $PIPE.idle_ms, 1] | min)
	else [$t - absorbed($f), 0] | max end;
# The host remedies are job-wide (every rank runs the same code): if the
# late peer has the same host pattern, the fix shortens its lateness too,
# so up to the family's whole idle is at stake here (an upper bound: the
# peer is not in this profile).  Not zeroed by assuming the peer lacks it.
def famjob($f; $t): if absorbed($f) > 0 then $t else famstake($f; $t) end;
(($HWA | map(.dur) | add // 0) as $d | if $d > 0 then ($HWA | map(.dur * .af) | add) / $d else 0 end) as $AFALL |
(if $LATE == null then "" else "rank \($LATE.rank)" + (if $LATE.in_input then "" else " (not in this input)" end) end) as $LATEN |
(if ($OPW | length) == 0 then null elif $OPW[0].measured then "the peer that \($OPW[0].op) waits for"
 else "the peer that \($OPW[0].op) most likely waits for" end) as $OPWN |
# The communication finding's sentence on that pattern (the longest case).
def opwtext: if ($OPW | length) == 0 then ""
	elif $OPW[0].measured then
	  ([ $OWT[] | select(.exposed_wait_ms < $R.comm.straggler_min_ms) ]) as $rest |
	  " Its device Notify Wait tasks (\($OWT[0].src // "trace_view.json"), Ascend Hardware) measure the wait inside each op: " +
	  ($OPW[0:4] | map("\(.op) waits \(.wait_ms | fmt) of its \(.dur_ms | fmt) (\(.exposed_wait_ms | fmt) not under compute)") | join(", ")) +
	  # the others' Notify Wait time, beside their op time: both not under compute
	  def others($o): "wait \($o | map(.exposed_wait_ms) | add | fmt) not under compute by their Notify Wait tasks (their op time not under compute: \($o | map(.exposed_ms // .dur_ms) | add | fmt))";
	  (if ($OPW | length) > 4 then ", \($OPW | length - 4) other ops \($OPW[4:] | map(. + {exposed_ms: .op_exposed_ms}) | others(.))" else "" end) +
	  (if ($rest | length) > 0 then "; the other \($rest | length) op\(if ($rest | length) > 1 then "s" else "" end) \($rest | others(.))" else "" end) +
	  (([([$OWT[] | .step] | unique | length), 1] | max) as $g | def ps($k): ($OWT | map(.[$k]) | add) / $g | ms | fmt;
	   if all($OWT[]; .moving_ns != null) then
	     ". Per step they and the SDMA tasks (the device moving data; time that moves data is not counted as waiting, as with HCCL tasks) split the ops' \(ps("elapsed_ns")) into waiting for peers \(ps("wait_ns")), moving data \(ps("moving_ns")) and the rest \(ps("rest_ns")); \(ps("exposed_wait_ns")) of the waiting is not under compute: that is waiting for peers, not data moving" +
	     (if $BD.comm_exposed != null and $BD.comm_exposed - $MWAIT >= 0.0005 then " (the other \($BD.comm_exposed - $MWAIT | fmt) of the exposed communication is not waiting: data moving or the ops' own work)" else "" end) +
	     "; which peer each op waits for is in the HCCL tasks (Level1 or higher)."
	   else ". So \($MWAIT | fmt) per step of it is waiting for peers, not data moving (the capture holds no SDMA tasks, so the data moving is not measured)" +
	  (if $BD.comm_exposed != null and $BD.comm_exposed - $MWAIT >= 0.0005 then " (the other \($BD.comm_exposed - $MWAIT | fmt) of it is in no Notify Wait: data moving or the ops' own work)" else "" end) +
	     "; which peer each op waits for is in the HCCL tasks (Level1 or higher)." end) +
	  # what fixing the late peers could win; an upper bound, as with
	  # HCCL tasks fixing the latest peer leaves the next-latest's waits
	  " At most that \($MWAIT | fmt) is at stake here (what the late peers' arriving on time could win): an upper bound, since Level0 names no peer, so neither how many peers this rank waits for nor what waiting on the next-latest would remain once the latest is fixed can be told (a Level1 capture measures it)."
	else $OPW[0] as $o |
	" Its ops' durations point to a late peer: in step \($o.step) \($o.op) takes \($o.dur_ms | fmt) against a median \($o.others_median_ms | fmt) for the group's \($o.ops - 1) other ops (\(if $o.others_min_ms == $o.others_max_ms then "each \($o.others_min_ms | fmt)" else "\($o.others_min_ms | fmt) to \($o.others_max_ms | fmt)" end))" +
	(if $o.first then ", and it is the group's first op in the step: the first op waits until the last peer arrives, the later ones find it there" else "" end) +
	". So most of it is most likely a wait for a late peer (about \(($OPW | map(.excess_ns) | add) / ([$DG.group_size // 1, 1] | max) | ms | fmt) per step over the other ops' median), not data moving; a Level1 capture names the peer and measures the wait." end;
# What the host risk rests on: the device idle time under named host
# work, and how much of that is at stake on this rank (the family's time
# less what only lengthens a wait for the late peer).
(if ($hosted | not) or $DG == null then null else
   ($HC | to_entries | map(select(.key != "other" and (.value // 0) > 0)) | sort_by(-.value)) as $fs |
   {idle_ms_per_step: ((($BD.free // 0) + ($BD.preparing // 0) + ($BD.tail // 0)) | r6),
    under_named_host_ms_per_step: ($fs | map(.value) | add // 0 | r6),
    families_ms_per_step: ($fs | map({key, value: (.value | r6)}) | from_entries),
    at_stake_ms_per_step: ($fs | map(famstake(.key; .value)) | add // 0 | r6),
    # each family's part of it, so that the sum can be traced
    at_stake_by_family_ms_per_step: ($fs | map({key, value: (famstake(.key; .value) | r6)}) | from_entries),
    # the same if the late peer has the same host pattern (job-wide fixes)
    at_stake_job_wide_ms_per_step: ($fs | map(famjob(.key; .value)) | add // 0 | r6),
    at_stake_on_late_peer: (if $LATE != null then $LATEN elif ($OPW | length) > 0 then $OPWN else null end),
    # the named families' time in windows after the step's last wait for
    # the late peer: the next step's wait may absorb it
    at_stake_after_last_wait_ms_per_step: (if $LATE == null then null else
      ($HWA | map(select(.before | not) | [.causes | to_entries[] | select(.key != "other") | .value // 0] | add // 0) | add // 0) / $gn | ms | r6 end),
    at_stake_upper_bound: ($DG.comm_exposed_heavy and $CT == null and ($OPW | length) == 0)} end) as $HRB0 |
# The host risk level rates what acting on the host causes could
# win on this rank, so the level the markers give (marker_level) is
# capped by the share of the step at stake, at the priorities' limits:
# under 2% low, under 10% at most medium.  The share is the job-wide
# figure's, as the host recommendations' stakes are (famjob).
(if $HRB0 == null then null else
   share($HRB0.at_stake_job_wide_ms_per_step; $DG.service_ms_avg // 0) as $sh |
   $HRB0 + {marker_level: $hostrisk, at_stake_share_of_step: share($HRB0.at_stake_ms_per_step; $DG.service_ms_avg // 0),
	    at_stake_job_wide_share_of_step: $sh,
	    level: (if $hostrisk == null then null elif $sh < 0.02 then "low"
		    elif $sh < 0.10 and $hostrisk == "high" then "medium" else $hostrisk end)} end) as $HRB1 |
($HRB1 | if . == null then null else del(.level) end) as $HRB |
(if $HRB1 == null then $hostrisk else $HRB1.level end) as $hostrisk |
# The pp stretches of a step by $PIPE's rule, each with the idle the op
# ending it hides (hidden_ns); and where some parts' idle lies in them:
# per stretch, the parts' bubbles, what that op's time hides of them (up
# to the stretch's hidden: removing them alone wins only the rest) and
# the rest, on the pipeline's critical path.
def ppsegs($step): if $PIPE == null then [] else
	([ $CPP[] | select(.group == $PIPE.group and (.step | tostring) == ($step | tostring)) ] | .[0].segments // []) as $sv |
	[ range(0; $sv | length) as $i | $sv[$i] |
	  . + {hidden_ns: (if .before == null or $i + 1 >= ($sv | length) then 0 else [.idle_ns, $sv[$i + 1].start_ns - .end_ns] | min end)} ] end;
def ppplace($parts; $step):
	ppsegs($step) as $sg | if ($sg | length) == 0 then null else
	[ $sg[] as $g | ($parts | map(select(.start_ns >= $g.start_ns and .start_ns < $g.end_ns))) as $p |
	  select(($p | length) > 0) | ($p | map(.bubble_ns // 0) | add) as $b |
	  {before: $g.before, micro_batches: ($p | map(.micro_batch | select(. != null)) | unique),
	   idle_ms: ($b | ms), hidden_ms: ([$b, $g.hidden_ns] | min | ms), critical_ms: ([$b - $g.hidden_ns, 0] | max | ms)} ] end;
# The device's own evidence of a host launch lag when no host event is
# recorded (asc-parts' gap figures, the step model_parts reports): the
# forward layers idle in many gaps, before most kernels, with a median of
# at least verdict.launch_lag_median_us and at least launch_lag_long_share
# of them windows, while the backward layers (which autograd dispatches
# ahead of the device) run back to back.  One long gap is a sync instead.
((.step_parts // []) as $SP0 |
 (reduce ($M[] | select(.group_id == $dom)) as $m ({}; .[$m.step_id | tostring] = true)) as $inDG |
 ($SP0 | map(select($inDG[.step_id | tostring] == true))) as $SP1 |
 (if ($SP1 | length) > 0 then $SP1 else $SP0 end) as $SP |
 ($SP | map(.service_ns) | median) as $med |
 if ($SP | length) == 0 then null else
 ($SP | min_by((.service_ns - $med) | fabs)) as $s |
 ($s.kinds // [] | map(select(.kind == "forward_layer")) | .[0] // null) as $f |
 ($s.kinds // [] | map(select(.kind == "backward_layer")) | .[0] // null) as $b |
 if $f == null or ($f.bubbles // 0) == 0 or $f.bubble_median_ns == null then null
 elif $f.bubble_median_ns < $R.verdict.launch_lag_median_us * 1000 or
      $f.long_bubbles < $R.verdict.launch_lag_long_share * $f.bubbles or
      $f.bubbles < $R.verdict.launch_lag_gaps_per_kernel * $f.kernels then null
 elif $b != null and ($b.bubbles // 0) > 0 and $b.bubble_median_ns * $R.verdict.launch_lag_ratio > $f.bubble_median_ns then null
 else
   ((.part // []) | map(select((.step_id | tostring) == ($s.step_id | tostring) and .kind == "forward_layer"))) as $fp |
   ([$WIN[] | select((.step_id | tostring) == ($s.step_id | tostring)) | . as $w |
     select(any($fp[]; $w.start_ns >= .start_ns and $w.start_ns < .end_ns))]) as $fw |
   {step_id: $s.step_id, label: $f.label, kernels: $f.kernels, gaps: $f.bubbles, idle_ms: $f.bubble_ms, median_ms: $f.bubble_median_ms,
    long: $f.long_bubbles, long_share: share($f.long_bubbles; $f.bubbles), long_ms: $f.long_bubble_ms,
    backward: (if $b == null then null else {label: $b.label, gaps: $b.bubbles, idle_ms: $b.bubble_ms, median_ms: $b.bubble_median_ms, long: $b.long_bubbles, long_ms: $b.long_bubble_ms} end),
    after: ($fw | group_by(.before.name // "(none)") | map({name: (.[0].before.name // "(none)"), n: length, ms: (map(.dur_ns) | add | ms)}) | sort_by(-.ms, .name) | .[0:4]),
    after_ms: ($fw | map(.dur_ns) | add // 0 | ms),
    windows: ($fw | length)} +
   (ppplace($fp; $s.step_id) as $pl | if $pl == null then {placement: null, critical_ms: null, hidden_ms: null}
    else {placement: $pl, critical_ms: ($pl | map(.critical_ms) | add | r6), hidden_ms: ($pl | map(.hidden_ms) | add | r6)} end) end end) as $LLAG |
# Where the forward's idle lies around the pp ops (ppplace), per
# micro-batch: what a fix wins on this rank; the fix is job-wide, so the
# peer stage, if it has the same pattern, shortens too (an upper bound).
def mbtext: if length == 0 then "" else " (micro-batch\(if length > 1 then "es" else "" end) \(map(tostring) | join(", ")))" end;
def pppeer: ($CGR | map(select(.group == $PIPE.group)) | .[0] // {}) as $g |
	if ($g.peer_global_ranks // [] | length) == 1 then "global rank \($g.peer_global_ranks[0])" else "the peer stage" end;
def placelist($pl): pppeer as $pn |
	$pl | map("\(.idle_ms | fmt)\(.micro_batches | mbtext) " +
	   (if .before == null then "lies after the last op: on the critical path"
	    elif .critical_ms <= 0 then "lies before \(.before), in which this stage then waits for \($pn): hidden under that wait"
	    elif .hidden_ms > 0 then "lies before \(.before): \(.critical_ms | fmt) of it on the critical path (that op's time hides \(.hidden_ms | fmt))"
	    else "lies before \(.before): on the critical path" end)) | join("; ");
def llagplace($l):
	if $l.placement == null then "" else pppeer as $pn |
	" Placed by the pp send/recv ops, of the forward's \($l.idle_ms | fmt): " + placelist($l.placement) +
	(if $l.hidden_ms <= 0 then ". Removing the lag wins up to all of it on this rank."
	 else ". Removing the lag wins about \($l.critical_ms | fmt) per step on this rank; the fix is job-wide: if \($pn) has the same pattern, its stage shortens too, and with it the wait that hides the rest: up to \($l.idle_ms | fmt) per step (an upper bound: that stage is not in this profile; the pipeline-bubble finding compares the two stages)." end) end;
def llagtext($bpat): if $LLAG == null then "" else $LLAG as $l |
	def gfmt: if . < 0.001 then "\(. * 1000000 | round) ns" else fmt end;
	" The kernel table's gaps point to the host: in step \($l.step_id) the forward layers (\($l.label)) idle \($l.idle_ms | fmt) in \($l.gaps) gaps between their \($l.kernels) kernels (median gap \($l.median_ms | gfmt); \($l.long) of them, \($l.long_share | pcs), of at least \($R.bubbles.min_bubble_us) µs, \($l.long_ms | fmt))" +
	(if $l.backward != null then ", while the backward layers (\($l.backward.label)) run back to back at the median (\($l.backward.gaps) gaps, median \($l.backward.median_ms | gfmt), \($l.backward.idle_ms | fmt) in all, \($l.backward.long) of at least \($R.bubbles.min_bubble_us) µs, \($l.backward.long_ms | fmt)" + (if $bpat != null then ": see below for where" else "" end) + ")" else "" end) +
	(if ($l.after | length) > 0 then "; of the forward's windows of at least \($R.bubbles.min_bubble_us) µs (\($l.after_ms | fmt)), the most idle falls after \($l.after | map("\(.name) (\(.n), \(.ms | fmt))") | join(", "))" else "" end) +
	". An idle gap before most forward kernels, spread over their kinds, " + (if $l.backward != null then "with the backward (which autograd dispatches ahead of the device) dense, " else "" end) +
	"is the pattern of a host that dispatches the forward ops more slowly than the device runs them: a probable host launch lag (a soft label from the device side alone: no host event confirms it), not a sync, which shows as one long gap." +
	llagplace($l) + " What to try: first a capture with host events (trace_view.json) to confirm it; then graph mode (torch.compile, torchair) or fewer, larger ops around the kernels named." +
	(if ($INFL | length) > 0 then " \($INFL | if length > 1 then (.[0:-1] | join(", ")) + " and " + .[-1] else .[0] end) \(if ($INFL | length) == 1 then "was" else "were" end) on in this capture (profiler_info): they add host time to every op dispatch, so part of such a lag may be the profiler's own; capture without them to size it." else "" end) end;
# The step's idle around the pp send/recv ops ($PIPE), as a sentence.
def pipeidle:
	($CGR | map(select(.group == $PIPE.group)) | .[0] // {}) as $g |
	(if ($g.peer_global_ranks // [] | length) == 1 then "global rank \($g.peer_global_ranks[0])" else "the peer stage" end) as $pn |
	($PIPE.segments | map(select(.wall_ms > 0 and .idle_ms >= 0.5 * .wall_ms))) as $hb |
	" The send/recv ops of the pp group cut the step's idle (step \($PIPE.step)): " +
	($PIPE.segments | map("\(.idle_ms | fmt) of \(.wall_ms | fmt) " + (if .before != null then "before \(.before)" else "after the last op" end)) | join(", ")) +
	". Idle before an op in which this stage then waits for \($pn) is hidden under that stage's work, up to the op's time (removing it only lengthens the wait): \($PIPE.hidden_ms | fmt) per step; idle before an op \($pn) waits for, and after the last op, delays the peer stage or the step's end: \($PIPE.critical_ms | fmt) per step is on the pipeline's critical path." +
	(if ($hb | length) == 0 then ""
	 else " The device idles over half the time " + ($hb | map(if .before != null then "before \(.before)" else "after the last op" end) | join(" and ")) +
	   (if $hosted then ": the host causes of the idle windows there are in the windows' table."
	    # kernel_details lists kernels only: copies and event waits on
	    # the device's streams are in trace_view.json's device tasks
	    elif $LLAG != null then ": no host event is recorded, but the kernel table's gaps point to a host launch lag (below); device work the kernel table does not list (memory copies, event waits) is not excluded: trace_view.json (its host events and the device tasks of its Ascend Hardware process) would tell them apart."
	    else ": with no host data in this capture the cause cannot be named; possible causes are the host (launching too slowly, or blocked in a call) and device work that the kernel table does not list (memory copies, event waits). trace_view.json (its host events and the device tasks of its Ascend Hardware process) would tell them apart." end) end);
# Without a kernel table the idle cannot be placed, but a pp group's op
# times bound it: a stretch that ends in a send/recv op where this stage
# then waits is hidden under the peer's work up to that wait.
def nokpp:
	([ $CGR[] | select((.role // "") | startswith("pp")) | ppstage(.) | select(. != null) ] | .[0] // null) as $s |
	if $s == null then null else
	  ($C | map(select(.group == $s.group and .kind == "p2p" and .step == $s.step)) | sort_by(.start_ns) | .[1:]) as $w |
	  " Without this rank's kernel table its idle cannot be placed in the step (what is missing is the kernel table, not the HCCL tasks). The op times (communication.json) bound it: the stretches between the pp send/recv ops end in " +
	  ($w | map("\(.op) (\(.elapse_ms | fmt), this stage waiting for its peer stage)") | join(" and ")) +
	  ", so idle in them is hidden under the peer stage's work up to those waits; only idle before the first op (the first forward) and after the last one can be on the critical path." end;
def stakeclause($idle; $ab; $how):
	if $ab > 0 and $LATE == null and ($OPW | length) > 0 and $OPW[0].measured then
	  " \($ab | fmt) per step of it lies before the ops that wait for a peer (\($OPW | map(.op) | join(", ")), measured by their Notify Wait tasks: see the communication finding), and would then only lengthen that wait: " +
	  (if $idle - $ab > 0 then "\($idle - $ab | fmt) per step is" else "nothing is" end) +
	  " at stake on this rank while that peer is late (a Level1 capture names the peer)."
	elif $ab > 0 and $LATE == null and ($OPW | length) > 0 then
	  " \($ab | fmt) per step of it lies before \($OPW[0].op), which most likely waits for a late peer (see the communication finding), and would then only lengthen that wait: " +
	  (if $idle - $ab > 0 then "\($idle - $ab | fmt) per step is" else "nothing is" end) +
	  " at stake on this rank while that peer is late (an estimate from the op durations: re-capture at Level1 or higher to name the peer and measure its wait)."
	elif $ab <= 0 and $PIPE != null then pipeidle
	elif $ab <= 0 and gap("no_kernel_table") and nokpp != null then nokpp
	elif $ab <= 0 and $DG.comm_exposed_heavy and $CT == null and ($OPW | length) == 0 then
	  " Whether removing it would only lengthen a wait for a late peer in the \($BD.comm_exposed | fmt) per step of exposed communication cannot be told without the HCCL tasks (\($TASKSWHERE)): this is what could be won at most, an upper bound; the exposed communication may itself be a wait on a peer, and then little of it is at stake here."
	elif $ab <= 0 then "" else
	" \($ab | fmt) per step of it lies before communication that waits for \($LATEN)\($how) and would only lengthen that wait: " +
	(if $idle - $ab > 0 then "\($idle - $ab | fmt) per step is" else "nothing is" end) +
	" at stake on this rank while rank \($LATE.rank) is late; profile rank \($LATE.rank) to see whether it idles the same way." end;
# Where the time goes by model part (asc-parts): the step of the dominant
# group whose service is closest to the group's median, its kinds of part
# and its parts.
((.step_parts // []) as $SP0 |
 (reduce ($M[] | select(.group_id == $dom)) as $m ({}; .[$m.step_id | tostring] = true)) as $inDG |
 ($SP0 | map(select($inDG[.step_id | tostring] == true))) as $SP1 |
 (if ($SP1 | length) > 0 then $SP1 else $SP0 end) as $SP |
 ($SP | map(.service_ns) | median) as $med |
 if ($SP | length) == 0 then null else
 ($SP | min_by((.service_ns - $med) | fabs)) as $s |
 ($s | del(.type, .profile, .device) | .part_count = .parts | del(.parts)) + {
   selection: (if ($SP0 | length) == 1 then "the one step with parts"
     else "of the \($SP | length) steps of \(if ($SP1 | length) > 0 then "the dominant group" else "the capture" end), the one whose service is closest to their median" end),
   steps_with_parts: ($SP0 | length),
   parts: ((.part // []) | map(select((.step_id | tostring) == ($s.step_id | tostring)) | del(.type, .profile, .device, .step_id)))
 } end) as $MP |
# A backward-layer gap that recurs, without host events: the kernel
# after which the backward layers' windows hold at least
# verdict.launch_lag_long_share of their idle, with windows in as many
# as there are layers; the kernels after those windows, and where they lie
# around the pp ops.  A gap at one spot of every layer is a host step
# there (the backward runs back to back elsewhere), not a spread-out lag.
(if $MP == null or $hosted then null else
  ($MP.parts | map(select(.kind == "backward_layer"))) as $bp |
  ([ $WIN[] | select((.step_id | tostring) == ($MP.step_id | tostring)) | . as $w |
     ([ $bp[] | select($w.start_ns >= .start_ns and $w.start_ns < .end_ns) ] | .[0] // null) as $p |
     select($p != null) | . + {micro_batch: $p.micro_batch, part: $p.part, bubble_ns: .dur_ns} ]) as $bw |
  ($bw | map(.dur_ns) | add // 0) as $tot |
  if ($bp | length) < 2 or $tot == 0 then null else
  ($bw | group_by(.before.name // "(none)") | map({name: (.[0].before.name // "(none)"), w: .}) | max_by(.w | map(.dur_ns) | add)) as $top |
  ($top.w | map(.dur_ns) | add) as $tns |
  if $tns < $R.verdict.launch_lag_long_share * $tot or ($top.w | length) < ($bp | length) then null else
  {step_id: $MP.step_id, layers: ($bp | length), windows: ($bw | length), windows_ms: ($tot | ms),
   before: $top.name, n: ($top.w | length), ms: ($tns | ms), in_layers: ($top.w | map(.part) | unique | length),
   after: ($top.w | group_by(.after.name // "(none)") | map({name: (.[0].after.name // "(none)"), n: length, ms: (map(.dur_ns) | add | ms), layers: (map(.part) | unique | length)}) | sort_by(-.ms, .name) | .[0:3]),
   placement: ppplace($top.w; $MP.step_id)} end end end) as $BPAT |
def bpattext: if $BPAT == null then "" else $BPAT as $b |
	" The backward layers' idle gathers at one spot: of their \($b.windows) windows of at least \($R.bubbles.min_bubble_us) µs (\($b.windows_ms | fmt)), \($b.n) (\($b.ms | fmt)) follow \($b.before), in \($b.in_layers) of the \($b.layers) backward layers; the kernels after them: " +
	($b.after | map("\(.name) (\(.n), \(.ms | fmt)" + (if .n == $b.layers and .layers == $b.layers then ", one in each layer" else "" end) + ")") | join(", ")) +
	(if $b.placement == null then "" else ". Placed by the pp send/recv ops: " + placelist($b.placement) end) +
	". Gaps after the same kernel in every layer, with the rest back to back, point to a host step there (a hook, a recompute, a slow launch of the kernel after it) rather than the forward's spread-out lag: a soft label from the device side alone; host events with stacks would name it." end;
# The finding of a part that is not a layer and costs more than
# verdict.part_share of the step, with what its kernels show.
def topk($k): $k.top_kernels | map("\(.name) \(.kernel_sum_ms | fmt)" + (if .kernels > 1 then " in \(.kernels) kernels" else "" end)) | join(", ");
def sidems($k; $side): ($k.sides | map(select(.side == $side)) | .[0].kernel_sum_ms) // 0;
def parttext($k):
	"Step \($MP.step_id): the \($k.label) takes \($k.wall_ms | fmt) of the \($MP.service_ms | fmt) step (\($k.share | pcs)), " +
	"device busy \($k.busy_union_ms | fmt) of it with these kernels" + (if ($k.busy_others_ns // 0) > 0 then " and \($k.busy_others_ms | fmt) more with other parts' kernels only" else "" end) + ", kernel sum \($k.kernel_sum_ms | fmt), total cost \($k.total_cost_ms | fmt), in \($k.kernels) kernel\(if $k.kernels == 1 then "" else "s" end); the largest: \(topk($k)). " +
	(if $k.bubble_ns > 0.5 * $k.wall_ns then "The device idles \($k.bubble_ms | fmt) of its wall (no kernel of any part running). " else "" end) +
	if $k.kind == "lm_head_loss" then
	  (if ($k.loss_kernels // 0) > 0 then
	    "\($k.loss_kernels) of its kernels are loss kernels (the fia.loss names); its MatMul takes \(sidems($k; "matmul") | fmt): a vocabulary-parallel LM head and loss (the vocabulary split over the tensor-parallel ranks) cuts it per rank."
	   else
	    "None of its kernels is a loss kernel (the fia.loss names, such as a fused cross-entropy): beside \(sidems($k; "matmul") | fmt) of MatMul, \($k.kernel_sum_ms - sidems($k; "matmul") | fmt) runs in its other kernels, the softmax and the loss computed op by op. A fused cross-entropy (softmax and loss in one kernel; vocabulary-parallel under tensor parallelism) replaces those separate passes over the logits." end)
	elif $k.kind == "pipeline_wait" then
	  (($MP.kinds | map(select(.kind == "forward_layer")) | .[0].micro_batches) // null) as $mb |
	  (($MP.parts // []) | map(select(.kind == "pipeline_wait"))) as $pw |
	  "No other kernel starts during \(if ($pw | length) == 1 then "this send/receive" else "these \($pw | length) send/receives" end): the stage waits in \(if ($pw | length) == 1 then "it" else "them" end) for the other pipeline stage" +
	  (if ($pw | length) > 1 then " (\($pw | map("\(.name | sub("^pipeline wait \\((?<w>.*)\\)$"; "\(.w)")) \(.wall_ms | fmt)") | join(", ")))" else "" end) +
	  (if $mb != null then ", with \($mb) micro-batch\(if $mb > 1 then "es" else "" end) in the step" else "" end) +
	  ". Under a 1F1B schedule the warm-up and cool-down waits are the schedule's own share; whether more micro-batches or interleaved stages shorten the step here, and by how much, is the pipeline finding's (it counts the device idle each extra micro-batch adds); if the other stage takes longer per micro-batch, rebalance the layers between the stages."
	else
	  (sidems($k; "comm")) as $c |
	  if $c > 0.5 * $k.kernel_sum_ms then
	    "Most of its kernel time is communication (\($c | fmt)): parameters gathered or gradients reduced inside the optimizer step; overlap it with the next forward pass (a distributed optimizer's overlapped parameter all-gather)."
	  elif $k.kernels >= 50 then
	    "\($k.kernels) kernels for one update (\($k.kernel_sum_ms / $k.kernels * 1000 | round) µs each on average): a fused (multi-tensor) optimizer runs it in fewer, larger kernels."
	  else "Its kernel time is in the kernels above." end
	end;
# The once-per-step parts outside the layers (gradient sync, clipping,
# optimizer step) whose device idle holds at least verdict.part_idle_share
# of the step: their idle, the kernels before their longest significant
# windows (a host-synchronising kernel, verdict.host_sync_kernels, named
# apart) and the host causes of those windows when there are host events.
def idlepartsof($kinds): (($MP // {}).parts // []) | map(select((.kind | IN($kinds[])) and
	($MP.service_ns // 0) > 0 and .bubble_ns >= $R.verdict.part_idle_share * $MP.service_ns));
def idleparts: idlepartsof(["gradient_sync", "gradient_clipping", "optimizer"]);
# The part's longest window when it follows a collective that moves at
# most verdict.readback_max_mb (a scalar, such as a gradient norm) and
# precedes the part's next kernels: the host most likely reads the
# result back before it launches them.
def readback($p; $w): ($w | max_by(.dur_ns) // null) as $l |
	if $l == null or ($l.before.task_type // "") != "COMMUNICATION" or $l.end_ns > $p.end_ns then null else
	([$C[] | select(.op == $l.before.name and (.step | tostring) == ($l.step_id | tostring))] | .[0] // null) as $c |
	(if $c == null then null else [($c.bandwidth // {})[] | .size_mb // 0] | add // 0 end) as $mb |
	# a collective of a 1-rank group moves nothing whatever it reduces: its
	# zero bytes are no sign of a scalar
	([$CGR[] | select(.group == ($c.group // null)) | .size] | .[0] // null) as $gs |
	if $mb == null or $mb > $R.verdict.readback_max_mb or $gs == 1 then null
	else {bubble_id: $l.bubble_id, ms: ($l.dur_ns | ms), op: $l.before.name, op_ms: ($l.before.dur_ns | ms), size_mb: $mb, next: ($l.after.name // null)} end end;
# The bubble windows of the drill-down step that start in part $p.
def partwins($p): [$WIN[] | select((.step_id | tostring) == ($MP.step_id | tostring) and .start_ns >= $p.start_ns and .start_ns < $p.end_ns)];
# The host time by family in the parts' windows (ns), largest first.
def hostsum($q): [$q[].host[]] | group_by(.key) | map({key: .[0].key, value: (map(.value) | add)}) | sort_by(-.value);
def partidle($ps):
	[$ps[] | . as $p | partwins($p) as $w |
	 ($w | group_by(.before.name // "(none)") | map({name: (.[0].before.name // "(none)"), n: length, ns: (map(.dur_ns) | add)}) | sort_by(-.ns, .name)) as $by |
	 {name: $p.name, kind: $p.kind, wall_ns: $p.wall_ns, bubble_ns: $p.bubble_ns, bubbles: $p.bubbles, kernels: $p.kernels,
	  windows: ($w | length), windows_ns: ($w | map(.dur_ns) | add // 0), before: $by[0:3],
	  readback: readback($p; $w),
	  sync_kernels: [$by[] | select(.name as $n | any($R.verdict.host_sync_kernels[]; . as $g | $n | test("^" + ($g | gsub("(?<c>[.+^$(){}|\\[\\]\\\\])"; "\\\(.c)") | gsub("\\*"; ".*") | gsub("\\?"; ".")) + "$")))],
	  host: ($w | map(.causes | to_entries[]) | group_by(.key) | map({key: .[0].key, value: (map(.value) | add)}) | map(select(.value > 0)) | sort_by(-.value))}];
# The device-idle finding's pointer to the part-idle finding.
# The parts the PART_IDLE finding names (an optimizer step with a
# PART_OPTIMIZER finding holds its own idle there).
def namedidleparts: idleparts | map(select(.kind as $x | any(($MP.kinds // [])[]; .kind == $x and (.kind | IN("optimizer")) and .share >= $R.verdict.part_share) | not));
def partpointer: namedidleparts as $q |
	if ($q | length) == 0 then "" else partidle($q) as $pi | ([$pi[] | .readback // empty] | .[0] // null) as $rb |
	" \($q | map(.bubble_ns) | add | ms | fmt) of this idle lies in the \($q | map("\(.name) (\(.bubble_ns | ms | fmt))") | join(" and ")), once per step: the part-idle finding names what their idle windows follow" +
	(if $rb != null then ", among them the \($rb.ms | fmt) after \($rb.op) where the host most likely reads the collective's result back" else "" end) + "." end;
# The once-per-step parts outside the layers and the update (input, loss,
# the metric after the loss) whose device idle holds at least
# verdict.part_idle_share of the step: the calls with most host time in
# their windows (a call's own time, tree_ns, at most its family's, in the
# windows where it is the family's longest call), and what lies before a late peer's wait (its share of the
# windows that do, as the host findings count it).
def idleparts2: idlepartsof(["input", "loss", "after_loss"]);
# The part holding device start $k, and the one holding most of the
# kernels $ks (null: none in a part; a tie goes to the part named first).
def partat($k): [$MP.parts[] | select($k >= .start_ns and $k < .end_ns) | .name] | .[0] // null;
def partof($ks): [$ks[]? | partat(.) // empty] | if length == 0 then null else group_by(.) | sort_by(-length) | .[0] | {part: .[0], n: length} end;
# Where a top host call of part $p's windows belongs (asc-attrib's
# host_roots): with the part of most of its kernels; one that launches
# nothing, by its thread's launching calls before and after it: between
# two of $p's it is $p's, between one of $p's and another part's it lies
# at $p's edge and is not $p's, else it cannot be placed and stays $p's
# (the figure is an upper bound).  other: not $p's, so $p's remedy keeps it.
def rootplace($r; $p):
	if ($r.kernels // 0) > 0 then partof($r.kernel_ns) as $k |
	  {by: "kernels", part: $k.part, in_part: ($k.n // 0), of: ($r.kernel_ns | length), first_part: partat($r.kernel_ns | min),
	   other: ($k != null and $k.part != $p.name)}
	else (partof($r.before_kernel_ns).part) as $b | (partof($r.after_kernel_ns).part) as $a |
	  {by: "neighbours", before_part: $b, after_part: $a, other: (($b == $p.name) != ($a == $p.name))} end;
# The host time in $p's windows $w that is not $p's: per window the
# other calls' time, at most the window's; and those calls, longest first.
def otherhost($p; $w):
	[$w[] | . as $x | [$x.roots[] | . + {place: rootplace(.; $p)} | select(.place.other)] as $o |
	 {ns: ([$o | map(.ns) | add // 0, $x.dur_ns] | min), o: $o}] as $ow |
	{ns: ($ow | map(.ns) | add // 0),
	 calls: ([$ow[].o[]] | group_by([.root, .call // "", .frame // ""]) |
	   map(.[0] + {ns: (map(.ns) | add)} | del(.kernel_ns, .before_kernel_ns, .after_kernel_ns, .tid)) | sort_by(-.ns, .root))};
def partidle2($ps):
	partidle($ps) | map(. as $x | ($ps | map(select(.name == $x.name and .kind == $x.kind)) | .[0]) as $p |
	  partwins($p) as $w |
	  ($LWS[$MP.step_id | tostring] // null) as $l |
	  . + {calls: ([$w[].chains[] | select((.chain | length) > 0)] | group_by([.family, .chain[0], (.frame // "")]) |
		  map({family: .[0].family, call: .[0].chain[0], frame: .[0].frame, ns: (map([.tree_ns // .ns, .ns] | min // 0) | add)}) | sort_by(-.ns, .call) | .[0:4]),
		other: otherhost($p; $w),
		before_late_ns: (if $l == null or ($BEF[$MP.step_id | tostring] // 0) <= 0 then 0 else
		  $w | map(select(.end_ns <= $l.t and (.boundary | not)) | .dur_ns * ([$l.w, $BEF[$MP.step_id | tostring]] | min) / $BEF[$MP.step_id | tostring]) | add // 0 | round end)});
def calltext($c): "\($c.call)" + (if $c.frame != null then " at \($c.frame | sub("^.*/"; ""))" else "" end) + " (\($c.family)) \($c.ns | ms | fmt)";
# The other parts' calls in the windows, which the part's remedy keeps.
def othercall($c):
	"\($c.root)" + (if $c.call != null then " (\(if $c.call != $c.root then "\($c.call) at " else "at " end)\($c.frame | sub("^.*/"; "")))" else "" end) +
	" \($c.ns | ms | fmt), which " +
	(if $c.place.by == "kernels" then
	   "launches the \($c.place.part)'s kernels" + (if $c.place.in_part < $c.place.of then " (\($c.place.in_part) of its first \($c.place.of)" +
	     # the one left out, when it is the call's first, named by its part
	     (if $c.place.in_part + 1 == $c.place.of and $c.place.first_part != $c.place.part then
	        "; the other, its first kernel, is counted in the \($c.place.first_part // "no part")" else "" end) + ")" else "" end)
	 else "launches nothing and runs between calls of the \($c.place.before_part // "no part") and of the \($c.place.after_part // "no part")" end);
def othertext($q): [$q[].other.calls[]] | sort_by(-.ns) | map(othercall(.)) | join("; ");
def otherms($q): $q | map(.other.ns) | add / 1000000;
def idletext2($q):
	($q | map(.bubble_ns) | add | ms) as $t | ($q | map(.before_late_ns) | add / 1000000) as $ab |
	otherms($q) as $o | ($t - $o) as $won |
	([$q[].calls[]] | sort_by(-.ns)) as $cs |
	hostsum($q) as $h |
	(if $o > 0 then " The other \($o | fmt) of host time in these windows lies in calls this remedy keeps, as they are not the \($q | map(.name) | join(" and "))'s: \(othertext($q))." else "" end) as $keeps |
	(if $hosted and ($cs | length) > 0 then "The calls with most host time there: \($cs[0:4] | map(calltext(.)) | join(", ")). " else "" end) +
	(if ($q | any(.kind == "after_loss")) then
	  "The work after the loss (metrics such as the accuracy, running averages) runs every step as many small ops" +
	  (if any($h[]; .key == "item_sync" and .value > 0) then ", and the host reads values back from the device (.item()) in it" else "" end) +
	  ": compute and read the metrics every N steps (at the print frequency), or keep them on the device and read them once, so the host neither launches those ops nor waits on the device every step. " else "" end) +
	(stakeclause($t; $ab; ", counted by its share of the idle windows that do,") | ltrimstr(" ")) as $sc |
	$sc +
	(if $ab > 0 and ($LATE != null or ($OPW | length) > 0) then " But the remedy is job-wide (every rank runs the same code): if that peer has the same host pattern, the fix shortens its lateness as well, and up to \($won | fmt) per step\(if $o > 0 then " (of its \($t | fmt) of idle)" else "" end) is won here; that is the figure at stake, an upper bound that shares its launch time with the dispatch-bound figure." + $keeps
	 elif $o > 0 then (if $sc == "" then "" else " " end) + "Up to \($won | fmt) per step of its \($t | fmt) of idle is won here." + $keeps
	 else "" end);
# The host time by family in the parts' idle windows (what idletext says).
def parthost($q): hostsum($q) | sort_by(.key) | map(.value |= ms) | from_entries;
def idletext($q):
	"Step \($MP.step_id): " + ($q | map("the \(.name) idles \(.bubble_ns | ms | fmt) of its \(.wall_ns | ms | fmt) wall in \(.bubbles) gaps" +
	  (if .windows > 0 then "; \(.windows) of them are windows of at least \($R.bubbles.min_bubble_us) µs (\(.windows_ns | ms | fmt)), the longest in all after " +
	    (.before | map("\(.name) (\(.n) window\(if .n == 1 then "" else "s" end), \(.ns | ms | fmt))") | join(", ")) else "" end)) | join("; ")) +
	". \(if ($q | length) == 1 then "This part runs" else "These parts run" end) once per step, and no kernel of any part runs in its idle. " +
	([$q[].sync_kernels[]] as $sk | if ($sk | length) > 0 then
	  ($sk | map(.name) | unique) as $skn | "\($skn | join(", ")) (\(if ($skn | length) == 1 then "a kernel" else "kernels" end) the rules list as making the host wait) return\(if ($skn | length) == 1 then "s" else "" end) an output whose size depends on the data: the host waits for the kernel to learn it before it launches the next one, so the device idles after each (\($sk | map(.ns) | add | ms | fmt) of windows after them); avoid them in the update (boolean indexing, nonzero, masked_select, an inf/nan check that reads back a tensor). " else "" end) +
	([$q[] | select(.readback != null) | . as $p | .readback | . + {part: $p.name, kind: $p.kind}] | map(
	  "The longest window of the \(.part), \(.ms | fmt) (\(.bubble_id)), follows \(.op) (\(.op_ms | fmt), a collective moving \(if .size_mb == 0 then "no measurable data" else "\(.size_mb) MB" end) by the comm records: a scalar such as a norm or a flag)" +
	  (if .next != null then " and precedes \(.next)" else "" end) +
	  ": the host most likely reads the collective's result back before it launches the next kernels" +
	  (if .kind == "gradient_clipping" then " (the total gradient norm, read to compute the clip coefficient); a per-parameter norm fused into one does not remove it: keep the coefficient on the device (a clip that scales by a device tensor, such as torch's clip_grad_norm_ with foreach, reads nothing back). " else "; keep that value on the device. " end)) | join("")) +
	(if ($q | any(.kind == "gradient_clipping")) then "Clip the gradients with one multi-tensor norm (a foreach / fused clip_grad_norm) instead of a norm per parameter. " else "" end) +
	(if ($q | any(.kind == "optimizer")) then "A fused (multi-tensor) optimizer runs the update in a few large kernels. " else "" end) +
	(if $hosted then
	   hostsum($q) as $h |
	   (if ($h | length) > 0 then "Host time in those windows: \($h | map("\(.key) \(.value | ms | fmt)") | join(", "))." else "No host event covers those windows." end)
	 else "The capture has no host events, so what the host did in the gaps is not measured." end);
([
  (if ($M | length) == 0 then rec("No step could be measured: no kernel table and no step_trace_time.csv were read. Export kernel_details.csv (Level0 or higher) or op_summary to measure device idle time."; "global"; null; null; true; (if gap("db_export_only") then "db_export_only" else "no_kernel_table" end); "no_steps") else empty end),

  # Exposed communication, from its HCCL tasks: the peer this
  # rank waits for is where the time is at stake; else overlap, which can
  # hide at most the compute there is.
  (if $DG != null and $DG.comm_exposed_heavy and $CT != null then
     ($BD.comm_exposed // 0) as $ce |
     ($CT.peers | map(select(.rank != null and .exposed_wait_ms >= ([$R.comm.straggler_min_ms, $R.comm.straggler_share * $ce] | max))) | .[0] // null) as $late |
     ($CT.groups | map(select(.group == ($late.group // null))) | .[0] // null) as $lg |
     ([$ce, ($BD.compute // 0)] | min) as $hide |
     # every op where the late peer holds this rank not under compute,
     # longest first: their exposed waits add up to the figure stated
     (if $late == null then [] else
	[ $CO[] | select(.group == $late.group) | . as $o | .peers[] |
	  select(.rank == $late.rank and (.exposed_wait_ns // 0) > 0) |
	  {op: $o.op, step: $o.step, exposed_wait_ms: (.exposed_wait_ns | ms), wait_ms: (.wait_ns | ms)} ] | sort_by(-.exposed_wait_ms) end) as $LOPS |
     # Fixing the latest peer leaves, in each op, the wait on the next
     # latest (its own wait not under compute, at most the latest's).
     (if $late == null then 0 else
	[ $CO[] | select(.group == $late.group) |
	  ([.peers[]? | select(.rank == $late.rank) | .exposed_wait_ns // 0] | add // 0) as $lw |
	  ([.peers[]? | select(.rank != null and .rank != $late.rank) | .own_exposed_wait_ns // 0] | max // 0) as $nx |
	  ([$lw, $nx] | min) ] | add // 0 | . / ([$CT.steps, 1] | max) | ms end) as $remain |
     (if $late == null then [] else
	undercap($late.rank; $late.group) | map(select(.ms >= $R.comm.straggler_min_ms)) end) as $also |
     rec("Communication is not hidden behind compute: \($ce | fmt) per step (\(share($ce; $svcms) | pcs) of the \($svcms | fmt) step) in \($dom). " +
       "Its HCCL tasks (\($CT.source)) split the \($CT.elapsed_ms | fmt) of communication ops per step into waiting for peers \($CT.wait_ms | fmt), moving data \($CT.transfer_ms | fmt) and the rest \($CT.rest_ms | fmt)." +
       ($CGR | roleclause($CT.steps)) +
       (if $late != null then
	  ($LOPS | map("\(.op) \(.exposed_wait_ms | fmt)")) as $lops |
	  $also as $under |
	  " \($late.exposed_wait_ms | fmt) of the \($ce | fmt) of exposed communication per step waits for rank \($late.rank)" +
	  (if $late.global_rank != null and $late.global_rank != $late.rank then " (global rank \($late.global_rank))" else "" end) +
	  (if $late.in_input then "" else ", which is not in this input" end) +
	  (if ($lops | length) > 0 then
	     " (held not under compute in \($lops | length) of the \($CO | map(select(.group == $late.group)) | length) ops of the capture: " +
	     ($lops[0:6] | join(", ")) +
	     (if ($LOPS | length) > 6 then ", and \($LOPS | length - 6) other ops \($LOPS[6:] | map(.exposed_wait_ms) | add | fmt)" else "" end) +
	     (if $CT.steps > 1 then "; \($LOPS | map(.exposed_wait_ms) | add | fmt) in all over its \($CT.steps) steps" else "" end) + ")"
	   else "" end) +
	  (if ($under | length) > 0 then "; under that wait it also waits on rank\(if ($under | length) == 1 then "" else "s" end) \($under | map("\(.rank) (\(.ms | fmt) not under compute)") | join(", ")), which the longer wait covers" else "" end) +
	  # with the input's ranks (-I), the group's members among them
	  (($lg.global_ranks // $lg.members // []) | map(select(. as $m | $INR | index([$m]) != null)) | length) as $held |
	  (if $lg != null and $lg.size != null then "; the group has \($lg.size) ranks, this profile holds \($lg.ranks_in_input)" +
	     (if $held > $lg.ranks_in_input then ", the input's ranks \($held) (the others: see the cluster report)" else "" end) else "" end) +
	  (if $lg != null and $lg.role == null then " (ranks as the HCCL tasks number them, within the group: no parallel_group_info maps them to global ranks)" else "" end) +
	  ": profile rank \($late.rank) (or all ranks) to see why it is late." +
	  (if $remain >= $R.comm.straggler_min_ms and ($also | length) > 0 then
	     " Fixing rank \($late.rank) wins back about \($late.exposed_wait_ms - $remain | fmt) per step on this rank, not the whole \($late.exposed_wait_ms | fmt): in the same ops the waits on the next-latest peers remain (\($remain | fmt) per step; rank \($also[0].rank) the longest), and \($also | length) of the group's other ranks also keep this rank waiting at least \($R.comm.straggler_min_ms | fmt) not under compute: the skew is not rank \($late.rank)'s alone; profile all ranks, not only rank \($late.rank)."
	   else " The \($late.exposed_wait_ms | fmt) per step is lost on this rank, but it is won back by fixing rank \($late.rank), not by any change here." end)
	else
	  " No peer holds it back: overlap it with compute (gradient bucketing, DDP bucket_cap_mb) or reduce its volume; overlap can hide at most the \($hide | fmt) of compute per step." end) +
       (if $CT.comm_json_wait_ms != null then
	  " The comm records (\($COMM.source // "communication.json")) give wait \($CT.comm_json_wait_ms | fmt) and transit \($CT.comm_json_transit_ms | fmt) per step for the same ops; they split an op's time by rules of their own (most of a wait for a late peer is idle time there), so they are a cross-check only, not the cause." else "" end);
       # at stake: what fixing the late peer wins back (the waits on
       # the next-latest peers in the same ops remain)
       "step_group"; $dom; (if $late == null then $hide
	 elif $remain >= $R.comm.straggler_min_ms and ($also | length) > 0 then $late.exposed_wait_ms - $remain
	 else $late.exposed_wait_ms end); ($late != null); null; "COMM_EXPOSED_HEAVY") +
       {stake_on: (if $late != null then "rank \($late.rank)" + (if $late.in_input then "" else " (not in this input)" end) else "overlap with compute" end),
	late_peer_wait_ms: (if $late != null then $late.exposed_wait_ms else null end),
	late_peer_ops: $LOPS,
	late_peer_next: $also,
	late_peer_remainder_ms: (if $late != null and $remain >= $R.comm.straggler_min_ms and ($also | length) > 0 then $remain | r6 else null end),
	won_back_by_fixing_ms: (if $late != null and $remain >= $R.comm.straggler_min_ms and ($also | length) > 0 then ($late.exposed_wait_ms - $remain) | r6 else null end)}
   else empty end),
  # Exposed communication without its tasks: communication.json's figures.
  (if $DG != null and $DG.comm_exposed_heavy and $CT == null then
     ($BD.comm_exposed // 0) as $ce |
     # what the file counts as waiting in 1-rank groups, which have no peer
     ($CGR | map(select(.size == 1) | .group)) as $one |
     ([ $C[] | select(.group as $g | $one | index([$g]) != null) | .wait_ms // 0 ] | add // 0) as $onewait |
     rec("Communication is not hidden behind compute: \($ce | fmt) per step (\(share($ce; $svcms) | pcs) of the \($svcms | fmt) step) in \($dom)." +
       (if $COMM == null then
	  (if $LEVEL0 and ($OPW | length) > 0 and $OPW[0].measured then " The capture is Level0, which collects neither HCCL tasks (the peer each op waits for) nor communication.json." + opwtext
	   elif $LEVEL0 then " The capture is Level0, which collects neither HCCL tasks nor communication.json: re-capture at Level1 or higher to split the ops' time and name the peer each op waits for." + opwtext
	   else " Without communication.json (or COMMUNICATION_OP) the wait / transit split cannot be judged: export it to tell a late peer from a slow link." end)
	else
	  ($COMM.steps) as $n |
	  " The capture holds no HCCL tasks (\($NOTASKS)), so the ops' time cannot be split by task; the comm records (\($COMM.source)) give per step \($COMM.elapse_ms / $n | fmt) of communication, of which they count \($COMM.wait_ms / $n | fmt) as waiting" +
	  (if $onewait > 0 then " (\($onewait / $n | fmt) of it in 1-rank groups, which have no peer to wait for)" else "" end) +
	  ", \($COMM.transit_ms / $n | fmt) as transit and \($COMM.idle_ms / $n | fmt) as idle" +
	  (if $COMM.link_time_ms > 0 then "; their links move data for \($COMM.link_time_ms / $n | fmt) (summed over links, not wall time)" else "" end) +
	  (if $COMM.p2p_elapse_ms > 0 then "; point-to-point (send/recv) \($COMM.p2p_elapse_ms / $n | fmt), collectives \($COMM.collective_elapse_ms / $n | fmt)" else "" end) + "." +
	  ($CGR | roleclause($n)) +
	  (if $COMM.wait_ms >= 0.5 * $COMM.elapse_ms then " Most of it is what they count as waiting for peers."
	   elif $COMM.idle_ms >= 0.5 * $COMM.elapse_ms and $COMM.transit_ms < 0.5 * $COMM.link_time_ms then
	     # Transit Time 0 beside bytes moved: the bandwidth table's
	     # transfer lies in what the file calls idle.
	     ([$COMM.link_time_ms, $COMM.idle_ms] | min) as $mv |
	     " Most of it is what they count as idle, but their Transit Time leaves out the transfer their bandwidth table gives: up to \($mv / $n | fmt) per step of that idle is data moving, and \(($COMM.idle_ms - $mv) / $n | fmt) is neither by their counts" +
	     (if $COMM.p2p_elapse_ms > 0 then " (they book much of a send/recv's wait for its peer stage as idle: see the send/recv ops below)." else "." end)
	   elif $COMM.idle_ms >= 0.5 * $COMM.elapse_ms then " Most of it is what they count as idle (neither waiting nor moving data); without the tasks it cannot be split further."
	   elif $COMM.transit_ms >= 0.5 * $COMM.elapse_ms then " Most of it is data moving: overlap it with compute (gradient bucketing and reduce overlap, e.g. DDP bucket_cap_mb) or reduce its volume."
	   else " None of waiting, transit or idle is most of it." end) +
	  ppclause($n) + dpclause($n) + xferclause($n) +
	  ([$ONEST, ([$ce - $PPST, 0] | max)] | min) as $one |
	  ([$ce - $PPST - $one, 0] | max) as $oth |
	  collstakes($n) as $cs |
	  ([$oth, ($cs | map(.stake_ms) | add // 0)] | min) as $won |
	  (($cs | length) > 0 and $won < $oth - 0.0005) as $bygroup |
	  (if $PPST > 0 or $one > 0 or $bygroup then
	     (if $PPST > 0 or $one > 0 then
	       " " + ([ (if $PPST > 0 then "\($PPST | fmt) per step of it is that pipeline bubble" else empty end),
		      (if $one > 0 then "\($one | fmt) the collectives on 1-rank groups" else empty end) ] | join(" and ")) +
	       ", each at stake in its own finding; " else " " end) +
	     (if $bygroup | not then "at most \($oth | fmt) is at stake here (what overlapping or shrinking the other collectives could win)."
	      else "\(if $PPST > 0 or $one > 0 then "of the other \($oth | fmt), at" else "At" end) most \($won | fmt) is at stake here" +
		(if any($cs[]; .compute_unknown == true) then " (besides what compute left after the gradients could hide, not known without the kernel table)" else "" end) + ": " +
		# where it is not under compute by step_trace_time.csv, and the
		# waits the comm records or the cluster report count
		def waitnote: (if (.comm_wait_ms // 0) > 0 then "; the comm records count \(.comm_wait_ms | fmt) of it as waiting for peers, which their arriving on time wins too" else "" end) +
		  (if (.peers_in_input // [] | length) > 0 then "; what of it waits for global rank\(if (.peers_in_input | length) == 1 then "" else "s" end) \(.peers_in_input | map(tostring) | join(", ")), in this input, the cluster report tells from the ranks' arrival times (the comm records book such a wait as idle) and counts under the late rank: not to be added to this" else "" end);
		def stnote: if .exposed_from == "step_trace" then "; none of it runs under compute (step_trace_time.csv: Overlapped 0)" else "" end;
		($cs | map("\(.role // "group \(.group)") \(.stake_ms | fmt)" +
		  (if .how == "peers" then " (its \(.exposed_ms | fmt) not under compute is its ops waiting for their peers, \(.wait_ms | fmt) of it by the comm records, while moving almost no data: at stake on \(if (.peer_global_ranks // [] | length) > 0 then "global ranks \(.peer_global_ranks | map(tostring) | join(", "))" else "its peers" end), not here)"
		   elif .how == "shrink" and .compute_unknown == true then " of its \(.exposed_ms | fmt) (half its \(.half_transfer_ms * 2 | fmt) of transfer, which reducing it in BF16 saves\(stnote); how much more overlapping it could hide is not counted: the compute left after its gradient is not known without the kernel table\(if .role == "embd" then ", and on a first pipeline stage the embedding gradient is computed last" else "" end); what running it beside another group's collective wins is not measured: they share the links\(waitnote))"
		   elif .how == "shrink" then " of its \(.exposed_ms | fmt) (the \(.compute_ms | fmt) of compute that can hide it plus half its \(.half_transfer_ms * 2 | fmt) of transfer, which reducing it in BF16 saves; what running it beside another group's collective wins is not measured: they share the links\(waitnote))"
		   elif .upper_bound and .exposed_from == "step_trace" then " (overlapping it\(stnote); an upper bound: how much compute could run beside it (after its gradients are ready, or before its parameters are needed) is not known without the kernel table\(waitnote))"
		   elif .upper_bound then " (overlapping it; an upper bound: without the kernel table its time under compute is not known\(waitnote))"
		   elif .stake_ms < .exposed_ms - 0.0005 then " of its \(.exposed_ms | fmt) (overlap hides at most the \($BD.compute | fmt) of compute\(waitnote))"
		   else " (overlapping it\(waitnote))" end)) | join(", ")) + "." end)
	   else "" end) end);
       "step_group"; $dom; ([$ce - $PPST - ([$ONEST, ([$ce - $PPST, 0] | max)] | min), 0] | max |
	 if $COMM == null and $MWAIT != null then [., $MWAIT] | min
	 elif $COMM != null and (collstakes($COMM.steps) | length) > 0 then [., (collstakes($COMM.steps) | map(.stake_ms) | add)] | min
	 else . end); ($COMM == null); (if $COMM == null then (if gap("no_comm_records") then "no_comm_records" else "no_communication_json" end)
	 elif (($P.degraded // []) | index(["no_comm_tasks"])) != null then "no_comm_tasks" else null end); "COMM_EXPOSED_HEAVY") +
       {exposed_ms: ($ce | r6), stake_excludes: {pipeline_bubble_ms: ($PPST | r6), one_rank_groups_ms: ([$ONEST, ([$ce - $PPST, 0] | max)] | min | r6)}} +
       # Level0: at stake the Notify Wait time not under compute, an upper bound
       (if $COMM == null and $MWAIT != null then {measured_wait_ms: ($MWAIT | r6), not_waiting_ms: ([$ce - $MWAIT, 0] | max | r6), stake_upper_bound: true} else {} end) +
       (if $COMM != null then {one_rank_group_wait_ms: ($onewait / $COMM.steps | r6), transfer_bound: xferlist($COMM.steps)} +
	  # the other collectives' stake by group, as the text gives it
	  (if (collstakes($COMM.steps) | length) > 0 then {stake_by_group: collstakes($COMM.steps),
	     others_ms: ([$ce - $PPST - ([$ONEST, ([$ce - $PPST, 0] | max)] | min), 0] | max | r6)} else {} end) +
	  # the comm records' idle split by their bandwidth table, as the text says
	  (if $COMM.idle_ms >= 0.5 * $COMM.elapse_ms and $COMM.transit_ms < 0.5 * $COMM.link_time_ms then
	     ([$COMM.link_time_ms, $COMM.idle_ms] | min) as $mv |
	     {idle_moving_ms: ($mv / $COMM.steps | r6), idle_rest_ms: (($COMM.idle_ms - $mv) / $COMM.steps | r6)} else {} end)
	else {} end)
   else empty end),
  # Collectives on a 1-rank group move nothing between ranks: their whole
  # time is overhead that skipping them wins (its priority by its share).
  ([ $CGR[] | select(.size == 1 and (.elapsed_ms // 0) > 0) ] as $g1 |
   (($g1 | map(.elapsed_ms) | add // 0) / $csteps) as $e1 |
   if ($g1 | length) == 0 or $e1 < $B.comm_exposed_min_ms then empty else
     (([ $C[] | select(.group as $x | $g1 | any(.group == $x)) | .wait_ms // 0 ] | add // 0) / $csteps) as $w1 |
     # the idle windows right after those ops: no kernel runs there, so
     # the host's (a value read back before the next call, or a slow
     # launch), which skipping the calls removes only if nothing reads
     # their values back
     ([ $C[] | select(.group as $x | $g1 | any(.group == $x)) | .op ] | unique) as $o1 |
     ([ $WIN[] | select((.before.name // "") as $b | $o1 | index([$b]) != null) ]) as $gw |
     (($gw | map(.dur_ns) | add // 0) / $csteps | ms) as $gms |
     rec("Collectives on 1-rank groups move nothing between ranks: " +
	 ($g1 | map("\(.role // "group \(.group)") (group \(.group)) \(.ops_kind) \(.elapsed_ms / $csteps | fmt)") | join(", ")) +
	 " per step" +
	 (if $w1 > 0 then ", of which the comm records count \($w1 | fmt) as waiting although there is no peer" else "" end) +
	 ". Skip collectives on groups of one rank (a size check before the call), or find what that time is; it wins up to \($ONEST | fmt) per step" +
	 (if $ONEST < $e1 - 0.0005 then " (their time not under compute)" else "" end) + "." +
	 (if ($gw | length) == 0 then "" else
	    " Between them and after the last the device idles \($gms | fmt) per step in \($gw | length) window\(if ($gw | length) > 1 then "s" else "" end) of at least \($R.bubbles.min_bubble_us) µs (after " +
	    ($gw | sort_by(.start_ns) | map("\(.before.name) \(.dur_ns | ms | fmt) before \(.after.name // "the end")") | join(", ")) +
	    "): no kernel runs there, so it is most likely the host's (a value read back before the next call, such as a found-inf flag or a norm read with .item(), or a slow launch). Skipping the collectives removes their \($e1 | fmt); these gaps only if their values are not read back, and they lie within the device idle finding's idle, not counted again here." end);
	 "step_group"; $dom; $ONEST; false; null; "COMM_ONE_RANK_GROUP") + {one_rank_gap_ms: (if ($gw | length) == 0 then null else $gms | r6 end), one_rank_gap_windows: ($gw | length)} end),
  ($WAITOPS | map(select(.wait_ms / $csteps >= ([0.1, 0.01 * $svcms] | max))) | .[0:3][] | . as $o |
     ($CGR | map(select(.group == $o.group)) | .[0] // null) as $g |
     (if $g != null and ($g.peer_global_ranks // [] | length) == 1 then $g.peer_global_ranks[0] else null end) as $peer |
     ($PPW | map(select(.op == $o.op and .group == $o.group)) | .[0] // null) as $pp |
     if $pp != null then
       # A pp group's send/recv: this stage waits for its peer stage by
       # the schedule, which is the bubble, not lateness.
       ($C | map(select(.group == $o.group and .kind == "p2p")) | max_by((.wait_ms // 0) + (.idle_ms // 0))) as $lo |
       # the data moved, as xferlist counts it
       ((.bandwidth // {}) | ((.HCCS.time_ms // 0) + (.PCIE.time_ms // 0) + (.SIO.time_ms // 0)) as $on |
	 (if $on > 0 then $on else (.SDMA.time_ms // 0) end) + (.RDMA.time_ms // 0)) as $lt |
       ppwin(ppstage($g); $pp.ms; ([$lt, .elapse_ms] | min) / $csteps) as $win |
       rec("\(.op) on group \(.group | tostring) (\($g.role)) is the pipeline bubble: \((.wait_ms + .idle_ms) / $csteps | fmt) per step in its \(.calls / $csteps | round) send/recv op\(if .calls / $csteps > 1 then "s" else "" end) (the comm records' wait \(.wait_ms / $csteps | fmt) plus idle \(.idle_ms / $csteps | fmt); transit \(.transit_ms / $csteps | fmt)), this stage waiting for its peer stage, " +
	 (if $peer != null then "global rank \($peer) (parallel_group_info, not in this profile)" else "the other ranks of the group" end) +
	 ", or exchanging with it; the longest is \($lo.op) (\(($lo.wait_ms // 0) + ($lo.idle_ms // 0) | fmt)). A pipeline stage waits for its peer by the schedule, so this is not a late rank." + ppadvice($g; (.wait_ms + .idle_ms) / $csteps; $win) + ppwintext($win);
	 "op"; .op; $win.won_ms; true; null; "COMM_WAIT_DOMINANT") + {group: .group, pipeline_bubble: true, peer_global_rank: $peer, pipeline_stages: ppstage($g), pipeline_idle: $PIPE,
	 pipeline_stake: $win,
	 # the bubble less the stages' imbalance: the 1F1B schedule's own
	 schedule_bubble_ms: (ppstage($g) as $s | if $s == null or $s.microbatches == null then null
	   else ([(.wait_ms + .idle_ms) / $csteps - ($s.imbalance_ms_per_step // 0), 0] | max | r6) end)}
     else
     rec("\(.op) on group \(.group | tostring)" + (if $g.role != null then " (\($g.role))" else "" end) +
       " waits for a peer: the comm records count \(.wait_ms / $csteps | fmt) per step as waiting against \(.transit_ms / $csteps | fmt) of transit (wait ratio \(.wait_ratio))." +
       (if $peer != null then " The group's only peer is global rank \($peer) (parallel_group_info), not in this profile: profile it (or all ranks) to see why it is late."
	else " The cause is on another rank or in load imbalance: run asc-cluster over all ranks of this group to name the late rank." end);
       "op"; .op; ([.wait_ms / $csteps, ($BD.comm_exposed // 0)] | min); true; null; "COMM_WAIT_DOMINANT") + {group: .group} end),
  ($SLOWOPS[0:3][] | . as $o | (.slow_transports[0]) as $t |
     rec("\(.op) on group \(.group | tostring) moves data slowly: \($t) \(.bandwidth[$t].bandwidth_gbps) GB/s for \(.bandwidth[$t].size_mb | r6) MB (floor \($CR.bandwidth_low_gbps[$t]) GB/s in the rules). Check the link's health and contention with overlapping traffic, and the message sizes (bucket sizes).";
       "op"; .op; (.bandwidth[$t].time_ms * (1 - .bandwidth[$t].bandwidth_gbps / $CR.bandwidth_low_gbps[$t]) / $csteps); false; null; "COMM_BANDWIDTH_LOW")),

  # Named host causes, each decided on its call chain, with its
  # specific advice; at stake is the idle time the family explains.
  ($FAM[] | select($idleheavy) | .family as $f | .ms as $t |
     ("\($t | fmt) per step of device idle time in \($dom) lies under host \($f) work (\(share($t; $HB) | pcs) of the \($HB | fmt) of significant idle time per step): ") as $lead |
     rec($lead + (
       if $f == "op_compile" then "operators are compiled at run time: \($OCE.compiles) compile call(s) of at least \($A.compile_min_us) µs in the capture (opCompile, aclopCompile)." + chaintext($f) + " Set torch_npu.npu.set_compile_mode(jit_compile=False) and keep input shapes static so compiled operators are reused."
       elif $f == "h2d_copy" then
	 # Name the sync only when the chain shows one: a Level0 capture
	 # records no AscendCL calls, so only the copy's length is seen.
	 ($DG.host_cause_chains // [] | map(select(.family == $f)) | .[0].chain // []) as $ch |
	 # "to the device" only where a call names it (to_device); a sync
	 # under a copy call alone does not say which way the copy goes
	 (if ($DG.host_cause_chains // [] | map(select(.family == $f)) | .[0].to_device) == false
	  then "; the capture names no direction for them: a copy to the device is the common case, a .cpu() or .numpy() read-back the other" else "" end) as $dir |
	 (if any($ch[]; test("^(AscendCL@|acl)")) or ($LEVEL0 | not) then
	    "the host blocks in copies\(if $dir == "" then " to the device" else "" end) (a synchronisation or a memcpy under aten::to / _to_copy / copy_\($dir))." + chaintext($f) + copytext
	  else "the host is in copies\(if $dir == "" then " to the device" else "" end) (aten::to / _to_copy / copy_\($dir))." + chaintext($f) + copytext +
	    " A copy that long is likely a blocking one, but the synchronisation itself cannot be seen: a Level0 capture records no AscendCL calls (capture Level1 to see it)." end) + " A copy from pageable memory makes the host wait for it: use DataLoader(pin_memory=True) and .to(device, non_blocking=True) so the copy overlaps, or move the copies off the critical path."
       elif $f == "item_sync" then ".item() waits for the device inside the step (aten::item / _local_scalar_dense)." + chaintext($f) + " Keep the value on the device (accumulate metrics as tensors) and read it every N steps."
       elif $f == "sync" then "the host synchronises with the device outside any copy or .item() (an explicit stream or device synchronisation)." + chaintext($f) + " Remove torch.npu.synchronize() and other explicit synchronisations from the step."
       elif $f == "dataloader" then "the data loader is on the critical path (DataLoader __next__)." + chaintext($f) + " Raise num_workers and prefetch_factor, use persistent_workers=True, or move preprocessing to the device."
       elif $f == "gc" then "Python garbage collection runs inside the step." + chaintext($f) + " Call gc.freeze() after model set-up, or disable automatic collection and collect between steps."
       elif $f == "launch" then "the host is busy dispatching operators (aten ops, aclnn calls, the task queue) while the device waits (dispatch-bound)" +
	 (if ($DISP | length) > 0 then "; the ops with most host time in the idle windows: \($DISP[0:3] | map("\(.name) \(.ms_per_step | fmt)") | join(", ")) per step" else "" end) +
	 "." + chaintext($f) +
	 (if $OCE != null and $OCE.calls > 0 and $OCE.compiles == 0 then
	    " The capture's \($OCE.calls) compile calls (opCompile) take \($OCE.total_ms | fmt) in all, the longest \($OCE.longest_ms | fmt): lookups in the compiled-operator cache, not compilations (under \($A.compile_min_us) µs), so the aclop calls around them (aclopCompileAndExecute) are dispatch and jit_compile would change little." else "" end) +
	 " Fuse small operators, use graph mode (torch.compile / torchair) or larger batches" +
	 (if $DEQ > 0 then "; the task queue is on (\($DEQ) Dequeue@ events: operators are dequeued on a thread of their own), so the cost is in the framework's own dispatch (Python and aten ops)."
	  else ", and check that the task queue is enabled (TASK_QUEUE_ENABLE): the capture shows no Dequeue@ event." end)
       else "Python code runs while the device waits, launching nothing." + chaintext($f) + " Profile the Python side during the bubbles (py-spy) at the frames the report names." end) +
       stakeclause($t; absorbed($f); "") +
       (if absorbed($f) <= 0 and $PIPE != null and $PIPE.idle_ms > 0 then " Counted by its share of that idle, \(famstake($f; $t) | fmt) of the \($t | fmt) is at stake here." else "" end) +
       (if absorbed($f) > 0 then " But the remedy is job-wide (every rank runs the same code): if that peer has the same host pattern, the fix shortens its lateness as well, and up to \($t | fmt) per step is won here; that is the figure at stake, an upper bound that is part of the wait the communication finding counts, not in addition to it." else "" end) + $caveat;
       "step_group"; $dom; famjob($f; $t); ($f == "python" or absorbed($f) > 0); null; "host_cause:" + $f)
     + {stake_on: "this rank", stake_upper_bound: (($DG.comm_exposed_heavy and $CT == null and ($OPW | length) == 0) or absorbed($f) > 0),
	figures: {share_of_idle: share($t; $HB), idle_ms_per_step: $HB, family_ms_per_step: $t,
	 absorbed_by_late_peer_ms: absorbed($f),
	 at_stake_while_peer_late_ms: (famstake($f; $t) | r6), at_stake_job_wide_ms: (famjob($f; $t) | r6)}}),

  # Long host syncs while the device is busy are serialisation
  # points, not bubble causes; what removing one wins is not measured.
  ($SERIAL[0:3][] | .in_flight as $f |
     rec("Serialisation point: \(.chain | join(" → "))" + (if .frame != null then " at \(.frame)" else "" end) +
       # The blocking call may start well into the outer call: before
       # it, the host waits for the task queue to launch what it holds;
       # under 1 ms that is not worth a clause.
       (if .before_block_ms >= 1 then
	  " is called \(.offset_ms | fmt) into step \(.step_id) and holds the host \(.dur_ms | fmt): for the first \(.before_block_ms | fmt) it has not yet reached its synchronising call" +
	  (if .before_block_dequeue_ms > 0 then " (the task queue's thread runs Dequeue@ events for \(.before_block_dequeue_ms | fmt) of it: it is still launching the work queued before the call)" else "" end) +
	  "; then \(.chain[-1]) blocks it for \(.blocked_ms | fmt), from \(.blocked_offset_ms | fmt)"
	else ": \(.chain[-1]) blocks the host for \(.blocked_ms | fmt), from \(.blocked_offset_ms | fmt) into step \(.step_id)" end) +
       # Two durations: the synchronising call's (blocked) and the
       # outermost call's (dur); each is named.
       ", until the device has done the work queued before it: the device is busy for \(.device_busy_ms | fmt) of the \(.dur_ms | fmt) that \(.chain[0])" +
       (if (.chain | length) > 1 then " (the outermost call)" else "" end) + " lasts (\(.device_idle_ms | fmt) idle). " +
       (if $f == null then "The capture holds no HCCL tasks, so what that work waited on (a collective waiting for a peer, say) cannot be told; \($TASKSWHERE). "
	elif $f.comm_ops == 0 then "No communication op runs in it: the host waited on compute. "
	else "Communication runs for \($f.comm_ms | fmt) of it (\($f.comm_ops) op(s): \($f.comm_op_names | join(", ")), \($f.comm_elapsed_ms | fmt) in all)" +
	  (if $f.waited_for == null and ($f.notify_wait_ops // [] | length) > 0 then
	     ", and the device's Notify Wait tasks in " + ($f.notify_wait_ops | map("\(.op) wait \(.wait_ms | fmt)" + (if .start_before_ms > 0 then " (it started \(.start_before_ms | fmt) before the call)" else "" end)) | join(", ")) +
	     ": the host waited on the communication, and the communication on a peer (the wait the communication finding measures; a Level1 capture names the peer), so the call itself costs little. "
	   elif $f.waited_for == null then ". "
	   else ", and those ops wait \($f.waited_for.wait_ms | fmt) for rank \($f.waited_for.rank)" + (if $f.waited_for.in_input == false then " (not in this input)" else "" end) +
	     ": the host waited on the communication, and the communication on rank \($f.waited_for.rank), so the call itself costs little. " end) end) +
       "Meanwhile the host queues nothing, so the work after it cannot be queued ahead" +
       (if .to_step_end_ms != null and .to_step_end_ms >= 0 then
	  "; it ends \(.to_step_end_ms | fmt) before the step does, with the device's queue drained, so the next step's work (its input copy included) starts from an empty queue" else "" end) +
       # No idle window of its own, but the host cannot prepare the next
       # step while it blocks: that step's preparing stays exposed.
       "; the device mostly works while it blocks, but it keeps the next step's preparing fully exposed, since the host cannot run ahead while it blocks" +
       (if ($BD.preparing // 0) > 0 then " (this step's preparing: \($BD.preparing | fmt))" else "" end) + ". " +
       (if (.site_windows | length) == 0 then "" else
	  "The same call site holds host time in " +
	  (.python_frames as $pf | .site_windows | map("\(.bubble_id) (\(.dur_ms | fmt) of device idle" + (if .scope == "tail" then ", the step's tail after its last kernel: no collective of this step follows it, and whether the next step's first one would wait for a late peer and absorb it lies past the capture" else "" end) +
	     "; host there: " + (.host_ms | to_entries | map("\(.key) \(.value | fmt)") | join(", ")) + "; of it \(.site_ms | fmt) in calls at this site" +
	     (if .noframe_ms > 0 then " and \(.noframe_ms | fmt) in Python calls the profiler records without a call stack of their own" +
		# placed by the trace's nesting (asc-attrib's by_frame)
		(.noframe_by_frame as $b | if ($b | length) == 0 then "" else
		   # the site's frames' own lines go last, together
		   ([$b[] | select(.own and (.relation == "site_function" or .relation == "caller"))] as $own |
		    "; the trace's Python frames hold them: " + ([$b[] | select(.own and (.relation == "site_function" or .relation == "caller") | not)] |
		     map("\(.ms | fmt) " +
		     (if .own then "in the own lines of \(.frame)"
		      elif .relation == "profiler" then
			"in the profiler's own code (\(.calls[0:2] | join(", "))\(if (.calls | length) > 2 then " and others" else "" end)), " +
			(if .called_by == null then "under no Python frame of user code"
			 else "called by the training loop \(.called_by) (the frame that runs the step and calls into the profiler)" +
			   (if ($pf | length) > 0 then ", not by \($pf[0])" else "" end) end) +
			", and run only while profiling"
		      elif .relation == "none" then "under no Python frame of user code" + (if .called_by != null then ", called by \(.called_by)" else "" end)
		      else "under \(.frame)" + (if .relation == "site_function" then ", the call site's own function"
			elif .relation == "caller" then ", which calls the call site's function" else "" end) end) +
		     (if .own or .relation == "profiler" then "" else " (\(.calls[0:2] | join(", "))\(if (.calls | length) > 2 then " and others" else "" end))" end)) | join(", ")) +
		    (if ($own | length) == 0 then "" else
		       ", and \([$own[].ms] | add | fmt) in the own lines of the call site's function and its callers (" + ($own | map("\(.frame) \(.ms | fmt)") | join(", ")) + ")" end) +
		    (if .unplaced_ms > 0 then ", and \(.unplaced_ms | fmt) in calls that carry a call stack or lie under one" else "" end)) end)
	      else "" end) + ")") | join(" and ")) + ". " +
	  # one step cannot tell code run every step from code run every few
	  (if ($DG.group_size // 0) < $R.verdict.recurring_min_steps then
	     "With \(($DG.group_size // 0) | if . == 1 then "one step" else "\(.) steps" end) captured, whether this call site runs every step or only every few (at a print frequency, say) is not in the capture: the figures are the captured step's. " else "" end) end) +
       (if .family == "h2d_copy" then "Use pinned memory and non_blocking=True copies."
	elif .family == "item_sync" then "Keep the value on the device and read it every N steps, so the host can run ahead" + (if (.site_windows | length) > 0 then ", and the site's calls in \(if (.site_windows | length) > 1 then "those windows" else "that window" end) (\(.site_windows | map(.site_ms) | add | fmt)) go too" +
	  # the same frames' python time goes with them if the display does
	  (.site_windows as $sw0 | [$sw0[].site_frames_ms] | add // 0 |
	   if . > 0 then ", and so does the Python work the trace nests with them in the same frames (\(fmt)" +
	     ([$sw0[].site_own_ms] | add // 0 | if . > 0 then ", \(fmt) of it in those frames' own lines" else "" end) +
	     ") if the code around the call runs every N steps with it" else "" end) +
	  ([.site_windows[].profiler_ms] | add // 0 |
	   if . > 0 then "; the profiler's own \(fmt) stays while profiling." else "." end)
	  else "." end)
	else "Remove the synchronisation from the step, so the host can run ahead." end) + $caveat;
       "step_group"; $dom; null; false; null; "HOST_SERIALISATION")),

  # Idle time the named causes do not explain.
  (if $idleheavy then
     ((($BD.free // 0) + ($BD.preparing // 0) + ($BD.tail // 0)) - $explained) as $rest |
     select($rest > 0.1 * (($BD.free // 0) + ($BD.preparing // 0) + ($BD.tail // 0))) |
     (($BD.free // 0) + ($BD.preparing // 0) + ($BD.tail // 0)) as $idle |
     # The rest, split: host ops of no named family, windows with no host
     # event at all, and idle time outside the significant host-facing
     # windows (gaps under min_bubble_us, capture artefacts).
     ($HC.other // 0) as $other |
     ($DG.untraced_ms_per_step // 0) as $untraced |
     ($DG.frame_self_ms_per_step // 0) as $fself |
     ($DG.serial_wait_ms_per_step // 0) as $swait |
     ([$idle - $HB, 0] | max) as $short |
     (if $PIPE == null or $PIPE.idle_ms <= 0 then null
      elif $rest >= $PIPE.idle_ms - 0.001 then $PIPE.critical_ms
      else $rest * $PIPE.critical_ms / $PIPE.idle_ms end) as $PST |
     # Without step markers the window is the kernels' span: no edge gap
     # is measured; torch_npu's own Preparing is said beside it.
     ([($ST[]?, ($STBY | .[]?)) | .preparing_ns // empty] | if length > 0 then add / length / 1000000 else null end) as $tnprep |
     (if $BD.preparing == null and $BD.tail == null then
	"preparing and tail not measured: " +
	(if all($M[]; .window_source == "step_trace") then "without a kernel table the window is torch_npu's step (step_trace_time.csv's Stage), and no kernel marks where work starts or ends in it"
	 else "without step markers the window is the kernels' span" end) +
	(if $tnprep != null then "; torch_npu's Preparing before it: \($tnprep | fmt)" else "" end)
      else "preparing \($BD.preparing | fmt), tail \($BD.tail | fmt)" end) as $edges |
     ($DG.device_task_ms_per_step // 0) as $dtask |
     rec("The device idles \($idle | fmt) per step in \($dom) (free \($BD.free | fmt), \($edges)" +
       (if $dtask > 0 then "; its significant windows hold \($dtask | fmt) of device tasks that are no kernels (\($DG.device_task_names | join(", ")) in \(if ($P.source // "") == "db" then "the TASK table of \([$P.files[]? | select(.kind == "db") | .file][0] // "the SQLite export")" else "trace_view.json's Ascend Hardware process" end)), idle here as in torch_npu's figures" else "" end) +
       "); \($rest | fmt) of it has no named host cause" +
       (if ($MINOR | length) > 0 then " (smaller named causes: \($MINOR | map("\(.family) \(.ms | fmt)") | join(", ")))" else "" end) +
       (if ($hosted | not) then (if gap("no_trace_view") then
	   (if ($P.framework // "") == "msprof" then ": the msprof timeline (msprof_*.json) is missing, so the host side cannot be seen; export it (msprof --export=on) from a capture that collected the AscendCL API"
	    else ": trace_view.json is not in this input, so the host side cannot be seen; " +
	      # ask only for the activities profiler_info shows were off
	      (($P.config.activities // null) as $act |
	       if $act == null then "recover it from the run if it was exported, else export it (activities CPU and NPU)"
	       elif ($act | map(select(test("CPU|NPU"))) | length) >= 2 then "recover it from the run: the activities CPU and NPU were on (profiler_info), so the run should have written it"
	       else "capture again with the activities CPU and NPU (profiler_info lists only \($act | join(", ")))" end) end) +
	   (if gap("no_stacks") and $P.config.with_stack == false then "; with_stack was off (profiler_info), so even that trace would give no Python source line: capture with with_stack=True to reach them" else "" end) + "."
	 else ": no host events were recorded, so the host side cannot be seen." end)
	else ": other host ops \($other | fmt)" +
	  (if $swait > 0 then ", the host blocked in a serialisation point \($swait | fmt)" else "" end) +
	  (if $fself > 0 then ", inside \($DG.frame_self) (the training loop's frame) with no call recorded under it \($fself | fmt)" else "" end) +
	  ", no host event of any depth (untraced) \($untraced | fmt), gaps under \($B.min_bubble_us) µs and capture edges \($short | fmt). " +
	  # The longest stretch with no event under the loop's frames: inside
	  # one of them it is that frame's own code, else untraced.
	  (if $ULONG == null then "" else "the longest stretch with no event under the loop's frames, \($ULONG.dur_ms | fmt) in \($ULONG.bubble_id) from \($ULONG.offset_ms | fmt) into the step, lies " +
	     (if $ULONG.inside != null then "inside \($ULONG.inside), " else "" end) +
	     (if $ULONG.before != null then "after \($ULONG.before)" else "from the window's start" end) + " and " +
	     (if $ULONG.after != null then "before \($ULONG.after)" else "up to the window's end" end) end) as $stretch |
	  ([[$other, "other"], [$untraced, "untraced"], [$fself, "self"], [$short, "short"], [$swait, "serial"]] | max_by(.[0]) | .[1]) as $big |
	  # A frame with nothing recorded under it is not proof of its own
	  # code: a pause the profiler does not record (GC) or the profiler's
	  # own overhead look the same; only a sampler tells them apart.
	  (if $big == "self" then "Most of it lies inside \($DG.frame_self) with no call recorded under it: the profiler records that frame but nothing beneath it there, which is the frame's own code, " +
	     (if $GC.recorded then "a pause the profiler does not record" else "an unrecorded garbage-collection pause (GC is not recorded in this capture)" end) +
	     " or the profiler's own overhead" + (if ($INFL | length) > 0 then " (\($INFL | join(", ")) on in this capture add to it)" else "" end) +
	     ": the capture cannot tell them apart" +
	     (if $stretch != "" then "; \($stretch)" else "" end) +
	     "; sample the host during the bubbles with a sampler (py-spy record or dump, perf), which sees code, GC and profiler alike, to tell which it is."
	   elif $big == "untraced" then "Most of it is untraced: no host event of any depth covers it, so the capture does not show what the host did" +
	     (if $stretch != "" then "; \($stretch): look at the code between them" else "" end) +
	     "; sample the host during the bubbles (py-spy dump, perf)."
	   elif $big == "short" then "Most of it is many short gaps between kernels: the launch rate limits the device; fuse small operators, use graph mode or larger batches."
	   elif $big == "serial" then "Most of it lies while the host waits on the device in a serialisation point: the device's own gaps (waiting on communication or a dependency), not a host cause."
	   else "Most of it is host ops without a named cause: look at the host ops around the top bubbles listed in the report" + (if gap("no_stacks") and $fw then "; re-capture with with_stack=True to get the Python line of each" else "" end) + "." end) + $caveat end) +
       (if ($hosted | not) and (all($M[]; .breakdown_source == "step_trace") | not) and $short > 0 then
	  " \($short | fmt) per step of it lies in gaps under \($B.min_bubble_us) µs between kernels." else "" end) +
       stakeclause($rest; $rest * $AFALL | r6; ", counted by its share of the idle windows that do,") +
       # With the pp ops placed, only idle on the pipeline's critical
       # path is at stake ($PST: its share of the rest).
       (if $AFALL <= 0 and $PIPE != null and $PIPE.idle_ms > 0 and $rest < $PIPE.idle_ms - 0.001 then
	  " Counted by its share of that idle, \($PST | fmt) of the \($rest | fmt) is at stake here."
	elif $AFALL <= 0 and $PIPE != null then " The \($PST | fmt) on the critical path is what is at stake here."
	elif $AFALL <= 0 and gap("no_kernel_table") and nokpp != null then
	  " So at most all of it, \($rest | fmt) per step, is at stake here: an upper bound, as how much of it lies on the critical path cannot be told without the kernel table."
	else "" end) +
       (if ($hosted | not) then llagtext($BPAT) + bpattext else "" end) + partpointer;
       "step_group"; $dom; (if $AFALL <= 0 and $PIPE != null then $PST else $rest * (1 - $AFALL) end); true; (if ($hosted | not) then (if gap("no_trace_view") then "no_trace_view" else "no_host_events" end) else null end); "DEVICE_IDLE")
       # without host events the split is not measured; without kernels
       # there are no windows to tell short gaps from
       + {stake_on: "this rank", stake_upper_bound: ($AFALL <= 0 and $PIPE == null and gap("no_kernel_table") and nokpp != null),
	  # the soft label the kernel table's gaps give without host events
	  launch_lag: (if $hosted then null else $LLAG end),
	  backward_gap: $BPAT,
	  parts_idle_ms: (namedidleparts | if length == 0 then null else map(.bubble_ns) | add | ms end),
	  parts_idle_names: (namedidleparts | if length == 0 then null else map(.name) end),
	  pipeline_critical: ($AFALL <= 0 and $PST != null),
	  figures: {idle_ms: ($idle | r6), rest_ms: ($rest | r6), absorbed_by_late_peer_ms: ($rest * $AFALL | r6),
	  other_ms: (if $hosted then $other | r6 else null end), serial_wait_ms: (if $hosted then $swait | r6 else null end),
	  untraced_ms: (if $hosted then $untraced | r6 else null end),
	  frame_self_ms: (if $hosted then $fself | r6 else null end),
	  short_ms: (if all($M[]; .breakdown_source == "step_trace") then null else $short | r6 end), min_bubble_us: $B.min_bubble_us}}
   else empty end),

  ($aicpu[0:3][] | . as $k | ($OPS | map(select(.key == $k)) | .[0]) as $o |
     rec("AI CPU op \($k) runs exposed (no concurrent AI Core work): move it to AI Core (a supported dtype / shape) or off the critical path.";
       "op"; $k; (if $o == null then null else (($o.dur_total_ns // 0) * (1 - ($o.aicpu.masked_ratio // 0)) / ([$M | length, 1] | max) / 1000000) end); false; null; "AICPU_EXPOSED")),

  (if ($groups | length) > 1 and gap("no_shapes") and $fw then
     # record_shapes on but a kernel table without shapes is a Level0
     # table: the level, not the option, is what to change.
     rec(if $P.config.record_shapes == true
       then "Steps fall into \($groups | length) groups and the kernel table has no shapes although record_shapes was on (a Level0 table): re-capture at Level1 to tell shape changes from control-flow changes."
       else "Steps fall into \($groups | length) groups and shapes were not recorded: re-capture with record_shapes=True to tell shape changes from control-flow changes." end;
       "global"; null; null; true; "no_shapes"; "capture") else empty end),
  (if gap("no_step_markers") and ($M | length) > 0 and ($M[0].window_source != "step_trace") then
     rec("No step markers: windows come from \(if gap("pseudo_step") then "one pseudo-step" else "the Step Id column" end), so prelaunch and tail gaps are not measurable" +
       (if $fw then (if $scheduled then "; the trace with its ProfilerStep#N markers is not in this input" else "; capture with a torch_npu schedule (ProfilerStep#N)" end) else "" end) + ".";
       "global"; null; null; true; "no_step_markers"; "capture") else empty end),
  (if ($hidden | not) and ($M | length) > 0 then
     ($OPS | sort_by(-(.total_cost_ns // 0)) | map(select((.tags // []) | index(["WAIT_ANCHOR_FALSE_HOTSPOT"]) == null)) | .[0:3] | map(.key)) as $topops |
     rec("The device is fed and communication is hidden: compute is \($BD.compute | fmt) of the \($svcms | fmt) step. Optimise the top ops by total cost" + (if ($topops | length) > 0 then " (\($topops | join(", ")))" else "" end) + ".";
       "global"; null; ($BD.compute // null); false; null; "compute") else empty end),

  # A part outside the layers that costs more than verdict.part_share of the step.
  ((($MP // {}).kinds // []) | map(select((.kind | IN("lm_head_loss", "pipeline_wait", "optimizer")) and .share >= $R.verdict.part_share)) | .[] as $k |
     rec(parttext($k); "structure"; "step \($MP.step_id): \($k.label)"; $k.wall_ms; false; null; "PART_" + ($k.kind | ascii_upcase)) +
       {part_kind: $k.kind, part_label: $k.label, part_wall_ms: $k.wall_ms, part_share: $k.share}),
  # Once-per-step parts that idle (their wall's finding above, if any, holds it).
  (idleparts | map(select(.kind as $x | any(($MP.kinds // [])[]; .kind == $x and (.kind | IN("optimizer")) and .share >= $R.verdict.part_share) | not)) as $ps |
   if ($ps | length) == 0 then empty else partidle($ps) as $q |
     rec(idletext($q); "structure"; "step \($MP.step_id): \($q | map(.name) | join(", "))"; ($q | map(.bubble_ns) | add | ms); false; (if $hosted then null else "no_host_events" end); "PART_IDLE") +
       {part_idle_ms: ($q | map(.bubble_ns) | add | ms), part_idle: ($q | map(del(.host) | .bubble_ms = (.bubble_ns | ms) | .wall_ms = (.wall_ns | ms) | .windows_ms = (.windows_ns | ms))),
	part_host_ms: parthost($q)} end)
  ,
  # The input, the loss and the metric after it, by the same rule; a late
  # peer's wait makes their time an upper bound, as for the host findings.
  (idleparts2 as $ps | if ($ps | length) == 0 then empty else partidle2($ps) as $q |
     ($q | map(.bubble_ns) | add | ms) as $t | ($q | map(.before_late_ns) | add / 1000000) as $ab |
     # the host time in its windows that other parts' calls hold stays
     otherms($q) as $o | ($t - $o) as $won |
     rec(idletext($q) + " " + idletext2($q); "structure"; "step \($MP.step_id): \($q | map(.name) | join(", "))"; $won; false; (if $hosted then null else "no_host_events" end); "PART_IDLE") +
       {part_idle_ms: $t, part_idle: ($q | map(del(.host, .calls, .before_late_ns, .other) | .bubble_ms = (.bubble_ns | ms) | .wall_ms = (.wall_ns | ms) | .windows_ms = (.windows_ns | ms))),
	part_calls: ([$q[].calls[]] | sort_by(-.ns) | .[0:4] | map(.ms = (.ns | ms) | del(.ns))), part_host_ms: parthost($q),
	part_other_host_ms: ($o | r6), figures: {part_idle_ms: ($t | r6), other_part_host_ms: ($o | r6), won_by_remedy_ms: ($won | r6)},
	part_other_calls: ([$q[].other.calls[]] | sort_by(-.ns) | map({root, call, frame, ms: (.ns | ms), kernels} + .place | del(.other)))} +
       (if $ab > 0 and ($LATE != null or ($OPW | length) > 0) then {stake_on: (if $LATE != null then $LATEN else $OPWN end), stake_upper_bound: true,
	  figures: {part_idle_ms: ($t | r6), other_part_host_ms: ($o | r6), won_by_remedy_ms: ($won | r6), before_late_peer_ms: ($ab | r6), at_stake_while_peer_late_ms: ([$won - $ab, 0] | max | r6), at_stake_job_wide_ms: ($won | r6)}} else {} end) end)
] | (any(.[]; .pipeline_bubble == true)) as $pb
  | map(if .finding == "PART_PIPELINE_WAIT" and $pb then . + {time_at_stake_ms: null, text: (.text + " Its time is at stake in the pipeline-bubble finding, not counted again here.")} else . end)
  # the once-per-step parts' idle is device idle: at stake in the idle findings
  | (any(.[]; .finding == "DEVICE_IDLE" or (.finding | startswith("host_cause:")))) as $idlef
  | map(if .finding == "PART_IDLE" and $idlef and (.stake_upper_bound != true) then . + {time_at_stake_ms: null, text: (.text + " This idle lies within the device idle of the idle findings: it is at stake there, not counted again here.")} else . end)
  | map(. + {share_of_step: (if .time_at_stake_ms == null or $svcms <= 0 then null else share(.time_at_stake_ms; $svcms) end)})
  | (any(.[]; .finding == "host_cause:launch")) as $launchf
  | map(. + {headline: (
      (if .time_at_stake_ms == null then "" else "\(.time_at_stake_ms | fmt) per step (\(.share_of_step | pcs))" end) as $t |
      if .finding == "COMM_EXPOSED_HEAVY" and ((.stake_on // "") | startswith("rank ")) and .won_back_by_fixing_ms != null then
	"Exposed communication waiting for \(.stake_on): \(.late_peer_wait_ms | fmt) per step, of which fixing it wins back about \($t)."
      elif .finding == "COMM_EXPOSED_HEAVY" and ((.stake_on // "") | startswith("rank ")) then "Exposed communication waiting for \(.stake_on): \($t)."
      elif .finding == "COMM_EXPOSED_HEAVY" and ($OPW | length) > 0 and $OPW[0].measured then
	"Exposed communication: \(.exposed_ms | fmt) per step, of which \(.measured_wait_ms // $MWAIT | fmt) waits for peers by the device's Notify Wait tasks (\($OPW[0].op) waits \($OPW[0].wait_ms | fmt) of its \($OPW[0].dur_ms | fmt)): at most \($t) at stake, an upper bound (Level0 names no peer)."
      elif .finding == "COMM_EXPOSED_HEAVY" and ($OPW | length) > 0 then
	"Exposed communication, most likely waiting for a late peer (\($OPW[0].op) takes \($OPW[0].dur_ms | fmt) against \($OPW[0].others_median_ms | fmt) for the group's other ops): \($t)."
      elif .finding == "COMM_EXPOSED_HEAVY" and ((.stake_excludes.pipeline_bubble_ms // 0) + (.stake_excludes.one_rank_groups_ms // 0)) > 0 then
	"Communication not hidden behind compute: \(.exposed_ms | fmt) per step; besides the " +
	([ (if .stake_excludes.pipeline_bubble_ms > 0 then "pipeline bubble" else empty end), (if .stake_excludes.one_rank_groups_ms > 0 then "1-rank groups" else empty end) ] | join(" and ")) +
	(if any(.stake_by_group[]?; .compute_unknown == true) then ", at most \($t) at stake (besides what compute left after the gradients could hide, not known without the kernel table)."
	 else ", at most \($t) at stake." end)
      elif .finding == "COMM_EXPOSED_HEAVY" then "Communication not hidden behind compute: \($t)."
      elif .finding == "COMM_WAIT_DOMINANT" and .pipeline_bubble == true then "\(.target_id) (group \(.group // "?" | tostring | .[0:8])…) is the pipeline bubble" + (if .peer_global_rank != null then " with global rank \(.peer_global_rank)" else "" end) +
	(if .pipeline_stake == null then ": \($t)."
	 elif (.pipeline_stake.rebalance_ms // 0) > 0 then
	   ": \(.pipeline_stake.bubble_ms | fmt) per step, of which rebalancing the stages could win about \($t)\(if .pipeline_stake.upper_bound then ", an estimate without the kernel table" else "" end); at most \(.pipeline_stake.imbalance_ms | fmt) if \(if .peer_global_rank != null then "global rank \(.peer_global_rank)'s" else "the peer" end) stage were made as fast as this one (profile it to see whether it can be)."
	 else ": \(.pipeline_stake.bubble_ms | fmt) per step, of which at most \($t) could be won." end)
      elif .finding == "COMM_WAIT_DOMINANT" then "\(.target_id) (group \(.group // "?" | tostring | .[0:8])…) waits for a late peer: \($t)."
      elif .finding == "COMM_BANDWIDTH_LOW" then "\(.target_id) moves data below the bandwidth floor: \($t)."
      elif (.finding | startswith("host_cause:")) then
	({op_compile: "compiles operators", h2d_copy: ((if $LEVEL0 then "copies" else "blocks in copies" end) + (if ($DG.host_cause_chains // [] | map(select(.family == "h2d_copy")) | .[0].to_device) == false then " (direction not recorded)" else " to the device" end)), item_sync: "spends host time in .item() calls",
	  sync: "synchronises with the device", dataloader: "waits for the data loader", gc: "collects garbage",
	  launch: "dispatches ops (dispatch-bound)", python: "runs Python code"}[.finding[11:]] // "does \(.finding[11:])") as $what |
	(if (.figures.absorbed_by_late_peer_ms // 0) > 0 then
	   "Device idle while the host \($what): up to \($t) at stake if \(if $LATE != null then $LATEN else $OPWN end) has the same host pattern (the fix is job-wide); \(.figures.at_stake_while_peer_late_ms | fmt) if it does not (the rest lies before the wait for it)."
	 elif .stake_upper_bound then "Device idle while the host \($what): at most \($t), an upper bound (without HCCL tasks it cannot be told whether it only lengthens a wait on a peer)."
	 else "Device idle while the host \($what): \($t)." end)
      elif .finding == "DEVICE_IDLE" and (.figures.absorbed_by_late_peer_ms // 0) > 0 then "Device idle without a named host cause: \(.figures.rest_ms | fmt) per step, of which \(.time_at_stake_ms | fmt) at stake on this rank (the rest lies before the wait for \(if $LATE != null then $LATEN else $OPWN end))."
      elif .finding == "DEVICE_IDLE" and .stake_upper_bound == true then "Device idle without a named host cause: at most \($t), an upper bound (without the kernel table it cannot be placed on or off the critical path)."
      elif .finding == "DEVICE_IDLE" and .pipeline_critical == true then
	(if .launch_lag != null then "Device idle with no host event to name its cause" else "Device idle without a named host cause" end) +
	": \(.figures.rest_ms | fmt) per step, of which \($t) on the pipeline's critical path" +
	(if .launch_lag == null then ""
	 else "; the kernel table's gaps point to one: the forward layers' many short gaps (\(.launch_lag.idle_ms | fmt) in \(.launch_lag.gaps)) are a probable host launch lag" +
	   (if (.launch_lag.hidden_ms // 0) > 0 then ", \(.launch_lag.critical_ms | fmt) of it on the critical path and \(.launch_lag.hidden_ms | fmt) hidden under the wait for the peer stage (at stake too if that stage has the same pattern: the fix is job-wide)" else "" end) end) +
	(if (.parts_idle_ms // 0) > 0 then "; \(.parts_idle_ms | fmt) of the idle lies not in the forward layers but in once-per-step parts (\(.parts_idle_names // [] | join(", ")): the part-idle finding names their patterns)" else "" end) + "."
      elif .finding == "DEVICE_IDLE" and .launch_lag != null then "Device idle with no host event to name its cause: \($t); the kernel table's gaps point to one: the forward layers' many short gaps (\(.launch_lag.idle_ms | fmt) in \(.launch_lag.gaps)) are a probable host launch lag."
      elif .finding == "DEVICE_IDLE" then "Device idle without a named host cause: \($t)."
      elif .finding == "AICPU_EXPOSED" then "AI CPU op \(.target_id) runs exposed: \($t)."
      elif .finding == "HOST_SERIALISATION" then "The host blocks on the device while it is busy (a serialisation point)."
      elif .finding == "compute" then "Compute-bound: \($t)."
      elif .finding == "PART_IDLE" and .stake_upper_bound == true then "The \(.part_idle | map(.name) | join(" and ")) idle\(if (.part_idle | length) == 1 then "s" else "" end) \(.part_idle_ms | fmt) per step on the device: up to \($t) at stake if \(.stake_on) has the same host pattern (the fix is job-wide); \(.figures.at_stake_while_peer_late_ms | fmt) if it does not (the rest lies before the wait for it)" + (if $launchf and (.part_host_ms.launch // 0) > 0 then "; up to \(.part_host_ms.launch | fmt) of it (the launch time in its windows) is in the dispatch-bound figure too." else "." end)
      elif .finding == "PART_IDLE" then "The \(.part_idle | map(.name) | join(" and ")) idle\(if (.part_idle | length) == 1 then "s" else "" end) \(.part_idle_ms | fmt) per step on the device (\(share(.part_idle_ms; $svcms) | pcs) of the step)" + (if .time_at_stake_ms == null then ", at stake in the idle findings." else "." end)
      elif (.finding | startswith("PART_")) then "The \(.part_label) takes \(.part_wall_ms | fmt) per step (\(.part_share | pcs))" + (if .time_at_stake_ms == null then ", at stake in the pipeline-bubble finding." else "." end)
      else .text end)})
  | sort_by(-(.time_at_stake_ms // -1))
  | to_entries | map(.value + {
      id: "R\(.key + 1)",
      priority: (if .value.time_at_stake_ms == null or .value.finding == "compute" then "P3"
	elif .key == 0 and (.value.share_of_step // 0) >= 0.05 then "P0"
	elif (.value.share_of_step // 0) >= 0.10 then "P1"
	elif (.value.share_of_step // 0) >= 0.02 then "P2" else "P3" end)})) as $recs |

# Statements that warn against misreading a metric are notes, not advice.
([ ($polluted[0:3][] | {text: "The wait of \(.) overlaps communication: its wait time is not a root cause; look at the communication and synchronisation path instead.", scope: "op", target_id: .}),
   ($anchors[0:3][] | {text: "\(.op_name) ranks high by total cost only because of its wait (\(.wait_ratio * 100 | r6)% wait): a false hotspot, do not optimise the kernel.", scope: "op", target_id: .op_name}),
   (if $DG != null and ($DG.recurring_assessable | not) then {text: "\($DG.group_size) step(s) in \($dom): whether the bubbles recur cannot be assessed (it needs \($R.verdict.recurring_min_steps)); capture more active steps.", scope: "step_group", target_id: $dom} else empty end)
 ]) as $notes |

# Follow-up sampling (seed Phase 9): what to capture next, each item from
# a gap in this capture's evidence, with the figure that makes it matter.
(($P.counts.kernel // 0) > 0) as $kerneled |
# A Level1+ capture whose comm records exist recorded trace_view.json:
# this copy lacks it, so it is recovered from the run, not captured anew.
(gap("no_trace_view") and ($LEVEL0 | not) and (($P.config.level // "") | test("level[12]"; "i")) and $COMM != null) as $TVLOST |
([ (if $TVLOST then
     {capture: "trace_view.json of this run: recorded at \($P.config.level) (communication.json is here) but not in this copy; recover it from the run",
      why: "it holds the host side and the HCCL tasks: no host event was read, so no idle window can be given a host cause", gap: "no_trace_view"}
    elif gap("no_trace_view") or gap("no_host_events") then
     {capture: "the host side: trace_view.json (export_type text, or the SQLite export with its host tables)",
      why: "no host event was read, so no idle window can be given a host cause", gap: (if gap("no_trace_view") then "no_trace_view" else "no_host_events" end)} else empty end),
   (if gap("level0") then
     {capture: "a Level1 capture of the same job",
      why: "Level0 records no CANN / AscendCL calls (synchronisations, copies, compilation) and no HCCL tasks (the wait of each communication op per peer)", gap: "level0"}
    elif gap("no_comm_tasks") and (($M | map(.comm_exposed_ns // 0) | add // 0) > 0) then
     {capture: (if $TVLOST then "the HCCL tasks: in that trace_view.json's HCCL process (recorded, not in this copy)"
		else "the HCCL tasks (trace_view.json's HCCL process, or COMMUNICATION_TASK_INFO in the SQLite export; Level1 or higher)" end),
      why: "\($DG.breakdown_ms_avg.comm_exposed // 0 | fmt) of communication per step is exposed and cannot be split into waiting per peer and moving data", gap: "no_comm_tasks"} else empty end),
   ([($CT.peers // [])[] | select(.in_input == false and (.own_exposed_wait_ms // 0) >= $B.comm_exposed_min_ms)] | (max_by(.exposed_wait_ms) // null) as $h | if $h == null then [] else
      # the others under its wait, as the communication finding gives them
      (undercap($h.rank; $h.group) | map({key: (.rank | tostring), value: .ms}) | from_entries) as $u |
      [$h] + (map(select(. != $h and .group == $h.group) | . + {under_ms: ($u[.rank | tostring] // 0)}) |
	map(select(.under_ms >= $B.comm_exposed_min_ms)) | sort_by(-.under_ms)) end | .[0:3]) as $late0 |
   # a peer whose rank another profile of the input holds (asc-analyze -I)
   # is not captured anew: the cluster report compares the ranks
   (.input_ranks // []) as $inr |
   ($late0 | map(select((.global_rank // .rank) as $r | $inr | index([$r]) == null))) as $late |
   ($late0 | map(select((.global_rank // .rank) as $r | $inr | index([$r]) != null))) as $here |
   (if ($here | length) > 0 then " (rank\(if ($here | length) > 1 then "s" else "" end) \($here | map(.global_rank // .rank | tostring) | join(", ")), which this rank also waits on, \(if ($here | length) > 1 then "are" else "is" end) in this input: see the cluster report)" else "" end) as $herenote |
   (if ($late | length) > 0 then
     {capture: "rank(s) \($late | map(.global_rank // .rank | tostring) | join(", ")) of the same step (or all ranks)",
      why: ("this rank waits for them, not under compute: rank \($late[0].global_rank // $late[0].rank) \(if $late[0] == $late0[0] then $late[0].exposed_wait_ms else $late[0].under_ms end | fmt) per step" +
	(if ($late | length) > 1 then "; under that wait also " + ($late[1:] | map("rank \(.global_rank // .rank) \(.under_ms | fmt)") | join(", ")) else "" end) + $herenote), gap: null}
    elif ($here | length) > 0 then
     {capture: "the cluster report (cluster/cluster_report.md), not a new capture, for rank(s) \($here | map(.global_rank // .rank | tostring) | join(", "))",
      why: "this rank waits for them (rank \($here[0].global_rank // $here[0].rank) \(if $here[0] == $late0[0] then $here[0].exposed_wait_ms else $here[0].under_ms end | fmt) per step not under compute), and they are in this input", gap: null} else empty end),
   # The peer pipeline stage that the pp bubble waits for.
   ([ $CGR[] | select(((.role // "") | startswith("pp")) and (.peer_global_ranks // [] | length) > 0) | . as $g |
      ppstage($g) | select(. != null and .peer_ms != null) | . + {peers: $g.peer_global_ranks} ] | .[0] // null) as $pps |
   (if $pps != null then
     {capture: "global rank \($pps.peers | map(tostring) | join(", ")), the peer pipeline stage, in the same step",
      why: ("this stage waits for it in the pp send/recv ops: about \($pps.peer_ms | fmt) per micro-batch on its stage" +
	(if $pps.here_ms != null then " against \($pps.here_ms | fmt) here" else "" end) +
	"; what takes that time (its layers, the output layer and loss, or host idle) is not in this profile"), gap: null} else empty end),
   (if $hosted and $DG != null and ($DG.untraced_ms_per_step // 0) > 0 and ($DG.untraced_share // 0) >= $B.evidence_time_share then
     {capture: "host samples during the step (py-spy dump --native, perf record -g) of the process that launches the kernels",
      why: ("\($DG.untraced_ms_per_step | fmt) of idle time per step has no host event of any depth" +
	(if $ULONG != null then "; the longest stretch: \($ULONG.dur_ms | fmt) in \($ULONG.bubble_id)" else "" end)), gap: null} else empty end),
   (if gap("no_stacks") and $hosted and ($DG.host_bubble_ms_per_step // 0) > 0 then
     {capture: "a short capture with with_stack=True",
      why: "the host chains in the idle windows have no Python source line", gap: "no_stacks"}
    elif gap("no_stacks") and $fw and $DG != null and (($BD.free // 0) + ($BD.preparing // 0) + ($BD.tail // 0)) > 0 then
     {capture: "a short capture with with_stack=True (profiler_info: with_stack false)",
      why: "\((($BD.free // 0) + ($BD.preparing // 0) + ($BD.tail // 0)) | fmt) of device idle per step: without stacks, even a recovered trace_view.json names no Python source line for its host causes", gap: "no_stacks"} else empty end),
   # the device-side launch lag: a lean capture sizes it, apart from the
   # with_stack one (stacks add host time to every dispatch too)
   (if ($INFL | length) > 0 and ($hosted | not) and $LLAG != null then
     {capture: ("a capture with \($INFL | if length > 1 then (.[0:-1] | join(", ")) + " and " + .[-1] else .[0] end) off" + (if gap("no_stacks") and $P.config.with_stack == false then ", apart from the with_stack capture (stacks add host time too)" else "" end)),
      why: "the forward layers' gaps (\($LLAG.idle_ms | fmt) per step in \($LLAG.gaps)) point to a probable host launch lag, and these options add host time to every op dispatch: part of it may be the profiler's own", gap: null} else empty end),
   (if ($INFL | length) > 0 and $hosted and ($DG.host_bubble_ms_per_step // 0) > 0 then
     {capture: "a capture with \($INFL | join(", ")) off",
      why: "these options inflate host times, so the host's share of each idle window is an upper bound here", gap: null} else empty end),
   (if $GC.recorded == false and $hosted and ($DG.host_bubble_ms_per_step // 0) > 0 then
     {capture: "a capture with the profiler's GC detection on (torch_npu: gc_detect_threshold)",
      why: "garbage-collection pauses are not recorded, so their share of the idle time is unknown", gap: null} else empty end),
   (if gap("no_pmu") and $kerneled and (gap("level0") | not) then
     {capture: "AI Core metrics (aic_metrics PipeUtilization, Level1)",
      why: "without them the top ops cannot be judged compute- or memory-bound", gap: "no_pmu"} else empty end),
   (if gap("few_steps") then
     {capture: "at least \($R.verdict.recurring_min_steps) active steps (the profiler schedule's active count)",
      why: "\($DG.group_size // 0) step(s) in the dominant group: whether bubbles recur cannot be assessed", gap: "few_steps"} else empty end)
 ]) as $SAMPLE |

# Severity follows the time at stake: high when the largest finding takes
# a quarter of the step, or bubbles recur in an underfed group.
(if $hidden | not then "none"
 elif (($recs | map(.share_of_step // 0) | max) // 0) >= $R.verdict.severity_high_share or
      ($DG.recurring_bubble_pattern and $DG.high_underfeed) then "high"
 else "medium" end) as $severity |

{
  enabled: true,
  time_origin_us: $origin,
  hidden_issue_present: $hidden,
  severity: $severity,
  host_risk_level: $hostrisk,
  host_risk_assessed: $hosted,
  # which of the at-stake figure the host recommendations' own figures on
  # this rank hold (their time_at_stake_ms is the job-wide one)
  host_risk_basis: ($HRB | if . == null or .at_stake_on_late_peer == null then . else
    ([$recs[] | select((.finding | startswith("host_cause:")) and .time_at_stake_ms != null and .figures.at_stake_while_peer_late_ms != null)]) as $hr |
    . + {at_stake_in_recommendations: ($hr | map(.id)),
	 at_stake_in_recommendations_ms_per_step: ($hr | map(.figures.at_stake_while_peer_late_ms) | add // 0 | r6),
	 at_stake_outside_recommendations_ms_per_step: (.at_stake_ms_per_step - ($hr | map(.figures.at_stake_while_peer_late_ms) | add // 0) | r6)} end),
  # the late-peer pattern of op durations (no HCCL tasks), as the text gives it
  late_op_pattern: (if ($OPW | length) == 0 or $OPW[0].measured then null else
    {ops: ($OPW | map({step, op, group, ops, first, dur_ms, others_median_ms, others_min_ms, others_max_ms, excess_ms: (.excess_ns | ms)})),
     excess_ms_per_step: (($OPW | map(.excess_ns) | add) / ([$DG.group_size // 1, 1] | max) | ms)} end),
  # each op's wait by the device's Notify Wait tasks (no HCCL tasks)
  comm_op_waits: (if ($OWT | length) == 0 then null else
    {source: $OWT[0].src, steps: ([$OWT[] | .step] | unique | length),
     ops: ($OWT | map({step, op, elapsed_ms, exposed_ms, wait_ms, exposed_wait_ms, longest_wait_ms, moving_ms, rest_ms})),
     exposed_wait_ms_per_step: (($OWT | map(.exposed_wait_ns) | add) / ([([$OWT[] | .step] | unique | length), 1] | max) | ms),
     # the split of the ops per step, as the text gives it (moving and rest null without SDMA tasks)
     split_ms_per_step: (([([$OWT[] | .step] | unique | length), 1] | max) as $g | def ps($k): if any($OWT[]; .[$k] == null) then null else ($OWT | map(.[$k]) | add) / $g | ms end;
       {elapsed: ps("elapsed_ns"), wait: ps("wait_ns"), moving: ps("moving_ns"), rest: ps("rest_ns")}),
     # the ops the text does not name, summed as it gives them
     other_ops_exposed_wait_ms: ([ $OWT[] | select(.exposed_wait_ms < $R.comm.straggler_min_ms) | .exposed_wait_ns ] | add // 0 | ms)} end),
  confidence: $confidence,
  confidence_basis: {score: $score, lowered_by: $CONFWHY},
  # A host finding that asks for a follow-up sets it too; a
  # communication finding's follow-up (profile the late peer) does not.
  requires_host_followup: ($hostfollow or any($recs[];
    .followup_required and (.finding // "" | test("^(host_cause:|DEVICE_IDLE$|HOST_SERIALISATION$)")))),
  dominant_group_id: $dom,
  evidence_gaps: $gaps,
  # What a gap's code alone would misstate: no_shapes is the kernel
  # table's, not record_shapes's (Level0 tables have no shape column).
  evidence_gap_notes: (if gap("no_shapes") | not then {} else
    ($P.files // [] | map(select(.kind == "trace" and .used)) | .[0].input_dims // null) as $dims |
    {no_shapes: ("the kernel table has no shapes" + (if $P.config.level == "Level0" then " at Level0" else "" end) +
      (if $P.config.record_shapes == true then "; record_shapes was on: " +
	 (if $dims == null then "the host ops' shapes are not read from this export"
	  elif $dims > 0 then "\($dims) host events of the timeline carry them (args Input Dims), not joined to the kernels"
	  else "no host event of the timeline carries them either" end)
       elif $P.config.record_shapes == false then "; record_shapes was off"
       else "; whether record_shapes was on is not known (no profiler_info)" end))} end),
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
  # a group needs a follow-up by its own evidence, or when a
  # recommendation about it asks for one (the dominant group: also the
  # host follow-up), so that the group and the rest of the JSON agree
  step_group_anomalies: (($hostfollow or any($recs[]; .followup_required and (.finding // "" | test("^(host_cause:|DEVICE_IDLE$|HOST_SERIALISATION$)")))) as $hf |
    # a percentile of fewer than verdict.percentile_min_steps steps is left out, not null
    $groups | map(del(.high_underfeed) | (if .largest_internal_bubble_ms_p95 == null then del(.largest_internal_bubble_ms_p95) else . end) | .group_id as $gid |
      .requires_followup = (.requires_followup or ($gid == $dom and $hf) or
	any($recs[]; .followup_required and .scope == "step_group" and .target_id == $gid)))),
  host_time_inflated_by: $INFL,
  gc_recorded: $GC,
  dispatch_ops: $DISP,
  op_compile_events: $OCE,
  untraced_longest: $ULONG,
  dequeue_events: $DEQ,
  serialisation_points: $SERIAL,
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
    host_causes: (.causes | map_values(ms) | gcnull),
    host_chains: (.chains | map(.ms = (.ns | ms) | del(.ns, .overlap_ns, .tree_ns, .call_ns, .copy_start_ns, .by_frame))),
    capture_artefact: .boundary,
    before: .before,
    after: .after,
    device_task_ms: (.dtns | ms),
    device_tasks: (.dtasks | map({name, task_type, stream, start_abs_us: absus($origin; .start_ns),
      offset_ms: (.offset_ns | ms), dur_ms: (.dur_ns | ms), overlap_ms: (.overlap_ns | ms)}))
  })),
  significant_windows_total: (.bubble_total // 0),
  internal_gaps_total: ($M | map(.bubble_count // 0) | add // 0),
  wait_anchor_ops: $anchors,
  wait_polluted_ops: $polluted,
  soft_root_cause_summary: $soft,
  step_results: $steps,
  communication: $COMM,
  communication_tasks: $CT,
  communication_groups: $CGR,
  model_parts: $MP,
  recommendations: $recs,
  notes: $notes,
  followup_sampling: $SAMPLE,
  input_ranks: .input_ranks,
  asc_version: .asc.version,
  rules_file: .asc.rules_file
}
