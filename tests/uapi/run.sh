#!/usr/bin/env bash
# Compile-time ABI checks of the patched kernel's UAPI headers: each .c
# here must compile against the headers installed for each arch, with the
# arch's compiler and with its 32-bit (compat) compiler.  Checks the arches
# `make check` built (CHECK_ARCHES), or every arch.  Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

read -r -a arches <<<"${CHECK_ARCHES:-$(all_arches | tr '\n' ' ')}"
checks=("$TOP"/tests/uapi/*.c)

# One line per ABI: "arch|abi|compiler|include dir".
abis=()
for arch in "${arches[@]}"; do
	# Each arch's description and build paths, from lib.sh in a subshell.
	mapfile -t -O "${#abis[@]}" abis < <(
		ARCH=$arch
		. "$TOP/scripts/lib.sh"
		echo "$ARCH|64-bit|$TARGET_CC|$OBJ/usr/include"
		if [ -n "$ARCH_COMPAT_CC" ]; then
			hdr=$OBJ/usr/include
			[ -z "$ARCH_COMPAT_KERNEL" ] || hdr=$ARCH_BUILD/compat-headers/include
			echo "$ARCH|32-bit|$ARCH_COMPAT_CC|$hdr"
		fi
	)
done

ktap_plan $((${#checks[@]} * ${#abis[@]}))
for src in "${checks[@]}"; do
	for abi in "${abis[@]}"; do
		IFS='|' read -r arch bits cc hdr <<<"$abi"
		name="uapi: $(basename "$src" .c) $arch $bits"
		read -r -a compiler <<<"$cc"
		if [ ! -f "$hdr/linux/fs.h" ]; then
			ktap_result fail "$name" "no installed headers in $hdr (make selftests ARCH=$arch)"
		elif out=$("${compiler[@]}" "${CFLAGS_STRICT[@]/-std=gnu11/-std=c11}" -isystem "$hdr" \
			-c -o /dev/null "$src" 2>&1); then
			ktap_result ok "$name"
		else
			printf '%s\n' "$out" | head -n 5 | ktap_diag
			ktap_result fail "$name" "$cc"
		fi
	done
done
