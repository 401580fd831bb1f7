#!/usr/bin/env bash
# `make host-test`: host suites (tests/NAME/run.sh), each run into
# build/host-test/NAME.ktap, then summarised.
#   SUITES=NAME,...  these suites; without it, those that need no kernel
#                    build: harness, pin, ktap-summary
# Some suites read what a kernel build or a guest run left (uapi, bench,
# perf: see the header of their run.sh); make check runs them in order.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=ktap.sh
. "$TOP/scripts/ktap.sh"

NO_BUILD_SUITES=(harness pin ktap-summary)
suites=("${NO_BUILD_SUITES[@]}")
[ -z "${SUITES:-}" ] || read -r -a suites <<<"${SUITES//,/ }"
for name in "${suites[@]}"; do
	[ -x "$TOP/tests/$name/run.sh" ] || die "SUITES=$name: no tests/$name/run.sh (host suites: $(
		cd "$TOP/tests" && for f in */run.sh; do printf '%s ' "${f%/run.sh}"; done))"
done

build_ktap_summary || die "cannot build harness/ktap-summary.c"
out=$BUILD_DIR/host-test
rm -rf "$out"
mkdir -p "$out"
for name in "${suites[@]}"; do
	info "host suite: tests/$name"
	"$TOP/tests/$name/run.sh" >"$out/$name.ktap" ||
		ktap_one_failure "host: tests/$name/run.sh" "exited non-zero" >"$out/$name-run.ktap"
done
# Held against the host's expected results: the suites run must each
# have reported every test listed for them (named "SUITE: ...").
scope=()
for name in "${suites[@]}"; do
	scope+=(-w "$name")
done
exec "$KTAP_SUMMARY" -e "$EXPECTED_DIR/host.txt" "${scope[@]}" "$out"/*.ktap
