# asc-report.jq: the Markdown anomaly report of one profile.
# Input: {profile:[rec], anomaly_discovery:[rec], structure:[...],
# step_structure:[...], op:[...], op_summary:[...], warning:[...]}.
# The first thing said is the biggest thing in the step; durations are
# shown with 3-4 significant digits (exact values stay in the JSON);
# tables hold at most 8 columns.  Facts are stated; causes are
# "possible", "probable" or "insufficient evidence".

def n: if . == null then "n/a" else tostring end;
def kern: if . == null then "(capture edge)"
	else "\(.name | code) \(.dur_ns / 1000000 | dur)" end;
# A neighbouring kernel's name, and its task type, duration and stream.
def kname: if . == null then "(capture edge)" else .name | code end;
def kwhat: if . == null then "—"
	else "\(.task_type // "n/a" | md), \(.dur_ns / 1000000 | dur), \(if .stream == null then "no stream id" else "stream \(.stream)" end)" end;
def idlepattern: {internal_bubble: "internal (between kernels inside the step)", prelaunch: "prelaunch (before the step's first kernel)",
	tail: "tail (after the step's last kernel)", inter_step: "inter-step (the tail of one step and the prelaunch of the next)",
	mixed: "mixed (no scope dominates)", none: "none large enough to name"}[.] // (. | md);
def certainty($share): if $share >= 0.7 then "probable" elif $share >= 0.2 then "possible" else "insufficient evidence" end;
# The mean of numbers, null when any is missing.
def mean: if length == 0 or any(.[]; . == null) then null else add / length end;
def share($p; $w): if $w == null or $w <= 0 or $p == null then null else $p / $w end;

. as $ALL |
(.profile[0] // {}) as $P |
(.anomaly_discovery[0]) as $A |
($A.step_group_anomalies | map(select(.group_id == $A.dominant_group_id)) | .[0]) as $DG |
($A.bubble_windows | map(select(.significant != false))) as $W |
($W[0:($rules.bubbles.top_n // 5)]) as $TOP |
($A.step_results) as $S |
($S | map(select(.torch_npu_step_trace != null))) as $TN |
# torch_npu's step figures by the file they were read from: a SQLite
# export has analysis.db's StepTraceTime table, not step_trace_time.csv.
($TN[0].torch_npu_step_trace.src // "step_trace_time.csv" | split(":") |
  if length >= 3 then "\(.[0]) \(.[1])" else .[0] end) as $STF |
($DG.breakdown_ms_avg // {}) as $BD |
($DG.service_ms_avg // null) as $SVC |
($A.recommendations // []) as $R |
# Without host events, what the kernel table's gaps say of the host (the
# device idle finding's launch lag) is the only host reading there is.
($R | map(select(.finding == "DEVICE_IDLE" and .launch_lag != null)) | .[0] // null) as $LLR |
(if $LLR == null then "" else
   "; from the device side alone, \($LLR.id)'s reading of the kernel table's gaps: the forward layers' many short gaps (\($LLR.launch_lag.idle_ms | dur) per step in \($LLR.launch_lag.gaps) gaps) are a probable host launch lag, which no host event confirms" end) as $LLNOTE |
($A.communication // null) as $COMM |
($A.communication_tasks // null) as $CT |
($A.communication_groups // []) as $CG |
# Without a kernel table the groups' time under compute is not measured,
# but step_trace_time.csv's Overlapped 0 in every step says none is.
(($S | length) > 0 and all($S[]; .breakdown_source == "step_trace" and .comm_overlapped_ms == 0)) as $NOOV |
# The groups with their size and role, as a table (or nothing).
(if ($CG | map(select((.ops // 0) > 0)) | length) == 0 then "" else
 table(["group", "role", "ranks", "global ranks", "ops", "elapsed", "not under compute", "role from"];
   ($CG | map(select((.ops // 0) > 0)) | .[0:8] | map([(.group | tostring | code), (.role // "—" | md), (.size // "?" | tostring),
     (.global_ranks // null | if . == null then "—" else map(tostring) | join(", ") end),
     (.ops_kind // "\(.ops)" | md), (.elapsed_ms | dur), (if .exposed_ms != null then .exposed_ms | dur elif $NOOV then .elapsed_ms | dur else "n/a" end), (.role_from // "—" | md)]))) +
 "\n\nTimes are totals over the capture's steps; each profile holds one rank of each group." +
 (if $NOOV and any($CG[]; (.ops // 0) > 0 and .exposed_ms == null) then " Without a kernel table, \"not under compute\" is the whole elapsed time: \($STF)'s Overlapped is 0 in every step." else "" end) + "\n" end) as $GROUPS |
(($S | length) > 0 and $S[0].breakdown_source == "step_trace") as $STONLY |
($rules.verdict.report_max_steps) as $MAXSTEPS |

[
"# Anomaly report: \($P.profile // "?" | md)",
"",
"\($P.path // "n/a" | code): \($P.framework // "n/a" | md) \($P.source // "" | md) export, level \($P.config.level // "unknown" | md); " +
"\($P.counts.kernel // 0) kernels, \($P.counts.host // 0) host events, \($S | length) step(s)" +
(if ($P.counts.rejected // 0) > 0 then ", \($P.counts.rejected) rows rejected" else "" end) +
". Confidence **\($A.confidence)**" +
(($A.confidence_basis.lowered_by // []) | if length == 0 then "" else " (lowered by " + (map("\(.reason | code) \(.weight)") | join(", ")) + " from 3 points; asc-judge(1))" end) +
"; evidence gaps: \(if ($A.evidence_gaps | length) == 0 then "none" else ($A.evidence_gaps | map(. as $g | code + ($A.evidence_gap_notes[$g] // null | if . == null then "" else " (\(md))" end)) | join(", ")) end).",
"",
"## Verdict",
"",
(if ($S | length) == 0 then "Nothing could be measured: no kernel table and no step_trace_time.csv were read."
 elif $A.hidden_issue_present then
   "**Severity \($A.severity).** " +
   (if ($R | length) > 0 and $R[0].time_at_stake_ms != null then
     # every finding of priority P0-P2 (asc-judge(1)), none left out
     ($R | map(select(.time_at_stake_ms != null and (.priority | IN("P0", "P1", "P2")))) | map(.headline | md) | join(" "))
    else "The device idles or communicates where it should compute." end)
 else "**No hidden issue.** The device is fed (underfeed \($DG.underfeed_ratio_avg | pctx)) and communication is hidden behind compute." end),
"",
"Host risk: " + (if $A.host_risk_assessed == false then "not assessed from host events (none in the capture)" + $LLNOTE else "**\($A.host_risk_level)**" +
  ($A.host_risk_basis // null | if . == null or .marker_level == null or .marker_level == $A.host_risk_level then ""
   else " on this rank (the host markers alone give \(.marker_level))" end) end) +
# What the level rests on, and how much of it could be won here.
($A.host_risk_basis // null | if . == null or .under_named_host_ms_per_step <= 0 then "" else
   ": \(.under_named_host_ms_per_step | dur) of the \(.idle_ms_per_step | dur) of device idle per step lie under named host work (" +
   (.families_ms_per_step | to_entries | map("\(.key | code) \(.value | dur)") | join(", ")) + "); " +
   (if .at_stake_upper_bound then "at most \(.at_stake_ms_per_step | dur) of it is at stake on this rank: without HCCL tasks, whether it only lengthens a wait for a late peer cannot be told"
    elif .at_stake_on_late_peer != null then
      # the conditions stand beside the figure: time after the step's
      # last wait for the peer may be absorbed by the next step's wait,
      # and one captured step cannot show that it recurs
      (($A.step_results | length) == 1) as $one |
      ((.at_stake_after_last_wait_ms_per_step // 0) > 0 and ((.at_stake_after_last_wait_ms_per_step // 0) - .at_stake_ms_per_step | fabs) < 0.0005) as $after |
      (if $one then "up to \(.at_stake_ms_per_step | dur) of it in the captured step" else "\(.at_stake_ms_per_step | dur) per step of it" end) +
      " is at stake on this rank while \(.at_stake_on_late_peer) is late" +
      (if $after and $one then ", if the next step's wait for that peer does not absorb it and it recurs: it lies after the step's last wait for that peer, and whether the next step's wait absorbs it, and whether it recurs every step, lie past this one-step capture"
       elif $after then ", if the next step's wait for that peer does not absorb it: it lies after each step's last wait for that peer"
       elif $one then ", if it recurs: with one step captured, that is not shown" else "" end) + " (" +
      # item_sync is named by its call chain (aten::item): its time is the
      # host's in .item() calls, not shown to be a wait on the device
      (.at_stake_by_family_ms_per_step // {} | to_entries | sort_by(-.value) | map("\(.key | code) \(.value | dur)" +
	(if .key == "item_sync" then " (the host cost of .item() calls, named by their call chain: how long their synchronisation waits is not counted apart)" else "" end)) | join(", ")) +
      # which share of it the recommendations' own figures on this rank hold
      (if (.at_stake_in_recommendations // []) == [] then "" else
	 "; of it, \(.at_stake_in_recommendations_ms_per_step | dur) is what \(.at_stake_in_recommendations | join(" and "))'s headline\(if (.at_stake_in_recommendations | length) > 1 then "s" else "" end) give on this rank (the at-stake column holds the job-wide figure), and the other \(.at_stake_outside_recommendations_ms_per_step | dur) is in no recommendation's time at stake" +
	 # a serialisation point's call site may hold host time in idle windows
	 ([$A.recommendations[]? | select(.finding == "HOST_SERIALISATION") | .id] as $sid |
	  [$A.serialisation_points[0:($sid | length)][]? | .site_windows // []] as $sw |
	  ($sw | map(map(.site_ms) | add // 0)) as $sm |
	  if ($sm | add // 0) > 0 then
	    " (\([range($sm | length) as $i | select($sm[$i] > 0) | $sid[$i]] | join(" and ")) name\(if ([$sm[] | select(. > 0)] | length) > 1 then "" else "s" end) the call site of \($sm | add | dur) of host time in \(if ($sw | add | length) > 1 then "idle windows" else "an idle window" end)" +
	    # what one capture cannot show of such a window, when the
	    # at-stake figure above does not say it already
	    (if any($sw[][]; .scope == "tail") and ($A.host_risk_basis.at_stake_after_last_wait_ms_per_step // 0) <= 0 then ", the step's tail: whether the next step's wait for a late peer would absorb it lies past the capture" else "" end) +
	    # where the trace's Python frames put the python time there
	    ([$sw[][]] as $w | def tot($k): [$w[] | .[$k] // 0] | add // 0;
	     if tot("placed_ms") <= 0 then "" else
	       ", and places \(tot("placed_ms") | dur) of the \("python" | code) time there by the trace's Python frames: " +
	       ([(tot("site_frames_ms") | select(. > 0) | "\(dur) in the call site's function and its callers" +
		   (tot("site_own_ms") | if . > 0 then " (\(dur) of it their own lines)" else "" end)),
		 (tot("profiler_ms") | select(. > 0) | "\(dur) in the profiler's own code" +
		   ([$w[].noframe_by_frame[]? | select(.relation == "profiler") | .called_by // empty] | unique |
		    if length > 0 then " (called by the training loop \(join(", ")); it runs only while profiling)" else "" end)),
		 (tot("elsewhere_ms") | select(. > 0) | "\(dur) elsewhere")] | join(", ")) +
	       (tot("unplaced_ms") | if . > 0 then "; \(dur) more of it lies in calls that carry a call stack or under one" else "" end) end) + ")"
	  else "" end) end) +
      # a serialisation point's recommendation speaks for its family too
      (([$A.recommendations[]?.finding] + (if any($A.recommendations[]?; .finding == "HOST_SERIALISATION")
	 then [$A.serialisation_points[]?.family | "host_cause:" + .] else [] end)) as $rf |
       .families_ms_per_step | keys_unsorted | map(select(. as $f | $rf | index(["host_cause:" + $f]) | not)) |
       # python time R6 places in the call site's frames goes with its remedy
       ([$A.serialisation_points[]?.site_windows[]?.site_frames_ms // 0] | add // 0) as $pyr |
       if length > 0 then "; no recommendation of their own: \(map(code + (if . == "python" and $pyr > 0 then " (but for the \($pyr | dur) R6's remedy takes along if the code around its call runs every N steps with it)" else "" end)) | join(", "))" else "" end) +
      "; the rest only lengthens the wait for it)" +
      # job-wide remedies: up to the whole if the late peer shares the pattern
      (if (.at_stake_job_wide_ms_per_step // .at_stake_ms_per_step) > .at_stake_ms_per_step then
	 ", and up to \(.at_stake_job_wide_ms_per_step | dur) if \(.at_stake_on_late_peer) has the same host pattern, since the host remedies are job-wide (every rank runs the same code): the level rates that figure, \(.at_stake_job_wide_share_of_step // 0 | pctx) of the step, an upper bound (profile that peer to tell)"
       else ": the level rates what acting on the host causes could win here, \(.at_stake_share_of_step // 0 | pctx) of the step" +
	 (if .marker_level != null and .marker_level != $A.host_risk_level then ", not how much of the idle lies under host work; the time to win is in the wait for \(.at_stake_on_late_peer)" else "" end) end)
    else "all of it is at stake on this rank" end) end) +
(if $STONLY then ". The figures are torch_npu's own (\($STF)): there is no kernel table, so no bubble window can be shown." else "." end),
"",
# The seed's fixed five questions, one line each, with the JSON's figures.
(if $DG == null then "" else
 "## Bubble-first summary\n\n" +
 "1. Significant device idle bubbles: " +
   (if $STONLY then "not measurable window by window (no kernel table); torch_npu's Free and Preparing give \(($BD.free // 0) + ($BD.preparing // 0) | dur) per step; " +
      "service \($SVC | dur), busy union \($DG.stats.device_busy_union_ms.avg | dur) (compute and communication not overlapped), underfeed \($DG.underfeed_ratio_avg | pctx) of the step."
    elif ($W | length) == 0 then "no: no idle window of at least \($rules.bubbles.min_bubble_us) µs; the device idles \($DG.stats.underfeed_ms.avg | dur) per step (\($DG.underfeed_ratio_avg | pctx) of the step)."
    else "yes: \($W | length) windows of at least \($rules.bubbles.min_bubble_us) µs; the device idles \($DG.stats.underfeed_ms.avg | dur) per step (\($DG.underfeed_ratio_avg | pctx) of the step) in group \($DG.group_id | code)." end) + "\n" +
# Without a kernel table there are no windows: how many steps have
# significant ones, and where in the step the idle lies, is unknown.
 (if $STONLY then
   "2. Where they concentrate: unknown (no kernel table); group \($DG.group_id | code), \($DG.group_size) of \($S | length) step(s), where torch_npu's Free gives \($BD.free // 0 | dur) per step (\($DG.underfeed_ratio_avg | pctx))" +
   ($A.step_group_anomalies | map(select(.group_id != $DG.group_id)) | if length == 0 then "; it is the only group.\n" else "; other groups: " + (map("\(.group_id | code) (\(.group_size) step(s))") | join(", ")) + ".\n" end) +
   "3. Scope: unknown (torch_npu's Free is the whole step less compute and communication, not a place in it); per step free \($BD.free | dur), preparing " +
   ($TN | map(.torch_npu_step_trace.preparing_ms) | if length == 0 or any(. == null) then "n/a" else "\(add / length | dur) by torch_npu (\($STF), before the step; no step marker of our own)" end) +
   ", tail n/a.\n"
  else
 "2. Where they concentrate: group \($DG.group_id | code), \($DG.group_size) of \($S | length) step(s), \($DG.steps_with_significant_bubbles) with significant bubbles" +
   ($A.step_group_anomalies | map(select(.group_id != $DG.group_id)) | if length == 0 then "; it is the only group." else
     "; other groups: " + (map("\(.group_id | code) (\(.group_size) step(s), \(.steps_with_significant_bubbles) with significant bubbles, underfeed \(.underfeed_ratio_avg | pctx))") | join(", ")) + "." end) + "\n" +
 "3. Scope: \($DG.dominant_idle_pattern | idlepattern); per step free \($BD.free | dur), preparing \($BD.preparing | dur), tail \($BD.tail | dur).\n" end) +
 "4. Host-originated risk: " + (if $A.host_risk_assessed == false then "not assessed from host events (none in the capture)\($LLNOTE)."
    else "\($A.host_risk_level)" + ($A.host_risk_basis // null | if . == null or .under_named_host_ms_per_step <= 0 then "." else
      (if .marker_level != null and .marker_level != $A.host_risk_level then " on this rank: \(.at_stake_job_wide_ms_per_step // .at_stake_ms_per_step | dur) per step (\(.at_stake_job_wide_share_of_step // .at_stake_share_of_step | pctx) of the step) is at stake here, although " else ": " end) +
      "\(.under_named_host_ms_per_step | dur) of the \(.idle_ms_per_step | dur) of idle per step lies under named host work (see above)." end) end) + "\n" +
 "5. Evidence sufficient for a root cause: " +
   (if $A.confidence == "high" and ($A.requires_host_followup | not) then "yes (confidence high)."
    elif $A.confidence == "low" then "no: confidence low"
    else "not for every cause: confidence \($A.confidence)" end) +
   (if $A.confidence == "high" and ($A.requires_host_followup | not) then "" else
     (if ($A.evidence_gaps | length) > 0 then "; missing: \($A.evidence_gaps | map(code) | join(", "))" else "" end) +
     (if $A.requires_host_followup then "; the host causes need a follow-up" else "" end) +
     (if ($A.followup_sampling // [] | length) > 0 then "; capture next: \($A.followup_sampling[0].capture | md) (see Follow-up sampling)." else "." end) end) + "\n" +
 (if $STONLY then "\nNot shown, as they need a kernel table: the longest idle windows, the kernels around them, their periodicity and the host evidence coverage.\n" else "" end) end),
"## Where the step's time goes",
"",
(if $DG == null then "No step." else
 "Group \($DG.group_id | code): \($DG.group_size) of \($S | length) step(s), \($SVC | dur) per step on average" +
 (if $STONLY then " (torch_npu's figures)" else "" end) + "." +
 # The group's bubble metrics by their names (service, busy union, underfeed).
 (if $STONLY or ($DG.stats.device_busy_union_ms.avg // null) == null then "" else
   " Bubble metrics per step (average): service \($DG.stats.service_ms.avg | dur), device busy union \($DG.stats.device_busy_union_ms.avg | dur), underfeed \($DG.stats.underfeed_ms.avg | dur) (underfeed ratio \($DG.underfeed_ratio_avg | pctx))." end) + "\n\n" +
 ($TN | if length > 0 then (map(.torch_npu_step_trace) | {
     compute: (map(.computing_ms) | mean), comm_exposed: (map(.comm_not_overlapped_ms) | mean),
     comm_overlapped: (map(.overlapped_ms) | mean),
     free: (map(.free_ms) | mean), preparing: (map(.preparing_ms) | mean)}) else null end) as $T |
 table(["part", "per step", "share of step"] + (if $T != null and ($STONLY | not) then ["torch_npu"] else [] end);
   [ ["compute", "compute"], ["comm_exposed", "communication not overlapped"],
     ["free", "free (bubbles between kernels)"], ["preparing", "preparing (before the first kernel)"],
     ["tail", "tail (after the last kernel)"] ] | map(. as [$k, $what] |
     # torch_npu's Preparing lies before its Stage, the step: beside it
     (if $STONLY and $k == "preparing" and $BD[$k] == null and ($T.preparing // null) != null
      then [$what, "\($T.preparing | dur) before the step (\($STF)), not in it", "—"]
      else [$what, ($BD[$k] | dur), (share($BD[$k]; $SVC) | pctx)] end) +
     (if $T != null and ($STONLY | not) then [($T[$k] // null) | dur] else [] end)) +
   [["(communication overlapped with compute)", ($BD.comm_overlapped | dur), (share($BD.comm_overlapped; $SVC) | pctx)] +
     (if $T != null and ($STONLY | not) then [($T.comm_overlapped // null) | dur] else [] end)]) end),
"",
"## Recommendations",
"",
(if ($R | length) == 0 then "None." else
 table(["#", "priority", "at stake per step", "recommendation"];
   ($R | map([.id, .priority,
     (if .time_at_stake_ms == null then "—" else "\(.time_at_stake_ms | dur) (\(.share_of_step | pctx))" end),
     (.text | md) + (if .evidence_gap != null then " *(missing: \(.evidence_gap | md))*" else "" end)])))
 end),
(if ($A.notes // [] | length) == 0 then "" else
 "\nNotes (how not to misread the figures):\n\n" + ($A.notes[0:3] | map("- \(.text | md)") | join("\n")) +
 (if ($A.notes | length) > 3 then "\n- (\($A.notes | length - 3) more in the JSON)" else "" end) end),
"",
(if $CT != null then
 "## Communication\n\n" + $GROUPS + "\n" +
 "From the HCCL tasks (\($CT.source | md)): \($CT.ops) op instance(s) over \($CT.steps) step(s). Each op's elapsed time is split into moving data (any transfer task running), waiting (a Notify_Wait running, given to the peer whose wait ends last) and the rest; the parts add up to the op's elapsed time. Per step: ops \($CT.elapsed_ms | dur), moving data \($CT.transfer_ms | dur), waiting \($CT.wait_ms | dur), rest \($CT.rest_ms | dur); not under compute \($CT.exposed_ms | dur), of which waiting \($CT.exposed_wait_ms | dur).\n\n" +
 ($CT.groups | map("Group \(.group | tostring | code): \(if .size == null then "size unknown" else "\(.size) ranks (from \(.size_from | md))" end), this profile holds \(.ranks_in_input) (rank \(.rank // "?")).") | join("\n")) + "\n\n" +
 "Per peer: \"waits on it\" is the time a Notify_Wait on that peer runs (waits on several peers at once each count); \"holds the op\" is the part given to it alone (its wait ends last), which adds up to the waiting above.\n\n" +
 table(["peer rank", "group", "waits on it per step", "not under compute", "holds the op per step", "not under compute", "this profile's rank"];
   ($CT.peers[0:5] | map([(.rank | tostring), (.group | tostring | code), (.own_wait_ms | dur), (.own_exposed_wait_ms | dur), (.wait_ms | dur), (.exposed_wait_ms | dur), (if .in_input then "yes" elif (.global_rank // .rank) as $r | ($A.input_ranks // []) | index([$r]) != null then "no; in this input (see the cluster report)" else "no" end)]))) +
 (if ($CT.peers | length) > 5 then "\n\n(the 5 longest of \($CT.peers | length); all are in the JSON)" else "" end) +
 (if $CT.comm_json_wait_ms != null then "\n\nCross-check: the comm records (\($COMM.source // "communication.json" | md)) count \($CT.comm_json_wait_ms | dur) of wait and \($CT.comm_json_transit_ms | dur) of transit per step for the same ops; the figures above are the tasks'." else "" end) + "\n"
 elif $COMM == null then
   (if ($A.evidence_gaps | index(["no_comm_records"])) then "## Communication\n\nThe capture has communication but no communication.json or COMMUNICATION_OP: the wait / transit split and bandwidth cannot be judged.\n" else "" end)
 else
 "## Communication\n\n" + $GROUPS + "\n" +
 "From \($COMM.source | md), \($COMM.records) records over \($COMM.steps) step(s); the capture holds no HCCL tasks, so the ops' time is not split by task. Per step, as the file counts them: elapse \($COMM.elapse_ms / $COMM.steps | dur), waiting for peers \($COMM.wait_ms / $COMM.steps | dur), transit \($COMM.transit_ms / $COMM.steps | dur), idle \($COMM.idle_ms / $COMM.steps | dur); its links move data for \($COMM.link_time_ms // 0 | . / $COMM.steps | dur) (summed over links, not wall time)" +
 (if $COMM.transit_ms < 0.5 * ($COMM.link_time_ms // 0) then ": the file's Transit Time leaves that transfer out, so its idle holds it" else "" end) + ".\n\n" +
 table(["op (kind)", "group", "calls", "elapse", "wait", "transit", "idle", "bandwidth", "tags"];
   ($COMM.ops[0:4] | map([
     "\(.op | code) (\(.kind | md))", (.group | tostring | code), .calls,
     (.elapse_ms | dur), "\(.wait_ms | dur) (ratio \(.wait_ratio // "n/a" | if type == "number" then (. * 100 | round) / 100 else . end))", # a Transit Time of 0 beside bytes moved: the bandwidth table's time
     (if .transit_ms == 0 and (.link_time_ms // 0) > 0 then "0 in Transit Time; \(.link_time_ms | dur) by the bandwidth table" else (.transit_ms | dur) end),
     (if .transit_ms == 0 and (.link_time_ms // 0) > 0 then "\(.idle_ms | dur), with the transfer" else (.idle_ms | dur) end),
     (.bandwidth | to_entries |
       map("\(.key | md) \(.value.bandwidth_gbps // 0 | sig3) GB/s") | .[0:2] | join(", ") | if . == "" then "n/a" else . end),
     (.tags | join(", "))]))) +
 (if ($COMM.ops | length) > 4 then "\n\n(the 4 longest of \($COMM.ops | length) op groups; all are in the JSON)" else "" end) + "\n"
 end),
(if ($STONLY or ($S | length) == 0) then "" else
 "## Idle windows and their host causes\n\n" +
 (($DG.host_causes_ms_per_step // {}) | to_entries | sort_by(-(.value // -1))) as $HC |
 (if ($HC | length) == 0 then
   (if $A.host_risk_assessed == false then "No host events were recorded, so no window has a host cause." else "No named host cause in the windows (see the labels below)." end)
  else
   "Host time by family inside the \($DG.host_bubble_ms_per_step | dur) of significant idle time per step that the host could explain " +
   "(each instant goes to the family of its call chain: a synchronisation inside aten::to is a copy; host events of any depth count)" +
   (if ($A.host_time_inflated_by // [] | length) > 0 then "; host times are inflated by \($A.host_time_inflated_by | join(", ")), on in this capture" else "" end) + ":\n\n" +
   table(["family", "per step", "share of that idle time"];
     ($HC | map(if .value == null then [(.key | code), "not recorded", "—"]
	else [(.key | code), (.value | dur), (share(.value; $DG.host_bubble_ms_per_step) | pctx)] end) +
      [["host blocked in a serialisation point", ($DG.serial_wait_ms_per_step // 0 | dur), (share($DG.serial_wait_ms_per_step // 0; $DG.host_bubble_ms_per_step) | pctx)],
       (if ($DG.frame_self_ms_per_step // 0) > 0 then ["inside \($DG.frame_self | code) with no call under it (a loop frame: own code, an unrecorded pause or profiler overhead)", ($DG.frame_self_ms_per_step | dur), (share($DG.frame_self_ms_per_step; $DG.host_bubble_ms_per_step) | pctx)] else empty end),
       ["no host event of any depth (untraced)", ($DG.untraced_ms_per_step // 0 | dur), (share($DG.untraced_ms_per_step // 0; $DG.host_bubble_ms_per_step) | pctx)]])) +
   (if $A.gc_recorded.recorded == false then "\n\nGC not recorded: \($A.gc_recorded.from | md); its time is unknown, not zero." else "" end)
  end) + "\n\n" +
 # The soft labels weigh host evidence: without host events every
 # window is insufficient_evidence, and the device-side readings are the
 # findings' (the launch lag; a part's read-back and host-waiting kernels).
 ($R | map(select(.finding == "PART_IDLE")) | .[0] // null) as $PI |
 ([ ($PI.part_idle // [])[] | (select(.readback != null) | "\(.readback.bubble_id | code) (\(.readback.ms | dur), after \(.readback.op | code)) as a probable read-back of the collective's result by the host"),
    ((.sync_kernels // [])[] | "the \(.n) windows after \(.name | code) (\(.ns / 1000000 | dur)) as the host waiting for the kernel's output size") ]) as $pil |
 (if $A.host_risk_assessed != false or ($LLR == null and ($pil | length) == 0) then "" else
  ". These labels rest on host evidence, and the capture has none; the device-side soft labels are the findings': " +
  ([ (if $LLR == null then empty else "\($LLR.id) reads the forward layers' \($LLR.launch_lag.windows // $LLR.launch_lag.long) windows of at least \($rules.bubbles.min_bubble_us) µs (\($LLR.launch_lag.long_ms | dur)) as a probable host launch lag" + (if $LLR.backward_gap == null then "" else ", and the backward layers' \($LLR.backward_gap.n) windows after \($LLR.backward_gap.before | code) (\($LLR.backward_gap.ms | dur)) as a host step between kernels" end) end),
     (if ($pil | length) == 0 then empty else "\($PI.id) reads " + ($pil | join(", and ")) end) ] | join("; ")) + " (low confidence: from the kernel table alone)" end) as $devlabels0 |
 def devlabels: $devlabels0;
 # The soft labels weigh whole windows, the families above instants.
 (($A.soft_root_cause_summary // []) | if length == 0 then "" else
  "Soft root-cause labels, per window (soft_root_cause_summary; share of the significant idle time): " +
  (sort_by(-(.share_of_significant_bubble_time // 0)) | map("\(.label | code) \(.windows) window\(if .windows == 1 then "" else "s" end), \(.share_of_significant_bubble_time | pctx) (\(.confidence | md))") | join("; ")) +
  devlabels +
  (if ($HC | length) > 0 then ". A label counts each window whole once its evidence covers a set share of it (synchronisation markers, such as copies and .item(), over \(($rules.attribution.sync_ratio // 0.2) * 100 | round)% of a window label all of it; a window may carry more than one label), while the families above count each instant by the host call under it: the two weigh the same idle differently" else "" end) + ".\n\n" end) +
 (if ($TOP | length) == 0 then "No significant bubble (≥ \($rules.bubbles.min_bubble_us) µs)." else
  "The \($TOP | length) longest of \($W | length) significant windows (start: the capture's own clock, µs; every window is in the JSON):\n\n" +
  table(["bubble", "scope", "start", "duration", "labels", "host causes", "host op"];
    ($TOP | map(. as $b | [
      ($b.bubble_id | code), ($b.scope | md), ($b.start_abs_us // "n/a" | code), ($b.duration_ms | dur),
      ($b.candidate_labels | join(", ")) + (if $b.capture_artefact then " (capture edge)" else "" end),
      (($b.host_causes // {}) | to_entries | map(select(.value != null and .value > 0)) | sort_by(-.value) | .[0:2] | map("\(.key | md) \(.value | dur)") | join(", ") | if . == "" then "—" else . end),
      # the chain of the window's main cause, else its top host op
      (($b.host_chains // []) | map(select((.chain | length) > 0)) | .[0]) as $c |
      (if $c != null then ($c.chain | join(" → ") | code) + (if $c.frame then " at \($c.frame | code)" else "" end)
       elif $b.top_host_op == null then "none" else ($b.top_host_op.name | code) + (if $b.top_host_op.frame then " at \($b.top_host_op.frame | code)" else "" end) end)
    ]))) +
  "\n\nThe kernels around them (raw evidence, to find each spot in the timeline):\n\n" +
  table(["bubble", "kernel before", "task type, duration, stream", "kernel after", "task type, duration, stream"];
    ($TOP | map([(.bubble_id | code), (.before | kname), (.before | kwhat), (.after | kname), (.after | kwhat)]))) +
  # Device work the kernel table leaves out (an input copy, an event
  # wait): the window still counts as idle, as in torch_npu's figures.
  ([$TOP[] | . as $b | (.device_tasks // [])[] | [($b.bubble_id | code), (.name | code), "\(.task_type // "task type not recorded" | md), \(if .stream == null then "no stream id" else "stream \(.stream)" end)",
     (.start_abs_us // "n/a" | code), (.offset_ms | dur), (.dur_ms | dur), (.overlap_ms | dur)]] as $DT |
   if ($DT | length) == 0 then "" else
   "\n\nDevice tasks that are not kernels inside them (" +
   (if ($P.source // "") == "db" then "\([$P.files[]? | select(.kind == "db") | .file][0] // "the SQLite export") TASK; its kernel tasks (COMPUTE_TASK_INFO) do not list them"
    else "trace_view.json, Ascend Hardware; kernel_details.csv does not list them" end) + ", so the windows and the idle totals above still count that time as idle, as torch_npu does):\n\n" +
   table(["bubble", "task", "task type, stream", "start", "from step start", "duration", "inside the window"]; $DT) end)
 end) + "\n\n" +
 # Periodicity of the dominant group (asc-judge: bubble_periodicity).
 ($DG.bubble_periodicity // null | if . == null then "" elif .assessable | not then
   "Periodicity: \(.steps) step(s) in \($DG.group_id | code): whether the bubbles recur at the same place cannot be assessed (it needs \(.min_steps) steps).\n"
  else
   "Periodicity over the \(.steps) steps of \($DG.group_id | code) (a position: the scope, the gap's rank in the step and the kernels around it): \(.recurring_positions) of \(.positions) positions recur in at least \(.min_step_share | pctx) of the steps, \(.recurring_idle_ms_per_step | dur) of idle per step; \(.isolated_positions) occur in fewer steps, \(.isolated_idle_ms_per_step | dur) per step." +
   (if (.recurring | length) == 0 then "\n" else "\n\n" +
    table(["scope", "between", "in steps", "bubbles", "from step start", "duration (min–max)", "period", "idle per step"];
      (.recurring | map([(.scope | md), "\(.before // "(edge)" | code) → \(.after // "(edge)" | code)", .steps_with, .bubbles,
	"\(.offset_ms.min | dur)–\(.offset_ms.max | dur)", "\(.duration_ms.avg | dur) (\(.duration_ms.min | dur)–\(.duration_ms.max | dur))",
	(.period_ms | dur), (.idle_ms_per_step | dur)]))) + "\n" end) end) + "\n" +
 # How much of the idle time the host evidence covers, and what is missing.
 "Host evidence coverage: " +
 (if $A.host_risk_assessed == false then "no host events in the capture, so none of the idle time is covered."
  else "of the \($DG.host_bubble_ms_per_step | dur) of significant idle time per step that the host could explain (edge windows the capture does not cover left out), \($DG.host_covered_share | pctx) lies under a host event below the training loop's frames" +
   (if ($DG.frame_self_share // 0) > 0 then ", \($DG.frame_self_share | pctx) inside \($DG.frame_self | code) alone (own code, an unrecorded pause or profiler overhead)" else "" end) +
   " and \($DG.untraced_share | pctx) under none" +
   ([ (if ($A.evidence_gaps | index(["no_stacks"])) then "Python source lines (no stacks)" else empty end),
      (if ($A.evidence_gaps | index(["level0"])) then "CANN / AscendCL calls (Level0)" else empty end),
      (if $A.gc_recorded.recorded == false then "GC pauses (not recorded)" else empty end) ] |
    if length == 0 then "." else "; missing: \(join(", "))." end) end) + "\n"
 end),
(if ($A.followup_sampling // [] | length) == 0 then "" else
 "## Follow-up sampling\n\n" + ($A.followup_sampling | map("- \(.capture | md): \(.why | md).") | join("\n")) + "\n" end),
(if ($A.serialisation_points // [] | length) == 0 then "" else
 "## Host synchronisations while the device is busy\n\n" +
 "Serialisation points: the host blocks on the device while the device works, so it queues nothing meanwhile; they are not causes of idle windows" +
 (if ($A.host_time_inflated_by // [] | length) > 0 then " (host times inflated by \($A.host_time_inflated_by | join(", ")))" else "" end) + ".\n\n" +
 table(["step", "blocked from (into the step)", "host blocked", "device idle meanwhile", "family", "chain", "at"];
   ($A.serialisation_points[0:5] | map([.step_id, (.blocked_offset_ms // .offset_ms | dur), (.blocked_ms | dur), (.device_idle_ms | dur), (.family | code),
     (.chain | join(" → ") | code), (.frame // "n/a" | code)]))) + "\n" end),
(if ($S | length) <= 1 then "" else
 "## Steps\n\n" +
 ($S | sort_by(-.service_ms)) as $worst |
 (if ($S | length) > $MAXSTEPS then $worst[0:10] else $S end) as $shown |
 (if ($S | length) > $MAXSTEPS then "The 10 longest of \($S | length) steps (service \($DG.stats.service_ms.min | dur) to \($DG.stats.service_ms.max | dur) in the dominant group; every step is in the JSON):\n\n" else "" end) +
 table(["step", "group", "service", "compute", "comm exposed", "free", "preparing", "tags"];
   ($shown | map([(.step_id | md), (.group_id | md), (.service_ms | dur), (.compute_ms | dur), (.comm_exposed_ms | dur),
     (.free_ms | dur), (.preparing_ms | dur), (.anomaly_tags | join(", "))]))) + "\n" end),
(if ($TN | length) == 0 or $STONLY then "" else
 ($TN | map(.torch_npu_step_trace as $t | .step_id as $id |
   [$t.compute_minus_computing_us, $t.comm_exposed_minus_not_overlapped_us, $t.comm_overlapped_minus_overlapped_us,
    $t.internal_minus_free_us, $t.prelaunch_minus_preparing_us, $t.busy_union_minus_busy_us] |
   {step: $id, d: ., worst: (map(select(. != null) | fabs) | max // 0)})) as $X |
 ($X | map(.worst) | max) as $worst |
 if $worst <= 1 then
   "Cross-check: every figure agrees with torch_npu's \($STF) within \($worst) µs (\($X | length) step(s); ours are exact unions of kernel intervals in integer ns).\n"
 else
   "Cross-check with torch_npu's \($STF), ours − theirs in µs, the steps that differ by more than 1 µs:\n\n" +
   table(["step", "compute", "comm not overlapped", "overlapped", "free", "preparing", "busy union"];
     ($X | map(select(.worst > 1)) | sort_by(-.worst) | .[0:10] | map([.step | md] + (.d | map(n))))) + "\n"
 end end),
# Where the time goes by model part (asc-parts, chosen by asc-judge):
# it replaces asc-segment's repetition structures, which stay in the JSON.
(($ALL.structure_drilldown // [])[0] // null) as $DD |
($A.model_parts // null) as $MP |
(if $MP != null then
 "## Where the time goes by model part (step \($MP.step_id | code))\n\n" +
 "A \($MP.phase // "unknown" | md) capture, its layers found by asc-fia (method \($MP.method // "n/a" | code)); \($MP.selection | md). " +
 "Every kernel of the step is in exactly one part: the \($MP.part_count) parts hold its \($MP.kernels) kernels and \($MP.kernel_sum_ms | dur) of kernel time" +
 (if $MP.kernel_sum_ns == $MP.step_kernel_sum_ns then " (the step's kernel sum exactly)" else " (the step's kernel sum is \($MP.step_kernel_sum_ms | dur))" end) +
 "; their walls add up to \($MP.wall_sum_ms | dur) of the \($MP.service_ms | dur) step, " +
 ([(if ($MP.before_parts_ns // 0) > 0 then "\($MP.before_parts_ms | dur) before the first part (the step's window before its first kernel)" else empty end),
   "\($MP.between_parts_ms // 0 | dur) in the gaps between parts",
   (if ($MP.after_parts_ns // 0) > 0 then "\($MP.after_parts_ms | dur) after the last part" else empty end)] |
  if length == 1 then .[0] else (.[0:-1] | join(", ")) + " and " + .[-1] end) + ". " +
 # Boundary or within: the step's device idle inside the parts' walls
 # (their bubbles) against the gaps between the walls.
 (($MP.kinds | map(.bubble_ns // 0) | add // 0) as $in | ($MP.between_parts_ns // 0) as $bt |
  if $in + $bt <= 0 then "" else
  "Of the device idle, \($in / 1000000 | dur) lies inside the parts (the bubbles column) and \($bt / 1000000 | dur) between them" +
  (if ($MP.before_parts_ns // 0) + ($MP.after_parts_ns // 0) > 0 then " (the step's window before the first and after the last part aside)" else "" end) +
  ": \(if $in >= $bt then "most of it is within the parts, not at their boundaries" else "most of it is at the boundaries between parts" end). " end) +
 (if $MP.backward_numbering == "model" then "A backward layer is numbered by the forward layer it differentiates (the backward runs them from the last down). "
  elif $MP.backward_numbering == "execution" then "Backward layers are numbered in the order they run (not by the forward layer they differentiate: the passes differ in layer count). "
  else "" end) +
 "Wall: first kernel start to last kernel end, cut at the next part; busy union: the time the part's own kernels keep the device busy inside it" + (if any($MP.kinds[]?; (.busy_others_ns // 0) > 0) then ", and after a plus the time only other parts' kernels keep it busy there (such as a collective of the gradient sync begun inside the backward)" else "" end) + "; total cost: kernel time plus wait; bubbles: the device's idle gaps inside the wall, where no kernel of any part runs.\n\n" +
 table(["part", "wall", "share of step", "busy union", "kernel sum", "total cost", "bubbles"];
   ($MP.kinds | map([(.label | md), (.wall_ms | dur), (.share | pctx), (.busy_union_ms | dur) + (if (.busy_others_ns // 0) > 0 then " + \(.busy_others_ms | dur) of other parts'" else "" end), (.kernel_sum_ms | dur), (.total_cost_ms | dur),
     "\(.bubbles) (\(.bubble_ms | dur))"]))) + "\n\n" +
 # How busy the layers are, and parts whose kernel time is mostly communication.
 ([ $MP.kinds[] | select(.kind == "forward_layer" or .kind == "backward_layer") |
    ((.busy_union_ns + (.busy_others_ns // 0)) / 1000000) as $db | share($db; .wall_ms) as $b |
    "The \(if .kind == "forward_layer" then "forward" else "backward" end) layers (\(.label | md)) are \(if $b < 0.5 then "mostly idle" elif $b >= 0.8 then "busy" else "partly idle" end): the device is busy \($db | dur) of their \(.wall_ms | dur) of wall (\($b | pctx))" + (if (.busy_others_ns // 0) > 0 then ", \(.busy_others_ms | dur) of it with other parts' kernels only" else "" end) + "." ] +
  [ $MP.kinds[] | select((.kind | IN("pipeline_wait", "pipeline_send_receive", "gradient_sync") | not)) |
    ((.sides | map(select(.side == "comm")) | .[0].kernel_sum_ms) // 0) as $c |
    select(.kernel_sum_ms > 0 and $c > 0.5 * .kernel_sum_ms) |
    "\($c | dur) of the \(.label | md)'s \(.kernel_sum_ms | dur) of kernel time is communication." ] +
  [ $MP.kinds[] | select((.ahead_kernels // 0) > 0) |
    "\(.ahead_kernels) kernel\(if .ahead_kernels == 1 then "" else "s" end) of the \(.label | md) (\(.ahead_kernel_sum_ms | dur)) \(if .ahead_kernels == 1 then "was" else "were" end) launched ahead on a side stream (such as a dropout mask): \(if .ahead_kernels == 1 then "it counts" else "they count" end) in the part's kernel sum (\(.kernel_sum_ms | dur)) but start\(if .ahead_kernels == 1 then "s" else "" end) before the part's wall, in an earlier part's wall or the gap before it: the part's busy union (\(.busy_union_ms | dur)) leaves out \(if .ahead_kernels == 1 then "its" else "their" end) time there." ] +
  [ $MP.kinds[] | select(.kind == "gradient_sync" and .kernel_sum_ns > .wall_ns) |
    "The gradient sync's kernel sum (\(.kernel_sum_ms | dur)) exceeds its wall (\(.wall_ms | dur)): it holds whole the collectives begun inside the backward that outlast its last compute kernel, where the backward ends (as asc-fia's phases cut it): their time before that lies in the backward's wall (its busy union's plus) but counts in the gradient sync's kernel sum." ] | join(" ") |
  if . == "" then "" else . + "\n\n" end) +
 "Inside each part, its top kernels by kernel sum and its kernel time by op family (op families and communication: kernel sum, busy union, wall, total cost):\n\n" +
 ($MP.kinds | map("- **\(.label | md)**: " +
   (.top_kernels | map("\(.name | code) \(.kernel_sum_ms | dur)" + (if .kernels > 1 then " (\(.kernels) kernels)" else "" end)) | join(", ")) +
   "; by op family: " + (.sides | sort_by(-.kernel_sum_ns) | map("\(.side | md) \(.kernel_sum_ms | dur) (busy \(.busy_union_ms | dur), wall \(.wall_ms | dur), cost \(.total_cost_ms | dur))") | join(", ")) + ".") | join("\n")) + "\n\n" +
 # step -> part -> block / side -> op -> PMU: per kind of part, the block
 # / side split (asc-parts, asc-segment's rule) and its compute kernel time
 # by the bound class asc-ops gives each op (view name).
 (if any($MP.kinds[]; .block_side != null) then
  (reduce ((.op // [])[] | select((.view // "name") == "name")) as $o ({}; .[$o.key] = {c: $o.task_class, b: (if $o.pmu.status == "available" then $o.pmu.bound else null end)})) as $OB |
  (any($OB[]; .b != null)) as $pmu |
  def bs($x): if $x.kernels == 0 then "none" else "\($x.kernels) · \($x.kernel_sum_ms | dur) · \($x.busy_union_ms | dur) · \($x.wall_ms | dur) · \($x.total_cost_ms | dur)" end;
  def pmucls($k): ([$k.ops[]? | select($OB[.op].c == "compute")] ) as $c | ($c | map(.kernel_sum_ns) | add // 0) as $ct |
    if $ct == 0 then "no compute kernels" else
    ($c | map(select($OB[.op].b != null)) | group_by($OB[.op].b) | map({b: $OB[.[0].op].b, t: (map(.kernel_sum_ns) | add)}) | sort_by(-.t, .b) |
     map("\(.b | code) \(share(.t; $ct) | if . < 0.0005 then "<0.1%" else pctx end)") | join(", ")) + " of \($ct / 1e6 | dur)" end;
  "Block / side per part, as asc-segment(1) splits its structures: block is the main compute chain (kernels of a compute or unknown task type, at least \(($MP.block_min_ns // 0) / 1000) µs long, on the step's stream with the most compute time), side the rest (communication, AI CPU, small ops, other streams); each cell: kernels · kernel sum · busy union · wall · total cost, summed over the parts of a kind. " +
  (if $pmu then "PMU: the part's compute kernel time by the bound class of its ops (asc-ops' judgement of each op by name over all its calls, the PMU judgement below), as shares of it." else "PMU: not available in this capture (see the PMU judgement below)." end) + "\n\n" +
  table(["part", "block", "side"] + (if $pmu then ["PMU (share of compute time)"] else [] end);
    $MP.kinds | map([(.label | md), bs(.block_side[0]), bs(.block_side[1])] + (if $pmu then [pmucls(.)] else [] end))) + "\n\n"
  else "" end) +
 "Each part, asc-segment's repetition structures and the block / side split are in anomaly_discovery.json (model_parts) and records.ndjson (part, step_parts, structure records).\n" +
 # Phase 9: the kernels around the step's largest bubbles, and the part that holds each.
 (if $DD == null or (($DD.step_id | tostring) != ($MP.step_id | tostring)) then "" else
 ([($DD.largest_bubbles // [])[] | . as $l |
   ($W | map(select(.step_id == ($DD.step_id | tostring) and ((.start_us * 1000) | round) == $l.start_ns)) | .[0]) as $w |
   select($w != null) |
   (($MP.parts // []) | map(select(.start_ns <= $l.start_ns and $l.start_ns < .end_ns)) | .[0].name // null) as $pn |
   (($MP.parts // []) | map(select(.end_ns <= $l.start_ns)) | .[-1].name // null) as $pb |
   (($MP.parts // []) | map(select(.start_ns > $l.start_ns)) | .[0].name // null) as $pa |
   "\($w.bubble_id | code) \($l.dur_ms | dur) \(if $pn != null then "in \($pn | md)" elif $pb != null and $pa != null then "between \($pb | md) and \($pa | md)" else "outside the parts" end), after \($w.before | kname) (\($w.before.task_type // "n/a" | md)) and before \($w.after | kname) (\($w.after.task_type // "n/a" | md))"] |
  if length == 0 then "" else "\nThe largest bubbles there, with the kernels around them: \(join("; ")).\n" end) end)
elif $DD == null or (($ALL.structure // []) | length) == 0 then "" else
 (($ALL.structure // []) | map(select((.step_id | tostring) == ($DD.step_id | tostring))) | sort_by(-(.wall_ms // 0)) | .[0:5]) as $STR |
 "## Structure of step \($DD.step_id | code)\n\n" +
 "\($DD.structures) structures (\($DD.selection)); bubbles sit **\($DD.bubbles_at)** (at boundaries \($DD.boundary_bubble_total_ms | dur), inside structures \($DD.inside_bubble_total_ms | dur)).\n\n" +
 table(["structure", "type", "kernels", "wall", "busy union", "kernel sum", "total cost", "bubbles inside"];
   ($STR | map([(.structure_id | code), "\(.structure_type // "" | md) \(.kind // "" | md)", .kernels, (.wall_ms | dur), (.busy_union_ms | dur),
     (.kernel_sum_ms | dur), (.total_cost_ms | dur), (.internal_bubble_total_ms | dur)]))) + "\n" +
 # Phase 9: the kernels around the largest bubbles of the structures.
 ([($DD.largest_bubbles // [])[] | . as $l |
   ($W | map(select(.step_id == ($DD.step_id | tostring) and ((.start_us * 1000) | round) == $l.start_ns)) | .[0]) as $w |
   select($w != null) |
   "\($w.bubble_id | code) \($l.dur_ms | dur) \($l.at | md) \($l.structure_id // "no structure" | code), after \($w.before | kname) (\($w.before.task_type // "n/a" | md)) and before \($w.after | kname) (\($w.after.task_type // "n/a" | md))"] |
  if length == 0 then "" else "\nThe largest bubbles there, with the kernels around them: \(join("; ")).\n" end) end),
"## Top ops",
"",
(((.op // []) | map(select((.view // "name") == "name"))) as $OPS |
 if ($OPS | length) == 0 and ((.op_stat // []) | length) > 0 then
 "Only op_statistic.csv (aggregate, no timestamps): no bubble can be measured from it. Its top op types by total time:\n\n" +
 table(["op type", "core type", "count", "total", "avg"];
   (.op_stat | sort_by(-(.total_us // 0)) | .[0:10] | map([(.op_type | code), (.core_type // "n/a" | md), .count, ((.total_us // 0) / 1000 | dur), ((.avg_us // 0) / 1000 | dur)])))
 elif ($OPS | length) == 0 then "No op records in the stream (run asc-ops)." else
 ($OPS | sort_by(-(.total_cost_ns // 0)) | .[0:5]) as $bycost |
 ($OPS | sort_by(-(.dur_total_ns // 0)) | .[0:5]) as $bydur |
 table(["rank", "by total cost", "total cost", "by duration", "duration", "tags"];
   [range(0; [$bycost | length, $bydur | length] | max) as $i | [
     $i + 1,
     ($bycost[$i].key // "" | code), ($bycost[$i].total_cost_ns // null | if . == null then "" else . / 1000000 | dur end),
     ($bydur[$i].key // "" | code), ($bydur[$i].dur_total_ns // null | if . == null then "" else . / 1000000 | dur end),
     (($bycost[$i].tags // []) | join(", "))]])
 end),
"",
# The PMU judgement of asc-ops, per op type and weighted by kernel time.
(((.op_summary // [])[0].pmu // null) as $PM |
 ((.op // []) | map(select(.view == "op_type" and .pmu.status == "available"))) as $J |
 "## PMU judgement\n\n" +
 if $PM == null then "Not available: no op_summary record in the stream (run asc-ops).\n"
 elif $PM.status != "available" or ($J | length) == 0 then
   "Not available: " +
   (if ($P.counts.kernel // 0) == 0 then "the capture has no kernel table"
    elif $PM.aic_metrics == "ACL_AICORE_NONE" then "the capture was made without AI Core metrics (aic_metrics \($PM.aic_metrics | code), as at Level0)"
    elif $PM.status == "left_out" then "the PMU values were left out of the stream"
    else "\($PM.status | md) (aic_metrics \($PM.aic_metrics // "unknown" | code))" end) + ".\n"
 else
   ($J | map(.dur_total_ns) | add) as $tot |
   ((.op // []) | map(select(.view == "op_type" and .task_class == "compute")) | map(.dur_total_ns) | add // 0) as $comp |
   "\($J | length) op types judged from \($PM.aic_metrics | code), holding \($tot / 1e6 | dur) of the \($comp / 1e6 | dur) of compute kernel time (\(share($tot; $comp) | pctx)). " +
   "A class is the pipe whose busy ratio passes its limit by the widest margin (asc-ops(1)); balanced: no pipe passes its limit but the pipes together are busy; unknown: neither.\n\n" +
   table(["bound class", "op types", "kernel time", "share of judged time"];
     ($J | group_by(.pmu.bound) | map({b: .[0].pmu.bound, n: length, t: (map(.dur_total_ns) | add)}) | sort_by(-.t) |
      map([(.b | code), .n, (.t / 1e6 | dur), (share(.t; $tot) | pctx)]))) + "\n\n" +
   "The op types with the most kernel time:\n\n" +
   table(["op type", "kernel time", "bound class", "decisive ratio", "ratios (time-weighted)"];
     ($J | sort_by(-.dur_total_ns) | .[0:8] | map([(.key | code), (.dur_total_ns / 1e6 | dur), (.pmu.bound | code),
       (if .pmu.rule == null then "—" else "\(.pmu.rule | code) (by \(.pmu.margin))" end),
       # the top three, and any other column the rule names
       ((.pmu.rule // "") as $r | .pmu.evidence // {} | to_entries | map(select(.key | test("ratio$"))) | sort_by(-.value) |
        (.[0:3] + (.[3:] | map(select(.key as $k | $r | contains($k))))) |
        map("\(.key | md) \(.value)") | join(", "))]))) + "\n" +
   # The limits, per core side, so each class above can be checked.
   ($PM.limits // null | if . == null then "" else
    "\nThe limits (a ratio at or above its limit sets the class): AI Cube pipes (`aic_`): mac \(.["cube.mac_ratio"]) (cube_bound), " +
    "mte2 \(.["cube.mte2_ratio"]) (mte2_bound), or mte2 \(.["cube.starved_mte2_ratio"]) while mac stays below \(.["cube.starved_mac_ratio"]) (mte2_bound: the cube waits for its input); " +
    "AI Vector pipes (`aiv_`): vec \(.["vector.vec_ratio"]), mte2 \(.["vector.mte2_ratio"]), mte3 \(.["vector.mte3_ratio"]); " +
    "attention ops: mte2 \(.["attention.mte2_ratio"]), fixpipe \(.["attention.fixpipe_ratio"]), vec \(.["attention.vec_ratio"]); scalar \(.scalar_ratio) on either core; " +
    "balanced: the ratios of one core sum to at least \(.balanced_sum).\n" end) +
   (if $PM.bound_classes == null then "" else
    "\nBy op name (op records of view `name`, each judged on its own calls): \($PM.ops_judged) judged, " +
    ($PM.bound_classes | to_entries | map(select(.value > 0)) | sort_by(-.value) | map("\(.key | md) \(.value)") | join(", ")) + ".\n" end) +
   (if ($J | length) > 8 then "\nAll \($J | length) judged op types, with every ratio, are in records.ndjson (op records, view `op_type`, field `pmu`).\n" else "" end)
 end),
# Where the charts are: asc-html draws them from the same records (a
# per-step chart needs two steps, the others kernels); this stage cannot
# tell whether it runs, so the line says when it does.
(if ($S | length) >= 2 or (($P.counts.kernel // 0) > 0 and ($STONLY | not)) then
   "Charts: charts.md (with hover evidence in anomaly_report.html), which asc-analyze writes beside this report unless run with --no-pictures.\n" else empty end),
# Which asc and which rules made the verdict (absent from older streams).
(if $A.asc_version == null then empty else
 "_Made by asc \($A.asc_version) with the rules \($A.rules_file | code)._" end)
] | join("\n") + "\n"
