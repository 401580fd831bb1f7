#!/usr/bin/env bash
# Apply config/skiplist to a kselftest-list.txt, for ARCH:
#   skiplist.sh run-list LIST   the tests to run, one per line
#   skiplist.sh ktap LIST       KTAP reporting each skipped test and its reason
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

usage="usage: skiplist.sh run-list|ktap LIST"
cmd=${1:?$usage}
list=${2:?$usage}
skipfile=${SKIPLIST:-$TOP/config/skiplist}

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
		[ -f "$TOP/config/arch/${entry##*@}.conf" ] ||
			die "$skipfile:$n: $entry: no arch ${entry##*@} in config/arch/"
		[ "${entry##*@}" = "$ARCH" ] || continue
	fi
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
	ktap_plan ${#reason[@]}
	while read -r test; do
		ktap_result skip "selftests: ${test%%:*}: ${test#*:}" "${reason[$test]} (config/skiplist)"
	done < <(printf '%s\n' "${!reason[@]}" | sort | sed '/^$/d')
	;;
*) die "$usage" ;;
esac
