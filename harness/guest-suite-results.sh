#!/usr/bin/env bash
# Collect the guest suites' results that harness/guest-init left in
# RESULTS (guest-NAME.ktap, .err, .status) as OUT/6-guest-NAME.ktap, one
# per suite named:
#   guest-suite-results.sh RESULTS OUT NAME...
# A suite that left no KTAP (or an empty one) is a failure, with the end
# of its stderr; one that exited non-zero, or whose exit status is
# missing, is a failure too, beside whatever its KTAP says.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"
usage="usage: guest-suite-results.sh RESULTS OUT NAME..."
results=${1:?$usage}
out=${2:?$usage}
shift 2

for name in "$@"; do
	ktap=$results/guest-$name.ktap
	if [ -s "$ktap" ]; then
		cp "$ktap" "$out/6-guest-$name.ktap"
	else
		ktap_one_failure "guest: tests/$name/guest.sh" \
			"it left no KTAP; see $results/guest-$name.err" \
			"$(tail -n 5 "$results/guest-$name.err" 2>/dev/null || true)" \
			>"$out/6-guest-$name.ktap"
	fi
	status=$(cat "$results/guest-$name.status" 2>/dev/null || true)
	[ "$status" = 0 ] && continue
	how="it exited $status"
	[ -n "$status" ] || how="no exit status: killed or never run"
	ktap_one_failure "guest: tests/$name/guest.sh exited 0" "$how; see $results/guest-$name.err" \
		"$(tail -n 5 "$results/guest-$name.err" 2>/dev/null || true)" \
		>"$out/6-guest-$name-status.ktap"
done
