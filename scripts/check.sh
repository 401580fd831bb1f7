#!/usr/bin/env bash
# `make check`: every test there is, then one closing line
# "N passed, N failed, N skipped" from harness/ktap-summary over all of
# them.  The host suites (tests/*/run.sh) and the lint run once; the kernel
# and its kselftests are built and run for each arch (all of
# config/arch/, or the one ARCH names).  Each stage leaves KTAP in
# $RESULTS_DIR/<host|arch>/; a stage that cannot run says why there as a
# failed test, so the closing line is printed whatever broke.
set -euo pipefail
requested_arch=${ARCH:-}
. "$(dirname "$0")/lib.sh"
# shellcheck source=ktap.sh
. "$TOP/scripts/ktap.sh"

if [ -n "$requested_arch" ]; then
	arches=("$requested_arch")
else
	mapfile -t arches < <(all_arches)
fi
"$TOP/scripts/deps.sh" "${arches[@]}"
rm -rf "$RESULTS_DIR"
mkdir -p "$RESULTS_DIR/host"
build_ktap_summary || die "cannot build harness/ktap-summary.c"

# A stage's failure as one KTAP test, so the summary counts it.
stage_failed() { # file name reason
	{
		ktap_plan 1
		ktap_result fail "$2" "$3"
	} >"$1"
}

# Build ARCH; on failure its KTAP says so in $RESULTS_DIR/ARCH/ and it
# returns 1.
build_arch() {
	local arch=$1 out=$RESULTS_DIR/$1 step start=$SECONDS
	mkdir -p "$out"
	# An excerpt left by an earlier boot must not be printed for this one.
	rm -f "$BUILD_DIR/$arch/vm/splat.txt"
	for step in "make-tree.sh --lenient" build-kernel.sh build-selftests.sh build-tools.sh; do
		# shellcheck disable=SC2086 # the step and its options
		if ! ARCH=$arch "$TOP"/scripts/$step; then
			stage_failed "$out/2-build.ktap" "build: ${step%% *}" "failed: see the messages above"
			return 1
		fi
	done
	info "$arch: built in $((SECONDS - start)) s"
}

# Boot ARCH's build and run its tests; the KTAP goes to $RESULTS_DIR/ARCH/.
test_arch() {
	local arch=$1 out=$RESULTS_DIR/$1 start=$SECONDS
	if ! ARCH=$arch "$TOP/harness/test-vm.sh" "$out"; then
		stage_failed "$out/3-vm-run.ktap" "vm: test run" "harness/test-vm.sh failed: see the messages above"
	fi
	info "$arch: guest tested in $((SECONDS - start)) s"
}

# Every arch is built first (each build uses every CPU), then the guests
# run side by side: an emulated guest keeps about one host CPU busy
# (x86_64's TCG runs both vCPUs in one thread, config/arch/x86_64.conf),
# so two of them on two CPUs take little longer than the slower one alone.
built=()
for arch in "${arches[@]}"; do
	info "$arch: build the kernel, kselftests and guest programs"
	if build_arch "$arch"; then
		built+=("$arch")
	fi
done
pids=()
for arch in "${built[@]}"; do
	info "$arch: boot and test"
	test_arch "$arch" &
	pids+=($!)
done
for pid in "${pids[@]}"; do
	wait "$pid"
done
info "guests done; make check took $SECONDS s so far"

# Host suites, found by convention; some check what the arches' builds
# installed (the UAPI headers), so they run after them.
export CHECK_ARCHES="${arches[*]}"
for suite in "$TOP"/tests/*/run.sh; do
	name=$(basename "$(dirname "$suite")")
	info "host suite: tests/$name"
	if ! "$suite" >"$RESULTS_DIR/host/$name.ktap"; then
		stage_failed "$RESULTS_DIR/host/$name-run.ktap" "host: tests/$name/run.sh" "exited non-zero"
	fi
done
info "lint: checkpatch --strict on the series, shellcheck on the scripts"
"$TOP/scripts/lint.sh" >"$RESULTS_DIR/host/lint.ktap" ||
	stage_failed "$RESULTS_DIR/host/lint-run.ktap" "host: scripts/lint.sh" "exited non-zero"

info "host suites and lint done; make check took $SECONDS s"
summary_args=(-l host "$RESULTS_DIR"/host/*.ktap)
for arch in "${arches[@]}"; do
	summary_args+=(-l "$arch" "$RESULTS_DIR/$arch"/*.ktap)
done
for arch in "${arches[@]}"; do
	splat=$BUILD_DIR/$arch/vm/splat.txt
	[ -f "$splat" ] || continue
	echo
	echo "First kernel splat on $arch (the rest is in $BUILD_DIR/$arch/vm/console.log):"
	cat "$splat"
done
echo
echo "Results (KTAP in $RESULTS_DIR/, guest consoles in $BUILD_DIR/<arch>/vm/console.log):"
exec "$KTAP_SUMMARY" "${summary_args[@]}"
