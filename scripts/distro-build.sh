#!/usr/bin/env bash
# `make distro-build`: /proc/kallmodsyms on a distribution's own kernel
# configuration.  Takes Debian's config of the pinned 6.1
# (linux-config-6.1 of config/base.conf's version; amd64 for x86_64, arm64
# for arm64, the "none" flavour), builds vmlinux from the patched tree
# with CONFIG_KALLMODSYMS=y, and again without it, in
# $ARCH_BUILD/obj-distro, and prints (and writes to
# $ARCH_BUILD/distro-build.txt) the build times, what the option adds to
# vmlinux, and the counts of built-in modules, annotated text symbols and
# text names still ambiguous.  Not part of `make check`: hours on 2 cores.
#
# Only vmlinux is built (no modules), with debug info off (BTF with it) to
# save time; both change neither the kallsyms tables nor what the option
# adds.  The configuration must keep KALLMODSYMS=y through olddefconfig,
# or the script fails saying so.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case $ARCH in
x86_64) debarch=amd64 ;;
arm64) debarch=arm64 ;;
*) die "no Debian configuration known for $ARCH" ;;
esac
. "$TOP/config/base.conf"
pkg=linux-config-6.1
version=$BASE_VERSION
OBJ=$ARCH_BUILD/obj-distro
out=$ARCH_BUILD/distro-build.txt
kernel_cc=$(kernel_cc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Debian's package of ARCH's configs, of the pinned version.
fetch_config() {
	local deb_dir=$CACHE_DIR/debs deb
	deb=$deb_dir/${pkg}_${version}_$debarch.deb
	mkdir -p "$deb_dir"
	if [ ! -f "$deb" ]; then
		if [ "$debarch" != "$(dpkg --print-architecture)" ] &&
		   ! dpkg --print-foreign-architectures | grep -x "$debarch" >/dev/null; then
			info "adding the $debarch architecture to dpkg for $pkg:$debarch"
			dpkg --add-architecture "$debarch"
			apt-get update -q >/dev/null
		fi
		(cd "$deb_dir" && apt-get download "$pkg:$debarch=$version") >/dev/null 2>&1 ||
			die "cannot download $pkg:$debarch=$version (apt-get update?)"
	fi
	dpkg-deb -x "$deb" "$work/deb"
	xz -dc "$work/deb/usr/src/linux-config-6.1/config.${debarch}_none_$debarch.xz"
}

# configure ON|OFF: Debian's config with KALLMODSYMS on or off.
configure() {
	mkdir -p "$OBJ"
	cp "$work/debian.config" "$OBJ/.config"
	"$TREE/scripts/config" --file "$OBJ/.config" \
		--disable DEBUG_INFO_BTF --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5 --enable DEBUG_INFO_NONE \
		"--$([ "$1" = on ] && echo enable || echo disable)" KALLMODSYMS
	kmake -s CC="$kernel_cc" olddefconfig
	if [ "$1" = on ] && ! grep -qx CONFIG_KALLMODSYMS=y "$OBJ/.config"; then
		die "CONFIG_KALLMODSYMS=y did not survive olddefconfig on Debian's $debarch config"
	fi
}

# measure ON|OFF: build vmlinux, then print "key: value" lines.
measure() {
	local state=$1 start=$SECONDS src
	info "Debian $debarch config, KALLMODSYMS $state: building vmlinux in $OBJ"
	configure "$state"
	kmake CC="$kernel_cc" -j"$(nproc_jobs)" vmlinux >"$OBJ/distro-build-$state.log" 2>&1 ||
		die "build failed; see $OBJ/distro-build-$state.log"
	echo "${state}_build_seconds: $((SECONDS - start))"
	echo "${state}_vmlinux_bytes: $(size "$OBJ/vmlinux" | awk 'NR == 2 { print $4 }')"
	[ "$state" = on ] || return 0
	src=$(find "$OBJ" -maxdepth 1 -name '.tmp_vmlinux.kallsyms*.S' | sort | tail -n 1)
	sed -n 's|^/\* kallmodsyms: \([0-9]*\) text symbols annotated, \([0-9]*\) runs; sizes \([0-9]*\) bytes.*|annotated_symbols: \1\nruns: \2\nsizes_bytes: \3|p' "$src"
	echo "builtin_modules: $(wc -l <"$OBJ/modules.builtin.objs")"
	echo "kallsyms_warnings: $(grep -c '^kallsyms: ' "$OBJ/distro-build-on.log" || true)"
	# Text names that several symbols share, and pairs of text symbols
	# whose (name, modules, object) still do: scripts/kallsyms reports
	# those at each kallsyms step of the build (no message: none).
	pairs=$(sed -n 's/^kallsyms: \([0-9]*\) pairs of text symbols share name and object file.*/\1/p' \
		"$OBJ/distro-build-on.log" | tail -n 1)
	echo "same_object_pairs: ${pairs:-0}"
	awk '$2 ~ /^[tTW]$/ { n[$3]++ } END { for (s in n) if (n[s] > 1) { names++; syms += n[s] }
		print "ambiguous_text_names: " names + 0; print "ambiguous_text_symbols: " syms + 0 }' \
		"${src%.S}.syms"
}

fetch_config >"$work/debian.config"
{ measure on; measure off; } | tee "$out"
awk -F': ' '{ v[$1] = $2 }
	END {
		d = v["on_vmlinux_bytes"] - v["off_vmlinux_bytes"]
		printf "vmlinux_added_bytes: %d (%.3f%%)\n", d, 100 * d / v["off_vmlinux_bytes"]
	}' "$out" | tee -a "$out"
