#!/usr/bin/env bash
# Install the Debian packages the build and the test VM need, if missing.
set -eu
. "$(dirname "$0")/lib.sh"

packages=(
	gcc make git flex bison bc gawk cpio rsync xz-utils ccache
	libelf-dev libssl-dev dwarves
	qemu-system-x86 busybox-static util-linux coreutils
	gcc-multilib
)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || die "missing packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})"
	sudo=sudo
fi
info "installing: ${missing[*]}"
$sudo apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install ${missing[*]} failed"
