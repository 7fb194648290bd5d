# asc-report.jq: the Markdown anomaly report of one profile.
# Input: {profile:[rec], anomaly_discovery:[rec], structure:[...],
# step_structure:[...], op:[...], op_summary:[...], warning:[...]}.
# Facts are stated; causes are "possible", "probable" or "insufficient
# evidence", never one root cause.

def n: if . == null then "n/a" else tostring end;
def msu: if . == null then "n/a" else "\(.) ms" end;
def usu: if . == null then "n/a" else "\(.) µs" end;
def pctx: if . == null then "n/a" else "\((. * 10000 | round) / 100)%" end;
def code: if . == null then "n/a" else "`\(tostring | gsub("`"; "'"))`" end;
def cell: tostring | gsub("\\|"; "\\|") | gsub("\n"; " ");
def row: "| " + (map(cell) | join(" | ")) + " |";
def table($head; $rows): ([$head | row, ($head | map("---") | row)] + ($rows | map(row))) | join("\n");
def yesno: if . then "yes" else "no" end;
def ctx: if . == null then "(capture edge)"
	else "\(.name | code) \(.task_type // "n/a") \(.dur_ns / 1000)µs stream \(.stream | n) (\(.src))" end;
def certainty($share): if $share >= 0.7 then "probable" elif $share >= 0.2 then "possible" else "insufficient evidence" end;

. as $ALL |
(.profile[0] // {}) as $P |
(.anomaly_discovery[0]) as $A |
(.structure // []) as $STR |
((.op // []) | map(select((.view // "name") == "name"))) as $OPS |
((.op_summary // [])[0]) as $OS |
($A.step_group_anomalies | map(select(.group_id == $A.dominant_group_id)) | .[0]) as $DG |
($A.bubble_windows | map(select(.significant != false))) as $W |
($W[0:5]) as $TOP |
($A.step_results | map(select(.torch_npu_step_trace != null))) as $TN |

[
"# Anomaly report: \($P.profile // "?")",
"",
"- Profile: \($P.path // "n/a" | code) (\($P.framework // "n/a"), source \($P.source // "n/a"))",
"- Capture: level \($P.config.level // "unknown"), record_shapes \($P.config.record_shapes | n), with_stack \($P.config.with_stack | n), aic_metrics \($P.config.aic_metrics | n)",
"- Time origin: \($A.time_origin_us) µs (absolute); all other times are relative to it unless marked absolute",
"- Kernels: \($P.counts.kernel // 0), host events: \($P.counts.host // 0), step markers: \($P.counts.marker // 0), rows rejected: \($P.counts.rejected // 0)",
"- Confidence: **\($A.confidence)**; evidence gaps: \(if ($A.evidence_gaps | length) == 0 then "none" else ($A.evidence_gaps | map(code) | join(", ")) end)",
"",
"## Bubble-first summary",
"",
"1. **Are there significant bubbles?** " +
  (if $A.hidden_issue_present then
    "Yes: the device idled \($A.global_device_gap_analysis.device_gap_ms) ms of the \($A.global_device_gap_analysis.capture_span_ms) ms capture (\($A.global_device_gap_analysis.device_gap_ratio | pctx)); severity **\($A.severity)**."
   elif ($A.step_results | length) == 0 then "Not measurable: no kernel table was read."
   else "No hidden issue: the dominant group's underfeed is \($DG.underfeed_ratio_avg | pctx) and no gap is heavy." end),
"2. **Which group?** " +
  (if $DG == null then "none" else
   "\($DG.group_id | code): \($DG.group_size) of \($A.step_results | length) steps, \($DG.service_ms_avg) ms per step on average, device busy \($DG.device_busy_union_ms_avg) ms, underfeed \($DG.underfeed_ratio_avg | pctx)." end),
"3. **Prelaunch, tail, internal or inter-step?** " +
  (if $DG == null then "n/a" else
   "Dominant idle pattern **\($DG.dominant_idle_pattern)**: prelaunch \($DG.prelaunch_gap_ms_avg | msu), tail \($DG.tail_gap_ms_avg | msu), internal bubbles \($DG.internal_bubble_total_ms_avg | msu) per step." end),
"4. **Host risk?** **\($A.host_risk_level)**" +
  (if $DG != null and ($DG.dominant_anomaly_tags | length) > 0 then "; tags " + ($DG.dominant_anomaly_tags | map(code) | join(", ")) else "" end) + ".",
"5. **Is the evidence sufficient?** " +
  (if $A.requires_host_followup then "No: the causes below are soft and need host-side follow-up (see the advice at the end)."
   elif ($A.evidence_gaps | length) > 0 then "Partly: \($A.evidence_gaps | join(", ")) missing; the bubble facts stand, the causes are weaker."
   else "Yes for the facts; causes remain probabilistic." end),
"",
"## Hidden issue discovery",
"",
"### Dominant group metrics",
"",
(if $DG == null then "No step could be measured." else
 table(["metric", "avg", "median", "p90", "p95"];
   ($DG.stats | to_entries | map(select(.value != null) |
     [.key, .value.avg, .value.median, .value.p90, .value.p95])))
 end),
"",
"### Top \($TOP | length) bubbles",
"",
(if ($TOP | length) == 0 then "No significant bubble (≥ \($rules.bubbles.min_bubble_us) µs)." else
 table(["#", "bubble", "scope", "step", "start (rel)", "start (abs µs)", "duration", "host coverage", "labels", "host op"];
   ($TOP | to_entries | map(.value as $b | [
     .key + 1, ($b.bubble_id | code), $b.scope, $b.step_id,
     ($b.start_us | usu), $b.start_abs_us, ($b.duration_ms | msu),
     ($b.host_visible_coverage_ratio | pctx),
     ($b.candidate_labels | join(", ")),
     (if $b.top_host_op == null then "none" else ($b.top_host_op.name | code) + (if $b.top_host_op.frame then " at \($b.top_host_op.frame | code)" else "" end) end)
   ])))
 end),
"",
"### Raw kernel evidence around the top bubbles",
"",
(if ($TOP | length) == 0 then "n/a" else
 table(["bubble", "kernel before", "gap", "kernel after", "tags"];
   ($TOP | map([(.bubble_id | code), (.before | ctx), (.duration_ms | msu), (.after | ctx),
     (if (.tags | length) == 0 then "" else .tags | join(", ") end)])))
 end),
"",
"### Periodicity across the group",
"",
(if $DG == null then "n/a" else
 "\($DG.steps_with_significant_bubbles) of \($DG.group_size) steps of \($DG.group_id | code) have significant bubbles" +
 (if $DG.recurring_bubble_pattern then ": the pattern **recurs** (`RECURRING_BUBBLE_PATTERN`)." else ": not recurring." end) +
 (if $DG.group_size < 3 then " With \($DG.group_size) step(s) the periodicity is weakly supported." else "" end) end),
"",
"### Host evidence coverage",
"",
(if $DG == null then "n/a" else
 "Of the \($DG.significant_bubble_ms) ms of significant bubble time inside steps (capture edges excluded): " +
 "\($DG.host_covered_share | pctx) lies in windows with host leaf-event coverage ≥ 10%, " +
 "\($DG.untraced_share | pctx) in windows with coverage < 5% (untraced), " +
 "\($DG.comm_sync_share | pctx) in windows labelled communication or synchronisation." end),
"",
"### Soft labels and their evidence",
"",
(if ($A.soft_root_cause_summary | length) == 0 then "No window could be labelled." else
 ($A.soft_root_cause_summary | map(
   "- \(.label | code): " + (if .label == "insufficient_evidence" then "no cause could be named" else "**" + certainty(.share_of_significant_bubble_time) + "**" end) +
   " for \(.share_of_significant_bubble_time | pctx) of the significant bubble time in \(.target_id | code) (confidence \(.confidence))\n" +
   (.evidence | map("  - \(.)") | join("\n"))) | join("\n")) end),
"",
"### Follow-up sampling advice",
"",
(if $A.requires_host_followup then
  "The host side needs a closer look: sample it during the bubbles (py-spy dump/record on the training process, perf on the host threads, or msprof with host CPU profiling) and re-capture with activities CPU+NPU" +
  (if ($A.evidence_gaps | index(["no_stacks"])) then " and with_stack=True" else "" end) + "."
 else "No follow-up needed for the bubble causes." end),
"",
"## Step results",
"",
(if ($A.step_results | length) == 0 then "No step." else
 table(["step", "group", "window", "service", "busy union", "underfeed", "prelaunch", "tail", "internal bubbles", "largest", "gaps", "significant", "tags"];
   ($A.step_results | map([.step_id, .group_id, .window_source, (.service_ms | msu), (.device_busy_union_ms | msu),
     (.underfeed_ratio | pctx), (.prelaunch_gap_ms | msu), (.tail_gap_ms | msu), (.internal_bubble_total_ms | msu),
     (.largest_internal_bubble_ms | msu), .bubble_count, .significant_bubble_count, (.anomaly_tags | join(", "))])))
 end),
"",
(if ($TN | length) == 0 then "torch_npu's step_trace_time.csv was not available for a cross-check." else
 "### Cross-check with torch_npu's step_trace_time.csv\n\n" +
 table(["step", "prelaunch (ours)", "Preparing (torch_npu)", "Δ", "internal bubbles (ours)", "Free (torch_npu)", "Δ", "busy union (ours)", "Computing + Comm(Not Overlapped)", "Δ"];
   ($TN | map(. as $s | $s.torch_npu_step_trace as $t | [
     $s.step_id, ($s.prelaunch_gap_ms | msu), ($t.preparing_ms | msu), ($t.prelaunch_minus_preparing_us | usu),
     ($s.internal_bubble_total_ms | msu), ($t.free_ms | msu), ($t.internal_minus_free_us | usu),
     ($s.device_busy_union_ms | msu), ($t.busy_ms | msu), ($t.busy_union_minus_busy_us | usu)]))) +
 "\n\nOur figures are exact unions of kernel intervals in integer nanoseconds; torch_npu's are sums of its Overlap Analysis events." end),
"",
"## Structure breakdown",
"",
(($ALL.structure_drilldown // [])[0] // null) as $DD |
(if $DD == null then "" else
 "Drill-down step \($DD.step_id | code) (\($DD.selection)): \($DD.structures) structures; " +
 "bubbles sit **\($DD.bubbles_at)** (at structure boundaries \($DD.boundary_bubble_total_ms) ms, inside structures \($DD.inside_bubble_total_ms) ms)" +
 (if ($DD.bubble_structures // [] | length) > 0 then "; the largest bubble time is in " +
   ($DD.bubble_structures | .[0:3] | map("\(.structure_id | code) (\(.structure_type), \(.bubble_ms) ms)") | join(", ")) else "" end) + ".\n" end),
(if ($STR | length) == 0 then "No structure records in the stream (run asc-segment)." else
 table(["step", "structure", "type", "kernels", "wall", "busy union", "kernel sum", "total cost", "share of step", "gap before", "bubbles inside", "block busy", "side busy"];
   ($STR | map([(.step_id // ""), (.structure_id // ""), "\(.structure_type // "") \(.kind // "")", (.kernels // ""),
     (.wall_ms | msu), (.busy_union_ms | msu), (.kernel_sum_ms | msu), (.total_cost_ms | msu),
     (.structure_share | pctx), (.gap_before_ms | msu), (.internal_bubble_total_ms | msu),
     (.block.busy_union_ms | msu), (.side.busy_union_ms | msu)])))
 + (if ($ALL.structure_total // 0) > ($STR | length) then "\n\n(the first \($STR | length) of \($ALL.structure_total) structures; all of them are in the record stream)" else "" end) end),
"",
"## Op rankings",
"",
(if ($OPS | length) == 0 and ((.op_stat // []) | length) > 0 then
 "Only op_statistic.csv (aggregate, no timestamps): no bubble can be measured from it. Its top op types by total time:\n\n" +
 table(["op type", "core type", "count", "total", "avg", "ratio"];
   (.op_stat | sort_by(-(.total_us // 0)) | .[0:10] | map([(.op_type | code), (.core_type // "n/a"), .count, (.total_us | usu), (.avg_us | usu), "\(.ratio_pct // "n/a")%"])))
 elif ($OPS | length) == 0 then "No op records in the stream (run asc-ops)." else
 ($OPS | sort_by(-(.total_cost_ns // 0)) | .[0:10]) as $bycost |
 ($OPS | sort_by(-(.dur_total_ns // 0)) | .[0:10]) as $bydur |
 table(["rank", "by total cost", "total cost", "by duration", "duration", "tags"];
   [range(0; [$bycost | length, $bydur | length] | max) as $i | [
     $i + 1,
     ($bycost[$i].key // "" | code), ($bycost[$i].total_cost_ns // null | if . == null then "" else "\(. / 1000000) ms" end),
     ($bydur[$i].key // "" | code), ($bydur[$i].dur_total_ns // null | if . == null then "" else "\(. / 1000000) ms" end),
     (($bycost[$i].tags // []) | join(", "))]])
 end),
"",
(if ($A.wait_anchor_ops | length) == 0 then "No wait-anchor false hotspot." else
 "Wait anchors (rank high by total cost only because of their wait; demoted from every root-cause ranking):\n\n" +
 table(["op", "duration avg", "wait avg", "total cost avg", "wait ratio"];
   ($A.wait_anchor_ops | map([(.op_name | code), (.duration_us_avg | usu), (.wait_us_avg | usu), (.total_cost_us_avg | usu), (.wait_ratio | pctx)])))
 end),
"",
"## Recommendations",
"",
(if ($A.recommendations | length) == 0 then "None." else
 table(["id", "priority", "scope", "target", "recommendation", "follow-up", "evidence gap"];
   ($A.recommendations | map([.id, .priority, .scope, (.target_id | n), .text, (.followup_required | yesno), (.evidence_gap | n)])))
 end),
""
] | join("\n") + "\n"
