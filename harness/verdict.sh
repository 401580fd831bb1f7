#!/usr/bin/env bash
# Judge one guest run from what it left behind, never from QEMU's exit code:
#   verdict.sh RUN_DIR EXPECTED_RELEASE EXPECTED_MACHINE EXPECTED_CPUS [NAME]
# RUN_DIR holds console.log, results/ (uname, machine, exit-status, *.ktap
# written by the guest) and host-timeout if the host had to kill QEMU.
# Prints KTAP for the run itself; exits 1 if any of it failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/ktap.sh
. "$here/../scripts/ktap.sh"
usage="usage: verdict.sh RUN_DIR EXPECTED_RELEASE EXPECTED_MACHINE EXPECTED_CPUS [NAME]"
run=${1:?$usage}
want_release=${2:?$usage}
want_machine=${3:?$usage}
want_cpus=${4:?$usage}
name=${5:-vm}	# the results' prefix: which guest of the run
console=$run/console.log
results=$run/results

# The checks' results, printed at the end under a plan that counts them.
failed=0
verdicts=() descriptions=() reasons=()
check() { # ok|fail description [reason]
	[ "$1" = ok ] || failed=1
	verdicts+=("$1")
	descriptions+=("$name: $2")
	reasons+=("${3:-}")
}

release=$(cat "$results/uname" 2>/dev/null || true)
machine=$(cat "$results/machine" 2>/dev/null || true)
what="booted the kernel just built"
if [ -z "$release" ]; then
	check fail "$what" "the guest never reported uname -r: it did not reach its init; see $console"
elif [ "$release" != "$want_release" ] || [ "$machine" != "$want_machine" ]; then
	check fail "$what" "WRONG KERNEL: guest runs $release on ${machine:-an unknown machine}, the build is $want_release for $want_machine"
else
	check ok "$what ($release, $machine)"
fi

# The guest's init writes its run's exit status as its very last act: a
# file at all means it finished; 0 in it, that what it ran succeeded.  A
# guest the host had to kill failed, whatever it wrote before it hung
# (its tests may all have passed, and its shutdown never came).
exit_status=$(cat "$results/exit-status" 2>/dev/null || true)
if [ -e "$run/host-timeout" ]; then
	check fail "guest finished its run" "TIMEOUT: the host killed QEMU${exit_status:+ after the guest wrote exit status $exit_status}; see $console"
elif [ "$exit_status" = 0 ]; then
	check ok "guest finished its run"
elif [ -n "$exit_status" ]; then
	check fail "guest finished its run" "its run exited with status $exit_status (results/exit-status); see $console"
else
	check fail "guest finished its run" "CRASH: no exit-status from the guest; see $console"
fi

# Concurrency tests need CPUs running at once: a guest that brought up
# fewer than asked for would pass them without testing much.
cpus=$(sed -n 's/.*smp: Brought up [0-9]* nodes\{0,1\}, \([0-9]*\) CPUs\{0,1\}.*/\1/p' \
	"$console" 2>/dev/null | sed -n '1,1p' || true)
if [ "${cpus:-0}" = "$want_cpus" ]; then
	check ok "guest brought up its $want_cpus CPUs"
else
	check fail "guest brought up its $want_cpus CPUs" "it brought up ${cpus:-none}; see $console"
fi

# The kernel's loadable modules where modprobe finds them (harness/guest-init):
# without them the module tests would skip, not fail.  Every test kernel
# has MODULES=y, so a guest that found none is as wrong as one that could
# not mount them.
modules=$(cat "$results/modules" 2>/dev/null || true)
what="guest mounted the kernel's modules"
case $modules in
mounted) check ok "$what" ;;
"") check fail "$what" "the guest never reported its modules (results/modules)" ;;
none:*) check fail "$what" "${modules#none: }" ;;
*) check fail "$what" "${modules#failed: }" ;;
esac

# tracefs and debugfs (harness/guest-init): the text_poke tests would
# skip without them.
if [ -s "$results/mount-failures" ]; then
	check fail "guest mounted tracefs and debugfs" "$(tr '\n' ' ' <"$results/mount-failures")"
else
	check ok "guest mounted tracefs and debugfs"
fi

# Lines of console kept from the first splat on (all CPUs' backtraces).
splat_context_lines=120
rm -f "$run/splat.txt"
splats=$(grep -v -e '^#' -e '^$' "$here/splats")
# grep finds nothing (status 1) on a clean console; head may cut it short.
hits=$(grep -n -E -f <(printf '%s\n' "$splats") "$console" 2>/dev/null | sed -n '1,3p' | tr '\n' ' ' || true)
if [ ! -r "$console" ]; then
	check fail "console free of kernel splats" "no console log at $console"
elif [ -n "$hits" ]; then
	check fail "console free of kernel splats" "SPLAT in $console: $hits"
	# The first splat with its backtraces, for whoever sees only the
	# output of make check (CI): scripts/check.sh prints it.
	first=${hits%%:*}
	sed -n "${first},$((first + splat_context_lines))p" "$console" >"$run/splat.txt"
else
	check ok "console free of kernel splats"
fi

# CONFIG_KALLSYMS_SELFTEST (the 7.2 test kernels, config/kernel/common/
# debug.7.2.config): kernel/kallsyms_selftest.c checks lookups by name and
# by address over the whole symbol table, beside which the kallmodsyms
# tables sit.  It prints, never splats: judged where it started.
if grep -q 'kallsyms_selftest: start' "$console" 2>/dev/null; then
	what="kernel's kallsyms selftest passed (CONFIG_KALLSYMS_SELFTEST)"
	bad=$(grep -E 'kallsyms_selftest: .*(failed|abort|Never found|mismatch|\?!)' "$console" |
		sed -n '1,2p' | tr '\n' ' ' || true)
	if [ -n "$bad" ]; then
		check fail "$what" "$bad"
	elif ! grep -q 'kallsyms_selftest: finish' "$console"; then
		check fail "$what" "it did not finish before the guest's run ended; see $console"
	else
		check ok "$what"
	fi
fi

ktap_plan ${#verdicts[@]}
for i in "${!verdicts[@]}"; do
	ktap_result "${verdicts[$i]}" "${descriptions[$i]}" "${reasons[$i]}"
done
exit "$failed"
