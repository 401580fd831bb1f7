#!/usr/bin/env bash
# Apply config/skiplist to a kselftest-list.txt, for ARCH:
#   skiplist.sh run-list LIST   the tests to run, one per line
#   skiplist.sh ktap LIST       KTAP reporting each skipped test and its reason
# With KSFT_SELECT set (make vm-test T=...: DIR:TEST or DIR, separated by
# spaces or commas), only the tests it names are considered, with their
# 32-bit builds (DIR:TEST_32): the others are neither run nor reported.
# A name that matches no test of LIST is an error.  A selected test that the skip list names stays skipped, with its
# reason.  An entry for a directory that LIST does not have is ignored; one
# for a test that a listed directory lacks is an error (a stale entry).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

usage="usage: skiplist.sh run-list|ktap LIST"
cmd=${1:?$usage}
list=${2:?$usage}
skipfile=${SKIPLIST:-$TOP/config/skiplist}
KSFT_SELECT=${KSFT_SELECT:-}

# The tests of LIST that KSFT_SELECT names, or all of them.
declare -A selected=()
select_tests() {
	local want matched test
	while read -r test; do
		[ -n "$test" ] && selected[$test]=1
	done < <(if [ -z "${KSFT_SELECT:-}" ]; then cat "$list"; fi)
	for want in ${KSFT_SELECT//,/ }; do
		matched=0
		while read -r test; do
			# A test's 32-bit build (TEST_32) comes with it.
			if [ "$test" = "$want" ] || [ "$test" = "${want}_32" ] ||
				[ "${test%%:*}" = "$want" ]; then
				selected[$test]=1
				matched=1
			fi
		done <"$list"
		[ "$matched" = 1 ] ||
			die "T=$want: no such kselftest in $list (DIR:TEST, or DIR for all of its tests)"
	done
}
select_tests

declare -A reason=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case $line in "" | \#*) continue ;; esac
	entry=${line%%[[:space:]]*}
	why=$(printf '%s' "${line#"$entry"}" | sed 's/^[[:space:]]*//')
	test=${entry%@*}
	[ -n "$why" ] || die "$skipfile:$n: $entry has no reason; every skip states one"
	if [ "$entry" != "$test" ]; then
		where=${entry##*@}
		# An arch (every base), or a base and arch as results label them.
		case $where in
		*-*)
			if [ ! -f "$TOP/config/arch/${where#*-}.conf" ] ||
				! all_bases | grep -xF "${where%%-*}" >/dev/null; then
				die "$skipfile:$n: $entry: no base ${where%%-*} or no arch ${where#*-} (config/arch/)"
			fi
			;;
		*) [ -f "$TOP/config/arch/$where.conf" ] ||
			die "$skipfile:$n: $entry: no arch $where in config/arch/" ;;
		esac
		[ "$where" = "$ARCH" ] || [ "$where" = "$KERNEL_BASE-$ARCH" ] || continue
	fi
	# A directory with no test in LIST was not built (make check-series
	# builds only the directories a patch touches): its entries do not
	# apply.  A test missing from a directory that was built is stale.
	grep -q "^${test%%:*}:" "$list" || continue
	grep -qxF "$test" "$list" ||
		die "$skipfile:$n: $test is not in $list: remove the stale entry"
	[ -n "${selected[$test]:-}" ] || continue
	reason[$test]=$why
done <"$skipfile"

case $cmd in
run-list)
	while read -r test; do
		if [ -n "${selected[$test]:-}" ] && [ -z "${reason[$test]:-}" ]; then
			echo "$test"
		fi
	done <"$list"
	;;
ktap)
	ktap_plan ${#reason[@]}
	while read -r test; do
		ktap_result skip "selftests: ${test%%:*}: ${test#*:}" "${reason[$test]} (config/skiplist)"
	done < <(printf '%s\n' "${!reason[@]}" | sort | sed '/^$/d')
	;;
*) die "$usage" ;;
esac
