#!/usr/bin/env bash
# Judge one guest run from what it left behind, never from QEMU's exit code:
#   verdict.sh RUN_DIR EXPECTED_RELEASE
# RUN_DIR holds console.log, results/ (uname, exit-status, *.ktap written by
# the guest) and host-timeout if the host had to kill QEMU.  Prints KTAP
# for the run itself; exits 1 if any of it failed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
run=${1:?usage: verdict.sh RUN_DIR EXPECTED_RELEASE}
want=${2:?usage: verdict.sh RUN_DIR EXPECTED_RELEASE}
console=$run/console.log
results=$run/results

n=0 failed=0
result() { # ok|not-ok description [reason]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n vm: $2"
	else
		echo "not ok $n vm: $2 # $3"
		failed=1
	fi
}

echo "TAP version 13"
echo "1..3"

got=$(cat "$results/uname" 2>/dev/null || true)
if [ -z "$got" ]; then
	result not-ok "booted the kernel just built" "the guest never reported uname -r: it did not reach its init; see $console"
elif [ "$got" != "$want" ]; then
	result not-ok "booted the kernel just built" "WRONG KERNEL: guest runs $got, the build is $want"
else
	result ok "booted the kernel just built ($got)"
fi

if [ -s "$results/exit-status" ]; then
	result ok "guest finished its run"
elif [ -e "$run/host-timeout" ]; then
	result not-ok "guest finished its run" "TIMEOUT: the host killed QEMU; see $console"
else
	result not-ok "guest finished its run" "CRASH: no exit-status from the guest; see $console"
fi

splats=$(grep -v -e '^#' -e '^$' "$here/splats")
hits=$(grep -n -E -f <(printf '%s\n' "$splats") "$console" 2>/dev/null | head -n 3 | tr '\n' ' ' || true)
if [ ! -r "$console" ]; then
	result not-ok "console free of kernel splats" "no console log at $console"
elif [ -n "$hits" ]; then
	result not-ok "console free of kernel splats" "SPLAT in $console: $hits"
else
	result ok "console free of kernel splats"
fi
exit "$failed"
