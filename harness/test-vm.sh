#!/usr/bin/env bash
# Boot the built kernel, run the kselftests, and leave the run's KTAP in
# OUT_DIR: the host's verdict on the run, the skip list, and the guest's
# kselftest results (or a failure saying why there are none).
#   test-vm.sh OUT_DIR
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
out=${1:?usage: test-vm.sh OUT_DIR}
mkdir -p "$out"

"$TOP/harness/run-vm.sh" tests
"$TOP/harness/verdict.sh" "$VM_DIR" "$(cat "$OBJ/include/config/kernel.release")" \
	>"$out/3-vm.ktap" || true
cp "$VM_DIR/skipped.ktap" "$out/4-kselftest-skiplist.ktap"
if [ -f "$VM_DIR/results/kselftest.ktap" ]; then
	cp "$VM_DIR/results/kselftest.ktap" "$out/5-kselftest.ktap"
else
	printf 'TAP version 13\n1..1\nnot ok 1 kselftests # the guest left no kselftest.ktap; see %s\n' \
		"$VM_DIR/console.log" >"$out/5-kselftest.ktap"
fi
