# asc-archmd.jq: the Markdown architecture report of one profile, from
# the object filters/asc-archmd/render.c builds of its asc-fia records
# and of what it decided of them: dir (the name in the title), name (the
# profile's), method, fia, train, determ (the layers were determined),
# S (the fia_summary record), profile (the profile record), passes (the
# first ones and the last), checks, types, streams, phases, comms, layers
# (those kept: pass, start, wall, type, samp), npasses (all), omitted
# (passes not listed), O (their layers, kernels, mean, wmin, wmax),
# omitted_checks (their checks by status, in ckst's order) and onpass
# (the index in passes before which they go).  fmt.jq's helpers come
# before this text.

# Field access as asc-archmd's C reads a record: a missing or mistyped
# field is 0, "" or unknown, never an error.
def gi($k): if type == "object" then (.[$k] | if type == "number" then itrunc else 0 end) else 0 end;
def gs($k): if type == "object" then (.[$k] | if type == "string" then . elif type == "number" or type == "boolean" then tojson else "" end) else "" end;
def hasv($k): type == "object" and (.[$k] | type == "number" or type == "string");
def isnum($k): type == "object" and (.[$k] | type == "number");
# A boolean field: 1, 0, or -1 when missing or null.
def gb($k): if type == "object" then (.[$k] | if . == true then 1 elif . == false then 0 else -1 end) else -1 end;
def obj($k): if type == "object" then .[$k] else null end;
def plural($n; $s): if $n == 1 then "" else $s end;

# Under pipeline parallelism the layers found are this stage's share.
def stagetext($layers): (.S | gi("pipeline_stages")) as $p |
	if (.S | hasv("pipeline_stages") | not) or $p < 2 or $layers <= 0 then ""
	else " (this rank is pipeline stage \(.S | gi("pipeline_stage")) of \($p), numbered from 0 in parallel_group_info: " +
	    "these are this stage's layers, so the model has about \($p) x \($layers) = \($p * $layers))" end;

# The biggest finding first, for a training capture or one without layers.
def headline: .S as $S | .train as $train | ($S | obj("optimizer")) as $opt |
	if ($S | hasv("phase") | not) or ($S | gi("kernels")) == 0 or (($train | not) and .determ and .method != "period") then ""
	else "**In short:** " +
	(if .determ | not then
		"a\(if $train then " training" else "n inference" end) capture whose layer structure **could not be determined** (no attention kernel, " +
		"no block of forward kernels repeated 3 times; backward kernels are not searched); section 2 describes its op families, stages " +
		"and phases instead"
	elif .method == "period" then ($S | obj("period") | gi("kernels")) as $k |
		if $S | isnum("layers_per_pass") then
			"probably \($S | gi("passes")) pass\(plural($S | gi("passes"); "es")) of \($S | gi("layers_per_pass")) layers each (\($S | gi("layers")) layers: a block of \($k) kernels " +
			"repeated), low confidence; no attention kernel, so no transformer structure is claimed"
		else "probably \($S | gi("layers")) layers (a block of \($k) kernels repeated), low confidence; no " +
			"attention kernel, so no transformer structure is claimed" end
	elif ($S | gb("layers_agree")) == 1 then
		"a training step: **\($S | gi("micro_batches")) micro-batch\(plural($S | gi("micro_batches"); "es")) of \($S | gi("layers_per_micro_batch")) layers**" +
		"\(stagetext($S | gi("layers_per_micro_batch"))), \($S | gi("forward_layers")) forward and \($S | gi("backward_layers")) backward layers that agree"
	else "a training step with \($S | gi("forward_layers")) forward and \($S | gi("backward_layers")) backward layers that do not pair up: " +
		"the micro-batches could not be determined" end) +
	(if $train and ($opt | type) == "object" then
		"; optimizer step located (\($opt | gs("first_kernel") | code), \($opt | gi("kernels")) kernels, \($opt | gi("wall_ns") | nsms) wall)"
	elif $train then "; no optimizer kernel in the capture" else "" end) + ".\n\n" end;

# The notes of asc-fia's summary as sentences; a note unknown here is
# shown by its name.
def notetext: {
	no_fia_fallback_attention:
	    "**No FIA kernels**: layers are delimited by other attention kernels (fallback); reduced confidence in the layer count.",
	no_fia_fallback_communication:
	    "**No FIA kernels** and no attention kernels: layers are delimited by communication kernels (fallback); reduced confidence in the layer count.",
	no_fia_fallback_period:
	    "No FIA and no other attention kernels: layers are probably the repeats of a block of forward kernels (fallback); low confidence in the layer count.",
	period_search_capped:
	    "The repeating block was searched in the first kernels only (fia.period_max_kernels): later kernels are in no layer.",
	layers_not_determinable:
	    "**No layer structure**: no attention kernel and no block of forward kernels repeated 3 times (backward kernels are not searched for repeats); sections 2 and 8 describe what the capture holds instead.",
	no_fia_fallback_step:
	    "**No FIA kernels** and no other structural marker: each step is one block (fallback); the layer count is unknown.",
	single_pass: "Single forward pass: no cross-pass comparison.",
	no_decode: "No decode FIA: prefill-only capture; decode analysis omitted.",
	ambiguous_fia: "Some FIA durations lie between the prefill and decode thresholds (ambiguous).",
	no_comm: "No communication kernels in the capture.",
	prologue: "Kernels before the first layer anchor are counted in pass 0 (prologue).",
	several_devices: "Several devices in one profile: this report describes the first.",
	no_kernels: "**No device kernels** in this profile: the sections below cannot be filled.",
	op_stat_only: "**Only aggregate op data** (op_statistic): op counts only, no layer sequence trees.",
	passes_capped: "Many passes: asc-fia recorded the first ones and the last; the others are summarised.",
	layers_capped: "Many layers: asc-fia recorded those of the first passes only (capped); per-layer views cover those."
};
def capnotes: (.S | obj("notes") | if type == "array" then . else [] end) as $n |
	if ($n | length) > 0 then
		"Notes on this capture:\n\n" + ($n | map("- \(notetext[.] // .)\n") | join("")) + "\n"
	elif .S | hasv("method") | not then
		"- **No asc-fia records** for this profile: run `asc-fia` before `asc-archmd`; " +
		"the sections below give the reason they are empty.\n\n"
	else "" end;

# C's "%-Ns": padded with spaces to $n bytes.
def lpad($n): . + ([range(0; $n - utf8bytelength) | " "] | join(""));

# The layer types of asc-fia: how the report names them, and their
# letter in the timelines; a type unknown here is shown by its name.
def tdisplay: {dense: "Dense", moe_dfc: "MoE+DFC", moe_gmm: "MoE+GMM", moe: "MoE (gating only)",
	decode: "Decode", backward: "Backward"}[.] // .;
def tletter: {dense: "D", moe_dfc: "M", moe_gmm: "G", moe: "m", decode: "d", backward: "B"}[.] // "?";

# The FIA markers: FusedInferAttentionScore, or prompt / incremental flash attention by name.
def fiatext: (.S | gi("prefill_attention_kernels") + gi("decode_attention_kernels")) as $named |
	if $named == 0 then "`FusedInferAttentionScore` (FIA) kernels"
	elif $named == (.S | gi("fia")) then "`PromptFlashAttention` (prefill) and `IncreFlashAttention` (decode) kernels, " +
		"FIA by name"
	else "`FusedInferAttentionScore` (FIA), `PromptFlashAttention` and `IncreFlashAttention` kernels" end;
def methodtext: .method as $m |
	if $m == "fia" then fiatext
	elif $m == "attention" then "other attention kernels (fallback: repeating attention pattern)"
	elif $m == "communication" then "communication kernels (fallback: communication boundaries)"
	elif $m == "step" then "step boundaries (fallback: no structural marker)"
	elif $m == "period" then "a repeating block of kernels (fallback: no attention kernel)"
	else "none" end;

# Layers by type ("Dense 14 x 2 micro-batches" in a training step whose
# micro-batches split them evenly, "Dense 28" else), from an object of
# counts by type.
def typecounts($obj): (if .train and (.S | isnum("micro_batches")) then .S | gi("micro_batches") else 0 end) as $m |
	if ($obj | type) != "object" then "" else
	[$obj | to_entries[] | (.value | itrunc) as $c | (.key | tdisplay) +
	 (if $m > 1 and $c % $m == 0 then " \(idiv($c; $m)) x \($m) micro-batches" else " \($c)" end)] | join(", ") end;

# Communication kernels by role, as a sentence.
def commtext($bucketsonly): [.comms[] | select(($bucketsonly | not) or gi("backward_kernels") != 0 or gi("gradient_sync_kernels") != 0) |
	"\(gi("kernels")) \(gs("op") | code) (\(gs("role")); \(gi("forward_kernels")) forward, \(gi("backward_kernels")) backward, " +
	"\(gi("gradient_sync_kernels")) gradient sync, \(gi("optimizer_kernels")) optimizer)"] | join("; ");

# What each part of the work between passes is (asc-fia between_passes).
def bparts: [
	["pipeline_send_receive", "pipeline send/receive (the wait for the other stage and the transfer)"],
	["gradient_sync", "gradient sync (dp collectives after the last gradient kernel)"],
	["embd_gradient_allreduce", "embedding-gradient all-reduce (embd group)"],
	["optimizer", "optimizer step (its kernels and collectives)"],
	["other_comm", "other collectives"],
	["other_compute", "compute outside the layers (after a pass's last layer, before the next pass's first)"]];
# The work between passes: {text ("" none), sum (its kernel sum)}.
def between: (.S | obj("between_passes")) as $bp |
	[bparts[] as [$k, $t] | ($bp | obj($k)) | select(type == "object") |
	 {t: "\(gi("kernel_sum_ns") | nsms) \($t), \(gi("kernels")) kernel\(plural(gi("kernels"); "s"))", s: gi("kernel_sum_ns")}] |
	{text: map(.t) | join("; "), sum: (map(.s) | add // 0)};

# Phases as a sentence: "forward 888 kernels in 1 run (315.3 ms wall); backward ...".
def phasetext: .phases as $P |
	[$P[] | obj("gradient_sync") | select(type == "object")] as $G |
	def total(f): map(f) | add // 0;
	($G | total(gi("kernels"))) as $sn | ($G | total(gi("wall_ns"))) as $sw |
	($G | total(gi("comm_kernels"))) as $scn | ($G | total(gi("comm_kernel_sum_ns"))) as $scs |
	($G | total(gi("kernel_sum_ns"))) as $sks |
	($G | map(select(gi("backward_comm_kernels") > 0))) as $B |
	($B | total(gi("backward_comm_kernels"))) as $pastn |
	($B | map(gi("backward_comm_end_ns")) | reduce .[] as $e (0; if $e > . then $e else . end)) as $past |
	($G | map(select(hasv("wait_ns")))) as $W | ($W | total(gi("wait_ns"))) as $wt |
	[(["forward", 0], ["backward", 1], ["optimizer", 2]) as [$ph, $k] |
	 [$P[] | select(gs("phase") == $ph)] as $R | select($R | length > 0) |
	 ($R | total(gi("compute_kernel_sum_ns"))) as $cs | ($R | total(gi("comm_kernel_sum_ns"))) as $co |
	 ($R | total(gi("comm_kernels"))) as $ccn |
	 "\($ph) \($R | total(gi("kernels"))) kernels in \($R | length) run\(plural($R | length; "s")) (\($R | total(gi("wall_ns")) | nsms) wall" +
	 (if $co > 0 and $k == 1 and $pastn != 0 then
		", to its last compute kernel: \($cs | nsms) of compute kernels; " +
		"\($ccn) collective\(plural($ccn; "s")) started in it (\($co | nsms) of communication kernels), the " +
		"last to end running on to \($past | nsms), into the gradient sync"
	  elif $co > 0 then ", which includes communication: \($co | nsms) of " +
		"communication kernels beside \($cs | nsms) of compute kernels"
	  else "" end) + ")" +
	 (if $k == 1 and $sn > 0 then
		"; then gradient sync, from the end of the backward's last " +
		"compute kernel to the end of the phase: \($sn) kernels (\($sw | nsms) wall; \($scn) collective\(plural($scn; "s")) \($scs | nsms), other " +
		"kernels \($sks - $scs | nsms)), not backward time" +
		(if $pastn != 0 then "; \($pastn) of these collective\(plural($scn; "s")) started in the backward " +
			"and ran past its last compute kernel, to \($past | nsms) (a collective that outlasts " +
			"the backward's compute is gradient sync)" else "" end) +
		(if ($W | length) > 0 then "; in it the device waited \($wt | nsms) with no compute kernel " +
			"to run (only collectives), " +
			"from the backward's last compute kernel to the next kernel, which " +
			"started after \($W[0] | gs("wait_on") | code) ended\(if ($W | length) > 1 then " (first of several runs)" else "" end) (gradient-sync time on the critical path)"
		 else "" end)
	  else "" end)] | join("; ");

# A section of the layer types, when there is none: it says why.
def notypes: "Not available: \(if (.determ | not) and (.S | gi("kernels")) != 0 then
	"no layer structure was determined (no attention kernel, no block of forward kernels repeated 3 times; backward kernels are not searched)"
	else "no layer was found" end).\n\n";

def streamlabel: if . == "comm:hccl" then "HCCL (no stream id)" elif . == "comm:alltoall" then "all-to-all (no stream id)"
	else "stream \(.)" end;
def arr($k): obj($k) | if type == "array" then . else [] end;
def typerec($ty): first(.types[] | select(gs("layer_type") == $ty)) // null;
def rolewall($role): reduce arr("roles")[] as $r (0; if ($r | gs("role")) == $role then $r | gi("wall_ns") else . end);

# A layer type's roles, the largest wall first (the first of equals), at
# most $top of them, then the layer's wall.
def roletable($top): . as $t |
	[["Component", "Kernels (all layers)", "Wall time per layer", "Wall time, all layers",
	  "Share of layer", "Stream(s)"]] | rows + sep("lrrrrl") + "\n" +
	($t | arr("roles")[:64] | to_entries | sort_by(-(.value | gi("wall_ns"))) | .[:$top] | map(.value |
	  [gs("role"), "\(gi("kernels"))", (gi("wall_per_layer_ns") | nsms), (gi("wall_ns") | nsms),
	   pctn(gi("wall_ns"); $t | gi("wall_sum_ns")), (arr("streams") | map(streamlabel | code) | join(", "))]) | rows) +
	([["**Layer wall (first kernel start to last kernel end)**", "\($t | gi("kernels"))",
	   ($t | gi("wall_mean_ns") | nsms), ($t | gi("wall_sum_ns") | nsms), "100.0 %", "all"]] | rows) + "\n";

# Layers of a type in a training step of M micro-batches: "14 layers x 2
# micro-batches" when they split evenly, else "28 layers".
def permb($n): (if .train and (.S | isnum("micro_batches")) then .S | gi("micro_batches") else 0 end) as $m |
	if $m > 1 and $n % $m == 0 then "\(idiv($n; $m)) layers x \($m) micro-batches" else "\($n) layers" end;
# A layer type's roles, the largest wall first (the first of equals).
def toproles: arr("roles")[:64] | to_entries | sort_by(-(.value | gi("wall_ns"))) | map(.value);

# ---- 4. Layer classification
def characteristics: . as $t |
	"\(idiv(gi("kernels"); gi("layers") | if . != 0 then . else 1 end)) kernels/layer; mean wall \(gi("wall_mean_ns") | nsms); anchor mean \(gi("anchor_mean_ns") | nsms)" +
	"; top roles: " + (toproles[:3] | map("\(gs("role")) \(pctn(gi("wall_ns"); $t | gi("wall_sum_ns")))") | join(", ")) +
	(gi("sampling_layers") | if . != 0 then "; sampling in \(.) layer\(if . > 1 then "s" else "" end)" else "" end);
def s4: . as $in |
	"## 4. Layer Classification\n\n" + if (.types | length) == 0 then notypes else
	(if .train then "Dense: a forward layer without `MoeGatingTopK`, `DispatchFFNCombine` or " +
		"`GroupedMatmul`; MoE types as in inference. Backward: a layer whose anchor is a " +
		"gradient (attention backward) kernel. Loss ops flag the layer that holds them; in " +
		"training an `ArgMax` belongs to the loss, not to sampling.\n\n"
	 elif .method == "period" then "Layers here are repeats of a block of kernels (no attention kernel): they are " +
		"listed as Dense only because they hold no MoE marker; no transformer layer is " +
		"implied.\n\n"
	 else "Dense: no `MoeGatingTopK`, `DispatchFFNCombine` or `GroupedMatmul`. MoE+DFC: " +
		"`DispatchFFNCombine` present. MoE+GMM: `GroupedMatmul` (with alltoallv), no DFC. " +
		"Decode: the layer's FIA is a decode FIA. Sampling ops (`ArgMax`, `rejection_*`) flag " +
		"the layer that holds them.\n\n" end) +
	([["Layer type", "Layer range", "Count", "Characteristics"]] | rows) + sep("llrl") + "\n" +
	(.types | map([(gs("layer_type") | tdisplay), gs("layer_ranges"), (gi("layers") as $n | $in | permb($n)), characteristics]) | rows) + "\n" +
	"Layers with \(if .train then "loss" else "sampling" end) ops: " +
	([.layers | to_entries[] | select(.value.samp != 0) | "\(.key) (\(.value.type | tdisplay))"][:20] | join(", ") | if . == "" then "none" else . end) +
	"\(if (.layers | length) < (.S | gi("layers")) then " (among the layers recorded)" else "" end).\n\n" end;

# ---- 5. Cross-verification
def checklabel: {fia_equals_layers: "FIA count = layer count",
	dfc_equals_moe_dfc: "`DispatchFFNCombine` = MoE+DFC layers",
	grouped_matmul_equals_moe_gmm_decode: "`GroupedMatmul` = MoE+GMM + decode layers",
	gating_equals_moe: "`MoeGatingTopK` = all MoE layers",
	backward_equals_forward: "backward layers = forward layers (micro-batch)"}[.] // .;
def ckst: ["ok", "ok_multiple", "explained", "mismatch", "not_applicable"];
def s5: .checks as $C | .omitted_checks as $ock |
	"## 5. Cross-Verification Table\n\n" +
	if ($C | length) == 0 then "Not available: \(if (.determ | not) and (.S | gi("kernels")) != 0 then
		"no layer structure was determined, so there is nothing to cross-verify" else "no layer was found" end).\n\n"
	else
	([["Pass", "Check", "Expected layers", "Observed layers", "Kernels", "Status", "Note"]] | rows) + sep("rlrrrll") + "\n" +
	($C | map(gs("status") as $st | ["\(gi("pass"))", (gs("check") | checklabel), "\(gi("expected_layers"))",
		"\(gi("observed_layers"))", "\(gi("kernels"))", (if $st == "mismatch" then "**mismatch**" else $st end), gs("note")]) | rows) + "\n" +
	(($ock | add) as $all |
	 ([$C[] | select(gs("status") == "mismatch")] | length) as $bad0 |
	 ([$C[] | select(gb("tested") == 0 or gs("status") == "not_applicable")] | length) as $idle0 |
	 (if .omitted > 0 then {bad: ($bad0 + $ock[3]), n: (($C | length) + $all), idle: ($idle0 + $ock[4])}
	  else {bad: $bad0, n: ($C | length), idle: $idle0} end) as $k |
	 (if .omitted > 0 then "The \($all) checks of the \(.omitted) passes not listed: " +
		([range(0; 5) as $i | select($ock[$i] != 0) | "\($ock[$i]) \(ckst[$i])"] | join(", ") | if . == "" then "none" else . end) + ".\n\n"
	  else "" end) +
	 (if $k.bad != 0 then "**\($k.bad) discrepanc\(if $k.bad == 1 then "y" else "ies" end)** between op counts and the layer classification; each is " +
		"stated in its note.\n\n"
	  elif $k.n - $k.idle == 0 then "No check had anything to test (\($k.n) not applicable or none expected, none found): the " +
		"layer classification is not cross-verified.\n\n"
	  else "**All \($k.n - $k.idle) checks that tested something agree** with the layer classification " +
		"(multiples are explained in the notes)\(if $k.idle != 0 then "; the others had nothing to test" else "" end).\n\n" end)) end;

# ---- 6. Per-layer sub-structure
# The template's kernels grouped by runs of one role, at most 8 shown a run.
def tree: arr("template") as $tpl | ($tpl | length) as $n |
	"```\n\(gs("layer_type") | tdisplay) layer (template from layer \(gi("first_layer")): \($n) kernels, mean wall \(gi("wall_mean_ns") | nsms))\n" +
	(reduce range(0; $n) as $x ([]; ($tpl[$x] | gs("role")) as $r |
		if length > 0 and .[-1].role == $r then .[-1].j = $x + 1 else . + [{i: $x, j: ($x + 1), role: $r}] end) |
	 map(.i as $i | .j as $j | ($j >= $n) as $last | (if $last then " " else "│" end) as $bar |
		"\(if $last then "└─" else "├─" end) \(.role) (\($j - $i) kernel\(if $j - $i > 1 then "s" else "" end), \($tpl[$i:$j] | map(gi("dur_mean_ns")) | add | nsms))\n" +
		# a run of more than 9 kernels: its first 8, then the others summed
		(if $j - $i > 9 then [range($i; $i + 8)] else [range($i; $j)] end | map(. as $q | $tpl[$q] |
		  "\($bar)  \(if $q == $j - 1 then "└─" else "├─" end) \(gs("name") | mdv)  \(gi("dur_mean_ns") | nsms)  [\(gs("stream") | streamlabel | mdv)]" +
		  "\(gs("class") | if . == "compute" then "" elif . == "comm" then " comm" else " AI_CPU" end)\n") | join("")) +
		(if $j - $i > 9 then "\($bar)  └─ ... \($j - $i - 8) more kernels, \($tpl[$i + 8:$j] | map(gi("dur_mean_ns")) | add | nsms)\n" else "" end)) | join("")) +
	(if $n == 0 then "└─ (no kernels)\n" else "" end) + "```\n\n";
def s6: . as $in |
	"## 6. Per-Layer Sub-Structure\n\n" + if (.types | length) == 0 then notypes else
	"For each layer type: the kernel sequence of its template layer (the first layer of the " +
	"type; durations are means over the layers that match it), kernels grouped by role, " +
	"then the wall time per role: the union of the role's kernel intervals in each layer, " +
	"summed over the layers of the type. Shares are of the layer wall; roles on other " +
	"streams overlap the main stream, so shares can add up past 100 %.\n\n" +
	(.types | to_entries | map(.key as $i | .value |
		"### 6.\($i + 1) \(gs("layer_type") | tdisplay) — \(gi("layers") as $n | $in | permb($n)) (\(gs("layer_ranges")))\n\n" +
		"\(gi("matched_layers")) of \(gi("layers")) layers match the template kernel sequence; \(gi("deviating_layers")) deviate\(if gi("deviating_layers") == 1 then "s" else "" end)" +
		"\(if gs("template_truncated") == "true" then " (template truncated)" else "" end).\n\n" +
		tree + roletable(64) + "Anomalies:\n\n" +
		(arr("anomalies") | if length == 0 then "- none detected\n" else map("- \(md)\n") | join("") end) + "\n") | join("")) end;

# ---- 7. Decode
def s7: .S as $S | typerec("decode") as $d |
	"## 7. Decode Phase Analysis\n\n" +
	if .train then "Not applicable: training capture (forward, backward and optimizer phases); there is " +
		"no decode.\n\n"
	elif (.fia | not) and ($S | hasv("method")) and ((.determ | not) or .method == "period") then
		"Not applicable: no attention kernels, so there is no prefill or decode to tell " +
		"apart and no decode is claimed.\n\n"
	elif .fia | not then "Not available: without FIA kernels prefill and decode cannot be told apart.\n\n"
	elif $d == null then "**No decode FIA detected**: the capture is prefill-only (inference or prefill " +
		"capture scope); the decode phase analysis is omitted.\n\n"
	else ($d | gi("wall_sum_ns")) as $wall | ($d | rolewall("ep_comm")) as $ep | ($d | rolewall("tp_comm")) as $tp |
		($ep + $tp) as $comm | ($d | rolewall("attention")) as $att |
		($d | idiv(gi("kernels"); gi("layers") | if . != 0 then . else 1 end)) as $kpl |
		($d | if gi("kernels") != 0 then idiv(gi("kernel_sum_ns"); gi("kernels")) else 0 end) as $kmean |
		"Dominant costs of a decode layer (\($d | gi("layers")) decode layers):\n\n" + ($d | roletable(6)) +
		([["Phase", "FIA kernels", "Mean FIA", "Mean layer wall", "FIA share of layer"]] | rows) + sep("lrrrr") + "\n" +
		(.types | map([(gs("layer_type") | tdisplay), "\(gi("layers"))", (gi("anchor_mean_ns") | nsms),
			(gi("wall_mean_ns") | nsms), pctn(gi("anchor_mean_ns"); gi("wall_mean_ns"))]) | rows) + "\n" +
		(if $S | hasv("fia_prefill_mean_ns") then
			"FIA drops from \($S | gi("fia_prefill_mean_ns") | nsms) (prefill mean) to \($S | gi("fia_decode_mean_ns") | nsms) (decode mean), " +
			"**\(ratio($S | gi("fia_prefill_mean_ns"); $S | gi("fia_decode_mean_ns")))x shorter**. " else "" end) +
		"In a decode layer communication (TP + EP) takes \(pctn($comm; $wall)) of the layer wall against \(pctn($att; $wall)) for " +
		"attention" +
		(if $comm > $att then ": the decode profile is **communication-dominated\(if $ep > $tp then " (all-to-all)" else "" end)**" else "" end) +
		". A decode layer runs \($kpl) kernels of \($kmean | nsms) mean duration" +
		(if $kmean < 50000 then ": it is **latency-bound** (launch and synchronisation costs rival the compute)" else "" end) + ". " +
		(if ($S | gi("dfc")) != 0 and ($d | rolewall("expert_ffn")) > 0 then
			"Expert compute shifts from the fused `DispatchFFNCombine` of prefill to explicit " +
			"`GroupedMatmul` with alltoallv in decode." else "" end) + "\n\n" end;

# ---- 8. Communication
# A comm row's "Role from": the source, and an inference's evidence.
def rolefrom: if hasv("role_evidence") then "\(gs("role_source")): \(gs("role_evidence"))" else gs("role_source") end;
def srctext: if . == "metadata_group" then "the kernel's communication group in profiler_metadata.json parallel_group_info"
	elif . == "inferred" then "inferred, not read: the groups of profiler_metadata.json parallel_group_info " +
		"carry no HCCL group ids, so each comm group gets the named group (in the Role " +
		"column) of its size that what its ops do points to, as in asc-comm(1) (send/recv " +
		"pp, reduce-scatter / all-gather dp, 1 rank tp, a size only one name has, an " +
		"all-reduce of at least 1 MB per link embd); the Role from column gives each row's " +
		"evidence; the role is that name's"
	elif . == "metadata_dims" then "profiler_metadata.json parallel_group_info: the only parallel dimension of " +
		"its kind with more than one rank"
	elif . == "position" then "no parallel-group metadata: a collective after the gradient kernels of a " +
		"training step, probably data-parallel gradient buckets"
	else "op names only (fallback: no parallel-group metadata)" end;
# Do the comm records of a profile without kernels hold gradient traffic
# (a dp reduce-scatter / all-gather, an embd all-reduce)?
def commgrad: any(.S | arr("comm_ops")[]; gs("role") as $r | (gs("op") | ascii_downcase) as $op |
	$r == "embd_comm" or ($r == "dp_comm" and (($op | contains("reducescatter")) or ($op | contains("allgather")))));
# No device kernels: what communication.json says this rank communicated.
def s8commops: (.S | arr("comm_ops")) as $ops |
	if ($ops | length) == 0 then "Not available: no device kernels.\n\n" else
	"No device kernels, so no stream, overlap or pipeline can be shown. The comm records " +
	"(communication.json) show what this rank communicated:\n\n" +
	([["Op", "Group", "Role", "Role from", "Ops", "Elapsed (sum)"]] | rows) + sep("llllrr") + "\n" +
	($ops | map([(gs("op") | code), (gs("group") | code),
		(if hasv("parallel_group") then "\(gs("parallel_group")) (\(gs("role")))" else gs("role") end),
		rolefrom, "\(gi("ops"))", (gi("elapse_ns") | nsms)]) | rows) + "\n" +
	(if commgrad then "A data-parallel reduce-scatter / all-gather or an embedding-gradient all-reduce is " +
		"gradient traffic: the comm records show a training step, whose layers the missing " +
		"kernels would show.\n\n" else "" end) end;
# The roles of the comm kernels, and where they come from.
def s8roles: .S as $S | .comms as $C | ($C[0] | gs("role_source")) as $src |
	any($C[]; gs("role_source") != $src) as $mixed |
	"Communication roles (dp / tp / pp / ep / cp), by op and group:\n\n" +
	([["Op", "Group", "Role", "Role from", "Kernels", "Kernel sum", "Forward",
	   "Backward", "Gradient sync", "Optimizer"]] | rows) + sep("llllrrrrrr") + "\n" +
	($C | map([(gs("op") | code), (gs("group") | if . != "" then code else "unknown" end),
		(if gs("parallel_group") != "" then "\(gs("parallel_group")) (\(gs("role")))" else gs("role") end),
		rolefrom, "\(gi("kernels"))", (gi("kernel_sum_ns") | nsms), "\(gi("forward_kernels"))",
		"\(gi("backward_kernels"))", "\(gi("gradient_sync_kernels"))", "\(gi("optimizer_kernels"))"]) | rows) + "\n" +
	(if $mixed | not then "Where the roles come from: \($src | srctext)."
	 else "Where the roles come from: per row (metadata_group: the kernel's group in " +
		"parallel_group_info; inferred: the named group of parallel_group_info its " +
		"comm group matched by size and what its ops do, not read; metadata_dims: the only parallel dimension with more than " +
		"one rank; position: a collective after the gradient kernels; name: op names only, " +
		"a fallback)." end) +
	(if $src == "metadata_dims" and ($mixed | not) then
		" The kernels' communication groups (communication.json) are not keys of " +
		"parallel_group_info here, so no kernel is linked to its group; the role follows " +
		"from the dimensions alone." else "" end) +
	([$S | arr("parallel_groups")[] | select((hasv("role") | not) and gi("ranks") > 1) | gs("name") | code] | join(", ") |
	 if . != "" and $src == "metadata_dims" then
		" Groups without a dp/tp/pp/ep/cp name (\(.)) have more than one rank too: " +
		"collectives of the optimizer phase (gradient norm, overflow checks) may run " +
		"in them rather than in dp." else "" end) +
	(if ($S | gb("parallel_metadata")) != 1 then
		" No parallel_group_info was found beside the profile (no profiler_metadata.json, " +
		"or none in it), so the roles are \(if $mixed or $src != "name" then
		"inferred from names and position, not measured" else "inferred from op names only" end)." else "" end) + "\n\n";
# The pipeline of a layer type's template: a lane per stream (at most
# 16), a column 1/64 of the template's span.
def pdiagram: . as $best | arr("template") as $tpl |
	(reduce $tpl[] as $k (1; ($k | gi("offset_mean_ns") + gi("dur_mean_ns")) as $e | if $e > . then $e else . end)) as $span |
	(reduce $tpl[] as $k ({n: [], l: []};
		($k | gs("stream") | streamlabel) as $st | ($k | gs("class")) as $cl |
		(if $cl == "comm" then "▒" elif $cl == "ai_cpu" then "░" else "█" end) as $g |
		def lane: first(range(0; .n | length) as $j | select(.n[$j] == $st) | $j) // null;
		(if lane == null and (.n | length) < 16 then .n += [$st] | .l += [[range(0; 64) | " "]] else . end) |
		lane as $i |
		if $i == null then . else
		($k | idiv(gi("offset_mean_ns") * 64; $span)) as $a |
		($k | idiv((gi("offset_mean_ns") + gi("dur_mean_ns")) * 64; $span) | if . <= $a then $a + 1 else . end) as $b |
		reduce range($a; if $b < 64 then $b else 64 end) as $c (.; .l[$i][$c] = $g) end)) as $ln |
	"Pipeline of one \($best | gs("layer_type") | tdisplay) layer (template, \($span | nsms) from its first kernel start; one column = \(idiv($span; 64) | nsms)):\n\n" +
	"```\n" +
	([range(0; $ln.n | length) as $i | ($ln.n[$i] | mdv | lpad(28)) + " │" + ($ln.l[$i] | join("")) + "│\n"] | join("")) +
	("" | lpad(28)) + " └" + ([range(0; 64) | "─"] | join("")) + "┘\n" +
	("" | lpad(28)) + "  0" + ("" | lpad(63)) + ($span | nsms) + "\n" +
	"█ compute   ▒ communication   ░ AI CPU\n```\n\n";
def s8: .S as $S |
	"## 8. Communication Pipeline Structure\n\n" +
	if (.streams | length) == 0 then s8commops else
	([["Stream", "Role", "Kernels", "Kernel sum", "Busy (union)",
	   "Overlap with compute on other streams", "Hidden share", "First kernel"]] | rows) + sep("llrrrrrl") + "\n" +
	(.streams | map([(gs("label") | streamlabel | code), gs("role"), "\(gi("kernels"))",
		(gi("kernel_sum_ns") | nsms), (gi("busy_ns") | nsms), (gi("overlap_compute_ns") | nsms),
		pctn(gi("overlap_compute_ns"); gi("busy_ns")),
		(gs("first_kernel") | if . != "" then code else "none" end)]) | rows) +
	"\nCommunication kernels carry no stream id in kernel_details: they are grouped by " +
	"family (HCCL collectives, all-to-all).\n\n" +
	(if (.comms | length) > 0 then s8roles else "" end) +
	(if ($S | gi("comm_busy_ns")) == 0 then
		"**No communication kernels**: there is no comm/compute overlap to measure; the stream " +
		"roles above are still documented.\n\n"
	 else "Communication busy \($S | gi("comm_busy_ns") | nsms) (union), compute busy \($S | gi("compute_busy_ns") | nsms); their intersection is \($S | gi("comm_overlap_ns") | nsms), so " +
		"**\(pctn($S | gi("comm_overlap_ns"); $S | gi("comm_busy_ns"))) of communication is hidden** behind compute and \($S | gi("comm_busy_ns") - gi("comm_overlap_ns") | nsms) is exposed.\n\n" end) +
	"kernel_sum vs wall: the kernels add up to \($S | gi("kernel_sum_ns") | nsms), the device is busy \($S | gi("busy_ns") | nsms) (union of all " +
	"streams) over a span of \($S | gi("span_ns") | nsms). kernel_sum / busy = **\(ratio($S | gi("kernel_sum_ns"); $S | gi("busy_ns")))**: " +
	(if ($S | gi("kernel_sum_ns")) > ($S | gi("busy_ns") + idiv(gi("busy_ns"); 20)) then
		"kernels on different streams run at the same time (communication and AI CPU " +
		"streams under the main compute stream), so kernel_sum exceeds wall time and must " +
		"not be read as elapsed time.\n\n"
	 else "little concurrency: kernel_sum is close to the busy time; the streams mostly take " +
		"turns.\n\n" end) +
	(if (.types | length) == 0 then "No pipeline diagram: no layer template.\n\n" else "" end) +
	(.types | map(pdiagram) | join("")) end;

# ---- 1. Configuration
# Parallelism from names like tp4, pp2dp2, ep8 in the path: {n (names
# found), t (those that fit in 63 characters)}.
def pathpar: reduce (match("(?<![A-Za-z])([TtPpDdEeCcSs][Pp])([0-9]+)"; "g") |
	"\(.captures[0].string | ascii_downcase)=\(.captures[1].string | tonumber)") as $m ({n: 0, t: ""};
	"\(if .n > 0 then ", " else "" end)\($m)" as $x | .n += 1 |
	if (.t | utf8bytelength) + ($x | utf8bytelength) + 1 < 64 then .t += $x else . end);
def s1: .S as $S | (.profile | gs("path")) as $path | (.profile | obj("config")) as $cfg |
	def known: if . != "" then md else "unknown" end;
	"## 1. Configuration Context\n\n" +
	([["Item", "Value"]] | rows) + sep("ll") + "\n" +
	([["Profile", ((.profile | gs("profile") | if . != "" then . else null end) // .name | code)],
	  ["Path", if $path != "" then $path | code else "unknown (no \"profile\" record)" end],
	  ["Framework", (.profile | gs("framework") | known)],
	  ["Profiler level", ($cfg | gs("level") | known)],
	  ["Rank", ($cfg | gs("rank") | known)],
	  ["CANN / torch_npu", "\($cfg | gs("cann_version") | known) / \($cfg | gs("torch_npu_version") | known)"]] +
	 (if ($S | gb("parallel_metadata")) == 1 then
		[["Parallel groups", ($S | arr("parallel_groups") | map("\(gs("name") | md) \(gi("ranks")) rank\(plural(gi("ranks"); "s"))") | join(", ")) +
			" (profiler_metadata.json parallel_group_info)"]] +
		(if $S | hasv("pipeline_stages") then [["Pipeline stage", "\($S | gi("pipeline_stage")) of \($S | gi("pipeline_stages")) (group_rank in the pp group of " +
			"parallel_group_info)"]] else [] end)
	  else ($path | pathpar) as $pp | [["Parallelism", if $pp.n > 0 then $pp.t else "not derivable from the directory name or metadata" end]] end) +
	 [["Sequence lengths", "not recorded in the kernel records"], ["Profiling scope", "device kernels of the capture (kernel_details)"]] +
	 (if ($S | hasv("span_ns")) and ($S | gi("kernels")) == 0 then
		# nothing to judge from: the pipeline's comm records alone do not make a model
		[["Kernels", "0 (no device kernel table in the profile)"],
		 ["Phase", if commgrad then "unknown from kernels (none); the comm records hold " +
			"gradient traffic, so a training step (section 8)" else "unknown: no device kernels (training or inference cannot be told)" end]]
	  elif $S | hasv("span_ns") then
		[["Capture span (first kernel start to last kernel end)", ($S | gi("span_ns") | nsms)],
		 ["Kernels", "\($S | gi("kernels"))"], ["Streams", "\($S | gi("streams"))"]] +
		(if $S | hasv("phase") then [["Phase", if .train then "training (gradient or optimizer kernels)" else
			"inference (no gradient or optimizer kernels)" end]] else [] end) +
		(if .determ | not then [["Layers", "not determinable (no attention kernel, no block of forward kernels repeated 3 times; backward kernels are not searched)"]]
		 elif .train then [["Layers", "\($S | gi("forward_layers")) forward + \($S | gi("backward_layers")) backward"],
			["Passes", "\($S | gi("forward_passes")) forward + \($S | gi("backward_passes")) backward"],
			["Micro-batches per step", if $S | isnum("micro_batches") then "\($S | gi("micro_batches"))" else "not determinable (passes do not pair up)" end]]
		 else [["Layers", "\($S | gi("layers"))"], ["Forward passes", "\($S | gi("passes"))"]] end)
	  else [["Kernels", "no asc-fia summary in the stream"]] end) +
	 [["Degraded inputs", (.profile | arr("degraded") | map(if type == "string" then . else "?" end) | join(", ") | if . != "" then . else "none" end)]] | rows) + "\n";

# ---- 2. How the architecture was determined
def lossops: .S | arr("loss_ops") | map(if type == "string" then . else "?" end | code) | join(", ");
# No layer structure: what the capture holds instead.
def s2describe: .S as $S |
	"The layer structure **could not be determined**: no `FusedInferAttentionScore`, no " +
	"other attention kernel, and no block of forward kernels repeated 3 times or more " +
	"(rules fia.fallback_anchors, fia.period_min_repeats; backward kernels are not " +
	"searched, so a backward block that repeats does not make layers). No layers or passes are claimed " +
	"and no transformer structure is assumed. What the capture shows instead:\n\n" +
	([["Op family", "Forward kernels", "Backward kernels", "Optimizer kernels", "Kernel sum"]] | rows) + sep("lrrrr") + "\n" +
	($S | arr("families") | map([gs("family"), "\(gi("forward_kernels"))", "\(gi("backward_kernels"))",
		"\(gi("optimizer_kernels"))", (gi("kernel_sum_ns") | nsms)]) | rows) + "\n" +
	(if .train then "- Phase: training: \($S | gi("backward_kernels")) kernels are named as gradients (`*Grad*`, `*Backprop*`, " +
		"`*Backward*`) and \($S | gi("optimizer_kernels")) as optimizer kernels (`*Adam*`, `*ForeachAdd*`, ...); a " +
		"named kernel starts its phase, and the phases below also hold the unnamed kernels " +
		"that follow it, so they count more.\n"
	 else "- Phase: no gradient or optimizer kernels (inference, or a forward-only capture).\n" end) +
	(phasetext | if . != "" then "- Phases in kernel order: \(.).\n" else "" end) +
	"- Convolution / matmul stages of the first forward phase, in order: \($S | gs("forward_stages") | if . != "" then . else "none" end).\n" +
	(commtext(false) | if . != "" then "- Communication: \(.). " else "" end) +
	(if commtext(false) != "" then
		(if .train and ($S | gi("backward_kernels")) != 0 then
		"Collectives of the backward phase and of its gradient sync are gradient buckets, " +
		"not layers." else "" end) + "\n" else "" end) +
	(lossops | if . != "" then "- Loss ops: \(.).\n" else "" end) +
	(if ($S | gi("grouped_matmul")) != 0 or ($S | gi("gating")) != 0 or ($S | gi("dfc")) != 0 then
		"- Expert-style ops are present (\($S | gi("grouped_matmul")) `GroupedMatmul`, \($S | gi("gating")) gating, \($S | gi("dfc")) DFC), but " +
		"without attention kernels the capture is not called a Mixture-of-Experts " +
		"transformer.\n" else "" end) + "\n";
# How a layer of the attention fallback starts (asc-fia(1)).
def headtext: ", forward and backward (gradient) kernels counted apart, each " +
	"layer starting at its first kernel (the kernels before its attention kernel whose names " +
	"repeat before the next one, such as the input norm and the QKV projection; backward, the " +
	"MLP's gradient)";
# Section 2's opening: what delimits the layers, and the confidence.
def s2intro: .S as $S |
	"Layers are delimited by \(methodtext). " +
	if .train and (.fia | not) then
		"**No `FusedInferAttentionScore` kernel was found**: layers are cut at the other " +
		"attention kernels\(headtext); a forward and a backward pass are cut where the direction " +
		"changes or a send/receive runs. Confidence: **\($S | gs("confidence"))**\(if ($S | gb("layers_agree")) == 1 then
		" (the forward and backward layer counts agree)" else " (the forward and backward layer counts do not agree)" end).\n\n"
	elif .method == "period" then
		"No attention kernel was found: the layers are probably the repeats of a block of " +
		"kernels; the layer count has low confidence and no transformer structure is " +
		"claimed. Confidence: \($S | gs("confidence")).\n\n"
	else (if .fia | not then "**No `FusedInferAttentionScore` kernel was found**: the layer boundaries come " +
		"from a fallback marker, so the layer count has **low confidence**. " else "" end) +
		"Confidence: **\($S | gs("confidence"))**.\n\n" end;
# A threshold of the rules in ms, as ns rounded half up.
def msns: (if type == "number" then . elif type == "string" then (tonumber? // 0) else 0 end) * 1e6 + 0.5 | itrunc;
def fiamean($k): if hasv($k) then gi($k) | nsms else "n/a" end;
# The evidence rows of the layer marker: the FIA kernels, or the fallback.
def s2markers: .S as $S |
	if .fia then
		[[fiatext, "\($S | gi("fia")) kernels", "one FIA per attention layer: one layer starts at each FIA"],
		 [if ($S | gi("prefill_attention_kernels")) != 0 then "Prefill FIA (`PromptFlashAttention` by name, " +
			"else duration > threshold)" else "Prefill FIA (duration > threshold)" end,
		  "\($S | gi("fia_prefill")), mean \($S | fiamean("fia_prefill_mean_ns"))", "attention over the whole prompt"],
		 [if ($S | gi("decode_attention_kernels")) != 0 then "Decode FIA (`IncreFlashAttention` by name, " +
			"else duration < threshold)" else "Decode FIA (duration < threshold)" end,
		  "\($S | gi("fia_decode")), mean \($S | fiamean("fia_decode_mean_ns"))",
		  if ($S | gi("fia_decode")) != 0 then "one new token per layer against the KV cache" else "no decode in the capture" end],
		 ["Ambiguous FIA (between the thresholds)", "\($S | gi("fia_ambiguous"))", if ($S | gi("fia_ambiguous")) != 0 then
			"neither clearly prefill nor decode: classified by their other kernels" else "none" end],
		 ["Thresholds (rules)", "prefill > \($S | obj("prefill_min_ms") | msns | nsms), decode < \($S | obj("decode_max_ms") | msns | nsms)",
		  "fia.prefill_min_ms, fia.decode_max_ms"]]
	else [["`FusedInferAttentionScore` kernels", "0", "the primary marker is absent"],
		["Fallback marker", if .method == "period" then ($S | obj("period")) as $pd |
			"block of \($pd | gi("kernels")) kernels x \($pd | gi("repeats")) repeats" else "\($S | gi("anchors")) anchors" end, methodtext]] end;
# The evidence rows of a training capture: gradients, optimizer, directions.
def s2training: .S as $S |
	[["Gradient kernels (`*Grad*`, `*Backprop*`, `*Backward*`)", "\($S | gi("backward_kernels")) kernels", "backward pass: a " +
	  "training capture (kernels so named; the backward phase holds more)"],
	 ["Optimizer kernels (`*Adam*`, `*ForeachAdd*`)", "\($S | gi("optimizer_kernels")) kernels", if ($S | gi("optimizer_kernels")) != 0 then
	  "the optimizer step (section 3; kernels so named, the step may hold more)" else "no optimizer step in the capture" end],
	 ["Layers by direction", "\($S | gi("forward_layers")) forward, \($S | gi("backward_layers")) backward",
	  if ($S | gi("forward_layers")) == ($S | gi("backward_layers")) then "every forward layer has its backward layer"
	  else "forward and backward differ: see section 5" end],
	 ["Passes by direction", "\($S | gi("forward_passes")) forward, \($S | gi("backward_passes")) backward",
	  if $S | isnum("micro_batches") then "\($S | gi("micro_batches")) micro-batch\(plural($S | gi("micro_batches"); "es")) per step (\($S | gi("steps")) step\(plural($S | gi("steps"); "s")))"
	  else "micro-batches not determinable: the passes do not pair up" end]];
# The evidence rows of the passes: their boundaries and layers.
def s2passes: .S as $S | ($S | gi("passes")) as $passes | ($S | gi("layers_per_pass")) as $lpp |
	[["Pass boundaries", "\($passes) pass\(plural($passes; "es"))", ($S | arr("boundary") | join(", ") | if . != "" then . else
	  "no boundary found (no large gap, no decode-to-prefill transition, no step change, no repeated pattern)" end)]] +
	if $S | hasv("layers_per_pass") then
		[[if .fia then "FIA per pass" else "Anchors per pass" end, "\($lpp) layers", "num_passes = \($S | gi("layers")) / \($lpp) = \($passes)"]]
	else [["Layers per pass", "varies", "passes differ in length: see section 3"]] end;
# The evidence rows of the MoE markers, the loss, the embedding and the
# sampling (not after a period search: with no attention kernel, MoE
# markers say nothing of a transformer).
def s2parts: .S as $S | def n($k): $S | gi($k);
	[["`MoeGatingTopK`", "\(n("gating")) kernels", if n("gating") != 0 then "MoE routing: MoE layers present" else "no MoE routing" end],
	 ["`DispatchFFNCombine` (DFC)", "\(n("dfc")) kernels", if n("dfc") != 0 then "fused expert dispatch + FFN + combine: MoE+DFC layers" else "no fused MoE layers" end],
	 ["`GroupedMatmul`", "\(n("grouped_matmul")) kernels", if n("grouped_matmul") != 0 then "explicit expert FFN: MoE+GMM and decode layers" else "no explicit expert FFN" end],
	 ["alltoallv", "\(n("alltoallv")) kernels", if n("alltoallv") != 0 then "expert-parallel all-to-all around GroupedMatmul" else "no expert-parallel all-to-all" end]] +
	(if .train then [["Loss ops (`*NLLLoss*`, `*CrossEntropy*`; `ArgMax*` in training)", "\(n("loss_kernels")) kernels",
		(lossops | if . != "" then . else "no loss op on this rank (under pipeline parallelism the loss runs on the last stage)" end)]] else [] end) +
	# the embedding is a part of its own: never a layer's anomaly
	(if n("embedding_forward_kernels") + n("embedding_backward_kernels") > 0 then
		[["Embedding (`aclnnEmbedding*`, `*EmbeddingDenseGrad*`, `*EmbeddingBag*`)",
		  "\(n("embedding_forward_kernels")) forward, \(n("embedding_backward_kernels")) gradient kernels (\(n("embedding_kernel_sum_ns") | nsms))",
		  if ($S | hasv("pipeline_stages")) and n("pipeline_stage") == 0 then
		  "the input embedding, held by this first pipeline stage: the embedding part, not a " +
		  "layer (no layer's wall holds its kernels: they run before a pass's first layer " +
		  "or after its last)" else
		  "the embedding part, not a layer (no layer's wall holds its kernels: they run " +
		  "before a pass's first layer or after its last)" end]] else [] end) +
	(if .train | not then [["Sampling ops (`ArgMax`, `rejection_*`)", "\(n("sampling_layers")) layers", if n("sampling_layers") != 0 then
		"token sampling: end of a prefill or decode step" else "no sampling in the capture" end]] else [] end);
# Section 2's conclusion: passes, layers, and dense or MoE.
def s2conclusion: .S as $S | def n($k): $S | gi($k); n("passes") as $passes | n("layers_per_pass") as $lpp |
	(n("dfc") != 0 or n("grouped_matmul") != 0 or n("gating") != 0) as $moe |
	"\n**Conclusion:** " +
	if .method == "period" then
		if $S | hasv("layers_per_pass") then
			"probably \($passes) pass\(plural($passes; "es")) of \($lpp) layers each (\(n("layers")) layers, a block of kernels " +
			"repeated); low confidence, and no transformer structure is claimed without " +
			"attention kernels.\n\n"
		else "probably \(n("layers")) layers (a block of kernels repeated) in \($passes) passes of varying " +
			"length; low confidence, and no transformer structure is claimed without " +
			"attention kernels.\n\n" end
	elif .train then
		(if ($S | gb("layers_agree")) == 1 then
			"**a training step of \(n("micro_batches")) micro-batch\(plural(n("micro_batches"); "es")), \(n("layers_per_micro_batch")) layers each**" +
			"\(stagetext(n("layers_per_micro_batch"))): \(n("forward_layers")) forward and \(n("backward_layers")) backward layers, which agree"
		 else "a training step with \(n("forward_layers")) forward and \(n("backward_layers")) backward layers in \(n("forward_passes")) forward and " +
			"\(n("backward_passes")) backward passes; they do not pair up, so the micro-batches and the layers " +
			"per micro-batch could not be determined" end) +
		(if $moe then "; the model is a **Mixture-of-Experts** transformer"
		 else "; the model is a **dense** transformer (attention kernels, no MoE markers)" end) + ".\n\n"
	else
		(if ($S | hasv("layers_per_pass")) and $passes > 0 then
			"**\($passes) forward pass\(plural($passes; "es")) of \($lpp) layers each (\(typecounts(.passes[0] | obj("layer_types"))))**, \(n("layers")) layers in all\(stagetext($lpp))"
		 else "**\(n("layers")) layers in \($passes) passes of varying length**" end) +
		(if $moe then "; the model is a **Mixture-of-Experts** transformer"
		 elif .fia or .method == "attention" then "; the model is a **dense** transformer" else "" end) + ".\n\n" end;
def s2: .S as $S |
	"## 2. Model Architecture Determination\n\n" +
	if ($S | hasv("kernels") | not) or ($S | gi("kernels")) == 0 then
		"Cannot be determined: \(if $S | hasv("kernels") | not then
		"the stream holds no asc-fia records (run asc-fia before asc-archmd)" else "the profile has no device kernels" end).\n\n"
	elif .determ | not then s2describe
	else s2intro + ([["Evidence", "Value", "Interpretation"]] | rows) + sep("lrl") + "\n" +
		((s2markers + (if .train then s2training else [] end) + s2passes + (if .method != "period" then s2parts else [] end) +
		  [["Layer types", (typecounts($S | obj("layer_types")) | if . != "" then . else "none" end), "see section 4"]]) | rows) +
		s2conclusion end;

# ---- 3. Pass boundaries
# Training: the runs of forward, backward and optimizer kernels.
def phasetable: .S as $S | ($S | obj("optimizer")) as $opt | [.phases[] | select(obj("gradient_sync") | type == "object")] as $GR |
	"Phases in kernel order (a gradient kernel starts backward, an optimizer kernel the " +
	"optimizer step):\n\n" +
	([["Run", "Phase", "Start", "Wall time", "Compute kernels", "Communication kernels", "Kernels", "First kernel"]] | rows) + sep("rlrrrrrl") + "\n" +
	(.phases | map(obj("gradient_sync") as $g |
		["\(gi("run"))", gs("phase"), (gi("start_ns") | nsms), (gi("wall_ns") | nsms),
		 (gi("compute_kernel_sum_ns") | nsms), (gi("comm_kernel_sum_ns") | nsms), "\(gi("kernels"))", (gs("first_kernel") | code)],
		# the dp collectives no gradient kernel follows: a row of their own
		($g | select(type == "object") | ["", "gradient sync", (gi("start_ns") | nsms), (gi("wall_ns") | nsms),
		 (gi("kernel_sum_ns") - gi("comm_kernel_sum_ns") | nsms), (gi("comm_kernel_sum_ns") | nsms), "\(gi("kernels"))", ""])) | rows) + "\n" +
	# the backward ends with its last compute kernel; a wait after it is sync
	(if ($GR | length) > 0 then
		"A backward run's wall ends with its last compute kernel before the first dp " +
		"collective no gradient kernel follows, or before the device waited for the " +
		"backward's dp collectives to end (a non-gradient kernel, such as a bucket " +
		"copy, that started only after them); the gradient sync starts there." +
		($GR | map(gi("run") as $run | obj("gradient_sync") |
			(if gi("backward_comm_kernels") > 0 then
				" Run \($run): \(gi("backward_comm_kernels")) collective\(plural(gi("backward_comm_kernels"); "s")) started in the backward and ran on to \(gi("backward_comm_end_ns") | nsms), past " +
				"its last compute kernel; a collective that outlasts the backward's compute " +
				"is gradient sync (its kernels and kernel time are in the gradient sync row)." else "" end) +
			(if hasv("wait_ns") then
				" Run \($run): from \(gi("wait_start_ns") | nsms) to \(gi("wait_end_ns") | nsms) (\(gi("wait_ns") | nsms)) the device had no compute kernel to run (only " +
				"collectives ran): the next " +
				"kernel started after \(gs("wait_on") | code) ended. That wait is gradient-sync time on the " +
				"critical path, not backward compute." else "" end)) | join("")) +
		# the anomaly report cuts the same kernels by part: say where
		(if any(.types[]; gs("layer_type") == "backward") then
			" The anomaly report's parts (asc-parts) cut these boundaries " +
			"otherwise: its backward ends with the last backward layer\(if ($S | gi("embedding_backward_kernels")) > 0 then
			" and the embedding backward (a part of its own, not a layer's)" else "" end); the " +
			"gradient-norm check and scaling (a `fia.grad_norm` kernel and those " +
			"after it) before the first collective, counted here in the backward " +
			"run, are in its gradient sync part; and the optimizer's clip-grad-norm " +
			"(from the gradient-norm kernels after the last collective), counted " +
			"here in the gradient sync, is its gradient clipping part." else "" end) + "\n\n"
	 else "" end) +
	if ($opt | type) == "object" then
		"Optimizer step: from \($opt | gs("first_kernel") | code) at \($opt | gi("start_ns") | nsms) to \($opt | gi("end_ns") | nsms), " +
		"\($opt | gi("wall_ns") | nsms) wall, \($opt | gi("kernels")) kernels (\($opt | gi("kernel_sum_ns") | nsms) kernel time).\n\n"
	else "No optimizer kernel in the capture: the optimizer step was not captured.\n\n" end;
def s3: .S as $S | .O as $O | .onpass as $op |
	"## 3. Forward Pass Boundaries\n\n" +
	if (.passes | length) == 0 then
		"Not available: \(if $S | hasv("kernels") | not then "the stream holds no asc-fia records"
		 elif (.determ | not) and ($S | gi("kernels")) != 0 then "no layer structure was determined, so no pass is claimed"
		 else "no layer was found" end).\n\n" + (if .train then phasetable else "" end)
	else
	(if .train then "Training capture: a pass is a run of forward or of backward layers, cut where the " +
		"direction changes or a send/receive (pipeline parallelism) runs; the k-th backward " +
		"pass belongs to the k-th forward pass (micro-batch k).\n\n" else "" end) +
	([["Pass", if .fia then "FIA index range" else "Anchor range" end, "Layers",
	   "Start (epoch us)", "End (epoch us)", "Wall time", "Mean prefill FIA", "Mean decode FIA",
	   "Kernels", "Boundary"]] | rows) + sep("rlrllrrrrl") + "\n" +
	(.passes as $P | [range(0; $P | length) as $i | $P[$i] as $p |
	  (if $i == $op and .omitted > 0 then (if $i > 0 then $P[$i - 1] else null end) as $q |
		["\(($q | gi("pass")) + 1)-\(($p | gi("pass")) - 1)", "#\(($q | gi("layer_last")) + 1)-#\(($p | gi("layer_first")) - 1)",
		 "\($O.layers)", "", "", "mean \($O.mean | nsms) (min \($O.wmin | nsms), max \($O.wmax | nsms))", "", "",
		 "\($O.kernels)", "\(.omitted) passes not listed"] else empty end),
	  ($p | ["\(gi("pass"))", "#\(gi("layer_first"))-#\(gi("layer_last"))", "\(gi("layers"))",
		(if hasv("start_abs_us") then gs("start_abs_us") else gi("start_ns") | nsms end),
		(if hasv("end_abs_us") then gs("end_abs_us") else gi("end_ns") | nsms end),
		(gi("wall_ns") | nsms), fiamean("fia_prefill_mean_ns"), fiamean("fia_decode_mean_ns"),
		"\(gi("kernels"))", (arr("boundary") | join(", ")) + (if hasv("gap_before_ns") then " (gap \(gi("gap_before_ns") | nsms))" else "" end)])] | rows) + "\n" +
	(if .omitted > 0 then "Only the first \($op) passes and the last are listed (\(.npasses) passes in all); the \(.omitted) " +
		"between are summarised in one row.\n\n" else "" end) +
	(between | if .text != "" then "**Between passes, not layer time** (kernel sums, \(.sum | nsms) in all): \(.text). A layer's " +
		"wall ends at its last kernel before this work, a pass's at its last layer's " +
		"end.\n\n" else "" end) +
	if .train then
		"Passes by direction (layers): \(.passes | map("pass \(gi("pass")) \(gs("phase")) \(gi("layers"))") | join(", ")). " +
		(if $S | isnum("micro_batches") then
			"**\($S | gi("micro_batches")) micro-batch\(plural($S | gi("micro_batches"); "es")) per step** of " +
			"\(if $S | isnum("layers_per_micro_batch") then $S | gi("layers_per_micro_batch") else "varying" end) forward and " +
			"\(if $S | isnum("backward_layers_per_micro_batch") then $S | gi("backward_layers_per_micro_batch") else "varying" end) backward layers.\n\n"
		 else "The forward and backward passes do not pair up: the micro-batch count could not " +
			"be determined.\n\n" end) + phasetable
	elif (.passes | length) == 1 then
		"**Single pass captured**: pass consistency cannot be cross-validated and " +
		"cross-pass variation analysis is unavailable.\n\n"
	else .passes[0] as $a | .passes[-1] as $b |
		(if $S | hasv("fia_drift_ratio") then ($S | obj("fia_drift_ratio") | if type == "number" then . else (tonumber? // 0) end) as $r |
			"Cross-pass drift: mean prefill FIA goes from \($a | gi("fia_prefill_mean_ns") | nsms) (pass 0) to \($b | gi("fia_prefill_mean_ns") | nsms) (pass \($b | gi("pass"))), " +
			"**\($S | gs("fia_drift_ratio"))x**\(if $r > 1.02 then
			": attention grows from pass to pass, consistent with KV-cache growth or memory pressure"
			elif $r < 0.98 then ": attention shrinks" else ": stable" end). " else "" end) +
		"Wall time goes from \($a | gi("wall_ns") | nsms) to \($b | gi("wall_ns") | nsms) (\(if $S | hasv("wall_drift_ratio") then $S | gs("wall_drift_ratio") else "n/a" end)x).\n\n" end end;

# ---- 9. Layer-to-layer variation
def s9: "## 9. Layer-to-Layer Variation\n\n" + if (.types | length) == 0 then notypes else
	. as $in | .layers as $L |
	([["Layer type", "Layers", "Kernels per layer (template)", "Mean wall", "Min wall",
	   "Max wall", "Std dev", "CV", "Matching the template"] | row, sep("lrrrrrrrr")] +
	 (.types | map([(gs("layer_type") | tdisplay), "\(gi("layers"))", "\(gi("template_kernels"))",
		(gi("wall_mean_ns") | nsms), (gi("wall_min_ns") | nsms), (gi("wall_max_ns") | nsms),
		(gi("wall_stddev_ns") | nsms), (gs("wall_cv") | if . == "" then "n/a" else . end),
		"\(gi("matched_layers")) of \(gi("layers")) layers"] | row)) | join("\n")) + "\n\n" +
	if (.passes | length) < 2 then "Single pass: no cross-pass comparison.\n\n" else
	(.types[:8] | map(gs("layer_type"))) as $T |
	# a pass without recorded layers is shown only when no pass is omitted
	# each pass's layers, in their order: grouped once, not selected per pass
	(reduce $L[] as $l ({}; .[$l.pass | tostring] += [$l])) as $byp |
	[.passes[] | gi("pass") as $pn | ($byp[$pn | tostring] // []) as $pl |
	 if ($pl | length) == 0 and $in.npasses != ($in.passes | length) then null
	 else "| \($pn) |" + ($T | map(. as $ty | [$pl[] | select(.type == $ty) | .wall] |
		" \(if length > 0 then idiv(add; length) | nsms else "n/a" end) |") | join("")) end] as $rows |
	"| Pass |" + ($T | map(" \(tdisplay) mean wall |") | join("")) + "\n| ---: |" + ($T | map(" ---: |") | join("")) + "\n" +
	($rows | map(select(. != null) + "\n") | join("")) + "\n" +
	(($rows | map(select(. == null)) | length) as $skipped |
	 if $skipped > 0 or .omitted > 0 then
		"Passes without recorded layers are not shown (\($skipped + .omitted) of \(.npasses)).\n\n"
	 else "" end) end end;

# ---- 10. Model architecture summary
# A line of the model box, padded to 56 columns.
def boxline: "│ " + . + ([range(0; 56 - length) | " "] | join("")) + " │\n";
def s10none: .S as $S | ((.determ | not) and ($S | gi("kernels")) != 0) as $nd |
	"Not available: \(if $nd then "no layer structure was determined (no attention kernel, no block of forward kernels repeated 3 times; backward kernels are not searched); " +
	    "section 2 describes the capture's op families and phases" else "no layer was found" end).\n\n" +
	if $nd then phasetext as $ph | commtext(false) as $cm |
		"Key findings:\n\n- \(if .train then "Training" else "Inference (or forward-only)" end) capture; layers and passes **could not be determined**.\n" +
		(if $ph != "" then "- Phases: \($ph).\n" else "" end) +
		"- Forward stages: \($S | gs("forward_stages") | if . == "" then "none" else . end).\n" +
		(if $cm != "" then "- Communication: \($cm).\n" else "" end) + "\n"
	else "" end;
# The model diagram: runs of layer types in pass 0.
def s10diagram: .S as $S | .layers as $L | .train as $train |
	(.passes[0] | gi("layer_first")) as $l0 | (.passes[0] | gi("layer_last")) as $l1 |
	(if $l1 >= ($L | length) then ($L | length) - 1 else $l1 end) as $lr |
	"```\n┌──────────────────────────────────────────────────────────┐\n" +
	("Forward pass: \($l1 - $l0 + 1) layers (pass 0)" | boxline) +
	"├──────────────────────────────────────────────────────────┤\n" +
	(reduce range($l0; $lr + 1) as $x ([];
		(if $L[$x].samp != 0 then 1 else 0 end) as $s |
		if length > 0 and .[-1].ty == $L[$x].type then .[-1].j = $x + 1 | .[-1].samp += $s
		else . + [{i: $x, j: ($x + 1), ty: $L[$x].type, samp: $s}] end) |
	 map((if .j - 1 == .i then "layer \(.i)" else "layers \(.i)-\(.j - 1)" end | lpad(16)) + " " +
		(.ty | tdisplay | lpad(18)) + " x" + ("\(.j - .i)" | lpad(4)) +
		(if .samp == 0 then "" elif $train then " + loss" else " + sampling" end) | boxline) |
	 join("        │" | boxline)) +
	(if $lr < $l1 then ("        │" | boxline) + ("... \($l1 - $lr) more layers not recorded" | boxline) else "" end) +
	"└──────────────────────────────────────────────────────────┘\n" +
	(if .train and ($S | isnum("micro_batches")) then
		"  x \($S | gi("micro_batches")) micro-batch\(plural($S | gi("micro_batches"); "es")), each with a backward pass of " +
		"\(if $S | isnum("backward_layers_per_micro_batch") then $S | gi("backward_layers_per_micro_batch") else "varying" end) layers\n"
	 elif .npasses > 1 then "  x \(.npasses) passes\n" else "" end) + "```\n\n";
# The per-pass execution timeline: a column holds the type of the last
# layer started by its middle.  lastby($mids): for each of the rising
# $mids, how many layers of the input have a later one (or themselves)
# starting at or before it: the suffix minima of the starts rise, so one
# pointer walks them once (not the layers once per column).
def lastby($mids): (map(.start) | reverse | [foreach .[] as $x (null; if . == null or $x < . then $x else . end)] | reverse) as $sm |
	($sm | length) as $n | [foreach $mids[] as $m (0; until(. >= $n or $sm[.] > $m; . + 1))];
def s10timeline: .layers as $L | .omitted as $on | .onpass as $op |
	"Per-pass execution timeline (one column = 1/64 of the pass wall time; D Dense, " +
	"M MoE+DFC, G MoE+GMM, m MoE, d Decode, \(if .train then "B Backward, " else "" end). before the first layer):\n\n```\n" +
	([.passes | to_entries[] | .key as $p | .value |
	  gi("start_ns") as $s | (gi("end_ns") - $s | if . > 0 then . else 1 end) as $w |
	  gi("layer_first") as $a | (gi("layer_last") | if . >= ($L | length) then ($L | length) - 1 else . end) as $b |
	  (if $p == $op and $on > 0 then "... \($on) passes not listed\n" else "" end) +
	  if $a > $b then "pass \("\(gi("pass"))" | lpad(3)) (layers not recorded)\([range(0; 43) | " "] | join(""))  \(gi("wall_ns") | nsms)\n"
	  else $L[$a:$b + 1] as $PL |
		"pass \("\(gi("pass"))" | lpad(3)) " +
		([$PL | lastby([range(0; 64) as $c | $s + idiv($w * (2 * $c + 1); 128)])[] |
		  if . == 0 then "." else $PL[. - 1].type | tletter end] | join("")) +
		"  \(gi("wall_ns") | nsms)\n" end] | join("")) + "```\n\n";
def s10findings: .S as $S | typecounts($S | obj("layer_types")) as $tc |
	"Key findings:\n\n" +
	(if .train then ($S | obj("optimizer")) as $opt |
		(if ($S | gb("layers_agree")) == 1 then
			"- Training step: **\($S | gi("micro_batches")) micro-batch\(plural($S | gi("micro_batches"); "es")) x \($S | gi("layers_per_micro_batch")) layers**" +
			"\(stagetext($S | gi("layers_per_micro_batch"))) (\($S | gi("forward_layers")) forward, \($S | gi("backward_layers")) backward " +
			"layers, which agree), found by \(methodtext); confidence \($S | gs("confidence")).\n"
		 else "- Training step: \($S | gi("forward_layers")) forward and \($S | gi("backward_layers")) backward layers that do not pair up; " +
			"micro-batches not determinable; confidence \($S | gs("confidence")).\n" end) +
		(if ($opt | type) == "object" then
			"- Optimizer step: \($opt | gs("first_kernel") | code), \($opt | gi("kernels")) kernels, \($opt | gi("wall_ns") | nsms) wall.\n"
		 else "" end) +
		"- Loss ops: \($S | obj("loss_ops") | if type == "array" and length > 0 then map(if type == "string" then . else "?" end | code) | join(", ") else "none on this rank" end).\n"
	 elif .method == "period" then
		"- Probably \($S | gi("layers")) layers in \($S | gi("passes")) pass\(plural($S | gi("passes"); "es")) (a repeating block of kernels); confidence \($S | gs("confidence")).\n"
	 else "- **\($S | gi("layers")) layers** in **\($S | gi("passes")) pass\(plural($S | gi("passes"); "es"))** (\($tc)), found by \(methodtext); confidence \($S | gs("confidence")).\n" end) +
	(if .fia then "- FIA: \($S | gi("fia_prefill")) prefill (mean \(if $S | hasv("fia_prefill_mean_ns") then $S | gi("fia_prefill_mean_ns") | nsms else "n/a" end)), " +
		"\($S | gi("fia_decode")) decode (mean \(if $S | hasv("fia_decode_mean_ns") then $S | gi("fia_decode_mean_ns") | nsms else "n/a" end)), \($S | gi("fia_ambiguous")) ambiguous.\n"
	 else "" end) +
	"- Communication: \($S | gi("comm_busy_ns") | nsms) busy, \(pctn($S | gi("comm_overlap_ns"); $S | gi("comm_busy_ns"))) hidden behind compute; " +
	"kernel_sum / busy = \(ratio($S | gi("kernel_sum_ns"); $S | gi("busy_ns"))).\n" +
	(if .train and (.comms | length) > 0 then "- Communication roles: \(commtext(false)).\n" else "" end) +
	(between.text | if . != "" then "- Between passes, not in the layer or pass walls: \(.).\n" else "" end) + "\n";
def s10: "## 10. Model Architecture Summary\n\n" +
	if (.layers | length) == 0 then s10none else s10diagram + s10timeline + s10findings end;

"# Model Architecture Report: \(.dir | code)\n\n" +
"Reverse-engineered from the device kernels by asc-fia; rendered by asc-archmd. " +
"Times are exact, in milliseconds (ms) unless stated; shares in percent.\n\n" +
headline + capnotes + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10
