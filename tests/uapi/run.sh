#!/usr/bin/env bash
# libaddrres's copy of the PROCMAP_QUERY UAPI against the headers the
# patched tree installs: carried_copy_matches.c must compile against each
# arch's installed headers, with the arch's compiler and with its 32-bit
# (compat) compiler, and must not compile against a copy with one field
# changed (so the check can fail).  It must also compile against
# upstream's own <linux/fs.h>: the headers of the pinned 6.12 reference
# (config/upstream.conf), installed from its source, for the host's 64-bit
# and 32-bit x86 ABIs, so that "ABI-identical to upstream" is checked
# against upstream itself, not only against the numbers the copy pins
# with its own _Static_asserts.  Checks the arches `make check` built
# (CHECK_ARCHES), or every arch.  Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy=$TOP/libaddrres/include/addrres/procmap_query.h
src=$TOP/tests/uapi/carried_copy_matches.c
# The copy under other names, so that it and <linux/fs.h> can both be
# included; and a copy of the copy with dev_major made 64-bit.
mkdir -p "$work/same" "$work/changed"
sed -e 's/procmap_query/carried_procmap_query/g' -e 's/PROCMAP_QUERY/CARRIED_PROCMAP_QUERY/g' \
	"$copy" >"$work/same/carried_uapi.h"
sed -e 's/__u32 dev_major;/__u64 dev_major;/' "$work/same/carried_uapi.h" \
	>"$work/changed/carried_uapi.h"
if cmp -s "$work/same/carried_uapi.h" "$work/changed/carried_uapi.h" ||
	! grep -q 'struct carried_procmap_query {' "$work/same/carried_uapi.h"; then
	die "tests/uapi: cannot make the renamed or the changed copy of $copy"
fi

read -r -a arches <<<"${CHECK_ARCHES:-$(all_arches | tr '\n' ' ')}"

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
			[ -z "$ARCH_COMPAT_KERNEL" ] || hdr=$COMPAT_HDR_DIR/include
			echo "$ARCH|32-bit|$ARCH_COMPAT_CC|$hdr"
		fi
	)
done

# Upstream's headers: 6.12's UAPI, installed from its source (fetched
# into the cache if it is not there) for x86.
upstream_hdr=$work/upstream-headers
upstream_err=""
if ! upstream=$("$TOP/scripts/fetch-base.sh" --upstream 2>"$work/upstream.log"); then
	upstream_err="scripts/fetch-base.sh --upstream failed: $(tail -n 1 "$work/upstream.log")"
elif ! make -s -C "$upstream" O="$work/upstream-obj" ARCH=x86 INSTALL_HDR_PATH="$upstream_hdr" \
	headers_install >"$work/upstream.log" 2>&1; then
	upstream_err="headers_install of $upstream failed: $(tail -n 1 "$work/upstream.log")"
fi
abis+=("upstream $UPSTREAM_VERSION x86_64|64-bit|$HOST_CC|$upstream_hdr/include"
	"upstream $UPSTREAM_VERSION x86_64|32-bit|$HOST_CC -m32|$upstream_hdr/include")

# compile ABI_LINE DIR: carried_copy_matches.c with DIR's carried_uapi.h.
compile() {
	local cc hdr
	IFS='|' read -r _ _ cc hdr <<<"$1"
	read -r -a compiler <<<"$cc"
	"${compiler[@]}" "${CFLAGS_STRICT[@]/-std=gnu11/-std=c11}" -isystem "$hdr" -I "$2" \
		-c -o /dev/null "$src"
}

ktap_plan $((${#abis[@]} + 1))
for abi in "${abis[@]}"; do
	IFS='|' read -r arch bits cc hdr <<<"$abi"
	name="uapi: libaddrres's PROCMAP_QUERY copy matches the $arch $bits kernel headers"
	if [ "${arch%% *}" = upstream ] && [ -n "$upstream_err" ]; then
		ktap_result fail "$name" "$upstream_err"
	elif [ ! -f "$hdr/linux/fs.h" ]; then
		ktap_result fail "$name" "no installed headers in $hdr (make selftests ARCH=$arch)"
	elif out=$(compile "$abi" "$work/same" 2>&1); then
		ktap_result ok "$name"
	else
		printf '%s\n' "$out" | grep -m 5 -E 'error|assert' | ktap_diag
		ktap_result fail "$name" "$cc"
	fi
done
name="uapi: a copy with procmap_query.dev_major changed does not match"
if [ ! -f "${abis[0]##*|}/linux/fs.h" ]; then
	ktap_result fail "$name" "no installed headers in ${abis[0]##*|}"
elif out=$(compile "${abis[0]}" "$work/changed" 2>&1); then
	ktap_result fail "$name" "it compiled: the check cannot fail"
elif grep -q 'procmap_query.dev_major: the kernel' <<<"$out"; then
	ktap_result ok "$name"
else
	printf '%s\n' "$out" | sed -n '1,5p' | ktap_diag
	ktap_result fail "$name" "it failed, but not on dev_major"
fi
