#!/usr/bin/env bash
# The benchmark's own checks, on the host kernel: built with ASan and UBSan,
# each address shape `make bench` uses runs in quick mode, and the program
# fails if its methods disagree with each other or with the layout it made.
# A host kernel without PROCMAP_QUERY (before 6.11) is a skip; the guest
# runs the same program on ours with `make bench`.  Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

src=$TOP/bench/procmap-query-bench.c
bin=$BUILD_DIR/tests/procmap-query-bench-asan
shapes=("-v 702 -a 4435 -d 699 -u 6 -c" "-u 30" "")
ktap_plan ${#shapes[@]}
mkdir -p "$(dirname "$bin")"
# The host's own headers when they lack PROCMAP_QUERY: the patched tree's.
include=()
[ -f "$OBJ/usr/include/linux/fs.h" ] && include=(-isystem "$OBJ/usr/include")
if ! out=$("$HOST_CC" "${CFLAGS_STRICT[@]}" "${CFLAGS_SANITIZE[@]}" "${include[@]}" \
	-o "$bin" "$src" 2>&1); then
	printf '%s\n' "$out" | head -n 5 | ktap_diag
	for shape in "${shapes[@]}"; do
		ktap_result fail "bench: host ${shape:-default}" "build failed"
	done
	exit 0
fi
for shape in "${shapes[@]}"; do
	name="bench: host ${shape:-default}"
	rc=0
	# shellcheck disable=SC2086 # the shape is a list of options
	out=$(TMPDIR=${TMPDIR:-/tmp} "$bin" -q -r 3 $shape 2>&1) || rc=$?
	case $rc in
	0) ktap_result ok "$name" ;;
	4) ktap_result skip "$name" "host kernel $(uname -r) has no PROCMAP_QUERY" ;;
	*)
		printf '%s\n' "$out" | tail -n 5 | ktap_diag
		ktap_result fail "$name" "exit status $rc"
		;;
	esac
done
