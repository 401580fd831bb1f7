#!/usr/bin/env bash
# Self-tests of the harness: each directory in cases/ is a guest run frozen
# on disk (console.log, results/, maybe host-timeout).  verdict.sh and
# ktap-summary judge it and their combined output must equal the case's
# "expected" file exactly, with the exit status in "expected-status".
# Prints KTAP; exits 0 (the summary counts the failures).
set -eu
. "$(dirname "$0")/../../scripts/lib.sh"
build_ktap_summary

release=6.1.192-addrres   # what every frozen run was "built" as
cd "$TOP/tests/harness/cases"
cases=(*/)
echo "TAP version 13"
echo "1..${#cases[@]}"
i=0
for dir in "${cases[@]}"; do
	c=${dir%/}
	i=$((i + 1))
	out=$(mktemp)
	rc=0
	{
		"$TOP/harness/verdict.sh" "$c" "$release" >"$out.vm" || true
		"$KTAP_SUMMARY" "$out.vm" "$c"/results/*.ktap
	} >"$out" 2>&1 || rc=$?
	want_rc=$(cat "$c/expected-status")
	if [ "$rc" = "$want_rc" ] && diff -u "$c/expected" "$out" >"$out.diff"; then
		echo "ok $i harness: $(head -n 1 "$c/description")"
	else
		echo "# case $c: exit status $rc (expected $want_rc); output differs:"
		sed 's/^/# /' "$out.diff"
		echo "not ok $i harness: $(head -n 1 "$c/description")"
	fi
	rm -f "$out" "$out.vm" "$out.diff"
done
