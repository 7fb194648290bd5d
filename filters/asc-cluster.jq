# asc-cluster.jq: cluster_report.md, one section per run (render.c).
# Input: a job's records as cluster.json holds them, grouped by kind
# ("job": [...], "warning": [...], ...), "view" (what C computed for the
# report alone) and "section".  Built after fmt.jq: hd, rname, mdt, mdu
# are the C's formats to the byte.

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
# rank records); past 20 ranks the 10 with the longest step.  Then the
# slow-rank rule and its table's head.
def ranks: .view as $v | (.rank | length) as $nr | [.rank, $v.rank_means] | transpose as $rs |
	[$rs[] | .[1].mean.service] as $svc |
	"## Time per rank (mean per step)\n\n" +
	(if $nr > 20 then "\($nr) ranks: the 10 with the longest step are shown; every rank is in cluster.json.\n\n" else "" end) +
	"| rank | step time | compute | comm exposed | overlapped | free | preparing | source |\n|---|---|---|---|---|---|---|---|\n" +
	([range(0; $nr) as $i | $rs[$i] as [$r, $m] |
	  select($nr <= 20 or ([range(0; $nr) | select($svc[.] > $svc[$i] or ($svc[.] == $svc[$i] and . < $i))] | length) < 10) |
	  ($r | rname | mdt(1)) as $n |
	  (if $m.link != null then "| [\($n)](\($m.link | mdu)) " else "| \($n) " end) +
	  "| \($m.mean.service | hd) | \($m.mean.compute | hd) | \($m.mean.comm_exposed | hd) | \($m.mean.comm_overlapped | hd) | \($m.mean.free | hd) | \($m.mean.preparing | hd)" +
	  (if $m.prep_from_step_trace then " (step_trace_time.csv)" else "" end) +
	  " | \(if $r.breakdown_source == "kernels" then "kernels" else "step_trace_time.csv" end) |\n"] | join("")) +
	"\n## Slow ranks\n\nA rank is slow in a dimension when its mean per step exceeds the median rank's by more than \($v.slow_share_pct) % of the median step (\($v.slow_threshold_ns | hd)). msprof-analyze's rule, (max − min) / mean > \($v.msprof_ratio), is shown beside it.\n\n" +
	"| dimension | median | min | max | (max−min)/mean | msprof-analyze | slow ranks |\n|---|---|---|---|---|---|---|\n";

# The slow-rank table: per dimension judged, its figures and its slow
# ranks (the slow_rank records); the range to 3 decimals from C.
def dimensions: .view.range_ratio_3 as $rr | [.slow_rank[]?] as $slow |
	[range(0; .dimension | length) as $i | .dimension[$i] as $d |
	 [$slow[] | select(.dimension == $d.dimension) | rname] as $names |
	 "| \($d.dimension) | \($d.median_ns | hd) | \($d.min_ns | hd) | \($d.max_ns | hd) | \($rr[$i] // "—") | \(if $d.msprof_analyze_flag then "slow" else "ok" end) | \(if $names == [] then "none" else $names | join(", ") | mdt(1) end) |\n"] |
	join("");

if .section == "head" then head
elif .section == "dimensions" then dimensions
elif .section == "ranks" then ranks
else error("asc-cluster.jq: no section \(.section)") end
