# asc-cluster.jq: cluster_report.md, one section per run (render.c).
# Input: a job's records as cluster.json holds them, grouped by kind
# ("job": [...], "warning": [...], ...), "view" (what C computed for the
# report alone) and "section".  Built after fmt.jq: hd, rname, mdt
# are the C's formats to the byte; a link comes percent-encoded
# (render.c's urljv).

def plural($n): if $n == 1 then "" else "s" end;

# The head: the job, its warnings, what the figures rest on.
def head: .job[0] as $j | ($j.profiles | length) as $nr | $j.ranks_from_step_trace as $st |
	"# Cluster \($j.job | mdt(0)): \($j.ranks) rank\(plural($j.ranks))\n\n" +
	(if $j.ranks != $nr then "\($nr) profiles for \($j.ranks) ranks.\n\n" else "" end) +
	([.warning[]? | "**Warning:** \(.message | mdt(0)).\n\n"] | join("")) +
	(if $j.warnings > 0 then "Confidence **low**: the figures across ranks rest on the profiles above.\n\n" else "" end) +
	(if $j.jobs_in_input > 1 then "The input held \($j.jobs_in_input) unrelated jobs (different parent directory or capture metadata); they are analysed apart, never merged.\n\n" else "" end) +
	(if $st > 0 then (if $st == 1 then "its" else "their" end) as $its |
		"\($st) rank\(plural($st)) had no kernel table: \($its) breakdown is torch_npu's step_trace_time.csv and \($its) collectives come from communication.json.\n\n"
	 else "" end);

# Time per rank: each rank's mean per step (view.rank_means, beside the
# rank records, with its report's link percent-encoded); past 20 ranks
# the 10 with the longest step.  Then the
# slow-rank rule and its table's head.
def ranks: .view as $v | (.rank | length) as $nr | [.rank, $v.rank_means] | transpose as $rs |
	[$rs[] | .[1].mean.service] as $svc |
	"## Time per rank (mean per step)\n\n" +
	(if $nr > 20 then "\($nr) ranks: the 10 with the longest step are shown; every rank is in cluster.json.\n\n" else "" end) +
	"| rank | step time | compute | comm exposed | overlapped | free | preparing | source |\n|---|---|---|---|---|---|---|---|\n" +
	([range(0; $nr) as $i | $rs[$i] as [$r, $m] |
	  select($nr <= 20 or ([range(0; $nr) | select($svc[.] > $svc[$i] or ($svc[.] == $svc[$i] and . < $i))] | length) < 10) |
	  ($r | rname | mdt(1)) as $n |
	  (if $m.link != null then "| [\($n)](\($m.link)) " else "| \($n) " end) +
	  "| \($m.mean.service | hd) | \($m.mean.compute | hd) | \($m.mean.comm_exposed | hd) | \($m.mean.comm_overlapped | hd) | \($m.mean.free | hd) | \($m.mean.preparing | hd)" +
	  (if $m.prep_from_step_trace then " (step_trace_time.csv)" else "" end) +
	  " | \(if $r.breakdown_source == "kernels" then "kernels" else "step_trace_time.csv" end) |\n"] | join("")) +
	"\n## Slow ranks\n\nA rank is slow in a dimension when its mean per step exceeds the median rank's by more than \($v.slow_share_pct | gfmt(6)) % of the median step (\($v.slow_threshold_ns | hd)). msprof-analyze's rule, (max − min) / mean > \($v.msprof_ratio | gfmt(6)), is shown beside it.\n\n" +
	"| dimension | median | min | max | (max−min)/mean | msprof-analyze | slow ranks |\n|---|---|---|---|---|---|---|\n";

# The slow-rank table: per dimension judged, its figures and its slow
# ranks (the slow_rank records); the range to 3 decimals of the double
# (the record's has 4).
def dimensions: .view.range_ratio_3 as $rr | [.slow_rank[]?] as $slow |
	[range(0; .dimension | length) as $i | .dimension[$i] as $d |
	 [$slow[] | select(.dimension == $d.dimension) | rname] as $names |
	 "| \($d.dimension) | \($d.median_ns | hd) | \($d.min_ns | hd) | \($d.max_ns | hd) | \($rr[$i] | if . == null then "—" else ffmt(3) end) | \(if $d.msprof_analyze_flag then "slow" else "ok" end) | \(if $names == [] then "none" else $names | join(", ") | mdt(1) end) |\n"] |
	join("");

# The collectives by the wait they cause (once an uncaptured peer that
# covers it is fixed), the first top_collectives of them.
def collectives: .view as $v | [.collective[]?] as $c |
	[$c[] | select(.covered_by_peer != null)] as $cov | ($cov | length) as $ncov |
	([$c[] | select(.covered_by_uncaptured and .covered_by_peer == null)] | length) as $nself |
	($ncov > 0 or $nself > 0) as $fx |
	"\n## Collectives by wait caused\n\n\($c | length) collectives seen on two ranks or more, \([$c[] | select(.significant)] | length) with an arrival skew of at least \($v.skew_min_us | gfmt(6)) µs." +
	(if $ncov > 0 then " In \($ncov) of them every rank in this input waits longer for rank \($cov[0].covered_by_peer) (not in this input): while it is late they cause no wait; the last column gives the skew once it is fixed, the most the others can then wait (what they lose of it not under compute is in the recommendations)." else "" end) +
	(if $nself > 0 then " In \($nself) of them the latest rank in this input itself waits (comm records) for a rank of its group not in this input, which arrives later still: the wait caused is 0 there\(if $ncov > 0 then "" else "; the last column gives the wait once that rank is on time" end)." else "" end) +
	"\n\n| op | step | ranks | skew | late rank | wait caused |\(if $fx then " once the peer is fixed |" else "" end) start from |\n|---|---|---|---|---|---|\(if $fx then "---|" else "" end)---|\n" +
	([$c | to_entries | sort_by([.value.wait_once_peer_fixed_ns == null, -(.value.wait_once_peer_fixed_ns // 0), .key]) |
	  .[:$v.top_collectives][] | .value |
	  "| \(.op | mdt(1)) | \(.step // "" | mdt(1)) | \(.ranks) | \(.skew_ns | hd) | \({rank: .late_rank, profile: .late_profile} | rname | mdt(1)) | \(.wait_caused_ns | hd) |" +
	  (if $fx then " \(.wait_once_peer_fixed_ns | hd) |" else "" end) + " \(.start_source) |\n"] | join(""));

# The late rank just written (its late_rank record, the last one, and
# view.late): primary, or secondary to an uncaptured peer that every
# captured rank waits for longer (outweighed_by).  waited: the ranks of
# its waited_by, each with the ops it waits in (view.late.waited_ops).
def waited($ops): [range(0; length) as $i | .[$i] as $w |
	"\($w | rname) \($w.extra_elapsed_per_step_ns | hd) per step longer (\($ops[$i] | map("\(.op) \(.ns | hd) vs \(.own_ns | hd)") | join(", "))); \($w.booked_idle_per_step_ns | hd) of it booked as idle, not wait, in communication.json"] |
	join("; ");
def late: .view as $v | .late_rank[-1] as $l | $v.late as $x | ($l | rname | mdt(0)) as $n |
	($v.skew_min_us | gfmt(6)) as $us |
	if $l.outweighed_by != null then $l.outweighed_by as $o |
		"\n## Latest of the captured ranks: \($n)\n\n\($n) is the last of the ranks in this input to arrive at \($l.late_at) of \($l.significant_collectives) collectives with a skew of at least \($us) µs; its arrival skews there add up to \($x.skews_ns | hd) (how much later than the earliest rank in this input it arrived). " +
		"Every rank in this input waits longer for rank \($o.peer) of group `\($o.group)`, which is not in this input (at least \($o.least_exposed_wait_per_step_ns | hd) per step, below): that peer arrives later still, so this skew is secondary.\n\n\($l.chain | mdt(0)).\n\nCause of the skew: \($l.cause).\n"
	else $x.captured_only as $c |
		"\n## \(if $c then "Latest of the captured ranks" else "Late rank" end): \($n)\n\n\($n) is the last \(if $c then "of the ranks in this input " else "" end)to arrive at \($l.late_at) of \($l.significant_collectives) collectives with a skew of at least \($us) µs; its arrival skews there add up to \($x.skews_ns | hd) (how much later than the earliest rank \(if $c then "in this input " else "" end)it arrived)\($x.who | mdt(0)).\n\n\($l.chain | mdt(0)).\n\nCause: \($l.cause).\n" +
		(if ($l.waited_by // []) != [] then "\nThe ranks that arrive before it wait for it inside these collectives: \($l.waited_by | waited($x.waited_ops) | mdt(0)). Fixing \($n)'s delay recovers that time on them.\n" else "" end)
	end;

# Slow links: the slow_link records (their bandwidths to 3 digits of
# the doubles, view.links.rows: the records' have 4 decimals), else what
# was read and judged.
def links: .view.links as $v | [.slow_link[]?] as $s | ($v.fraction | gfmt(6)) as $fr |
	if $s != [] then
		"\n## Slow links\n\nLinks below \($fr) of the median bandwidth of their transport and op class in the job.\n\n| rank | link | transport | op class | bandwidth | median | time lost per op |\n|---|---|---|---|---|---|---|\n" +
		([range(0; $s | length) as $i | $s[$i] as $l | $v.rows[$i] as $r |
		  "| \($l | rname | mdt(1)) | \($l.link | mdt(1)) | \($l.transport | mdt(1)) | \($l.op_class | mdt(1)) | \($r.bandwidth | gfmt(3)) GB/s | \($r.median | gfmt(3)) GB/s | \($l.time_at_stake_ns | hd) |\n"] | join(""))
	elif $v.entries == 0 then "\n## Slow links\n\nNo communication_matrix.json or analysis.db CommAnalyzerMatrix: links not judged.\n"
	else "\n## Slow links\n\n\($v.links) links\(if $v.links != $v.entries then " (\($v.entries) entries by op class)" else "" end) read from " +
		(if $v.from_db == 0 then "communication_matrix.json" elif $v.from_db == $v.entries then "analysis.db CommAnalyzerMatrix"
		 else "communication_matrix.json and analysis.db CommAnalyzerMatrix" end) +
		" (of at least \($v.min_size_mb | gfmt(6)) MB, transports not ignored by the rules); none below \($fr) of its median.\n" end;

# The recommendation records, after the rank reports' own first
# findings (view.rank_tops), to which the list points.
def recommendations: (.view.rank_tops // []) as $t | [.recommendation[]?] as $r |
	"\n## Recommendations (across the ranks; by priority, then time at stake per step; estimates and upper bounds after the measured figures of their priority)\n\n" +
	([range(0; $t | length) as $i | $t[$i] as $x |
	  (if $i > 0 then "; " else "This list holds what the ranks show together (groups, late ranks, links); each rank's own findings are in its report, led by " end) +
	  "\($x | rname)'s \($x.id | mdt(0)) (P0, \(if $x.stake_ns == null then "none" else $x.stake_ns | hd end) per step\(if $x.upper_bound then ", an upper bound" else "" end)): \($x.headline | mdt(0))"] | join("")) +
	(if $t != [] then ". An item here takes the rank reports' priority scale on its own stake, and P0 only the first and only when it is at least as large as a rank's own P0 (it would lead that rank's list too).\n\n" else "" end) +
	([range(0; $r | length) as $k | $r[$k] as $x |
	  "\($k + 1). P\($x.priority) (\(if $x.time_at_stake_ns == 0 then "0 ms" else $x.time_at_stake_ns | hd end)): \($x.text | mdt(0))\n"] | join("")) +
	(if $r == [] then "No rank, collective or link stands out across the job.\n" else "" end) + "\n";

# The waits for ranks not in this input (peers.c computes view.peers,
# one item per group and peer, in order): from the HCCL tasks ("tasks":
# the captured ranks' waits on the peer, whether they end together, the
# peers each waits for next), or, without tasks, the time in the ops of a
# group whose parallel_group_info names members not in the input (and
# its transfer or pipeline figures).  The head follows the first item.
def s($n): if $n > 1 then "s" else "" end;
def rlist: map(rname) | join(", ");
def spent: map("\(.rank | rname) \(.ns | hd)\(if .exposed then " not under compute" else " (no kernels: its elapsed time)" end)") | join(", ");
def metagroup: (.peers | length) as $n | (.peers | map(tostring) | join(", ")) as $out |
	"\nGroup `\(.group)` (\(.role // "no role"), \(.ops // "ops")) has \(.size) ranks, \(.in) in this input (\(.ranks | rlist)); parallel_group_info names its other member\(s($n)), global rank\(s($n)) \($out), which \(if $n > 1 then "are" else "is" end) not in this input. " +
	"The input holds no HCCL tasks, so the wait on \(if $n > 1 then "them" else "it" end) is not measured; per step the ranks spend in the group's ops: \(.spent | spent).\n" +
	(if .bound != null then "Its ops are transfer-bound: by the bandwidth table they move, per step, \(.bound.rows | map("\(.rank | rname) \(.mb | gfmt(4)) MB in \(.xfer_ns | hd) of \(.elapsed_ns | hd) (\(.gbps | gfmt(3)) GB/s)") | join(", ")); at most \(.bound.most_wait_ns | hd) per step can be a wait on global rank\(s($n)) \($out).\n" else "" end) +
	(if .stage_imbalance != null then "Stage imbalance, as the rank reports give it: \(.stage_imbalance).\n" else "" end) +
	(if .win != null then "What acting on it could win per step, as the rank reports give it: \(.win).\n" else "" end);
def sameend($p; $us): if . == null then "" else
	(if .together then "\nTheir HCCL tasks show the waits for rank \($p) ending at the same instant (\(.waits) wait\(s(.waits)) of at least \($us) µs on each rank, ends within \(.spread_ns | hd) of each other): the peer's arrival releases them together, so rank \($p) arrives late; a slow link would not end them together."
	 else "\nTheir HCCL tasks show the waits for rank \($p) ending up to \(.spread_ns | hd) apart (\(.waits) wait\(s(.waits)) of at least \($us) µs on each rank)." end) +
	(if .one_step then " The capture holds one step\(if .active1 then " (profiler_info schedule active 1)" else "" end): one occurrence, not a pattern." else "" end) + "\n" end;
def after($p): if .rows == [] then "" else
	"\nAfter rank \($p): " +
	([.rows[] | "\(.rank | rname) " +
	  (if .wide then "waits for every other peer too (its own waits per step not under compute, in each op at most its wait for rank \($p): " else "waits next for " end) +
	  (.peers | map("rank \(.rank) \(.ns | hd)") | join(", ")) +
	  (if .wide then ")" else " per step, not under compute (in each op at most its wait for rank \($p))" end) +
	  "; the longest of them in each op, what fixing rank \($p) leaves: \(.rem_ns | hd) per step."] | join(" ")) +
	(if .wide_after != null then " Every peer of the group arrives after \(.wide_after | rname): the skew is group-wide, and fixing one peer at a time leaves the next." else "" end) + "\n" end;
def taskgroup($nj; $us): (.waits | length) as $nr | .peer as $p |
	"\nGroup `\(.group)`" + (if .size != null then " has \(.size) ranks, \(.in) in this input (\(.ranks | rlist))" else "" end) +
	". \(if $nr == $nj and $nr > 1 then (if $nr == 2 then "Both ranks" else "All ranks" end) elif $nr == 1 then "One rank" else "Ranks" end) wait\(if $nr == 1 then "s" else "" end) for rank \($p), which is not in this input: \(.waits | map("\(.rank | rname) \(.ns | hd)") | join(", ")) per step.\n" +
	(.same_end | sameend($p; $us)) + (.next | after($p));
def peers: .view as $v | (.job[0].profiles | length) as $nj |
	if $v.peers == [] then "" else
	"\n## Waits for ranks not in this input\n\n" +
	(if $v.peers[0].tasks then "From each rank's HCCL tasks: the time per step, not under compute, that it waits for a peer of its group (peer ranks as the tasks number them, local to the group, or global where parallel_group_info maps them).\n"
	 else "The ranks here hold no HCCL tasks for these groups: the figures are the time per step each rank spends in the group's ops (their kernels, or communication.json's elapsed time), not a measured wait on the peer; global ranks are parallel_group_info's.\n" end) +
	([$v.peers[] | if .tasks then taskgroup($nj; $v.skew_min_us | gfmt(6)) else metagroup end] | join("")) end;

# The last line, once, after every job.
def foot: "_Made by asc \(.view.version) with the rules `\(.view.rules_file)`._\n";

if .section == "head" then head
elif .section == "peers" then peers
elif .section == "foot" then foot
elif .section == "recommendations" then recommendations
elif .section == "links" then links
elif .section == "late" then late
elif .section == "collectives" then collectives
elif .section == "dimensions" then dimensions
elif .section == "ranks" then ranks
else error("asc-cluster.jq: no section \(.section)") end
