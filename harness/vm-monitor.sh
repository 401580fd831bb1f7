#!/usr/bin/env bash
# Look into the running guest of ARCH (a hang, a stall) through QEMU's
# monitor socket, which harness/run-vm.sh opens for every boot:
#   vm-monitor.sh backtraces     SysRq l, w and t: every CPU's backtrace,
#                                the blocked tasks, every task (on the
#                                guest's console, $VM_DIR/console.log);
#                                x86_64 only
#   vm-monitor.sh HMP-COMMAND    any monitor command, e.g. "info registers -a"
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

socket=$VM_DIR/monitor.sock
[ -S "$socket" ] || die "no monitor socket at $socket: is a $ARCH guest running?"
[ $# -gt 0 ] || die "usage: vm-monitor.sh backtraces|HMP-COMMAND"
if [ "$*" = backtraces ]; then
	# The guest's SysRq through its keyboard: QEMU types the keys.  arm64's
	# virt machine has no keyboard (its serial console is a file here).
	[ "$ARCH" = x86_64 ] ||
		die "backtraces needs a PS/2 keyboard (x86_64's pc machine); on $ARCH try 'info registers -a' and look the PCs up in System.map"
	set -- "sendkey alt-sysrq-l" "sendkey alt-sysrq-w" "sendkey alt-sysrq-t"
else
	set -- "$*"
fi
python3 - "$socket" "$@" <<'PY'
import re, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(2)
def drain():
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        pass
    # Drop the monitor's line editing (escape sequences).
    return re.sub(r"\x1b\[[0-9]*[A-Za-z]", "", out.decode(errors="replace"))
drain()
for cmd in sys.argv[2:]:
    s.sendall(cmd.encode() + b"\n")
    time.sleep(1)
    for line in drain().splitlines():
        # The echo of the typed command, and the prompt.
        if not line.endswith(cmd) and not line.startswith("(qemu)"):
            print(line)
PY
