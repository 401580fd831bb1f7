#!/usr/bin/env bash
# `make check`: every test there is, then one closing line
# "N passed, N failed, N skipped" from harness/ktap-summary over all of
# them.  The host suites (tests/*/run.sh) and the lint run once; the kernel
# and its kselftests are built and run for each base (7.2 and 6.1, or the
# one KERNEL_BASE names) and arch (all of config/arch/, or the one ARCH
# names).  Each stage leaves KTAP in $RESULTS_DIR/<label>/ (host; the arch
# for 6.1, 7.2-<arch> for 7.2); a stage that cannot run says why there as
# a failed test, so the closing line is printed whatever broke.
set -euo pipefail
requested_arch=${ARCH:-} requested_base=${KERNEL_BASE:-}
. "$(dirname "$0")/lib.sh"
# shellcheck source=ktap.sh
. "$TOP/scripts/ktap.sh"

if [ -n "$requested_arch" ]; then
	arches=("$requested_arch")
else
	mapfile -t arches < <(all_arches)
fi
if [ -n "$requested_base" ]; then
	bases=("$requested_base")
else
	mapfile -t bases < <(all_bases)
fi
"$TOP/scripts/deps.sh" "${arches[@]}"
rm -rf "$RESULTS_DIR"
TIMES_DIR=$RESULTS_DIR/times
mkdir -p "$RESULTS_DIR/host" "$TIMES_DIR"
build_ktap_summary || die "cannot build harness/ktap-summary.c"

# A stage's failure as one KTAP test, so the summary counts it.
stage_failed() { # file name reason
	ktap_one_failure "$2" "$3" >"$1"
}

# A unit is a base and an arch, "BASE ARCH"; its label names its results.
unit_label() { # base arch
	if [ "$1" = 6.1 ]; then echo "$2"; else echo "$1-$2"; fi
}

# Build a unit; on failure its KTAP says so in $RESULTS_DIR/LABEL/ and it
# returns 1.
build_unit() { # base arch
	local base=$1 arch=$2 label out step start=$SECONDS
	label=$(unit_label "$base" "$arch")
	out=$RESULTS_DIR/$label
	mkdir -p "$out"
	# An excerpt left by an earlier boot must not be printed for this one.
	rm -f "$(base_build "$base")/$arch"/vm*/splat.txt
	for step in "make-tree.sh --lenient" build-kernel.sh build-selftests.sh build-tools.sh; do
		# shellcheck disable=SC2086 # the step and its options
		if ! KERNEL_BASE=$base ARCH=$arch "$TOP"/scripts/$step; then
			stage_failed "$out/2-build.ktap" "build: ${step%% *}" "failed: see the messages above"
			return 1
		fi
	done
	info "$label: built in $((SECONDS - start)) s"
	echo "$((SECONDS - start))" >"$TIMES_DIR/$label.build"
}

# Boot a unit's build and run its tests; the KTAP goes to
# $RESULTS_DIR/LABEL/.  On 7.2, only the kselftests of the features ported
# so far (config/test.conf): the guest suites test 6.1's (issue 47).
test_unit() { # base arch
	local base=$1 arch=$2 label out start=$SECONDS select=""
	label=$(unit_label "$base" "$arch")
	out=$RESULTS_DIR/$label
	[ "$base" = 6.1 ] || select=$(KERNEL_BASE=$base bash -c '. "$1"; echo "${KSFT_TARGETS// /,}"' _ "$TOP/config/test.conf")
	if ! KERNEL_BASE=$base ARCH=$arch KSFT_SELECT=$select "$TOP/harness/test-vm.sh" "$out"; then
		stage_failed "$out/3-vm-run.ktap" "vm: test run" "harness/test-vm.sh failed: see the messages above"
	fi
	info "$label: guest tested in $((SECONDS - start)) s"
	echo "$((SECONDS - start))" >"$TIMES_DIR/$label.guest"
}

# Each unit's build and guest time beside the figures config/check-times.conf
# keeps from docs/figures.md: a figure to read, never a verdict.
print_unit_times() {
	local unit label ref_build_cold ref_build_warm ref_guest
	echo
	echo "Time per unit, this run beside docs/figures.md's (config/check-times.conf), seconds:"
	printf '  %-12s %7s %7s   %-22s %s\n' unit build guest "figures: build cold/warm" guest
	for unit in "${units[@]}"; do
		# shellcheck disable=SC2086 # "BASE ARCH"
		label=$(unit_label $unit)
		read -r ref_build_cold ref_build_warm ref_guest < <(
			awk -v l="$label" '$1 == l { print $2, $3, $4; found = 1 } END { if (!found) print "- - -" }' \
				<(sed 's/#.*//' "$TOP/config/check-times.conf"))
		printf '  %-12s %7s %7s   %-22s %s\n' "$label" \
			"$(cat "$TIMES_DIR/$label.build" 2>/dev/null || echo -)" \
			"$(cat "$TIMES_DIR/$label.guest" 2>/dev/null || echo -)" \
			"$ref_build_cold/$ref_build_warm" "$ref_guest"
	done
	echo "  whole run: $SECONDS s (setup before the first build: $setup_seconds s)"
}

# Every arch is built first (each build uses every CPU); then its two
# guests (harness/test-vm.sh: the kselftests, the guest suites) and the
# host suites run side by side: an emulated guest keeps about one host CPU
# busy (x86_64's TCG runs both vCPUs in one thread, config/arch/x86_64.conf),
# so the run takes about as long as its longest guest.
# Every base's tree: lint checks each series with its tree's checkpatch.pl.
for base in $(all_bases); do
	KERNEL_BASE=$base "$TOP/scripts/make-tree.sh" --lenient ||
		stage_failed "$RESULTS_DIR/host/1-tree-$base.ktap" "build: the $base tree" "make-tree.sh failed: see the messages above"
done
units=() built=()
for base in "${bases[@]}"; do
	for arch in "${arches[@]}"; do
		# 7.2 on the arches config/test.conf names (MAINLINE_CHECK_ARCHES).
		if [ "$base" != 6.1 ] && [[ " $MAINLINE_CHECK_ARCHES " != *" $arch "* ]]; then
			info "$base $arch: not tested by make check yet (config/test.conf MAINLINE_CHECK_ARCHES)"
			continue
		fi
		units+=("$base $arch")
	done
done
setup_seconds=$SECONDS
for unit in "${units[@]}"; do
	info "$unit: build the kernel, kselftests and guest programs"
	# shellcheck disable=SC2086 # "BASE ARCH"
	if build_unit $unit; then
		built+=("$unit")
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

# Two waves of guests, so that no more than four share the two CPUs (the
# text_poke kselftest's time limit is for one guest per CPU): 6.1's
# (two per arch) beside the host suites and the lint, then the other
# bases' (one per arch, kselftests only) beside the host suites that read
# what 6.1's guests left.  Without 6.1 (KERNEL_BASE=7.2), the base asked
# for runs in the first wave: a wave of no guest would leave its guests
# to wait for the host suites.
first_wave_base=6.1
[[ " ${bases[*]} " == *" 6.1 "* ]] || first_wave_base=${bases[0]}
test_wave() { # first|second
	local unit
	for unit in "${built[@]}"; do
		case $1 in
		first) [ "${unit%% *}" = "$first_wave_base" ] || continue ;;
		second) [ "${unit%% *}" != "$first_wave_base" ] || continue ;;
		esac
		info "$unit: boot and test"
		# shellcheck disable=SC2086 # "BASE ARCH"
		test_unit $unit &
		pids+=($!)
	done
}
pids=()
test_wave first
host_beside_guests &
pids+=($!)
for pid in "${pids[@]}"; do
	wait "$pid"
done
info "the first wave's guests ($first_wave_base) done; make check took $SECONDS s so far"
pids=()
test_wave second
for suite in "${after_guests[@]}"; do
	host_suite "$suite"
done
for pid in "${pids[@]}"; do
	wait "$pid"
done
info "host suites and lint done; make check took $SECONDS s"
# Each label's results are held against its expected-results list
# (config/expected/, `make manifest`).  The host suites check each arch
# the run built: with fewer arches than there are, tests of the others
# are not asked for.
host_scope=()
[ ${#arches[@]} = "$(all_arches | wc -l)" ] || host_scope=(-w "")
summary_args=(-l host -e "$EXPECTED_DIR/host.txt" "${host_scope[@]}" "$RESULTS_DIR"/host/*.ktap)
for unit in "${units[@]}"; do
	# shellcheck disable=SC2086 # "BASE ARCH"
	label=$(unit_label $unit)
	summary_args+=(-l "$label" -e "$EXPECTED_DIR/$label.txt" "$RESULTS_DIR/$label"/*.ktap)
done
for unit in "${units[@]}"; do
	read -r base arch <<<"$unit"
	for vm in "$(base_build "$base")/$arch/vm" "$(base_build "$base")/$arch/vm-suites"; do
		[ -f "$vm/splat.txt" ] || continue
		echo
		echo "First kernel splat on $(unit_label "$base" "$arch") (the rest is in $vm/console.log):"
		cat "$vm/splat.txt"
	done
done
print_unit_times
echo
echo "Results (KTAP in $RESULTS_DIR/, guest consoles in build/[7.2/]<arch>/vm{,-suites}/console.log):"
exec "$KTAP_SUMMARY" "${summary_args[@]}"
