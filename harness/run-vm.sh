#!/usr/bin/env bash
# Boot the built kernel under QEMU with the host root shared read-only over
# 9p and a writable results share, in one of three modes:
#
#   run-vm.sh tests          run the installed kselftests; leaves $VM_DIR/results
#   run-vm.sh script FILE    run the shell script FILE in the guest, print its
#                            output, exit with its status (the demo, benchmarks)
#   run-vm.sh shell          an interactive shell on the serial console
#
# It never judges the run: harness/verdict.sh does, from the files left in
# $VM_DIR (console.log, results/).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$TOP/config/test.conf"

mode=${1:?usage: run-vm.sh tests|script FILE|shell}
script=""
if [ "$mode" = script ]; then
	script=$(realpath "${2:?usage: run-vm.sh script FILE}")
	[ -f "$script" ] || die "no script $script to run in the guest"
fi
kernel=$OBJ/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel' first"

rm -rf "$VM_DIR"
mkdir -p "$VM_DIR/results" "$VM_DIR/scratch"
results=$VM_DIR/results

ksft_dir="" ksft_tests=""
if [ "$mode" = tests ]; then
	ksft_dir=$KSFT_DIR
	[ -f "$ksft_dir/kselftest-list.txt" ] || die "no kselftests in $ksft_dir: run 'make selftests' first"
	ksft_tests=$("$TOP/harness/skiplist.sh" run-list "$ksft_dir/kselftest-list.txt")
	"$TOP/harness/skiplist.sh" ktap "$ksft_dir/kselftest-list.txt" >"$VM_DIR/skipped.ktap"
fi
cat >"$results/guest.env" <<EOF
GUEST_MODE=$mode
EXPECTED_RELEASE='$(cat "$OBJ/include/config/kernel.release")'
KSFT_DIR='$ksft_dir'
KSFT_TESTS='$(echo $ksft_tests)'
KSFT_TIMEOUT=$KSFT_TIMEOUT
GUEST_SCRIPT='$script'
TOP='$TOP'
OBJ='$OBJ'
BUILD_DIR='$BUILD_DIR'
EOF

# KVM when /dev/kvm is there and works (on some nested hosts QEMU aborts
# at once); otherwise TCG.  A start that prints nothing is retried on TCG,
# and the build dir remembers not to try KVM again.
kvm_unusable=$BUILD_DIR/kvm-unusable
accels=("-accel tcg -cpu max")
if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -f "$kvm_unusable" ]; then
	accels=("-accel kvm -cpu host" "${accels[@]}")
fi
cmdline="console=ttyS0 root=rootfs rootfstype=9p ro"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose"
cmdline+=" init=$TOP/harness/guest-init panic=-1 oops=panic softlockup_panic=0"
# TCG makes the TSC look unstable to the clocksource watchdog; the jiffies
# it falls back to tick every 4 ms, too coarse for timing anything.
cmdline+=" tsc=reliable"
# One socket per CPU: without ACPI the guest finds CPUs in SeaBIOS's MP
# table, which lists one CPU per socket; "-smp 2" alone boots one CPU.
qemu_args=(-m "$VM_MEMORY" -smp "$VM_CPUS,sockets=$VM_CPUS" -nographic -no-reboot -nodefaults
	-kernel "$kernel" -append "$cmdline"
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=rootfs
	-fsdev local,id=results,path="$results",security_model=none
	-device virtio-9p-pci,fsdev=results,mount_tag=results
	-fsdev local,id=scratch,path="$VM_DIR/scratch",security_model=none
	-device virtio-9p-pci,fsdev=scratch,mount_tag=scratch)

for accel in "${accels[@]}"; do
	rm -f "$VM_DIR/console.log"
	rc=0
	read -r -a accel_args <<<"$accel"
	qemu=(qemu-system-x86_64 "${accel_args[@]}" "${qemu_args[@]}")
	case $mode in
	shell)
		"${qemu[@]}" -chardev stdio,id=con,signal=off,logfile="$VM_DIR/console.log" \
			-serial chardev:con || rc=$?
		;;
	*)
		info "booting $(cat "$OBJ/include/config/kernel.release") (${accel#-accel }, timeout ${VM_TIMEOUT}s; console: $VM_DIR/console.log)"
		# In the background: bash reports no "Aborted" for a QEMU that
		# cannot start; its own message is in qemu.err.
		timeout --kill-after=10 "$VM_TIMEOUT" "${qemu[@]}" \
			-chardev file,id=con,path="$VM_DIR/console.log" -serial chardev:con \
			</dev/null 2>"$VM_DIR/qemu.err" &
		wait $! || rc=$?
		;;
	esac
	# QEMU's exit code means nothing once the guest ran (it is 0 after a
	# guest panic too); a failure with an empty console means it never did.
	[ "$rc" != 0 ] && [ ! -s "$VM_DIR/console.log" ] && [ "$rc" != 124 ] || break
	warn "QEMU with ${accel#-accel } failed before the guest started: $(tail -n 1 "$VM_DIR/qemu.err" 2>/dev/null)"
	case $accel in *kvm*) cat "$VM_DIR/qemu.err" >"$kvm_unusable" 2>/dev/null || true ;; esac
done
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	touch "$VM_DIR/host-timeout"
fi
if [ "$mode" = script ]; then
	[ -f "$results/exit-status" ] ||
		die "$script did not finish in the guest; see $VM_DIR/console.log"
	cat "$results/script.out"
	exit "$(cat "$results/exit-status")"
fi
