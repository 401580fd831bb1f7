#!/usr/bin/env bash
# The benchmark's own checks, on the host kernel: built with ASan and UBSan,
# each address shape `make bench` uses runs in quick mode, and the program
# fails if its methods disagree with each other or with the layout it made.
# A host kernel without PROCMAP_QUERY (before 6.11) is a skip; the guest
# runs the same program on ours with `make bench`.  Prints KTAP.
set -eu
. "$(dirname "$0")/../../scripts/lib.sh"

src=$TOP/bench/procmap-query-bench.c
bin=$BUILD_DIR/tests/procmap-query-bench-asan
shapes=("-v 702 -a 4435 -d 699 -u 6 -c" "-u 30" "")
echo "TAP version 13"
echo "1..${#shapes[@]}"
mkdir -p "$(dirname "$bin")"
include=()
[ -f "$OBJ/usr/include/linux/fs.h" ] && include=(-isystem "$OBJ/usr/include")
if ! out=$(${CC:-gcc} -std=gnu11 -Wall -Wextra -Werror -O1 -g \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	"${include[@]}" -o "$bin" "$src" 2>&1); then
	printf '%s\n' "$out" | head -n 5 | sed 's/^/# /'
	for i in "${!shapes[@]}"; do
		echo "not ok $((i + 1)) bench: host ${shapes[$i]:-default} # build failed"
	done
	exit 0
fi
for i in "${!shapes[@]}"; do
	name="bench: host ${shapes[$i]:-default}"
	rc=0
	# shellcheck disable=SC2086 # the shape is a list of options
	out=$(TMPDIR=${TMPDIR:-/tmp} "$bin" -q -r 3 ${shapes[$i]} 2>&1) || rc=$?
	case $rc in
	0) echo "ok $((i + 1)) $name" ;;
	4) echo "ok $((i + 1)) $name # SKIP host kernel $(uname -r) has no PROCMAP_QUERY" ;;
	*)
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/# /'
		echo "not ok $((i + 1)) $name # exit status $rc"
		;;
	esac
done
