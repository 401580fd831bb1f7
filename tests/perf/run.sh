#!/usr/bin/env bash
# make check: after the guests (it reads their recordings)
# The series' tools/perf patches, on the host.  Builds three perfs with
# only the Debian build dependencies `make deps` installs and none of the
# optional libraries: each base's tree's (into <base build>/<host
# arch>/perf, where scripts/build-tools.sh builds it for that arch's
# guest) and 6.1.192's as Debian ships its source, with only the series'
# first perf patch, which lists the kernel maps at -vv (into
# $BUILD_DIR/perf-6.1).
#  - `perf test` suites the series adds, one KTAP result per test case and
#    base, the 7.2 tree's named "perf: 7.2: ..." ("kcore maps" loads a
#    kcore-like layout from a temporary root, "kcore copy" copies an arm64
#    one as `perf record --kcore` does);
#  - for each arch, the recordings the test guest made with `perf record
#    --kcore` (tests/perf/guest.sh): Debian's perf's of kernel samples and
#    of text pokes, the tree's perf's of module and BPF samples.  The
#    samples are resolved by Debian's perf in the guest, by 6.1.192's and
#    by the tree's, each checked against the symbol /proc/kallsyms gives;
#    the kernel maps each perf built from the kcore copy, against the
#    copy's segments; the text pokes each perf could not apply to its view.
#    The tree's perf must get all of it right; the others' figures are
#    printed beside it, and their samples are a guard.
# Prints KTAP.
set -euo pipefail
# Both bases by their own paths below, whatever base the caller names:
# lib.sh's TREE, PATCH_DIR and base source are 6.1's.
export KERNEL_BASE=6.1
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

here=$TOP/tests/perf
# The tree's perf for the host's arch: where scripts/build-tools.sh built
# it for that arch's guest, if make check built that arch.
ours=$BUILD_DIR/$(uname -m)/perf
old=$BUILD_DIR/perf-6.1
# The mainline series' tree and its perf for the host's arch.
mainline_tree=$(base_build 7.2)/linux
mainline_perf=$(base_build 7.2)/$(uname -m)/perf
# Results per arch of the recorded samples (check_recording, check_modbpf).
per_arch=8
# The arches whose guest ran: make check says which; alone, every arch.
read -r -a arches <<<"${CHECK_ARCHES:-$(all_arches | tr '\n' ' ')}"
dump_subject="perf symbols: list the kernel maps built from kcore at -vv"
# What perf script -v says of a text poke it could not apply to its view.
poke_failure_re='Failed to (find kernel text poke address map|write kernel text poke)'

# build_perf SRC OUT: perf from the kernel source SRC into OUT; on failure
# prints the errors as KTAP diagnostics and returns 1.
build_perf() {
	local log
	mkdir -p "$2"
	# For the host: not the ARCH `make check ARCH=arm64` exports, nor the
	# one make passes down in MAKEFLAGS.
	if ! log=$(env -u ARCH -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS nice make -s -C "$1/tools/perf" O="$2" CC="$(cached_cc "")" "${PERF_MAKE_FLAGS[@]}" \
		-j"$(nproc_jobs)" 2>&1); then
		printf '%s\n' "$log" | grep -E 'error|Error' | tail -n 20 | ktap_diag
		return 1
	fi
}

# The source of 6.1.192's perf with the series' maps listing: the base
# source hard-linked (patch replaces the files it changes, so the cache
# stays pristine; copied where the cache is on another filesystem), made
# again when the patch changes.
prepare_old_source() {
	local base=$CACHE_DIR/base/$BASE_PACKAGE-$BASE_VERSION src=$old/src patch stamp
	patch=$(grep -l "^Subject: \[PATCH\] $dump_subject" "$PATCH_DIR"/*.patch | sed -n '1,1p')
	[ -n "$patch" ] || { ktap_diag "no patch \"$dump_subject\" in $PATCH_DIR"; return 1; }
	[ -d "$base" ] || { ktap_diag "no base source at $base (make fetch)"; return 1; }
	stamp=$(sha256sum "$patch" | cut -d' ' -f1)
	[ "$(cat "$old/src.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	rm -rf "$src" "$old/src.stamp"
	mkdir -p "$old"
	if ! cp -al "$base" "$src" 2>/dev/null; then
		rm -rf "$src"
		cp -a "$base" "$src" || { ktap_diag "cannot copy $base to $src"; return 1; }
	fi
	patch -s -d "$src" -p1 <"$patch" || { ktap_diag "$patch does not apply to $base"; return 1; }
	echo "$stamp" >"$old/src.stamp"
}

# every_suite_case ok|fail|skip PREFIX REASON: one result for every perf
# test case, named PREFIX "perf test: ...".
every_suite_case() {
	local suite i
	for suite in "${!PERF_SERIES_SUITES[@]}"; do
		for ((i = 1; i <= PERF_SERIES_SUITES[$suite]; i++)); do
			ktap_result "$1" "$2perf test: $suite $i" "$3"
		done
	done
}

# run_suites PERF PREFIX: the `perf test` suites of PERF, named PREFIX
# "perf test: SUITE: CASE".
run_suites() {
	local perf=$1 prefix=$2 suite num results i line name
	# `perf test N` prints " N.I: CASE : Ok|Skip|FAILED!" for each case (by
	# name it would run only the cases whose own name matches); 7.2's
	# prints "Running" lines first, which are left out.
	for suite in "${!PERF_SERIES_SUITES[@]}"; do
		num=$("$perf" test list 2>&1 | sed -nE "s/^ *([0-9]+): $suite\$/\1/p")
		results=""
		if [ -n "$num" ]; then
			results=$("$perf" test "$num" 2>&1 || true)
		fi
		for ((i = 1; i <= PERF_SERIES_SUITES[$suite]; i++)); do
			line=$(printf '%s\n' "$results" | grep -E "^ *[0-9]+\.$i: " | grep -v ': Running' || true)
			name="${prefix}perf test: $suite: $(printf '%s' "$line" | sed -E 's/^ *[0-9]+\.[0-9]+: (.*[^ ]) *:.*$/\1/')"
			case $line in
			*": Ok") ktap_result ok "$name" ;;
			*": Skip"*) ktap_result skip "$name" "perf test skipped it" ;;
			"")
				printf '%s\n' "$results" | tail -n 10 | ktap_diag
				ktap_result fail "${prefix}perf test: $suite $i" "no result in perf test's output"
				;;
			*)
				"$perf" test -v "$num" 2>&1 | tail -n 30 | ktap_diag
				ktap_result fail "$name"
				;;
			esac
		done
	done
}

# resolved NAME KALLSYMS SCRIPT: one result, every kernel sample of SCRIPT
# (perf script -F ip,sym,symoff,dso) as KALLSYMS has it.
resolved() {
	local counts samples right wrong unresolved
	counts=$(gawk -f "$here/hex64.awk" -f "$here/resolve.awk" "$2" "$3")
	read -r samples right wrong unresolved <<<"$(head -n 1 <<<"$counts")"
	ktap_diag "$1: $samples kernel samples: $right as /proc/kallsyms, $wrong to another symbol or offset, $unresolved not at all"
	tail -n +2 <<<"$counts" | ktap_diag
	if [ "$samples" -eq 0 ]; then
		ktap_result fail "$1 resolves every kernel sample as /proc/kallsyms" "no kernel sample"
	elif [ "$right" -ne "$samples" ]; then
		ktap_result fail "$1 resolves every kernel sample as /proc/kallsyms" \
			"$((samples - right)) of $samples not as /proc/kallsyms"
	else
		ktap_result ok "$1 resolves every kernel sample as /proc/kallsyms ($samples of $samples)"
	fi
}

# maps_of KCORE PERF_STDERR: what kernel-maps.awk says of the maps listed
# in PERF_STDERR, against the segments of the kcore copy KCORE.
maps_of() {
	gawk -f "$here/hex64.awk" -f "$here/kernel-maps.awk" \
		<(readelf -lW "$1" | awk '$1 == "LOAD" { print $3, $6 }') "$2"
}

# poke_failures PERF_STDERR: how many text pokes perf could not apply.
poke_failures() {
	grep -cE "$poke_failure_re" "$1" || true
}

# resolved_by_perfs NAME KALLSYMS DATA OUT: two results, the kernel samples
# of the recording DATA resolved by 6.1.192's perf and by the tree's
# (their scripts in OUT.old and OUT.ours), checked against KALLSYMS.
resolved_by_perfs() {
	local name=$1 kallsyms=$2 data=$3 out=$4 perf bin label
	local -A perfs=([old]=$old/perf [ours]=$ours/perf)
	for perf in old ours; do
		bin=${perfs[$perf]}
		[ "$perf" = old ] && label="6.1.192's perf" || label="the tree's perf"
		if [ -x "$bin" ] && "$bin" script -i "$data" -F ip,sym,symoff,dso \
			>"$out.$perf" 2>"$out.$perf-err"; then
			resolved "$name: $label" "$kallsyms" "$out.$perf"
		else
			{ tail -n 5 "$out.$perf-err" 2>/dev/null || true; } | ktap_diag
			ktap_result fail "$name: $label resolves every kernel sample as /proc/kallsyms" \
				"perf did not build or perf script failed"
		fi
	done
}

# check_recording ARCH: the per_arch results for ARCH's recordings.
check_recording() {
	local arch=$1 out=$BUILD_DIR/perf-kcore/$1 data=$BUILD_DIR/$1/vm-suites/results/perf-kcore
	local name="perf: --kcore recording ($1)" perf bin n segs unmapped empty overlaps disagree
	local maps counts pokes failed kcore=$data/pokes.data/kcore_dir/kcore file
	local -A perfs=([old]=$old/perf [ours]=$ours/perf)
	for file in samples.data pokes.data kallsyms samples.data.script pokes.data.script-err; do
		[ -e "$data/$file" ] || break
	done
	if [ ! -e "$data/$file" ]; then
		for ((n = 0; n < per_arch; n++)); do
			ktap_result fail "$name: recorded samples and text pokes" \
				"no $file in $data: the guest did not record (see its guest-perf.ktap)"
		done
		return
	fi
	rm -rf "$out"
	mkdir -p "$out"
	ktap_diag "Debian's perf in the guest: $(cat "$data/perf-version")"
	resolved "$name: Debian's perf in the guest" \
		"$data/kallsyms" "$data/samples.data.script"
	resolved_by_perfs "$name" "$data/kallsyms" "$data/samples.data" "$out/samples"
	for perf in old ours; do
		bin=${perfs[$perf]}
		[ -x "$bin" ] || continue
		"$bin" script -vv -i "$data/pokes.data" --show-text-poke-events \
			>"$out/$perf.pokes" 2>"$out/$perf.pokes-err" || rm -f "$out/$perf.pokes"
	done

	# The maps and the text pokes: the tree's perf must get both right;
	# what Debian's and 6.1.192's perf do is shown beside it.
	name="$name: the tree's perf"
	if [ ! -f "$out/ours.pokes" ]; then
		{ tail -n 5 "$out/ours.pokes-err" 2>/dev/null || true; } | ktap_diag
		ktap_result fail "$name builds a map for each kcore segment" "perf script failed"
		ktap_result fail "$name applies every text poke to its view" "perf script failed"
		return
	fi
	if [ -f "$out/old.pokes" ]; then
		maps=$(maps_of "$kcore" "$out/old.pokes-err")
		read -r n segs unmapped empty overlaps disagree <<<"$(head -n 1 <<<"$maps")"
		ktap_diag "6.1.192's perf: $n kernel maps for $segs kcore segments: $unmapped segments without a map, $empty empty maps, $overlaps overlapping pairs ($disagree at different offsets)"
		tail -n +2 <<<"$maps" | ktap_diag
	fi
	maps=$(maps_of "$kcore" "$out/ours.pokes-err")
	read -r n segs unmapped empty overlaps disagree <<<"$(head -n 1 <<<"$maps")"
	counts="$n kernel maps for $segs kcore segments: $unmapped segments without a map, $empty empty maps, $overlaps overlapping pairs"
	ktap_diag "the tree's perf: $counts"
	tail -n +2 <<<"$maps" | ktap_diag
	if [ "$n" -eq 0 ] || [ "$segs" -eq 0 ] || [ "$unmapped" -ne 0 ] || [ "$empty" -ne 0 ] ||
		[ "$overlaps" -ne 0 ]; then
		ktap_result fail "$name builds a map for each kcore segment" "$counts"
	else
		ktap_result ok "$name builds a map for each kcore segment, none empty or overlapping ($n maps, $segs segments)"
	fi

	pokes=$(grep -c 'PERF_RECORD_TEXT_POKE' "$out/ours.pokes" || true)
	ktap_diag "text pokes not applied to perf's view: Debian's perf $(poke_failures "$data/pokes.data.script-err"), 6.1.192's $(poke_failures "$out/old.pokes-err"), the tree's $(poke_failures "$out/ours.pokes-err") of $pokes"
	{ grep -E "$poke_failure_re" "$out/ours.pokes-err" || true; } | sed -n '1,5p' | ktap_diag
	failed=$(poke_failures "$out/ours.pokes-err")
	if [ "$pokes" -eq 0 ]; then
		ktap_result fail "$name applies every text poke to its view" "no TEXT_POKE record shown"
	elif [ "$failed" -ne 0 ]; then
		ktap_result fail "$name applies every text poke to its view" "$failed of $pokes not applied"
	else
		ktap_result ok "$name applies every text poke to its view ($pokes)"
	fi
}

# check_modbpf ARCH: 3 results, the module and BPF samples of ARCH's
# modbpf.data (recorded by the tree's perf) resolved by Debian's perf in
# the guest, by 6.1.192's and by the tree's, against the kallsyms read
# while the module and the BPF program were loaded.
check_modbpf() {
	local arch=$1 out=$BUILD_DIR/perf-kcore/$1 data=$BUILD_DIR/$1/vm-suites/results/perf-kcore
	local name="perf: --kcore recording ($1), module and BPF samples" label file
	for file in modbpf.data modbpf.kallsyms modbpf.data.script; do
		[ -e "$data/$file" ] || break
	done
	if [ ! -e "$data/$file" ]; then
		for label in "Debian's perf" "6.1.192's perf" "the tree's perf"; do
			ktap_result fail "$name: $label resolves every kernel sample as /proc/kallsyms" \
				"no $file in $data: the guest did not record (see its guest-perf.ktap)"
		done
		return
	fi
	mkdir -p "$out"
	ktap_diag "Debian's perf in the guest: $(cat "$data/perf-version")"
	resolved "$name: Debian's perf in the guest" \
		"$data/modbpf.kallsyms" "$data/modbpf.data.script"
	resolved_by_perfs "$name" "$data/modbpf.kallsyms" "$data/modbpf.data" "$out/modbpf"
}

total=$((per_arch * ${#arches[@]}))
for suite in "${!PERF_SERIES_SUITES[@]}"; do
	# the suites of both trees' perfs
	total=$((total + 2 * PERF_SERIES_SUITES[$suite]))
done
ktap_plan "$total"

# The mainline series' perf first: it needs only its tree.
if [ ! -d "$mainline_tree/tools/perf" ]; then
	every_suite_case skip "perf: 7.2: " "no tree at $mainline_tree (make tree KERNEL_BASE=7.2)"
elif build_perf "$mainline_tree" "$mainline_perf"; then
	run_suites "$mainline_perf/perf" "perf: 7.2: "
else
	every_suite_case fail "perf: 7.2: " "perf did not build"
fi
if [ ! -d "$TREE/tools/perf" ]; then
	every_suite_case skip "perf: " "no tree at $TREE (make tree)"
	for ((i = 0; i < per_arch * ${#arches[@]}; i++)); do
		ktap_result skip "perf: --kcore recorded samples" "no tree at $TREE (make tree)"
	done
	exit 0
fi
if build_perf "$TREE" "$ours"; then
	run_suites "$ours/perf" "perf: "
else
	every_suite_case fail "perf: " "perf did not build"
fi
if ! prepare_old_source || ! build_perf "$old/src" "$old"; then
	ktap_diag "6.1.192's perf did not build"
	rm -f "$old/perf"
fi
for arch in "${arches[@]}"; do
	check_recording "$arch"
	check_modbpf "$arch"
done
