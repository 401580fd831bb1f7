#!/usr/bin/env bash
# scripts/kallsyms of the patched tree on unusual and malformed
# CONFIG_KALLMODSYMS input (a link map, the map of a prelinked object's
# ld -r link, modules.builtin.objs, the symbol sizes nm -S lists), and
# the modules.builtin.objs rule of scripts/Makefile.vmlinux_o on an empty
# top-level built-in.objs.  No input stops the build: a problem costs
# annotations (or sizes), with a warning naming the file, the line and
# what was left out.  Each case
# changes the good input below, and names the warning expected (or none)
# and what the tables must still hold; the tables made from a real build
# are checked in the guest (tools/testing/selftests/kallmodsyms).  Prints
# KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Symbols as nm prints them, and the map of a link of two objects.
good_syms() {
	printf '%s\n' 'ffffffff81000000 T _text' \
		'ffffffff81000000 T one' \
		'ffffffff81000010 t helper' \
		'ffffffff81000020 T two' \
		'ffffffff81000030 t helper'
}
# nm -S of the same link: no size column for a symbol of size 0.
good_sizes() {
	printf '%s\n' 'ffffffff81000000 T _text' \
		'ffffffff81000000 0000000000000010 T one' \
		'ffffffff81000010 0000000000000008 t helper' \
		'ffffffff81000020 0000000000000010 T two' \
		'ffffffff81000030 0000000000000010 t helper'
}
good_map() {
	printf '%s\n' 'Archive member included to satisfy reference by file (symbol)' '' \
		'Discarded input sections' '' \
		' .text.unused   0x0000000000000000       0x10 drivers/a/dropped.o' '' \
		'Linker script and memory map' '' \
		'.text           0xffffffff81000000       0x40' \
		' .text          0xffffffff81000000       0x20 drivers/a/one.o' \
		' .text.a_name_too_long_for_its_column' \
		'                0xffffffff81000020       0x20 drivers/b/two.o'
}

# The same link when it takes the prelinked vmlinux.o (x86 IBT): the map
# of the link places vmlinux.o's sections, vmlinux.o's own map (ld -r)
# says which objects are where in them.
prelinked_map() {
	printf '%s\n' 'Linker script and memory map' '' \
		'.text           0xffffffff81000000       0x40' \
		' .text          0xffffffff81000000       0x10 vmlinux.o' \
		' .text.a_name_too_long_for_its_column' \
		'                0xffffffff81000010       0x30 vmlinux.o' \
		'                0xffffffff81000040                _etext = .'
}
prelinked_o_map() {
	printf '%s\n' 'Linker script and memory map' '' 'LOAD vmlinux.a' '' \
		'.interp' ' *(.interp)' '' \
		'.text           0x0000000000000000       0x10' \
		' *(.text .stub)' \
		' .text          0x0000000000000000       0x10 drivers/a/one.o' \
		'                0x0000000000000000                one' '' \
		'.text.a_name_too_long_for_its_column' \
		'                0x0000000000000000       0x30' \
		' .text.a_name_too_long_for_its_column' \
		'                0x0000000000000000       0x10 drivers/a/one.o' \
		' .text.a_name_too_long_for_its_column' \
		'                0x0000000000000010       0x20 drivers/b/two.o' \
		'                0x0000000000000010                two'
}

# Make the case a link of the prelinked vmlinux.o, its map edited by the
# sed script SED (none: as is).
use_prelinked() { # [SED]
	prelinked_map >link.map
	prelinked_o_map | sed "${1:-}" >vmlinux.o.map
	prelinked=(--prelinked-map=vmlinux.o=vmlinux.o.map)
}

# The NUL-terminated strings of table LABEL of out.S, comma-separated.
table_strings() {
	awk -v label="$1:" '
		$0 == label { on = 1; next }
		on && /^\t\.byte\t/ {
			sub(/^\t\.byte\t/, ""); n = split($0, b, ", ")
			for (i = 1; i <= n; i++) {
				c = strtonum(b[i])
				if (c) s = s sprintf("%c", c); else { out = out sep s; sep = ","; s = "" }
			}
			next
		}
		on { exit }
		END { print out }' out.S
}

# The bytes of table LABEL of out.S.
table_size() {
	awk -v label="$1:" '
		$0 == label { on = 1; next }
		on && /^\t\.byte\t/ { n += split($0, b, ", "); next }
		on { exit }
		END { print n + 0 }' out.S
}

# The checks of the tables a case may name: each returns 0 if they hold.
two_objects_named() { # the helpers of one.o and two.o need their names
	local names
	names=$(table_strings kallmodsyms_object_names)
	[ "$names" = one,two ] || [ "$names" = two,one ]
}
nothing_annotated() {
	[ -z "$(table_strings kallmodsyms_object_names)" ] &&
		[ -z "$(table_strings kallmodsyms_module_names)" ]
}
modules_are() { # LIST
	[ "$(table_strings kallmodsyms_module_names)" = "$1" ]
}
module_count_is() { # N
	[ "$(table_strings kallmodsyms_module_names | tr , '\n' | wc -l)" = "$1" ]
}
object_names_over_64k() { # N distinct names, more than 64 KiB of them
	[ "$(table_size kallmodsyms_object_names)" -gt 65536 ] &&
		[ "$(table_strings kallmodsyms_object_names | tr , '\n' | sort -u | wc -l)" = "$1" ]
}

# Whether the kernel is told to guess code ends from ORC (0 or 1), and
# how many symbols' ends scripts/kallsyms guessed from it.
size_hints_are() { # FLAG GUESSES
	[ "$(awk '$0 == "kallmodsyms_size_hints:" { getline; print $2; exit }' out.S)" = "$1" ] &&
		grep -q "; $2 end guesses from ORC \*/\$" out.S
}

# Crafting an x86-64 ELF file (orc_vmlinux) needs an x86-64 host: else
# report case $name skipped and return 1.
x86_64_host_or_skip() {
	[ "$(uname -m)" = x86_64 ] && return 0
	ktap_result skip "$name" "crafting an x86-64 ELF file needs an x86-64 host"
	return 1
}

# An x86-64 ELF file of the good symbols' layout, with ORC tables as
# objtool writes them after one's helper (0x10): an entry with unwind
# information at 0x10, and one without at 0x18, where the helper's 8
# bytes end and its padding starts.
orc_vmlinux() {
	cat >orc.s <<-'EOS'
	.text
	.globl _start
	_start:	.skip 0x40
	.section .orc_unwind_ip, "a"
	.long _start + 0x10 - .
	.long _start + 0x18 - .
	.section .orc_unwind, "a"
	.short 0, 0
	.byte 1, 0
	.short 0, 0
	.byte 0, 0
	EOS
	"$HOST_CC" -c -o orc.o orc.s && ld -o orc.elf -Ttext=0xffffffff81000000 orc.o
}

# A name in N objects of long names: their names take more than 64 KiB,
# as KASAN's constructors do on a big configuration.
many_objects() { # N
	awk -v n="$1" 'BEGIN {
		print "ffffffff81000000 T _text" >"syms"
		print "ffffffff81000000 T _text" >"sizes"
		print "Linker script and memory map\n" >"link.map"
		printf ".text           0xffffffff81000000 %#x\n", n * 16 >"link.map"
		for (i = 0; i < n; i++) {
			a = sprintf("ffffffff81%06x", i * 16)
			printf "%s t _sub_I_65535_1\n", a >"syms"
			printf "%s 0000000000000010 t _sub_I_65535_1\n", a >"sizes"
			printf " .text          0x%s       0x10 drivers/a_directory/an_object_of_a_long_name_%05d.o\n", a, i >"link.map"
		}
	}'
}

cases=(good bad-map-line map-without-address not-a-map bad-objs-line
	unknown-object gc-discarded-object object-twice many-modules
	many-object-names label-named-like-a-function provide-label
	bad-sizes-line empty-builtin-objs prelinked-object prelinked-other-size
	prelinked-section-missing dotdot-path linker-stubs orc-end-guesses
	orc-without-text-bounds orc-truncated orc-file-missing orc-not-elf)
ktap_plan ${#cases[@]}

if [ ! -f "$TREE/scripts/kallsyms.c" ]; then
	for c in "${cases[@]}"; do
		ktap_result fail "kallsyms-input: $c" "no $TREE/scripts/kallsyms.c (make tree)"
	done
	exit 0
fi
"$HOST_CC" -std=gnu11 -O1 -g "${CFLAGS_SANITIZE[@]}" -o kallsyms "$TREE/scripts/kallsyms.c"

# The modules.builtin.objs rule's awk program, as Makefile.vmlinux_o has it.
builtin_objs_awk() {
	sed -n '/^ *cmd_modules_builtin_objs = \\$/,/modules.builtin > \$@/p' \
		"$TREE/scripts/Makefile.vmlinux_o" |
		sed -e '1d' -e '$d' -e "s/.*\\\$(AWK) '//" -e "s/'[^']*\$//" -e 's/\\$//' -e 's/\$\$/$/g'
}

for c in "${cases[@]}"; do
	name="kallsyms-input: $c"
	good_map >link.map
	good_syms >syms
	good_sizes >sizes
	: >builtin.objs
	want=""                   # the first line of the warnings, or none
	check=(two_objects_named)   # what the tables must hold
	prelinked=()              # the prelinked maps' options
	more=()                   # any other options
	case $c in
	good) ;;
	bad-map-line)
		sed -i 's/0xffffffff81000000       0x20/0xffffffff81000000 size/' link.map
		want="kallsyms: link.map:10: warning: expected \" section address size file\", found \" .text          0xffffffff81000000 size drivers/a/one.o\": no text symbol annotated"
		check=(nothing_annotated) ;;
	map-without-address)
		sed -i '$d' link.map
		want="kallsyms: link.map:11: warning: input section .text.a_name_too_long_for_its_column has no address: no text symbol annotated"
		check=(nothing_annotated) ;;
	not-a-map)
		echo 'drivers/a/one.o' >link.map
		want="kallsyms: link.map:1: warning: not a GNU ld map (no memory map section): no text symbol annotated"
		check=(nothing_annotated) ;;
	bad-objs-line)
		printf 'drivers/b/two.o:\ndrivers/a/one.c: drivers/a/one.o\n' >builtin.objs
		want="kallsyms: builtin.objs:2: warning: expected \"dir/module.o: objects\": line left out"
		check=(modules_are two) ;;
	unknown-object)
		printf 'drivers/b/two.o:\ndrivers/a/mod.o: drivers/a/one.o drivers/a/gone.o\n' >builtin.objs
		want="kallsyms: builtin.objs:2: warning: drivers/a/gone.o is not in the link map link.map: not annotated with [mod]"
		check=(modules_are "two,mod") ;;
	gc-discarded-object)
		# --gc-sections kept nothing of dropped.o: nothing to say.
		printf 'drivers/a/mod.o: drivers/a/one.o drivers/a/dropped.o\n' >builtin.objs
		check=(modules_are mod) ;;
	object-twice)
		# fs/nfsd/Makefile lists blocklayout.o twice; kbuild allows it.
		echo 'drivers/a/mod.o: drivers/a/one.o drivers/a/one.o' >builtin.objs
		check=(modules_are mod) ;;
	many-modules)
		# One object in more modules than 16 bits count.
		awk 'BEGIN { for (i = 1; i <= 70000; i++) printf "m/m%d.o: drivers/a/one.o\n", i }' >builtin.objs
		check=(module_count_is 70000) ;;
	many-object-names)
		many_objects 5000
		: >builtin.objs
		check=(object_names_over_64k 5000) ;;
	label-named-like-a-function)
		# A linker script label "helper" elsewhere: both helpers keep
		# their objects.
		sed -i '$a\                0xffffffff81000040                helper = .' link.map ;;
	provide-label)
		# A label PROVIDEd at the end of one.o's section is no symbol
		# of two.o (were it, two.o would have two "helper"s).
		printf '%s\n' 'ffffffff81000020 t helper' >>syms
		printf '%s\n' 'ffffffff81000020 t helper' >>sizes
		sort -o syms syms
		sed -i '/drivers\/a\/one.o$/a\                0xffffffff81000020                PROVIDE (helper = .)' link.map ;;
	bad-sizes-line)
		sed -i '3s/.*/ffffffff81000010 t/' sizes
		want="kallsyms: sizes:3: warning: expected \"address [size] type name\": sizes from here on not read" ;;
	prelinked-object)
		use_prelinked ;;
	prelinked-other-size)
		# objtool or a later step changed the section: nothing guessed.
		use_prelinked '14s/0x30/0x28/'
		want="kallsyms: link.map:5: warning: vmlinux.o's section .text.a_name_too_long_for_its_column is 0x30 bytes here but 0x28 in vmlinux.o.map:14: its text symbols left unannotated"
		check=(nothing_annotated) ;;
	prelinked-section-missing)
		use_prelinked 12q
		want="kallsyms: link.map:5: warning: vmlinux.o's section .text.a_name_too_long_for_its_column is not in vmlinux.o.map: its text symbols left unannotated"
		check=(nothing_annotated) ;;
	linker-stubs)
		# arm64's erratum 843419 stubs, as Debian's config links
		# them: the linker's own code, of no object, and nothing lost.
		printf '%s\n' 'ffffffff81000040 t e843419@01f4_00002386_3e8' >>syms
		printf '%s\n' 'ffffffff81000040 0000000000000008 t e843419@01f4_00002386_3e8' >>sizes
		sed -i '$a\ .text.stub     0xffffffff81000040       0x10 linker stubs' link.map ;;
	orc-end-guesses)
		x86_64_host_or_skip || continue
		orc_vmlinux
		# The kernel guesses in text only, whose bounds are the
		# linker script's labels.
		printf '%s\n' 'ffffffff81000000 T _stext' 'ffffffff81000040 T _etext' \
			'ffffffff81000040 T _sinittext' 'ffffffff81000040 T _einittext' |
			tee -a sizes >>syms
		for label in _stext:0 _etext:40 _sinittext:40 _einittext:40; do
			printf '                0xffffffff810000%02x                %s = .\n' \
				"0x${label#*:}" "${label%%:*}" >>link.map
		done
		more=(--orc-unwind=orc.elf)
		check=(size_hints_are 1 1) ;;
	orc-without-text-bounds)
		x86_64_host_or_skip || continue
		orc_vmlinux
		more=(--orc-unwind=orc.elf)
		want="kallsyms: orc.elf: warning: the symbols lack _etext or _einittext: sizes coded without ORC"
		check=(size_hints_are 0 0) ;;
	orc-truncated)
		x86_64_host_or_skip || continue
		# A header whose sections lie past the end of the file.
		orc_vmlinux
		head -c 256 orc.elf >orc.cut
		more=(--orc-unwind=orc.cut)
		want="kallsyms: orc.cut: warning: cannot read the section headers: sizes coded without ORC"
		check=(size_hints_are 0 0) ;;
	orc-file-missing)
		more=(--orc-unwind=no-vmlinux)
		want="kallsyms: no-vmlinux: warning: No such file or directory: sizes coded without ORC"
		check=(size_hints_are 0 0) ;;
	orc-not-elf)
		more=(--orc-unwind=sizes)
		want="kallsyms: sizes: warning: not a little-endian ELF64 file with section headers: sizes coded without ORC"
		check=(size_hints_are 0 0) ;;
	dotdot-path)
		# ld prints the paths it was given: arm64's nVHE links
		# ../../../lib/memcpy.nvhe.o.  The same object either way.
		use_prelinked 's|drivers/b/two.o|drivers/a/../b/./two.o|'
		echo 'drivers/b/mod.o: drivers/b/two.o' >builtin.objs
		check=(modules_are mod) ;;
	empty-builtin-objs)
		# No composite object anywhere: every module is a single object.
		: >built-in.objs
		printf 'kernel/drivers/a/one.ko\nkernel/drivers/b/two.ko\n' >modules.builtin
		rc=0
		awk "$(builtin_objs_awk)" built-in.objs modules.builtin >out 2>err || rc=$?
		if [ "$rc" = 0 ] && [ "$(cat out)" = "$(printf 'drivers/a/one.o:\ndrivers/b/two.o:')" ]; then
			ktap_result ok "$name"
		else
			{ cat err; cat out; } | head -n 5 | ktap_diag
			ktap_result fail "$name" "exit $rc; wanted a line per module of modules.builtin"
		fi
		continue ;;
	esac

	rc=0
	./kallsyms --all-symbols --link-map=link.map --builtin-objs=builtin.objs \
		--symbol-sizes=sizes "${prelinked[@]}" "${more[@]}" syms >out.S 2>err || rc=$?
	if [ "$rc" != 0 ]; then
		head -n 5 err | ktap_diag
		ktap_result fail "$name" "exit $rc: the build would stop"
	elif [ "$(head -n 1 err)" != "$want" ]; then
		head -n 5 err | ktap_diag
		ktap_result fail "$name" "wanted ${want:-no warning}"
	elif ! "${check[@]}"; then
		echo "object names: $(table_strings kallmodsyms_object_names | cut -c 1-200)" | ktap_diag
		echo "module names: $(table_strings kallmodsyms_module_names | cut -c 1-200)" | ktap_diag
		ktap_result fail "$name" "the tables are not as expected: ${check[*]}"
	else
		ktap_result ok "$name"
	fi
done
