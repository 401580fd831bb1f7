#!/usr/bin/env bash
# Apply config/skiplist to a kselftest-list.txt:
#   skiplist.sh run-list LIST   the tests to run, one per line
#   skiplist.sh ktap LIST       KTAP reporting each skipped test and its reason
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

cmd=${1:?usage: skiplist.sh run-list|ktap LIST}
list=${2:?usage: skiplist.sh run-list|ktap LIST}
skipfile=${SKIPLIST:-$TOP/config/skiplist}

declare -A reason=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case $line in "" | \#*) continue ;; esac
	test=${line%%[[:space:]]*}
	why=$(printf '%s' "${line#"$test"}" | sed 's/^[[:space:]]*//')
	[ -n "$why" ] || die "$skipfile:$n: $test has no reason; every skip states one"
	grep -qxF "$test" "$list" ||
		die "$skipfile:$n: $test is not in $list: remove the stale entry"
	reason[$test]=$why
done <"$skipfile"

case $cmd in
run-list)
	while read -r test; do
		[ -n "${reason[$test]:-}" ] || echo "$test"
	done <"$list"
	;;
ktap)
	echo "TAP version 13"
	echo "1..${#reason[@]}"
	i=0
	for test in $(printf '%s\n' "${!reason[@]}" | sort); do
		i=$((i + 1))
		echo "ok $i selftests: ${test%%:*}: ${test#*:} # SKIP ${reason[$test]} (config/skiplist)"
	done
	;;
*) die "usage: skiplist.sh run-list|ktap LIST" ;;
esac
