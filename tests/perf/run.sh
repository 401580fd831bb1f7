#!/usr/bin/env bash
# perf's own tests of the series' tools/perf patches, on the host: builds
# perf from the tree (build/linux) into $BUILD_DIR/perf, with only the
# Debian build dependencies `make deps` installs and none of the optional
# libraries, and runs the `perf test` suites the series adds, one KTAP
# result per test case.  The tests need no privileges and no arm64
# machine: "kcore maps" loads a kcore-like layout from a temporary root.
# Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

out=$BUILD_DIR/perf
# The suites, and the number of test cases each has.
declare -A cases=(["kcore maps"]=2)
# A perf without what the suites do not use, so that it builds with the
# packages of scripts/deps.sh alone.
perf_make_flags=(
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_GTK2=1 NO_LIBBPF=1 NO_BPF_SKEL=1 NO_JVMTI=1
	NO_LIBUNWIND=1 NO_SLANG=1 NO_LIBAUDIT=1 NO_LIBCRYPTO=1 NO_LIBNUMA=1
	NO_LIBBABELTRACE=1 NO_LIBZSTD=1 NO_LIBCAP=1 NO_JEVENTS=1
)

# every_case ok|fail|skip REASON: the same result for every case.
every_case() {
	local suite i
	for suite in "${!cases[@]}"; do
		for ((i = 1; i <= cases[$suite]; i++)); do
			ktap_result "$1" "perf test: $suite $i" "$2"
		done
	done
}

total=0
for suite in "${!cases[@]}"; do
	total=$((total + cases[$suite]))
done
ktap_plan "$total"

if [ ! -d "$TREE/tools/perf" ]; then
	every_case skip "no tree at $TREE (make tree)"
	exit 0
fi
mkdir -p "$out"
if ! log=$(nice make -s -C "$TREE/tools/perf" O="$out" "${perf_make_flags[@]}" \
	-j"$(nproc_jobs)" 2>&1); then
	printf '%s\n' "$log" | grep -E 'error|Error' | tail -n 20 | ktap_diag
	every_case fail "perf did not build"
	exit 0
fi

# `perf test N` prints " N.I: CASE : Ok|Skip|FAILED!" for each case (by
# name it would run only the cases whose own name matches).
for suite in "${!cases[@]}"; do
	num=$("$out/perf" test list 2>&1 | sed -nE "s/^ *([0-9]+): $suite\$/\1/p")
	results=""
	if [ -n "$num" ]; then
		results=$("$out/perf" test "$num" 2>&1 || true)
	fi
	for ((i = 1; i <= cases[$suite]; i++)); do
		line=$(printf '%s\n' "$results" | grep -E "^ *[0-9]+\.$i: " || true)
		name="perf test: $suite: $(printf '%s' "$line" | sed -E 's/^ *[0-9]+\.[0-9]+: (.*[^ ]) *:.*$/\1/')"
		case $line in
		*": Ok") ktap_result ok "$name" ;;
		*": Skip"*) ktap_result skip "$name" "perf test skipped it" ;;
		"")
			printf '%s\n' "$results" | tail -n 10 | ktap_diag
			ktap_result fail "perf test: $suite $i" "no result in perf test's output"
			;;
		*)
			"$out/perf" test -v "$num" 2>&1 | tail -n 30 | ktap_diag
			ktap_result fail "$name"
			;;
		esac
	done
done
