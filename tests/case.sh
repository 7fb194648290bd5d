#!/usr/bin/env bash
# Run one test case directory: cmd, compared with expout / experr / status.
set -u
dir=$1
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tmp"
(
	cd "$dir" || exit 2
	TMPDIR="$tmp/tmp" LC_ALL=C bash cmd >"$tmp/out" 2>"$tmp/err" </dev/null
	echo $? >"$tmp/status"
)
fail=0
want=0
[ -f "$dir/status" ] && want=$(cat "$dir/status")
got=$(cat "$tmp/status")
if [ "$got" != "$want" ]; then
	echo "status $got, want $want"
	fail=1
fi
if [ -f "$dir/expout" ]; then
	diff -u "$dir/expout" "$tmp/out" | head -40 || fail=1
	cmp -s "$dir/expout" "$tmp/out" || fail=1
fi
if [ -f "$dir/experr" ]; then
	cmp -s "$dir/experr" "$tmp/err" || { diff -u "$dir/experr" "$tmp/err" | head -20; fail=1; }
elif [ -s "$tmp/err" ]; then
	echo "unexpected stderr:"; head -20 "$tmp/err"
	fail=1
fi
if [ -n "${ASC_POPULATE:-}" ]; then
	cp "$tmp/out" "$dir/expout"
	[ -s "$tmp/err" ] && cp "$tmp/err" "$dir/experr"
	[ "$got" != 0 ] && echo "$got" >"$dir/status"
	exit 0
fi
exit $fail
