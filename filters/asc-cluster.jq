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

if .section == "head" then head
else error("asc-cluster.jq: no section \(.section)") end
