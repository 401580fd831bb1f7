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
# The concurrency tests need CPUs running at once; a guest that brought up
# fewer than asked for would pass them without testing much.
. "$TOP/config/test.conf"
cpus=$(sed -n 's/.*smp: Brought up [0-9]* nodes\{0,1\}, \([0-9]*\) CPUs\{0,1\}.*/\1/p' \
	"$VM_DIR/console.log" | head -n 1)
if [ "${cpus:-0}" = "$VM_CPUS" ]; then
	printf 'TAP version 13\n1..1\nok 1 vm: guest brought up its %s CPUs\n' "$VM_CPUS"
else
	printf 'TAP version 13\n1..1\nnot ok 1 vm: guest brought up its %s CPUs # it brought up %s; see %s\n' \
		"$VM_CPUS" "${cpus:-none}" "$VM_DIR/console.log"
fi >"$out/3-vm-cpus.ktap"
cp "$VM_DIR/skipped.ktap" "$out/4-kselftest-skiplist.ktap"
if [ -f "$VM_DIR/results/kselftest.ktap" ]; then
	cp "$VM_DIR/results/kselftest.ktap" "$out/5-kselftest.ktap"
else
	printf 'TAP version 13\n1..1\nnot ok 1 kselftests # the guest left no kselftest.ktap; see %s\n' \
		"$VM_DIR/console.log" >"$out/5-kselftest.ktap"
fi
