#!/usr/bin/env bash
# The tests' time limits under load: every (base, arch) unit's guest runs
# the same kselftests at once, ROUNDS times, so that each guest runs beside
# the others (three, with both bases and arches) as a busy host runs them.
#   bench/guests-under-load.sh [ROUNDS] [T]   (defaults: 5, perf_events)
# BUSY_GUESTS=N adds N spinning guests beside each unit's (make vm-test).
# Each unit's kernel and kselftests must be built (make check builds them
# all).  Prints, per run, the closing line of its results and where its
# guest's time went (harness/guest-times.sh): figures, not a verdict; a
# run whose results are not all green says so, and the script exits 1.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
rounds=${1:-5} select=${2:-perf_events}
units=()
for base in $(all_bases); do
	for arch in $(all_arches); do
		units+=("$base $arch")
	done
done
# Built once here: the runs side by side would each build it.
build_ktap_summary || die "cannot build harness/ktap-summary.c"
logs=$BUILD_DIR/guests-under-load
mkdir -p "$logs"
red=0
for ((round = 1; round <= rounds; round++)); do
	pids=() start=$SECONDS
	for unit in "${units[@]}"; do
		read -r base arch <<<"$unit"
		KERNEL_BASE=$base ARCH=$arch T=$select BUSY_GUESTS=${BUSY_GUESTS:-0} \
			"$TOP/scripts/vm-test.sh" >"$logs/$round-$base-$arch.log" 2>&1 &
		pids+=("$!")
	done
	for i in "${!units[@]}"; do
		rc=0
		wait "${pids[i]}" || rc=$?
		read -r base arch <<<"${units[i]}"
		log=$logs/$round-$base-$arch.log
		result=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
		times=$(grep -E '^==> [^ ]+ [^ ]+ vm: ' "$log" | sed 's/^==> //' || true)
		echo "round $round, $base $arch: ${result:-no results} (exit $rc); ${times:-no times}"
		[ "$rc" = 0 ] || { red=1; grep -E '^not ok|TIMEOUT|timeout' "$log" | sed -n '1,5p' || true; }
	done
	echo "round $round: $((SECONDS - start)) s"
done
exit "$red"
