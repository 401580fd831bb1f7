#!/usr/bin/env bash
# The benchmark's own checks, on the host kernel: the benchmark and the
# libaddrres it times, both built with ASan and UBSan; each address shape
# `make bench` uses runs in quick mode, and the program fails if its methods
# (the library's text, ioctl and AUTO, and the stdio reference) disagree
# with each other or with the layout it made.  A host kernel without
# PROCMAP_QUERY (before 6.11) is a skip; the guest runs the same program
# on ours with `make bench`.  Everything is built in a temporary
# directory.  Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

src=$TOP/bench/procmap-query-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/procmap-query-bench
shapes=("-v 702 -a 4435 -d 699 -u 6 -c" "-u 30" "")
ktap_plan ${#shapes[@]}

# As scripts/build-tools.sh builds it for the guest (LIBELF=0, static
# library), with the sanitizers; the host's headers may lack PROCMAP_QUERY,
# which the library then defines itself.
build() {
	nice make -s -C "$TOP/libaddrres" OUTPUT="$work/lib" CC="$HOST_CC" LIBELF=0 \
		EXTRA_CFLAGS="${CFLAGS_SANITIZE[*]}" "$work/lib/libaddrres.a" &&
		nice "$HOST_CC" "${CFLAGS_STRICT[@]}" "${CFLAGS_SANITIZE[@]}" \
			-I "$TOP/libaddrres/include" -o "$bin" "$src"/*.c "$work/lib/libaddrres.a"
}

if ! out=$(build 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	for shape in "${shapes[@]}"; do
		ktap_result fail "bench: host ${shape:-default}" "build failed"
	done
	exit 0
fi
for shape in "${shapes[@]}"; do
	name="bench: host ${shape:-default}"
	rc=0
	# shellcheck disable=SC2086 # the shape is a list of options
	out=$(TMPDIR=${TMPDIR:-/tmp} ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$bin" -q -r 3 $shape 2>&1) || rc=$?
	case $rc in
	0) ktap_result ok "$name" ;;
	4) ktap_result skip "$name" "host kernel $(uname -r) has no PROCMAP_QUERY" ;;
	*)
		printf '%s\n' "$out" | tail -n 5 | ktap_diag
		ktap_result fail "$name" "exit status $rc"
		;;
	esac
done
