#!/usr/bin/env bash
# What CONFIG_KALLMODSYMS costs the kernel image and the build, for one
# configuration of ARCH, built twice: with and without the option.
#   bench/kallmodsyms-size.sh test        the test kernel's .config
#                                         (make kernel first)
#   bench/kallmodsyms-size.sh defconfig   the arch's defconfig as it is
#                                         (x86_64_defconfig leaves
#                                         X86_KERNEL_IBT off)
# Prints the image sizes (`size`'s text+data+bss of vmlinux, and the
# compressed boot image), the kallmodsyms tables' sizes, and the time of
# the final link (link-vmlinux.sh: the kallsyms links and the last one),
# the best of LINKS relinks.  One object dir, $ARCH_BUILD/obj-size-<config>:
# built with the option, then without it, which kbuild rebuilds
# incrementally (only kernel/kallsyms.c reads CONFIG_KALLMODSYMS).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

config=${1:-}
links=3
case $config in
test) base=$ARCH_BUILD/obj/.config
	[ -f "$base" ] || die "no $base: run make kernel ARCH=$ARCH first" ;;
defconfig) base="" ;;
*) die "usage: $0 test|defconfig" ;;
esac
case $ARCH in
x86_64) image=arch/x86/boot/bzImage defconfig=x86_64_defconfig ;;
arm64) image=arch/arm64/boot/Image.gz defconfig=defconfig ;;
*) die "no boot image known for $ARCH" ;;
esac
kernel_cc=$(kernel_cc)

OBJ=$ARCH_BUILD/obj-size-$config

# configure ON|OFF: the config in $OBJ, with KALLMODSYMS on or off.
configure() {
	if [ "$1" = off ]; then
		:	# the config of the build with it
	elif [ -n "$base" ]; then
		# Seeded with the test kernel's objects: only what differs builds.
		[ -d "$OBJ" ] || cp -a "$(dirname "$base")" "$OBJ"
		cp "$base" "$OBJ/.config"
	else
		kmake -s CC="$kernel_cc" "$defconfig" >/dev/null
	fi
	"$TREE/scripts/config" --file "$OBJ/.config" \
		"--$([ "$1" = on ] && echo enable || echo disable)" KALLMODSYMS
	kmake -s CC="$kernel_cc" olddefconfig
	if [ "$1" = on ] && ! grep -qx CONFIG_KALLMODSYMS=y "$OBJ/.config"; then
		die "$config: CONFIG_KALLMODSYMS=y did not stick (a dependency is missing)"
	fi
}

# measure ON|OFF: build, then print "key: value" lines for that build.
measure() {
	local state=$1 t best=""
	info "$ARCH $config, KALLMODSYMS $state: building in $OBJ"
	configure "$state"
	kmake CC="$kernel_cc" -j"$(nproc_jobs)" vmlinux "${image##*/}" >"$OBJ/size-build.log" 2>&1 ||
		die "build failed; see $OBJ/size-build.log"
	for _ in $(seq "$links"); do
		rm -f "$OBJ/vmlinux"
		t=$( { TIMEFORMAT=%R; time kmake CC="$kernel_cc" vmlinux >/dev/null 2>&1; } 2>&1 )
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
	done
	kmake CC="$kernel_cc" "${image##*/}" >/dev/null 2>&1
	echo "${state}_vmlinux_bytes: $(size "$OBJ/vmlinux" | awk 'NR == 2 { print $4 }')"
	echo "${state}_image_bytes: $(stat -c %s "$OBJ/$image")"
	echo "${state}_link_seconds: $best"
	if [ "$state" = on ]; then
		# The tables' bytes, counted in the assembler source of the last
		# kallsyms step (the one linked into vmlinux).
		src=$(find "$OBJ" -maxdepth 1 -name '.tmp_vmlinux.kallsyms*.S' | sort | tail -n 1)
		awk '
			/^[a-z_]+:$/ { table = substr($1, 1, length($1) - 1); next }
			table !~ /^kallmodsyms_/ { next }
			$1 == ".long" { bytes[table] += 4 * split($2, f, ",") }
			$1 == ".short" { n = split($0, f, ","); bytes[table] += 2 * n }
			$1 == ".byte" { n = split($0, f, ","); bytes[table] += n }
			END { for (t in bytes) { print "table_" t "_bytes: " bytes[t]; total += bytes[t] }
			      print "tables_bytes: " total }' "$src"
		sed -n 's|^/\* kallmodsyms: \([0-9]*\) text symbols annotated.*|annotated_symbols: \1|p' "$src"
	fi
}

{ measure on; measure off; } | tee "$ARCH_BUILD/kallmodsyms-size-$config.txt"
awk -F': ' '{ v[$1] = $2 }
	END {
		d = v["on_vmlinux_bytes"] - v["off_vmlinux_bytes"]
		printf "vmlinux_added_bytes: %d (%.3f%%)\n", d, 100 * d / v["off_vmlinux_bytes"]
		printf "image_added_bytes: %d\n", v["on_image_bytes"] - v["off_image_bytes"]
		printf "link_added_seconds: %.2f\n", v["on_link_seconds"] - v["off_link_seconds"]
		printf "vmlinux_added_bytes_per_annotated_symbol: %.2f\n", d / v["annotated_symbols"]
	}' "$ARCH_BUILD/kallmodsyms-size-$config.txt" | tee -a "$ARCH_BUILD/kallmodsyms-size-$config.txt"
