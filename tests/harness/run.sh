#!/usr/bin/env bash
# Self-tests of the harness: each directory in cases/ is a guest run frozen
# on disk (console.log, results/, maybe host-timeout).  verdict.sh and
# ktap-summary judge it and their combined output must equal the case's
# "expected" file exactly, with the exit status in "expected-status".
# Prints KTAP; exits 0 (the summary counts the failures).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"
build_ktap_summary

# What every frozen run was "built" as and asked for.
release=6.1.192-addrres machine=x86_64 cpus=2
cd "$TOP/tests/harness/cases"
cases=(*/)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ktap_plan ${#cases[@]}
for dir in "${cases[@]}"; do
	c=${dir%/}
	rc=0
	{
		"$TOP/harness/verdict.sh" "$c" "$release" "$machine" "$cpus" >"$work/vm.ktap" || true
		"$KTAP_SUMMARY" "$work/vm.ktap" "$c"/results/*.ktap
	} >"$work/out" 2>&1 || rc=$?
	want_rc=$(cat "$c/expected-status")
	same=0
	diff -u "$c/expected" "$work/out" >"$work/diff" || same=$?
	if [ "$rc" = "$want_rc" ] && [ "$same" = 0 ]; then
		ktap_result ok "harness: $(head -n 1 "$c/description")"
	else
		ktap_diag "case $c: exit status $rc (expected $want_rc); output differs:"
		ktap_diag <"$work/diff"
		ktap_result fail "harness: $(head -n 1 "$c/description")"
	fi
done
