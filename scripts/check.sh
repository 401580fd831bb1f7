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
	ktap_one_failure "$2" "$3" >"$1"
}

# Build ARCH; on failure its KTAP says so in $RESULTS_DIR/ARCH/ and it
# returns 1.
build_arch() {
	local arch=$1 out=$RESULTS_DIR/$1 step start=$SECONDS
	mkdir -p "$out"
	# An excerpt left by an earlier boot must not be printed for this one.
	rm -f "$BUILD_DIR/$arch"/vm*/splat.txt
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

# Every arch is built first (each build uses every CPU); then its two
# guests (harness/test-vm.sh: the kselftests, the guest suites) and the
# host suites run side by side: an emulated guest keeps about one host CPU
# busy (x86_64's TCG runs both vCPUs in one thread, config/arch/x86_64.conf),
# so the run takes about as long as its longest guest.
built=()
for arch in "${arches[@]}"; do
	info "$arch: build the kernel, kselftests and guest programs"
	if build_arch "$arch"; then
		built+=("$arch")
	fi
done

# Host suites, found by convention (tests/NAME/run.sh); some check what
# the arches' builds installed (the UAPI headers), so they run after them.
# Those whose run.sh says "# make check: after the guests" read what the
# guests left; the rest, and the lint, run while the guests do.
export CHECK_ARCHES="${arches[*]}"
host_suite() { # run.sh
	local name
	name=$(basename "$(dirname "$1")")
	info "host suite: tests/$name"
	if ! "$1" >"$RESULTS_DIR/host/$name.ktap"; then
		stage_failed "$RESULTS_DIR/host/$name-run.ktap" "host: tests/$name/run.sh" "exited non-zero"
	fi
}
beside_guests=() after_guests=()
for suite in "$TOP"/tests/*/run.sh; do
	if grep -qx '# make check: after the guests.*' "$suite"; then
		after_guests+=("$suite")
	else
		beside_guests+=("$suite")
	fi
done
host_beside_guests() {
	local suite start=$SECONDS
	for suite in "${beside_guests[@]}"; do
		host_suite "$suite"
	done
	info "lint: checkpatch --strict on the series, shellcheck on the scripts"
	"$TOP/scripts/lint.sh" >"$RESULTS_DIR/host/lint.ktap" ||
		stage_failed "$RESULTS_DIR/host/lint-run.ktap" "host: scripts/lint.sh" "exited non-zero"
	info "host suites beside the guests done in $((SECONDS - start)) s"
}

pids=()
for arch in "${built[@]}"; do
	info "$arch: boot and test"
	test_arch "$arch" &
	pids+=($!)
done
host_beside_guests &
pids+=($!)
for pid in "${pids[@]}"; do
	wait "$pid"
done
info "guests done; make check took $SECONDS s so far"
for suite in "${after_guests[@]}"; do
	host_suite "$suite"
done
info "host suites and lint done; make check took $SECONDS s"
# Each label's results are held against its expected-results list
# (config/expected/, `make manifest`).  The host suites check each arch
# the run built: with fewer arches than there are, tests of the others
# are not asked for.
host_scope=()
[ ${#arches[@]} = "$(all_arches | wc -l)" ] || host_scope=(-w "")
summary_args=(-l host -e "$EXPECTED_DIR/host.txt" "${host_scope[@]}" "$RESULTS_DIR"/host/*.ktap)
for arch in "${arches[@]}"; do
	summary_args+=(-l "$arch" -e "$EXPECTED_DIR/$arch.txt" "$RESULTS_DIR/$arch"/*.ktap)
done
for arch in "${arches[@]}"; do
	for vm in "$BUILD_DIR/$arch/vm" "$BUILD_DIR/$arch/vm-suites"; do
		[ -f "$vm/splat.txt" ] || continue
		echo
		echo "First kernel splat on $arch (the rest is in $vm/console.log):"
		cat "$vm/splat.txt"
	done
done
echo
echo "Results (KTAP in $RESULTS_DIR/, guest consoles in $BUILD_DIR/<arch>/vm{,-suites}/console.log):"
exec "$KTAP_SUMMARY" "${summary_args[@]}"
