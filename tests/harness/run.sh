#!/usr/bin/env bash
# Self-tests of the harness: each directory in cases/ is a guest run frozen
# on disk (console.log, results/, maybe host-timeout).  verdict.sh and
# ktap-summary judge it and their combined output must equal the case's
# "expected" file exactly, with the exit status in "expected-status"; where
# "expected-splat" exists, it must equal the console excerpt verdict.sh
# keeps from the first splat on (splat.txt).  Then the selection of what a
# run runs: skiplist.sh with KSFT_SELECT (make vm-test T=...) on a sample
# kselftest list and skip list, and host-test.sh's check of SUITES.
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
selection_cases=9
ktap_plan $((${#cases[@]} + selection_cases))
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

# ---- selection: which kselftests and suites a run runs ----
cd "$work"
printf '%s\n' proc:proc-pid-vm proc:proc-procmap-query proc:proc-procmap-query_32 \
	perf_events:text_poke kallmodsyms:kallmodsyms >list
printf '%s\n' '# a sample skip list' 'proc:proc-pid-vm broken on purpose' >skip
# select T: what run-list prints (or its error), and its exit status.
select_run() { # T
	local rc=0
	KSFT_SELECT=$1 SKIPLIST=$work/skip "$TOP/harness/skiplist.sh" run-list list \
		>got 2>&1 || rc=$?
	echo "exit $rc" >>got
}
expect() { # name, then the expected lines on stdin
	cat >want
	if diff -u want got >got.diff; then
		ktap_result ok "harness: $1"
	else
		ktap_diag <got.diff
		ktap_result fail "harness: $1"
	fi
}
select_run proc
expect "T=DIR runs the tests of DIR that the skip list does not name" <<'EOF2'
proc:proc-procmap-query
proc:proc-procmap-query_32
exit 0
EOF2
select_run "kallmodsyms,proc:proc-procmap-query"
expect "T=A,DIR:TEST runs exactly those and their 32-bit builds, in the list's order" <<'EOF2'
proc:proc-procmap-query
proc:proc-procmap-query_32
kallmodsyms:kallmodsyms
exit 0
EOF2
select_run ""
expect "no T runs every test the skip list does not name" <<'EOF2'
proc:proc-procmap-query
proc:proc-procmap-query_32
perf_events:text_poke
kallmodsyms:kallmodsyms
exit 0
EOF2
select_run proc:no-such-test
expect "T naming no kselftest is an error that names it" <<EOF2
error: T=proc:no-such-test: no such kselftest in list (DIR:TEST, or DIR for all of its tests)
exit 1
EOF2
rc=0
KSFT_SELECT=proc:proc-pid-vm,perf_events SKIPLIST=$work/skip "$TOP/harness/skiplist.sh" ktap list \
	>got 2>&1 || rc=$?
echo "exit $rc" >>got
expect "a selected test that the skip list names is reported skipped, with its reason" <<'EOF2'
TAP version 13
1..1
ok 1 selftests: proc: proc-pid-vm # SKIP broken on purpose (config/skiplist)
exit 0
EOF2
# A directory that was not built (no test of it in the list) is not a
# stale entry; a missing test of a built directory is.
printf '%s\n' 'proc:proc-pid-vm broken on purpose' 'unbuilt:any not built here' >skip-dirs
rc=0
SKIPLIST=$work/skip-dirs "$TOP/harness/skiplist.sh" run-list list >got 2>&1 || rc=$?
echo "exit $rc" >>got
expect "skip-list entries of a directory the list does not have are ignored" <<'EOF2'
proc:proc-procmap-query
proc:proc-procmap-query_32
perf_events:text_poke
kallmodsyms:kallmodsyms
exit 0
EOF2
printf '%s\n' 'proc:proc-gone removed upstream' >skip-stale
rc=0
SKIPLIST=$work/skip-stale "$TOP/harness/skiplist.sh" run-list list >got 2>&1 || rc=$?
echo "exit $rc" >>got
expect "a skip-list entry for a test its built directory lacks is an error" <<EOF2
error: $work/skip-stale:1: proc:proc-gone is not in list: remove the stale entry
exit 1
EOF2
rc=0
SUITES=harness,no-such-suite "$TOP/scripts/host-test.sh" >got 2>&1 || rc=$?
echo "exit $rc" >>got
sed -i 's/ (host suites: .*)$//' got
expect "host-test.sh: SUITES naming no tests/NAME/run.sh is an error that names it" <<'EOF2'
error: SUITES=no-such-suite: no tests/no-such-suite/run.sh
exit 1
EOF2

# ---- the guest suites' results, as test-vm.sh collects them ----
mkdir -p suites/results suites/out
printf 'TAP version 13\n1..1\nok 1 a: works\n' >suites/results/guest-a.ktap
echo 0 >suites/results/guest-a.status
printf 'TAP version 13\n1..1\nok 1 b: works\n' >suites/results/guest-b.ktap
echo 2 >suites/results/guest-b.status
echo 'b: something went wrong' >suites/results/guest-b.err
"$TOP/harness/guest-suite-results.sh" "$work/suites/results" suites/out a b c >got 2>&1 || echo "exit $?" >>got
"$KTAP_SUMMARY" suites/out/*.ktap >>got 2>&1 || true
sed -i "s|$work/||g" got
expect "a guest suite that exits non-zero, or leaves no KTAP or status, fails" <<'EOF2'
ok      a: works
not ok  guest: tests/b/guest.sh exited 0  # it exited 2; see suites/results/guest-b.err
ok      b: works
not ok  guest: tests/c/guest.sh exited 0  # no exit status: killed or never run; see suites/results/guest-c.err
not ok  guest: tests/c/guest.sh  # it left no KTAP; see suites/results/guest-c.err
2 passed, 3 failed, 0 skipped
EOF2
