#!/usr/bin/env bash
# Self-tests of the harness: each directory in cases/ is a guest run frozen
# on disk (console.log, results/, maybe host-timeout).  verdict.sh and
# ktap-summary judge it and their combined output must equal the case's
# "expected" file exactly, with the exit status in "expected-status"; where
# "expected-splat" exists, it must equal the console excerpt verdict.sh
# keeps from the first splat on (splat.txt).
# Prints KTAP; exits 0 (the summary counts the failures).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"
build_ktap_summary

# What every frozen run was "built" as and asked for.
release=6.1.192-addrres machine=x86_64 cpus=2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Judged in a copy: verdict.sh leaves files in the run directory.
mkdir "$work/cases"
cp -r "$TOP/tests/harness/cases/." "$work/cases/"
cd "$work/cases"
cases=(*/)
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
	# The console excerpt a splat leaves for make check to print.
	if [ "$same" = 0 ] && [ -f "$c/expected-splat" ]; then
		diff -u "$c/expected-splat" "$c/splat.txt" >"$work/diff" 2>&1 || same=$?
	fi
	if [ "$rc" = "$want_rc" ] && [ "$same" = 0 ]; then
		ktap_result ok "harness: $(head -n 1 "$c/description")"
	else
		ktap_diag "case $c: exit status $rc (expected $want_rc); output differs:"
		ktap_diag <"$work/diff"
		ktap_result fail "harness: $(head -n 1 "$c/description")"
	fi
done
