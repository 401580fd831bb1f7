#!/usr/bin/env bash
# Install the Debian packages the build and the test VMs need, if missing:
# those of every arch, or of the arches named as arguments.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(
	gcc make git flex bison bc gawk cpio rsync xz-utils ccache
	libelf-dev libssl-dev
	# BTF for the kernels (config/kernel/common/btf.config)
	dwarves
	# the text_poke selftests' BPF trampolines and addrres count: libbpf's
	# headers for every arch's build; bpftool for addrres count's skeleton
	# and the x86_64 guest (the host's root); clang (below) for count.bpf.c
	libbpf-dev bpftool
	# the test kernel's modules: depmod for modules_install, modprobe in
	# the x86_64 guest (the host's root)
	kmod
	# libaddrres: libdw for ELF symbols, eu-addr2line to cross-check them,
	# pkg-config for its install test, clang's libFuzzer for its parsers
	libdw-dev elfutils pkg-config clang libclang-rt-14-dev
	# libaddrres: libiberty's demangler (C++ and Rust names), libdeflate
	# for compressed DWARF; dwz for a test's debug files (multifile)
	libiberty-dev libdeflate-dev dwz
	# bench/elf-bench.sh: llvm-symbolizer to compare with, and libc's
	# debug file (compressed DWARF) to symbolize
	llvm libc6-dbg
	# tests/libaddrres-elfutils: a newer elfutils built from Debian's
	# source package (config/elfutils.conf)
	dpkg-dev curl zlib1g-dev libbz2-dev liblzma-dev
	busybox-static util-linux coreutils
	# tests/perf: 6.1.192's perf is built with one patch of the series
	patch
	shellcheck python3-ply python3-git
)
arches=("$@")
[ ${#arches[@]} -gt 0 ] || mapfile -t arches < <(all_arches)
for arch in "${arches[@]}"; do
	[ -f "$TOP/config/arch/$arch.conf" ] || die "no config/arch/$arch.conf"
	# shellcheck source=../config/arch/x86_64.conf disable=SC2086 # one word per package
	read -r -a more <<<"$(. "$TOP/config/arch/$arch.conf" && echo $ARCH_PACKAGES)"
	packages+=("${more[@]}")
done
# The x86_64 guest runs on the host's root (read-only) and mounts the test
# kernel's modules on its /lib/modules, which a host without a kernel of its
# own (a container) lacks: make the mount point.
need_modules_dir=""
[ -d /lib/modules ] || need_modules_dir=yes
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ -z "$need_modules_dir" ] && exit 0

sudo=()
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null ||
		die "as root: ${missing[*]:+apt-get install ${missing[*]}; }${need_modules_dir:+mkdir /lib/modules}"
	sudo=(sudo)
fi
if [ -n "$need_modules_dir" ]; then
	info "creating /lib/modules (the x86_64 guest mounts the test kernel's modules there)"
	"${sudo[@]}" mkdir -p /lib/modules
fi
[ ${#missing[@]} -eq 0 ] && exit 0
info "installing: ${missing[*]}"
"${sudo[@]}" apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install ${missing[*]} failed"
