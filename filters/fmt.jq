# fmt.jq: the formatting helpers of asc's jq programs (asc-judge.jq,
# asc-report.jq, asc-diff.jq, asc-html.jq), built into each before its
# own text (the Makefile's .jq.inc rule), so that a format is changed in
# one place.  A program that defines a name again uses its own.

# ---- durations and shares
# A duration in ms, readable: 17.9 ms, 53.7 µs, 1.24 s.
def sig3: if . >= 100 then round elif . >= 10 then (. * 10 | round) / 10
	else (. * 100 | round) / 100 end;
def dur: if . == null then "n/a"
	elif (. | fabs) >= 1000 then "\(. / 1000 | sig3) s"
	elif (. | fabs) >= 1 then "\(sig3) ms"
	elif . == 0 then "0"
	else "\(. * 1000 | sig3) µs" end;
# A share (0.123) as a percentage with one decimal: 12.3%.
def pctx: if . == null then "n/a" else "\((. * 1000 | round) / 10)%" end;
# The verdict's durations in ms (asc-judge: 2 decimals, µs below 1 ms)
# and its shares (no null).
def fmt: if . == null then "n/a" elif . >= 1000 then "\(. / 1000 | . * 100 | round / 100) s"
	elif . >= 1 then "\(. * 100 | round / 100) ms" else "\(. * 1000 | . * 10 | round / 10) µs" end;
def pcs: "\(. * 1000 | round / 10)%";

# ---- Markdown text: escapes, code spans, pipe tables
# Names are data: a viewer shows them as they are, whatever they hold.  A
# control character is written \n, \r, \t or \xHH; in text, Markdown
# punctuation is backslash-escaped (a run of '_' inside a word opens
# nothing and stays) and < > & are entities; a code span's fence is longer than any run
# of backticks inside it.  In a table, cell escapes '|' (in code spans too).
def hexd: "0123456789abcdef"[.:(. + 1)];
# Every def below walks code points once: a name can be 64 KiB long.
def ctl: if . == 10 then "\\n" elif . == 13 then "\\r" elif . == 9 then "\\t"
	else "\\x" + ((. / 16 | floor) | hexd) + (. % 16 | hexd) end | explode;
def alnum: . != null and ((. >= 48 and . <= 57) or (. >= 65 and . <= 90) or (. >= 97 and . <= 122) or . >= 128);
# Per code point, the last one that is no '_' at or before it.
def lastword: [foreach .[] as $x (null; if $x == 95 then . else $x end)];
def md: tostring | if test("[\\\\`*_\\[\\]~<>&#+=\\-[:cntrl:]]") | not then . else explode as $c | ($c | lastword) as $p | ($c | reverse | lastword | reverse) as $q |
	[range(0; $c | length) as $i | $c[$i] as $x |
	 if $x < 32 or $x == 127 then [92] + ($x | ctl)
	 elif $x == 60 then [38, 108, 116, 59] elif $x == 62 then [38, 103, 116, 59]
	 elif $x == 38 then [38, 97, 109, 112, 59]
	 elif $x == 95 and ($p[$i] | alnum) and ($q[$i] | alnum) then [95]
	 elif $x == 92 or $x == 96 or $x == 42 or $x == 95 or $x == 91 or $x == 93 or $x == 126 or
	   ($i == 0 and ($x == 35 or $x == 43 or $x == 45 or $x == 61)) then [92, $x]
	 else [$x] end | .[]] | implode end;
def code: if . == null then "n/a" else tostring |
	if test("[`[:cntrl:]]|^ | $|^$") | not then "`" + . + "`" else explode as $c |
	([foreach $c[] as $x (0; if $x == 96 then . + 1 else 0 end)] | max // 0) as $run |
	($c | length > 0 and (.[0] == 96 or .[0] == 32 or .[-1] == 96 or .[-1] == 32)) as $edge |
	(if $edge or ($c | length) == 0 then [32] else [] end) as $pad |
	([range(0; $run + 1) | 96]) as $f |
	$f + $pad + [$c[] | if . < 32 or . == 127 then ctl[] else . end] + $pad + $f | implode end end;
def cell: tostring | if test("[|\\n]") | not then . else explode | [.[] | if . == 124 then 92, 124 elif . == 10 then 32 else . end] | implode end;
def row: "| " + (map(cell) | join(" | ")) + " |";
def table($head; $rows): ([$head | row, ($head | map("---") | row)] + ($rows | map(row))) | join("\n");

# ---- Markdown to HTML (asc-html, asc-diff)
# The Markdown report as HTML: the subset asc-report writes (headings,
# paragraphs, pipe tables, lists; code spans, **bold**, _italic_,
# backslash escapes, the entities it writes for < > &).  Each chart goes
# after the section it illustrates, the longest bubbles after the idle
# windows; a chart whose section is missing goes in a last section.
def esc: gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;") | gsub("\""; "&quot;");
def txt: gsub("&(?!(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);)"; "&amp;") |
	gsub("<"; "&lt;") | gsub(">"; "&gt;") |
	gsub("(?<!\\\\)\\*\\*(?<b>.+?)(?<!\\\\)\\*\\*"; "<b>\(.b)</b>") |
	gsub("(?<![\\w\\\\])_(?<i>[^_\\s](?:.*?[^\\s\\\\])?)_(?!\\w)"; "<i>\(.i)</i>") |
	gsub("\\\\(?<c>[!-/:-@\\[-`{-~])"; "\(.c)");
def inl: [scan("(`+)(.+?)(?<!`)\\1(?!`)|([^`]+)|(`+)")] |
	map(if .[0] != null then "<code>" + (.[1] | if test("^ .* $") and test("[^ ]") then .[1:-1] else . end | esc) + "</code>"
	    else (.[2] // .[3]) | txt end) | join("");
def cells: sub("^\\|"; "") | sub("\\|\\s*$"; "") | [splits("(?<!\\\\)\\|")] |
	# a cell's \| is a pipe, in a code span too (as GFM reads tables)
	map(sub("^\\s+"; "") | sub("\\s+$"; "") | gsub("\\\\\\|"; "|") | inl);
def mdblock($k; $b):
	if $k == "p" then ($b | join("\n")) as $t |
		# a paragraph in _..._ (the report's last line) is italic whole
		if ($t | test("^_[^_\\s].*[^\\s\\\\]_$")) then "<p><i>" + ($t[1:-1] | inl) + "</i></p>" else "<p>" + ($t | inl) + "</p>" end
	elif $k == "table" then "<div class=\"nw\"><table><tr>" + ($b[0] | cells | map("<th>\(.)</th>") | join("")) + "</tr>" +
		($b[2:] | map("<tr>" + (cells | map("<td>\(.)</td>") | join("")) + "</tr>") | join("")) + "</table></div>"
	elif $k == "ul" then "<ul>" + ($b | map("<li>" + (sub("^- "; "") | inl) + "</li>") | join("")) + "</ul>"
	elif $k == "ol" then "<ol>" + ($b | map("<li>" + (sub("^[0-9]+\\. "; "") | inl) + "</li>") | join("")) + "</ol>"
	else "" end;
def lkind: if test("^\\s*$") then "blank" elif test("^#{1,6} ") then "h" elif startswith("|") then "table"
	elif startswith("- ") then "ul" elif test("^[0-9]+\\. ") then "ol" else "text" end;

# ---- the cluster report (asc-cluster.jq)
# Twins of asc-cluster's C helpers, so that its report prints the same
# bytes from jq.  hd: a duration in ns as C's hd() prints it: whole ns
# below 1 µs, else printf's "%.4g" of the double ns / 1e3, 1e6 or 1e9
# (µs, ms, s; "1.234e+04 s" past 9999 s); null is "—".  The rounding is
# done on the integer ns, which is exact; only a tie in the fifth digit
# depends on the double, which lies above or below the exact quotient
# (1,234,500 ns is 1.234 ms, 12,345,000 ns 12.35 ms) or on it (half to
# even): hdside says which, by an exact product (Dekker's) of the double
# and the divisor.  Exact for |ns| < 2^53, as jq's numbers are.
def hdsplit: (134217729 * .) as $c | ($c - ($c - .)) as $h | [$h, . - $h];
def hdside($d; $k; $n): ($d * $k) as $p | ($d | hdsplit) as [$ah, $al] |
	($k | hdsplit) as [$bh, $bl] |
	((($ah * $bh - $p) + $ah * $bl + $al * $bh) + $al * $bl) as $e |
	(($p - $n) + $e) as $s | if $s > 0 then 1 elif $s < 0 then -1 else 0 end;
def hd: if . == null then "—" else
	(if . < 0 then "-" else "" end) as $sg | fabs as $a |
	if $a < 1000 then "\(.) ns" else
	(if $a >= 1e9 then [1e9, 9, " s"] elif $a >= 1e6 then [1e6, 6, " ms"] else [1e3, 3, " µs"] end) as [$k, $e, $u] |
	($a | tostring | length) as $nd | ([range(4; $nd) | 10] | reduce .[] as $x (1; . * $x)) as $m |
	($a % $m) as $r | (($a - $r) / $m) as $q |
	(if $r * 2 > $m then 1 elif $r * 2 < $m then 0
	 else ($a / $k | hdside(.; $k; $a)) as $s |
		if $s > 0 then 1 elif $s < 0 then 0 else $q % 2 end end) as $up |
	($q + $up) as $R | (if $R == 10000 then ["1000", $nd + 1] else [$R | tostring, $nd] end) as [$s, $n] |
	($n - 1 - $e) as $x |
	(if $x >= 4 then ($s[1:] | sub("0+$"; "")) as $f |
		$s[:1] + (if $f == "" then "" else "." + $f end) + "e+" + (if $x < 10 then "0" else "" end) + ($x | tostring)
	 else ($s[$x + 1:] | sub("0+$"; "")) as $f | $s[:$x + 1] + (if $f == "" then "" else "." + $f end) end) |
	$sg + . + $u end end;
# gfmt($p), ffmt($p): a double as C's printf "%.<p>g" and "%.<p>f" print
# it (gfmt(6) is "%g"), correctly rounded as glibc does, ties to even.
# jq's own text of the double is its shortest decimal that reads back the
# same, so rounding that text rounds the double, except where the text
# itself ends on the tie (a 5 just past the last digit kept): then which
# side of it the double lies is asked of the double, by hdside's exact
# product.  Exact while the digits kept and the 5 past them fit in 15
# digits and, on a tie below 1, its decimals in 22.
# A double's text as [sign, digits without leading or trailing zeros
# ("" for zero), exponent of the last digit].
def gdigits: tostring | (if startswith("-") then ["-", .[1:]] else ["", .] end) as [$sg, $t] |
	($t | split("e")) as $me | ($me[1] // "0" | tonumber) as $x |
	($me[0] | split(".")) as $ip | ($ip[1] // "") as $fr |
	(($ip[0] + $fr) | sub("^0+"; "")) as $a | ($a | sub("0+$"; "")) as $n |
	[$sg, $n, $x - ($fr | length) + (($a | length) - ($n | length))];
# The digits $n (exponent of the last $q) rounded to their first $k
# digits (0 <= $k < length) for the double d: [the kept integer, carried
# past them].
def gcut($d; $n; $q; $k): ($n[:$k] | if . == "" then 0 else tonumber end) as $K | $n[$k:] as $r |
	(if $r[:1] > "5" or ($r[:1] == "5" and ($r | length) > 1) then 1
	 elif $r[:1] < "5" then 0
	 else (($K * 10 + 5) as $t | ($n | length) - $k - 1 + $q as $e |
		if $e >= 0 then 0 else hdside($d | fabs; [range(0; -$e) | 10] | reduce .[] as $x (1; . * $x); $t) end) as $s |
		if $s > 0 then 1 elif $s < 0 then 0 else $K % 2 end end) as $up |
	$K + $up;
def gfmt($p): . as $d | (if $p == 0 then 1 else $p end) as $P | gdigits as [$sg, $n, $q] |
	if $n == "" then $sg + "0" else
	(($n | length) - 1 + $q) as $X0 |
	(if ($n | length) <= $P then [$n, $X0]
	 else gcut($d; $n; $q; $P) as $R |
		([range(0; $P) | 10] | reduce .[] as $x (1; . * $x)) as $m |
		if $R == $m then ["1", $X0 + 1] else [$R | tostring | sub("0+$"; ""), $X0] end end) as [$r, $X] |
	$sg + (if $X < -4 or $X >= $P then
		$r[:1] + (if ($r | length) > 1 then "." + $r[1:] else "" end) + "e" + (if $X < 0 then "-" else "+" end) +
		(if ($X | fabs) < 10 then "0" else "" end) + ($X | fabs | tostring)
	 elif $X >= 0 then ($r + ([range(0; $X + 1 - ($r | length))] | map("0") | join(""))) as $w |
		$w[:$X + 1] + (if ($w | length) > $X + 1 then "." + $w[$X + 1:] else "" end)
	 else "0." + ([range(0; -$X - 1)] | map("0") | join("")) + $r end) end;
def ffmt($p): . as $d | gdigits as [$sg, $n, $q] |
	(if $n == "" then 0 | tostring
	 elif $q >= -$p then $n + ([range(0; $q + $p)] | map("0") | join(""))
	 else (-$p - $q) as $c | ([range(0; $c + 1 - ($n | length))] | map("0") | join("") + $n) as $z |
		gcut($d; $z; $q; ($z | length) - $c) | tostring end) as $R |
	(([range(0; $p + 1 - ($R | length))] | map("0") | join("")) + $R) as $w |
	$sg + $w[:($w | length) - $p] + (if $p > 0 then "." + $w[($w | length) - $p:] else "" end);
# rname: a rank record's name, as C's rname(): "rank N", or its profile
# when the rank id is unknown.
def rname: if .rank != null and .rank >= 0 then "rank \(.rank)" else .profile end;
# mdt: text escaped for Markdown (md), in a table cell (1) or not (0).
def mdt($in_cell): if $in_cell == 1 then md | cell else md end;

# ---- the architecture report (asc-archmd.jq, built after this file too):
# numbers as exact decimals
# An integer (truncated, as C's int64_t) as its exact decimal with $s
# places, trailing zeros dropped: ns with 6 places is ms.  Exact below
# 1e17, the integers jq prints digit for digit.
def itrunc: if . < 0 then -(-. | floor) else floor end;
def decs($s): itrunc | (if . < 0 then "-" else "" end) as $sg | (fabs | tostring) as $d0 |
	(([range(0; $s + 1 - ($d0 | length)) | "0"] | join("")) + $d0) as $d | ($d | length - $s) as $k |
	($d[$k:] | sub("0+$"; "")) as $f | $sg + $d[:$k] + (if $f == "" then "" else "." + $f end);
# ns as ms with the unit: 12.345678 ms.
def nsms: (. // 0 | decs(6)) + " ms";
# $a / $b truncated as C's int64_t division, exact for integers below
# 2^53 (a double's quotient corrected by one).
def idiv($a; $b): if $a < 0 then -idiv(-$a; $b) else ($a / $b | floor) as $q |
	if $q * $b > $a then $q - 1 elif ($q + 1) * $b <= $a then $q + 1 else $q end end;
# 1000 $n/$d rounded half up, as a decimal of $s places and $u; "n/a"
# when $d <= 0.  The whole part first, so that only the remainder (below
# $d) is multiplied: exact while $d * 1000 < 2^53 (2.5 hours of ns).
def permille($n; $d; $s; $u): if $d <= 0 then "n/a" else
	(if $n < 0 then idiv($n * 1000 + idiv($d; 2); $d)
	 else idiv($n; $d) as $q | $q * 1000 + idiv(($n - $q * $d) * 1000 + idiv($d; 2); $d) end) | decs($s) + $u end;
# $n/$d as a percentage with one decimal (12.3 %), and with three decimals.
def pctn($n; $d): permille($n; $d; 1; " %");
def ratio($n; $d): permille($n; $d; 3; "");
# A table's separator row: l left, r right per column.
def sep($align): "|" + ($align | explode | map(if . == 114 then " ---: |" else " :--- |" end) | join(""));
# A name as it is, its control characters made visible (\n, \xHH).
def mdv: explode | map(if . < 32 or . == 127 then ctl[] else . end) | implode;
# Rows, each a list of cells, as the lines of a pipe table.
def rows: map(row + "\n") | join("");
