#!/usr/bin/env bash
# Host tests of harness/ktap-summary itself, built with ASan and UBSan as
# `make check` builds it: each case runs it on the small KTAP files here
# and compares its whole output (stdout and stderr, so a sanitizer report
# fails the case too) and exit status with what is expected.
# Prints KTAP; exits 0 (the summary counts the failures).
set -euo pipefail
# shellcheck source=../../scripts/lib.sh disable=SC1091
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh disable=SC1091
. "$TOP/scripts/ktap.sh"

cases=19
ktap_plan "$cases"
if ! out=$(build_ktap_summary 2>&1); then
	printf '%s\n' "$out" | sed -n 1,5p | ktap_diag
	for i in $(seq "$cases"); do
		ktap_result fail "ktap-summary: case $i" "build failed"
	done
	exit 0
fi
cd "$TOP/tests/ktap-summary"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME STATUS ARGS... <EXPECTED: run ktap-summary on ARGS; the case
# passes if it prints EXPECTED exactly and exits with STATUS.
expect() {
	local name="ktap-summary: $1" want_rc=$2 rc=0
	shift 2
	cat >"$tmp/want"
	"$KTAP_SUMMARY" "$@" >"$tmp/out" 2>&1 || rc=$?
	if diff -u "$tmp/want" "$tmp/out" >"$tmp/diff" && [ "$rc" = "$want_rc" ]; then
		ktap_result ok "$name"
	else
		ktap_diag "ktap-summary $*: exit status $rc (expected $want_rc); output:"
		ktap_diag <"$tmp/diff"
		ktap_result fail "$name"
	fi
}

expect "a result with no name, only a directive, is named by its number" 0 \
	nameless.ktap <<'EOF'
ok      first
skip    test 2  # TODO later
skip    test 3  # why
1 passed, 0 failed, 2 skipped
EOF

expect "-l labels the lines of the files after it, until the next -l" 1 \
	pass.ktap -l x86_64 pass.ktap -l arm64 fail.ktap <<'EOF'
ok      selftests: proc: proc-pid-vm
ok      selftests: proc: proc-query: query.a
skip    selftests: proc: proc-query: query.b  # no hugetlb pages
ok      x86_64: selftests: proc: proc-pid-vm
ok      x86_64: selftests: proc: proc-query: query.a
skip    x86_64: selftests: proc: proc-query: query.b  # no hugetlb pages
not ok  arm64: selftests: proc: proc-pid-vm  # exit=1
not ok  arm64: fail.ktap: 1 of 2 planned tests never reported  # truncated: crashed or killed
4 passed, 2 failed, 2 skipped
EOF

expect "-l '' switches the label off again" 0 \
	-l arm64 nameless.ktap -l '' nameless.ktap <<'EOF'
ok      arm64: first
skip    arm64: test 2  # TODO later
skip    arm64: test 3  # why
ok      first
skip    test 2  # TODO later
skip    test 3  # why
2 passed, 0 failed, 4 skipped
EOF

expect "a missing file is a failure" 1 \
	nameless.ktap -l arm64 absent.ktap <<'EOF'
ok      first
skip    test 2  # TODO later
skip    test 3  # why
not ok  arm64: absent.ktap: cannot read: No such file or directory
1 passed, 1 failed, 2 skipped
EOF

# Nothing vanishes: each way a run can produce no result for a test.
expect "a file with only the plan 1..0 is one skip, named by the file" 0 \
	skip-all.ktap <<'EOF'
skip    skip-all  # every test is in config/skiplist
0 passed, 0 failed, 1 skipped
EOF

expect "a program whose subtests' plan is 1..0 is skipped, even under a plain ok" 1 \
	nested-empty.ktap <<'EOF'
skip    selftests: kallmodsyms: kallmodsyms  # /proc/kallmodsyms: No such file or directory
not ok  selftests: proc: proc-procmap-query  # exit=1
0 passed, 1 failed, 1 skipped
EOF

expect "a file with results but no plan fails: it may have been cut short" 1 \
	no-plan.ktap <<'EOF'
ok      first
ok      second
not ok  no-plan.ktap: no plan  # results without a plan: cut short or not
2 passed, 1 failed, 0 skipped
EOF

expect "XFAIL is a skip, not a pass" 0 xfail.ktap <<'EOF'
ok      works
skip    known  # XFAIL broken upstream
1 passed, 0 failed, 1 skipped
EOF

# Expected results (-e): the run against its list.
expect "-e: a run that gives exactly its list passes" 0 \
	-l x86_64 -e expected-same.txt pass.ktap <<'EOF'
ok      x86_64: selftests: proc: proc-pid-vm
ok      x86_64: selftests: proc: proc-query: query.a
skip    x86_64: selftests: proc: proc-query: query.b  # no hugetlb pages
2 passed, 0 failed, 1 skipped
EOF

expect "-e: an unlisted test, another skip reason, a listed skip that passes, a listed test that never ran" 1 \
	-l x86_64 -e expected-differs.txt pass.ktap <<'EOF'
not ok  x86_64: selftests: proc: proc-pid-vm  # passed, but expected-differs.txt lists it as a skip (broken here): make its line "pass selftests: proc: proc-pid-vm"
not ok  x86_64: selftests: proc: proc-query: query.a  # passed, but expected-differs.txt does not list it: add the line "pass selftests: proc: proc-query: query.a" (make manifest writes the list from a green run)
not ok  x86_64: selftests: proc: proc-query: query.b  # skipped (no hugetlb pages), but expected-differs.txt expects the skip "no huge pages"
not ok  x86_64: selftests: other: program  # never reported, but expected-differs.txt expects a pass
not ok  x86_64: selftests: proc: gone  # never reported, but expected-differs.txt expects a pass
0 passed, 5 failed, 0 skipped
EOF

expect "-r: a listed skip may give another reason; a pass or an unlisted test still fails" 1 \
	-r -l x86_64 -e expected-differs.txt pass.ktap <<'EOF'
not ok  x86_64: selftests: proc: proc-pid-vm  # passed, but expected-differs.txt lists it as a skip (broken here): make its line "pass selftests: proc: proc-pid-vm"
not ok  x86_64: selftests: proc: proc-query: query.a  # passed, but expected-differs.txt does not list it: add the line "pass selftests: proc: proc-query: query.a" (make manifest writes the list from a green run)
skip    x86_64: selftests: proc: proc-query: query.b  # no hugetlb pages
not ok  x86_64: selftests: other: program  # never reported, but expected-differs.txt expects a pass
not ok  x86_64: selftests: proc: gone  # never reported, but expected-differs.txt expects a pass
0 passed, 4 failed, 1 skipped
EOF

expect "-e: a skip the list does not know fails, and says the line that would list it" 1 \
	-e expected-same.txt pass.ktap skip-all.ktap <<'EOF'
ok      selftests: proc: proc-pid-vm
ok      selftests: proc: proc-query: query.a
skip    selftests: proc: proc-query: query.b  # no hugetlb pages
not ok  skip-all  # skipped, but expected-same.txt does not list it: add the line "skip skip-all  # every test is in config/skiplist" (make manifest writes the list from a green run)
2 passed, 1 failed, 1 skipped
EOF

expect "-w: only the listed tests it names must have run; the rest are still checked" 1 \
	-l arm64 -e expected-differs.txt -w "selftests: proc" pass.ktap <<'EOF'
not ok  arm64: selftests: proc: proc-pid-vm  # passed, but expected-differs.txt lists it as a skip (broken here): make its line "pass selftests: proc: proc-pid-vm"
not ok  arm64: selftests: proc: proc-query: query.a  # passed, but expected-differs.txt does not list it: add the line "pass selftests: proc: proc-query: query.a" (make manifest writes the list from a green run)
not ok  arm64: selftests: proc: proc-query: query.b  # skipped (no hugetlb pages), but expected-differs.txt expects the skip "no huge pages"
not ok  arm64: selftests: proc: gone  # never reported, but expected-differs.txt expects a pass
0 passed, 4 failed, 0 skipped
EOF

expect "-e: a malformed line of the list stops the run, naming file and line" 2 \
	-e expected-malformed.txt pass.ktap <<'EOF'
ktap-summary: expected-malformed.txt:2: not "pass NAME" or "skip NAME  # REASON"
EOF

expect "-e: a listed skip needs its reason" 2 \
	-e expected-no-reason.txt pass.ktap <<'EOF'
ktap-summary: expected-no-reason.txt:2: a skip without its reason ("  # REASON")
EOF

expect "-m: the results as an expected-results list, names without their trailing (...); failures as usual" 1 \
	-m figures.ktap fail.ktap <<'EOF'
pass vm: booted the kernel just built
pass addrres: kaddr: names as kallsyms has them
skip same  # no such thing
not ok  selftests: proc: proc-pid-vm  # exit=1
not ok  fail.ktap: 1 of 2 planned tests never reported  # truncated: crashed or killed
EOF

expect "-e: what a name says in its trailing (...) may change from run to run" 0 \
	-e expected-figures.txt figures-again.ktap <<'EOF'
ok      vm: booted the kernel just built (7.2.13-addrres, x86_64)
ok      addrres: kaddr: names as kallsyms has them (977 lines)
skip    same (name (nested))  # no such thing
2 passed, 0 failed, 1 skipped
EOF

expect "-e: a list that cannot be read is a failure; the results are still shown" 1 \
	-e absent-list.txt pass.ktap <<'EOF'
not ok  absent-list.txt: cannot read the expected results: No such file or directory  # make manifest writes them from a green make check
ok      selftests: proc: proc-pid-vm
ok      selftests: proc: proc-query: query.a
skip    selftests: proc: proc-query: query.b  # no hugetlb pages
2 passed, 1 failed, 1 skipped
EOF

# The exit status alone, over several runs: "STATUS ARGS..." each.
bad=0
while read -r want_rc args; do
	rc=0
	# shellcheck disable=SC2086 # a list of arguments
	"$KTAP_SUMMARY" $args </dev/null >/dev/null 2>&1 || rc=$?
	if [ "$rc" != "$want_rc" ]; then
		ktap_diag "ktap-summary $args: exit status $rc (expected $want_rc)"
		bad=1
	fi
done <<'EOF'
0 pass.ktap
0 nameless.ktap -l arm64 pass.ktap
1 fail.ktap
1 /dev/null
1 pass.ktap -l arm64 fail.ktap -l x86_64 pass.ktap
EOF
if [ "$bad" = 0 ]; then
	ktap_result ok "ktap-summary: exit status is 1 when anything failed, 0 otherwise"
else
	ktap_result fail "ktap-summary: exit status is 1 when anything failed, 0 otherwise"
fi

# Usage errors: no results on stdout, the usage on stderr, exit status 2.
bad=0
for args in "pass.ktap -l" "-l arm64" ""; do
	rc=0
	# shellcheck disable=SC2086 # a list of arguments
	"$KTAP_SUMMARY" $args >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" != 2 ] || [ -s "$tmp/out" ] || ! grep -q '^usage: .*-l LABEL' "$tmp/err"; then
		ktap_diag "ktap-summary $args: exit status $rc (expected 2); output:"
		cat "$tmp/out" "$tmp/err" | ktap_diag
		bad=1
	fi
done
if [ "$bad" = 0 ]; then
	ktap_result ok "ktap-summary: -l without a label, or no file, is a usage error"
else
	ktap_result fail "ktap-summary: -l without a label, or no file, is a usage error"
fi
