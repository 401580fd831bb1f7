#!/usr/bin/env bash
# scripts/kallsyms of each base's patched tree on unusual and malformed
# CONFIG_KALLMODSYMS input (a link map, the map of a prelinked object's
# ld -r link, the symbol sizes nm -S lists, and the built-in modules: on
# 6.1 modules.builtin.objs, on 7.2 vmlinux.o's .modinfo and each object's
# .cmd file), and on 6.1 the modules.builtin.objs rule of
# scripts/Makefile.vmlinux_o on an empty top-level built-in.objs.  The 7.2
# tree's results are named "kallsyms-input: 7.2: CASE".  No input stops
# the build: a problem costs
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

# The size tables of out.S and the distances between its symbols (from
# kallsyms_addresses on 6.1, kallsyms_offsets on 7.2), in the form
# sizes-decode reads (symbols of _text + offset only: the inputs here).
size_tables() {
	gawk '
		/^[a-z_]+:$/ { label = substr($0, 1, length($0) - 1); next }
		label == "kallsyms_addresses" && $1 == "PTR" {
			a[n++] = $2 == "_text" ? strtonum($4) : strtonum($2); next }
		# 7.2 writes offsets only (from the same base: the distances)
		label == "kallsyms_offsets" && $1 == ".long" { a[n++] = strtonum($2); next }
		label == "kallmodsyms_size_pad_bits" && $1 == ".long" { print "pad_bits", $2 }
		label == "kallmodsyms_size_bits" && $1 == ".long" { print "nbits", $2 }
		label == "kallmodsyms_size_distance_sum" && $1 == ".long" { print "distance_sum", $2 }
		label == "kallmodsyms_size_markers" && $1 == ".long" { print "marker", $2 }
		label == "kallmodsyms_sizes" && $1 == ".byte" {
			sub(/^\t\.byte\t/, ""); k = split($0, b, ", ")
			for (i = 1; i <= k; i++) print "byte", strtonum(b[i])
		}
		# to the next symbol at a higher address (0 for the last ones)
		END {
			for (i = 0; i < n; i++) {
				for (j = i + 1; j < n && a[j] == a[i]; j++)
					;
				print "distance", j < n ? a[j] - a[i] : 0
			}
		}
	' out.S
}

# Whether the kernel decoder, given the tables as EDIT (an awk program on
# size_tables' lines) leaves them, trusts the sizes, and which ones it
# shows: those of sizes.want, or all 0 with "untrusted from symbol FROM".
sizes_decode_as() { # trusted|FROM [EDIT]
	local want
	size_tables | gawk "${2:-}"'
		{ print }' | ./sizes-decode >decoded || return 1
	if [ "$1" = trusted ]; then
		want=$(printf 'trusted\n'; cat sizes.want)
	else
		want=$(printf 'untrusted from symbol %s\n' "$1"; sed 's/.*/0/' sizes.want)
	fi
	[ "$(cat decoded)" = "$want" ] && return 0
	diff <(echo "$want") decoded | sed -n '1,5p' | ktap_diag
	return 1
}

# N symbols of one object after _text, their sizes cycling through every
# code (the next symbol's distance, 0, a few bytes of padding, more than
# the distance); sizes.want has them in kallsyms order.
many_sized_symbols() { # N
	gawk -v n="$1" 'BEGIN {
		print "ffffffff81000000 T _text" >"syms"
		print "ffffffff81000000 T _text" >"sizes"
		print 0 >"sizes.want"
		print "Linker script and memory map\n" >"link.map"
		printf ".text           0xffffffff81000000 %#x\n", (n + 1) * 32 >"link.map"
		printf " .text          0xffffffff81000000 %#x drivers/a/one.o\n", (n + 1) * 32 >"link.map"
		split("32 0 27 31 4096 17", size, " ")
		for (i = 0; i < n; i++) {
			a = sprintf("ffffffff81%06x", (i + 1) * 32)
			z = i + 1 < n ? size[i % 6 + 1] : 0
			printf "%s T f%d\n", a, i >"syms"
			if (z)
				printf "%s %016x T f%d\n", a, z, i >"sizes"
			else
				printf "%s T f%d\n", a, i >"sizes"
			print z >"sizes.want"
		}
	}'
}

# Pairs of symbols at one address (an alias and its function, as
# SYM_FUNC_ALIAS makes them), each of the pair sized; sizes.want in
# kallsyms order (nm sorts the pair by name).
aliased_symbols() { # N pairs
	gawk -v n="$1" 'BEGIN {
		print "ffffffff81000000 T _text" >"syms"
		print "ffffffff81000000 T _text" >"sizes"
		print 0 >"sizes.want"
		print "Linker script and memory map\n" >"link.map"
		printf ".text           0xffffffff81000000 %#x\n", (n + 1) * 64 >"link.map"
		printf " .text          0xffffffff81000000 %#x drivers/a/one.o\n", (n + 1) * 64 >"link.map"
		for (i = 0; i < n; i++) {
			a = sprintf("ffffffff81%06x", (i + 1) * 64)
			z = i + 1 < n ? (i % 2 ? 64 : 40) : 0
			printf "%s T a%05d\n%s T f%05d\n", a, i, a, i >"syms"
			printf "%s %016x T a%05d\n%s %016x T f%05d\n", a, z, i, a, z, i >"sizes"
			print z >"sizes.want"
			print z >"sizes.want"
		}
	}'
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

# The modules.builtin.objs rule's awk program, as Makefile.vmlinux_o has it.
builtin_objs_awk() {
	sed -n '/^ *cmd_modules_builtin_objs = \\$/,/modules.builtin > \$@/p' \
		"$tree/scripts/Makefile.vmlinux_o" |
		sed -e '1d' -e '$d' -e "s/.*\\\$(AWK) '//" -e "s/'[^']*\$//" -e 's/\\$//' -e 's/\$\$/$/g'
}


run_cases() {
for c in "${cases[@]}"; do
	name="$prefix$c"
	good_map >link.map
	good_syms >syms
	good_sizes >sizes
	good_modules
	want=""                   # the first line of the warnings, or none
	check=(two_objects_named)   # what the tables must hold
	prelinked=()              # the prelinked maps' options
	more=()                   # any other options
	# shellcheck disable=SC2016 # the sizes cases' awk programs
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
		if [ "$base" = 6.1 ]; then
			awk 'BEGIN { for (i = 1; i <= 70000; i++) printf "m/m%d.o: drivers/a/one.o\n", i }' >builtin.objs
		else
			# shellcheck disable=SC2046 # a name per word
			cmd_file drivers/a/one.o $(seq -f 'm/m%.0f' 70000)
		fi
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
	sizes-decode)
		# 601 symbols: three markers, every code.
		many_sized_symbols 600
		check=(sizes_decode_as trusted) ;;
	sizes-marker-moved)
		# A marker that is not where the codes before it end.
		many_sized_symbols 600
		check=(sizes_decode_as 256 '$1 == "marker" && ++m == 2 { $2 += 1 }') ;;
	sizes-distance-differs)
		# The kernel sees another distance than the build coded against:
		# f302's padding code (k = 4) against 5 bytes does not decode.
		many_sized_symbols 600
		check=(sizes_decode_as 303 '$1 == "distance" && ++d == 304 { $2 = 5 }') ;;
	sizes-same-address)
		# An alias's size is measured to the next address, not to the
		# function at its own (d 0 would make every size a long code).
		aliased_symbols 300
		check=(sizes_decode_as trusted) ;;
	sizes-sum-differs)
		# One that still decodes, only to another size (f300 is "the
		# distance"): caught by the sum.
		many_sized_symbols 600
		check=(sizes_decode_as 0 '$1 == "distance" && ++d == 302 { $2 = 64 }') ;;
	sizes-stream-short)
		# A stream that ends a bit before its last code.
		many_sized_symbols 600
		check=(sizes_decode_as 600 '$1 == "nbits" { $2 -= 1 }') ;;
	dotdot-path)
		# ld prints the paths it was given: arm64's nVHE links
		# ../../../lib/memcpy.nvhe.o.  The same object either way.
		use_prelinked 's|drivers/b/two.o|drivers/a/../b/./two.o|'
		give_module drivers/b/two.o drivers/b/mod
		check=(modules_are mod) ;;
	module-from-cmd)
		# 7.2: the .cmd file names a module .modinfo lists.
		give_module drivers/a/one.o drivers/a/mod
		check=(modules_are mod) ;;
	modfile-not-builtin)
		# 7.2: every object names a KBUILD_MODFILE; one .modinfo does
		# not list is no built-in module.
		check=(modules_are "") ;;
	object-in-two-modules)
		# 7.2: an object two built-in modules link names both.
		cmd_file drivers/a/one.o drivers/a/m1 drivers/a/m2
		check=(modules_are "m1,m2") ;;
	module-name-with-dash)
		# 7.2: a module's name has '_' where its file name has '-'.
		give_module drivers/a/one.o drivers/a/my-mod
		check=(modules_are my_mod) ;;
	modinfo-missing)
		# 7.2: no .modinfo to read: objects still named, no module.
		give_module drivers/a/one.o drivers/a/mod
		rm -f modinfo
		want="kallsyms: modinfo: warning: No such file or directory: no built-in module annotated"
		check=(modules_are "") ;;
	empty-builtin-objs)
		# No composite object anywhere: every module is a single object.
		: >built-in.objs
		printf 'kernel/drivers/a/one.ko\nkernel/drivers/b/two.ko\n' >modules.builtin
		rc=0
		awk "$(builtin_objs_awk)" built-in.objs modules.builtin >out 2>err || rc=$?
		if [ "$rc" = 0 ] && [ "$(cat out)" = "$(printf 'drivers/a/one.o:\ndrivers/b/two.o:')" ]; then
			ktap_result ok "$name"
		else
			{ cat err; cat out; } | sed -n '1,5p' | ktap_diag
			ktap_result fail "$name" "exit $rc; wanted a line per module of modules.builtin"
		fi
		continue ;;
	esac

	rc=0
	./kallsyms --all-symbols --link-map=link.map "$modules_option" \
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
}

# The cases of both bases, and those of one only: 6.1 reads the built-in
# modules from modules.builtin.objs, 7.2 from .modinfo and .cmd files.
common_cases=(good bad-map-line map-without-address not-a-map
	many-object-names label-named-like-a-function provide-label
	bad-sizes-line prelinked-object prelinked-other-size
	prelinked-section-missing dotdot-path linker-stubs sizes-decode
	sizes-marker-moved sizes-distance-differs sizes-stream-short
	sizes-sum-differs sizes-same-address)
declare -A base_cases=(
	[6.1]="bad-objs-line unknown-object gc-discarded-object object-twice many-modules empty-builtin-objs"
	[7.2]="module-from-cmd modfile-not-builtin object-in-two-modules module-name-with-dash many-modules modinfo-missing"
)
total=0
for base in $(all_bases); do
	read -r -a more_cases <<<"${base_cases[$base]}"
	total=$((total + ${#common_cases[@]} + ${#more_cases[@]}))
done
ktap_plan "$total"

# give_module OBJECT MODULE_FILE: OBJECT (dir/x.o) is in the built-in
# module MODULE_FILE (dir/name), as BASE's build would say it.
give_module() {
	local name
	case $base in
	6.1) echo "$2.o: $1" >>builtin.objs ;;
	*)
		cmd_file "$1" "$2"
		# the module's name: '_' where its file's has '-'
		name=${2##*/}
		printf '%s.file=%s\0' "${name//-/_}" "$2" >>modinfo
		;;
	esac
}
# cmd_file OBJECT MODFILE...: OBJECT's .cmd file as kbuild writes it, its
# first line naming MODFILE(s) in -DKBUILD_MODFILE (7.2).
cmd_file() {
	local obj=$1
	shift
	mkdir -p "$(dirname "$obj")"
	printf "savedcmd_%s := gcc -Wp,-MMD -nostdinc -DKBUILD_MODFILE='\"%s\"' -DKBUILD_BASENAME='\"%s\"' -c -o %s %s\n" \
		"$obj" "$*" "$(basename "$obj" .o)" "$obj" "${obj%.o}.c" \
		>"$(dirname "$obj")/.$(basename "$obj").cmd"
}

# The good input's built-in modules: none.  On 7.2 every object names
# itself in its .cmd (kbuild compiles every object with a KBUILD_MODFILE),
# and .modinfo has only another module.
good_modules() {
	rm -rf drivers modinfo builtin.objs
	: >builtin.objs
	: >modinfo
	[ "$base" = 6.1 ] && return 0
	cmd_file drivers/a/one.o drivers/a/one
	cmd_file drivers/b/two.o drivers/b/two
	printf 'other.file=drivers/c/other\0other.license=GPL\0' >modinfo
}

for base in $(all_bases); do
	tree=$(base_build "$base")/linux
	prefix="kallsyms-input: "
	[ "$base" = 6.1 ] || prefix+="$base: "
	read -r -a more_cases <<<"${base_cases[$base]}"
	cases=("${common_cases[@]}" "${more_cases[@]}")
	if [ ! -f "$tree/scripts/kallsyms.c" ]; then
		for c in "${cases[@]}"; do
			ktap_result fail "$prefix$c" "no $tree/scripts/kallsyms.c (make tree KERNEL_BASE=$base)"
		done
		continue
	fi
	"$HOST_CC" -std=gnu11 -O1 -g "${CFLAGS_SANITIZE[@]}" -I "$tree/scripts/include" \
		-o kallsyms "$tree/scripts/kallsyms.c"
	# The kernel's decoder of the sizes, on the host.
	"$HOST_CC" -std=gnu11 -O1 -g -Wall -Wextra -Werror "${CFLAGS_SANITIZE[@]}" -I "$tree/kernel" \
		-o sizes-decode "$TOP/tests/kallsyms-input/sizes-decode.c"
	if [ "$base" = 6.1 ]; then
		modules_option=--builtin-objs=builtin.objs
	else
		modules_option=--builtin-modinfo=modinfo
	fi
	run_cases
done
