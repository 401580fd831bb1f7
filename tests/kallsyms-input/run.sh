#!/usr/bin/env bash
# scripts/kallsyms of the patched tree on malformed CONFIG_KALLMODSYMS
# input (a link map, modules.builtin.objs): the build must stop with a
# message naming the file and line.  Each case is a link map, a
# modules.builtin.objs and the message expected, written below; the
# kallsyms tables made from good input are checked in the guest
# (tools/testing/selftests/kallmodsyms).  Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Symbols as nm prints them, and the map of a link of two objects.
cat >syms <<'SYMS'
ffffffff81000000 T _text
ffffffff81000000 T one
ffffffff81000010 t helper
ffffffff81000020 T two
ffffffff81000030 t helper
SYMS
good_map() {
	printf '%s\n' 'Archive member included to satisfy reference by file (symbol)' '' \
		'Linker script and memory map' '' \
		'.text           0xffffffff81000000       0x40' \
		' .text          0xffffffff81000000       0x20 drivers/a/one.o' \
		' .text.a_name_too_long_for_its_column' \
		'                0xffffffff81000020       0x20 drivers/b/two.o'
}

cases=(good bad-map-line map-without-address not-a-map bad-objs-line
	unknown-object object-twice too-many-modules)
ktap_plan ${#cases[@]}

if [ ! -f "$TREE/scripts/kallsyms.c" ]; then
	for c in "${cases[@]}"; do
		ktap_result fail "kallsyms input: $c" "no $TREE/scripts/kallsyms.c (make tree)"
	done
	exit 0
fi
"$HOST_CC" -std=gnu11 -O1 -g "${CFLAGS_SANITIZE[@]}" -o kallsyms "$TREE/scripts/kallsyms.c"

for c in "${cases[@]}"; do
	good_map >link.map
	echo 'drivers/b/two.o:' >builtin.objs
	want=""
	case $c in
	good) : >builtin.objs ;;
	bad-map-line)
		sed -i 's/0xffffffff81000000       0x20/0xffffffff81000000 size/' link.map
		want="kallsyms: link.map:6: expected \" section address size file\", found \" .text          0xffffffff81000000 size drivers/a/one.o\"" ;;
	map-without-address)
		sed -i '$d' link.map
		want="kallsyms: link.map:7: input section .text.a_name_too_long_for_its_column has no address" ;;
	not-a-map)
		echo 'drivers/a/one.o' >link.map
		want="kallsyms: link.map:1: not a GNU ld map (no memory map section)" ;;
	bad-objs-line)
		printf 'drivers/b/two.o:\ndrivers/a/one.c: drivers/a/one.o\n' >builtin.objs
		want="kallsyms: builtin.objs:2: expected \"dir/module.o: objects\"" ;;
	unknown-object)
		printf 'drivers/b/two.o:\ndrivers/a/mod.o: drivers/a/one.o drivers/a/gone.o\n' >builtin.objs
		want="kallsyms: builtin.objs:2: drivers/a/gone.o is not in the link map link.map" ;;
	object-twice)
		echo 'drivers/a/mod.o: drivers/a/one.o drivers/a/one.o' >builtin.objs
		want="kallsyms: builtin.objs:1: drivers/a/one.o is listed twice" ;;
	too-many-modules)
		# One object shared by more modules than a module set holds.
		awk 'BEGIN { for (i = 1; i <= 65535; i++) printf "m/m%d.o: drivers/a/one.o\n", i }' >builtin.objs
		want="kallsyms: builtin.objs:65535: drivers/a/one.o is in more built-in modules than a module set holds (65534)" ;;
	esac

	rc=0
	./kallsyms --all-symbols --link-map=link.map --builtin-objs=builtin.objs syms \
		>out.S 2>err || rc=$?
	name="kallsyms input: $c"
	if [ -z "$want" ]; then
		# Both helpers, of no module, need their object's name.
		# kallmodsyms_object_names: "one\0two\0" (without ".o"), in
		# either order.
		names=$(sed -n '/^kallmodsyms_object_names:/,/^$/p' out.S |
			sed -n 's/^\t\.byte\t//p' | tr -d ' ')
		if [ "$rc" = 0 ] && [ ! -s err ] &&
			{ [ "$names" = 0x6f,0x6e,0x65,0x00,0x74,0x77,0x6f,0x00 ] ||
			  [ "$names" = 0x74,0x77,0x6f,0x00,0x6f,0x6e,0x65,0x00 ]; }; then
			ktap_result ok "$name"
		else
			head -n 5 err | ktap_diag
			ktap_result fail "$name" "exit $rc, or not two object names in the tables"
		fi
	elif [ "$rc" != 0 ] && [ "$(head -n 1 err)" = "$want" ]; then
		ktap_result ok "$name"
	else
		head -n 5 err | ktap_diag
		ktap_result fail "$name" "exit $rc; wanted the message: $want"
	fi
done
