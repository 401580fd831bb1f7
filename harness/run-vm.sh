#!/usr/bin/env bash
# Boot the built kernel of ARCH under QEMU, in one of three modes:
#
#   run-vm.sh tests          run the installed kselftests and the guest suites
#                            (GUEST_RUN: "kselftests", "suites" or both, the
#                            default; KSFT_SELECT: only those kselftests, see
#                            skiplist.sh; GUEST_SUITES: only those guest
#                            suites, by name); leaves $VM_DIR/results
#   run-vm.sh script FILE    run the shell script FILE (in the checkout) in the
#                            guest; print its output and exit with its status
#                            only if the run's verdict is clean (the demo,
#                            benchmarks: figures from a run with a splat are
#                            not published)
#   run-vm.sh shell          an interactive shell on the serial console
#
# The guest's root is the host's (ARCH_ROOT=host) or a Debian root for the
# arch (scripts/build-rootfs.sh), read-only over 9p; the checkout, the
# arch's build dir, a results share and a scratch share are mounted below
# /run/addrres by harness/guest-boot.  Tests are judged by harness/verdict.sh,
# from the files left in $VM_DIR (console.log, results/).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage="usage: run-vm.sh tests|script FILE|shell"
mode=${1:?$usage}
script=""
case $mode in
tests | shell) ;;
script)
	script=$(realpath "${2:?$usage}")
	[ -f "$script" ] || die "no script $script to run in the guest"
	case $script in
	"$TOP"/*) script=${script#"$TOP"/} ;;
	*) die "$script is not in the checkout $TOP: the guest sees only the checkout" ;;
	esac
	;;
*) die "$usage" ;;
esac
kernel=$OBJ/$ARCH_IMAGE
[ -f "$kernel" ] || die "no $ARCH kernel at $kernel: run 'make kernel ARCH=$ARCH' first"
[ ! -f "$MUTANT_MARK" ] ||
	die "the $ARCH kernel in $OBJ was built with the mutant $(cat "$MUTANT_MARK"): 'make kernel' builds it again from the tree"
release=$(cat "$OBJ/include/config/kernel.release")

case $ARCH_ROOT in
host) root=/ init=$TOP/harness/guest-boot ;;
debian) root=$("$TOP/scripts/build-rootfs.sh") init=/addrres-boot ;;
*) die "config/arch/$ARCH.conf: ARCH_ROOT is host or debian, not $ARCH_ROOT" ;;
esac

rm -rf "$VM_DIR"
mkdir -p "$VM_DIR/results" "$VM_DIR/scratch"
results=$VM_DIR/results

guest_run=${GUEST_RUN:-kselftests suites}
ksft_tests=""
if [ "$mode" = tests ] && [[ " $guest_run " == *" kselftests "* ]]; then
	[ -f "$KSFT_DIR/kselftest-list.txt" ] || die "no kselftests in $KSFT_DIR: run 'make selftests ARCH=$ARCH' first"
	ksft_tests=$("$TOP/harness/skiplist.sh" run-list "$KSFT_DIR/kselftest-list.txt" | tr '\n' ' ')
	"$TOP/harness/skiplist.sh" ktap "$KSFT_DIR/kselftest-list.txt" >"$VM_DIR/skipped.ktap"
fi
cat >"$results/guest.env" <<EOF2
GUEST_MODE=$mode
GUEST_RUN='$guest_run'
GUEST_SUITES='${GUEST_SUITES:-}'
ADDRRES_KERNEL_OBJ='/run/addrres/build/${OBJ#"$ARCH_BUILD"/}'
ADDRRES_KSELFTEST='/run/addrres/build/${KSFT_DIR#"$ARCH_BUILD"/}'
ADDRRES_MODULES='/run/addrres/build/${OBJ#"$ARCH_BUILD"/}/$MODULES_DIR/lib/modules/$release'
EXPECTED_RELEASE='$release'
EXPECTED_MACHINE='$ARCH_UNAME_M'
KSFT_TESTS='$ksft_tests'
KSFT_TIMEOUT=$KSFT_TIMEOUT
KSFT_REQUIRE_FEATURES=$KSFT_REQUIRE_FEATURES
GUEST_SCRIPT='$script'
GUEST_CONSOLE=/dev/$ARCH_CONSOLE
EOF2

# KVM where the arch allows it and /dev/kvm works (on some nested hosts
# QEMU aborts at once); otherwise TCG.  A start that prints nothing is
# retried on TCG, and the build dir remembers not to try KVM again.
kvm_unusable=$BUILD_DIR/kvm-unusable
accels=("-accel tcg${ARCH_TCG_OPTS:+,$ARCH_TCG_OPTS} -cpu $ARCH_QEMU_CPU")
if [ "$ARCH_KVM" = yes ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -f "$kvm_unusable" ]; then
	accels=("-accel kvm -cpu host" "${accels[@]}")
fi
cmdline="console=$ARCH_CONSOLE root=rootfs rootfstype=9p ro"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose"
cmdline+=" init=$init panic=-1 oops=panic softlockup_panic=0 softlockup_all_cpu_backtrace=1 $ARCH_CMDLINE"
smp=$VM_CPUS
[ "$ARCH_SOCKET_PER_CPU" = yes ] && smp+=",sockets=$VM_CPUS"
share() { # tag path [extra fsdev options]
	printf '%s\n' -fsdev "local,id=$1,path=$2,security_model=none${3:-}" \
		-device "virtio-9p-pci,fsdev=$1,mount_tag=$1"
}
mapfile -t shares < <(
	share rootfs "$root" ,readonly=on,multidevs=remap
	share top "$TOP" ,readonly=on
	share build "$ARCH_BUILD" ,readonly=on
	share results "$results"
	share scratch "$VM_DIR/scratch"
)
# The monitor socket lets a person look into a guest that hangs
# (harness/vm-monitor.sh: backtraces of every CPU through SysRq).
qemu_args=(-M "$ARCH_QEMU_MACHINE" -m "$VM_MEMORY" -smp "$smp" -nographic -no-reboot
	-nodefaults -kernel "$kernel" -append "$cmdline" "${shares[@]}"
	-monitor "unix:$VM_DIR/monitor.sock,server=on,wait=off")

# Whether the guest QEMU (PID) runs has started its kernel: "Linux version"
# on the console within KVM_START_WAIT seconds, or QEMU already gone (the
# checks below judge that).
KVM_START_WAIT=60
kernel_started() { # pid
	local waited
	for ((waited = 0; waited < KVM_START_WAIT; waited++)); do
		grep -qs 'Linux version' "$VM_DIR/console.log" && return 0
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	return 1
}

rc=0
for accel in "${accels[@]}"; do
	rm -f "$VM_DIR/console.log"
	rc=0
	read -r -a accel_args <<<"$accel"
	qemu=("$ARCH_QEMU" "${accel_args[@]}" "${qemu_args[@]}")
	case $mode in
	shell)
		"${qemu[@]}" -chardev stdio,id=con,signal=off,logfile="$VM_DIR/console.log" \
			-serial chardev:con || rc=$?
		;;
	*)
		info "booting $release on $ARCH (${accel#-accel }, timeout ${VM_TIMEOUT}s; console: $VM_DIR/console.log)"
		# In the background: bash reports no "Aborted" for a QEMU that
		# cannot start; its own message is in qemu.err.
		timeout --kill-after=10 "$VM_TIMEOUT" "${qemu[@]}" \
			-chardev file,id=con,path="$VM_DIR/console.log" -serial chardev:con \
			</dev/null 2>"$VM_DIR/qemu.err" &
		qemu_pid=$!
		# Some hosts' KVM starts the firmware and then hangs (seen here:
		# SeaBIOS's banner, then nothing): a KVM guest whose kernel
		# printed nothing in time is stopped, and TCG takes over.
		if [[ $accel == *kvm* ]] && ! kernel_started "$qemu_pid"; then
			kill "$qemu_pid" 2>/dev/null || true
			wait "$qemu_pid" || true
			echo "the guest's kernel printed nothing within ${KVM_START_WAIT}s under KVM" >"$kvm_unusable"
			warn "QEMU with ${accel#-accel }: $(cat "$kvm_unusable"); using TCG from now on (delete $kvm_unusable to try KVM again)"
			continue
		fi
		wait "$qemu_pid" || rc=$?
		;;
	esac
	# QEMU's exit code means nothing once the guest ran (it is 0 after a
	# guest panic too); a failure with an empty console means it never did.
	if [ "$rc" = 0 ] || [ -s "$VM_DIR/console.log" ] || [ "$rc" = 124 ]; then
		break
	fi
	warn "QEMU with ${accel#-accel } failed before the guest started: $(tail -n 1 "$VM_DIR/qemu.err" 2>/dev/null || true)"
	case $accel in *kvm*) cp "$VM_DIR/qemu.err" "$kvm_unusable" 2>/dev/null || true ;; esac
done
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	touch "$VM_DIR/host-timeout"
fi

judge() {
	"$TOP/harness/verdict.sh" "$VM_DIR" "$release" "$ARCH_UNAME_M" "$VM_CPUS" \
		"vm${VM_PART:+ ($VM_PART)}" >"$VM_DIR/verdict.ktap"
}
case $mode in
tests)
	judge || true	# test-vm.sh reports it with the tests
	;;
script)
	if ! judge; then
		grep '^not ok' "$VM_DIR/verdict.ktap" >&2 || true
		die "the guest run of $script failed its verdict (above); its output is not shown: $results/script.out"
	fi
	cat "$results/script.out"
	exit "$(cat "$results/exit-status")"
	;;
shell)
	judge || grep '^not ok' "$VM_DIR/verdict.ktap" >&2 || true
	;;
esac
