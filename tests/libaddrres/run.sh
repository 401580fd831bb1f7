#!/usr/bin/env bash
# libaddrres (the userspace library in libaddrres/), on the host:
#  1. built with ASan and UBSan, its unit tests (test_ksyms.c,
#     test_procmaps.c and test_elf.c, on the samples of fixtures/, on ELF
#     files that test_elf builds itself with fixtures/elf/build.sh ($CC or
#     cc, binutils, xz) and on this very process) linked against the
#     static library and run; their cases are this test's subtests (one
#     step per program); then the cases of decompressed DWARF against a
#     build in which libelf seems not to keep the library's buffers
#     (-DLIBADDRRES_TEST_SWAP_LOST): libelf's own decompression instead;
#  2. built with its default flags, the shared library exports exactly
#     the functions addrres.h declares, all named addrres_*;
#  3. `make install DESTDIR=... PREFIX=/usr` lays out the header, the
#     static library, the shared library's soname chain and a .pc file
#     with which pkg-config gives the flags a program builds and runs with;
#  4. a program built against release 0.1's addrres_elf__resolve() (its
#     symbol version ADDRRES_0.1) gets the answers of 0.2's;
#  5. built with LIBELF=0, the static library links into a program
#     without libdw and libelf, and its ELF part says -EOPNOTSUPP;
#  6. built with its default flags (no sanitizer's allocator), a handle's
#     stats.bytes is within 20% of the heap it grew and the files it
#     maps, on this system's libc with libc6-dbg (stats_bytes.c).
# Everything is built in a temporary directory.  Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

LIB=$TOP/libaddrres
HERE=$TOP/tests/libaddrres
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# make of the library into OUTPUT=$1, with the rest as make arguments.
lib_make() {
	local out=$1
	shift
	nice make -s -C "$LIB" OUTPUT="$out" CC="$HOST_CC" "$@"
}

# The release, as the Makefile sets it (MAJOR.MINOR.PATCH).
lib_version=$(sed -n 's/^VERSION_\(MAJOR\|MINOR\|PATCH\) := //p' "$LIB/Makefile" | paste -sd.)

ktap_plan 9

# --- 1. unit tests, with sanitizers ---------------------------------------

# Build and run the unit test program $1 (tests/libaddrres/$1.c), linked
# with the rest of the arguments after the static library.
unit_test() {
	local prog=$1 name="libaddrres: unit tests ($1)" out rc
	shift
	if [ -n "$san_failed" ]; then
		ktap_result fail "$name" "make of the library with sanitizers failed"
		return
	fi
	if ! out=$(nice "$HOST_CC" "${CFLAGS_STRICT[@]}" "${CFLAGS_SANITIZE[@]}" -I "$LIB/include" \
		-o "$work/$prog" "$HERE/$prog.c" "$work/san/libaddrres.a" "$@" 2>&1); then
		printf '%s\n' "$out" | tail -n 20 | ktap_diag
		ktap_result fail "$name" "compiling $prog.c failed"
		return
	fi
	rm -rf "$work/scratch"
	mkdir "$work/scratch"
	rc=0
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$work/$prog" "$HERE/fixtures" "$work/scratch" \
		>"$work/$prog.ktap" 2>"$work/$prog.err" || rc=$?
	# One level down: the summary counts the cases.
	sed 's/^/    /' "$work/$prog.ktap"
	if [ "$rc" = 0 ] && [ ! -s "$work/$prog.err" ]; then
		ktap_result ok "$name"
	else
		head -n 40 "$work/$prog.err" | ktap_diag
		ktap_result fail "$name" "exit $rc, or a sanitizer's report"
	fi
}

san_failed=
if ! out=$(lib_make "$work/san" EXTRA_CFLAGS="${CFLAGS_SANITIZE[*]}" 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	san_failed=1
fi
# util.c, which every part links, reads build IDs with libelf.
unit_test test_ksyms -lelf
unit_test test_procmaps -lelf
unit_test test_elf "${LIBADDRRES_ELF_LIBS[@]}"

# The library's decompression where libelf would not keep its buffers: a
# build whose check after each swap fails, the cases of decompressed DWARF
# (and the cache written from it) run against it.
name="libaddrres: zlib DWARF where libelf does not keep the library's buffers: libelf decompresses, lines right"
swap_cases=dwarf_inflate_checked,dwarf_inflated,debug_cache_dir,dwz_alt_file
if ! out=$(lib_make "$work/swap" EXTRA_CFLAGS="${CFLAGS_SANITIZE[*]} -DLIBADDRRES_TEST_SWAP_LOST" 2>&1) ||
	! out=$(nice "$HOST_CC" "${CFLAGS_STRICT[@]}" "${CFLAGS_SANITIZE[@]}" -DLIBADDRRES_TEST_SWAP_LOST \
		-I "$LIB/include" -o "$work/test_elf_swap" "$HERE/test_elf.c" "$work/swap/libaddrres.a" \
		"${LIBADDRRES_ELF_LIBS[@]}" 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	ktap_result fail "$name" "the build with -DLIBADDRRES_TEST_SWAP_LOST failed"
else
	rm -rf "$work/scratch"
	mkdir "$work/scratch"
	rc=0
	TEST_CASES=$swap_cases ASAN_OPTIONS=detect_leaks=1 "$work/test_elf_swap" "$HERE/fixtures" \
		"$work/scratch" >"$work/swap.ktap" 2>"$work/swap.err" || rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$work/swap.err" ] && ! grep -q '^not ok' "$work/swap.ktap"; then
		ktap_result ok "$name"
	else
		cat "$work/swap.ktap" "$work/swap.err" | grep -v '^ok' | sed -n '1,30p' | ktap_diag
		ktap_result fail "$name" "exit $rc, a case failed, or a sanitizer's report"
	fi
fi

# --- 2. exports ------------------------------------------------------------

name="libaddrres: libaddrres.so exports exactly the addrres_* functions of addrres.h"
plain_ok=false
if ! out=$(lib_make "$work/plain" 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	ktap_result fail "$name" "make with the default flags failed"
else
	plain_ok=true
	# Defined dynamic symbols, without their version; the version node
	# (ADDRRES_0.1, an absolute symbol) is not a function.
	exported=$(nm -D --defined-only "$work/plain/libaddrres.so" |
		awk '!($2 == "A" && $3 ~ /^ADDRRES_/) { sub(/@.*/, "", $3); print $3 }' | sort -u)
	declared=$(grep -o '\baddrres_[a-z0-9_]*(' "$LIB/include/addrres/addrres.h" | tr -d '(' | sort -u)
	mapfile -t stray < <(comm -23 <(printf '%s\n' "$exported") <(printf '%s\n' "$declared"))
	mapfile -t missing < <(comm -13 <(printf '%s\n' "$exported") <(printf '%s\n' "$declared"))
	if [ -z "$declared" ]; then
		ktap_result fail "$name" "no addrres_* function found in addrres.h"
	elif [ ${#stray[@]} != 0 ] || [ ${#missing[@]} != 0 ]; then
		{ [ ${#stray[@]} = 0 ] || printf 'exported, not declared: %s\n' "${stray[@]}"
		  [ ${#missing[@]} = 0 ] || printf 'declared, not exported: %s\n' "${missing[@]}"; } | ktap_diag
		ktap_result fail "$name" "the exports differ from addrres.h"
	else
		ktap_result ok "$name"
	fi
fi

# --- 3. install and pkg-config ---------------------------------------------

name="libaddrres: make install, pkg-config and a program linked against it"
stage=$work/stage
usr=$stage/usr
if ! command -v pkg-config >/dev/null 2>&1; then
	ktap_result skip "$name" "pkg-config is not installed"
elif ! $plain_ok; then
	ktap_result fail "$name" "make with the default flags failed"
elif ! out=$(lib_make "$work/plain" install DESTDIR="$stage" PREFIX=/usr 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	ktap_result fail "$name" "make install failed"
else
	problems=()
	for f in include/addrres/addrres.h include/addrres.h include/addrres/procmap_query.h lib/libaddrres.a \
		"lib/libaddrres.so.$lib_version" \
		lib/pkgconfig/libaddrres.pc; do
		[ -f "$usr/$f" ] && [ ! -L "$usr/$f" ] || problems+=("no file usr/$f")
	done
	[ "$(readlink "$usr/lib/libaddrres.so.0" || true)" = "libaddrres.so.$lib_version" ] ||
		problems+=("usr/lib/libaddrres.so.0 is not a link to libaddrres.so.$lib_version")
	[ "$(readlink "$usr/lib/libaddrres.so" || true)" = libaddrres.so.0 ] ||
		problems+=("usr/lib/libaddrres.so is not a link to libaddrres.so.0")
	soname=$(readelf -d "$usr/lib/libaddrres.so.$lib_version" 2>/dev/null |
		sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
	[ "$soname" = libaddrres.so.0 ] || problems+=("soname \"$soname\", not libaddrres.so.0")
	grep -qx 'prefix=/usr' "$usr/lib/pkgconfig/libaddrres.pc" 2>/dev/null ||
		problems+=("libaddrres.pc does not say prefix=/usr")

	# The staged files, through the .pc: its prefix moved to the stage.
	export PKG_CONFIG_PATH=$usr/lib/pkgconfig
	pc=(pkg-config --define-variable=prefix="$usr")
	pcdir=$("${pc[@]}" --variable=pcfiledir libaddrres 2>&1 || true)
	[ "$pcdir" = "$usr/lib/pkgconfig" ] || problems+=("pkg-config found libaddrres in \"$pcdir\"")
	version=$("${pc[@]}" --modversion libaddrres 2>&1 || true)
	[ "$version" = "$lib_version" ] || problems+=("pkg-config --modversion: \"$version\"")
	flags=()
	if ! out=$("${pc[@]}" --cflags --libs libaddrres 2>&1); then
		problems+=("pkg-config --cflags --libs failed: $out")
	elif read -r -a flags <<<"$out" && [ "${flags[*]}" != "-I$usr/include -L$usr/lib -laddrres" ]; then
		problems+=("pkg-config --cflags --libs: \"$out\"")
	else
		cat >"$work/tiny.c" <<-'EOF'
		#include <addrres/addrres.h>
		#include <stdio.h>

		int main(int argc, char **argv)
		{
			const struct addrres_ksym *sym;
			struct addrres_ksyms *ks;
			uint64_t off;

			if (argc != 3)
				return 2;
			ADDRRES_OPTS(addrres_ksyms_opts, opts, .kallmodsyms_path = argv[1],
				     .modules_path = argv[2]);
			if (addrres_ksyms__open(&opts, &ks) ||
			    addrres_ksyms__find_addr(ks, 0xffffffff81000050ULL, &sym, &off))
				return 1;
			printf("%s+0x%llx\n", sym->name, (unsigned long long)off);
			addrres_ksyms__free(ks);
			return 0;
		}
		EOF
		if ! out=$(nice "$HOST_CC" "${CFLAGS_STRICT[@]}" -o "$work/tiny" "$work/tiny.c" \
			"${flags[@]}" 2>&1); then
			problems+=("the program does not build: $(printf '%s' "$out" | sed -n '1,3p')")
		elif ! readelf -d "$work/tiny" | grep 'Shared library: \[libaddrres.so.0\]' >/dev/null; then
			problems+=("the program does not use libaddrres.so.0")
		elif ! out=$(LD_LIBRARY_PATH=$usr/lib "$work/tiny" "$HERE/fixtures/kallmodsyms" \
			"$HERE/fixtures/modules" 2>&1); then
			problems+=("the program failed: $out")
		elif [ "$out" != "__startup_64+0x10" ]; then
			problems+=("the program printed \"$out\", not __startup_64+0x10")
		fi
		# A static program, through pkg-config --static alone: the ELF
		# part pulls in libdw, which needs what its own .pc says.
		cat >"$work/tiny-static.c" <<-'EOF'
		#include <addrres.h>	/* the name 0.2 installed: it still works */
		#include <stdio.h>

		int main(int argc, char **argv)
		{
			const struct addrres_elf_sym *sym;
			struct addrres_elf *e;
			uint64_t addr = (uintptr_t)main;

			ADDRRES_OPTS(addrres_elf_resolve_opts, ro, .elf_addrs = 1);
			if (argc != 1 || addrres_elf__open(NULL, &e) ||
			    addrres_elf__resolve(e, argv[0], &addr, 1, &sym, &ro) || !sym)
				return 1;
			printf("%s\n", sym->name);
			addrres_elf__free(e);
			return 0;
		}
		EOF
		sflags=()
		if ! out=$("${pc[@]}" --static --cflags --libs libaddrres 2>&1) ||
			! read -r -a sflags <<<"$out"; then
			problems+=("pkg-config --static --cflags --libs failed: $out")
		elif ! out=$(nice "$HOST_CC" "${CFLAGS_STRICT[@]}" -static -o "$work/tiny-static" \
			"$work/tiny-static.c" "${sflags[@]}" 2>&1); then
			problems+=("a static program does not link with pkg-config --static alone: $(printf '%s\n' "$out" | grep -m1 'undefined reference' || printf '%s' "$out" | sed -n '1,2p')")
		elif readelf -d "$work/tiny-static" 2>/dev/null | grep NEEDED >/dev/null; then
			problems+=("the static program needs shared libraries")
		elif ! out=$("$work/tiny-static" 2>&1) || [ "$out" != main ]; then
			problems+=("the static program printed \"$out\", not main")
		fi
	fi
	if [ ${#problems[@]} = 0 ]; then
		ktap_result ok "$name"
	else
		printf '%s\n' "${problems[@]}" | ktap_diag
		ktap_result fail "$name" "${problems[0]}"
	fi
fi

# --- 4. programs built against releases 0.1 and 0.2 -------------------------

# addrres_elf__resolve() took the build ID as arguments in 0.1: such a
# program binds addrres_elf__resolve@ADDRRES_0.1, which must give the
# answers of the later forms, and pass the build ID on (-ESTALE for
# another).  0.3 reads object files; a program built against 0.1 or 0.2
# keeps their answer for one, -ENOEXEC (and never gets an answer whose
# section field its library would not have had).
name="libaddrres: programs built against 0.1 and 0.2 keep their addrres_elf__resolve, object files refused"
if ! $plain_ok; then
	ktap_result fail "$name" "make with the default flags failed"
else
	cat >"$work/abi01.c" <<-'EOF'
	#include <addrres.h>
	#include <errno.h>
	#include <stdio.h>
	#include <string.h>

	/* 0.1's prototype, bound to its version as a program linked then is. */
	int resolve_0_1(struct addrres_elf *e, const char *path, const unsigned char *id,
			size_t id_size, const uint64_t *offs, size_t n,
			const struct addrres_elf_sym **syms);
	__asm__(".symver resolve_0_1, addrres_elf__resolve@ADDRRES_0.1");
	/* 0.2's, the same prototype as 0.3's. */
	int resolve_0_2(struct addrres_elf *e, const char *path, const uint64_t *offs, size_t n,
			const struct addrres_elf_sym **syms,
			const struct addrres_elf_resolve_opts *opts);
	__asm__(".symver resolve_0_2, addrres_elf__resolve@ADDRRES_0.2");

	static int same(const struct addrres_elf_sym *a, const struct addrres_elf_sym *b)
	{
		if (!a || !b)
			return a == b;
		return !a->name == !b->name && (!a->name || !strcmp(a->name, b->name)) &&
		       a->offset == b->offset;
	}

	int main(int argc, char **argv)
	{
		const struct addrres_elf_sym *got[64], **old;
		unsigned char other[1] = { 0 };
		struct addrres_elf *e;
		uint64_t offs[64];
		int named = 0;

		if (argc != 3 || addrres_elf__open(NULL, &e))
			return 2;
		/* Spread over the loaded part: the library's own code is past 0x4000. */
		for (int i = 0; i < 64; i++)
			offs[i] = 0x4000 + (uint64_t)i * 0x200;
		if (resolve_0_1(e, argv[1], NULL, 0, offs, 64, got) ||
		    addrres_elf_syms__dup(got, 64, &old))
			return 3;
		if (addrres_elf__resolve(e, argv[1], offs, 64, got, NULL))
			return 4;
		for (int i = 0; i < 64; i++) {
			if (!same(old[i], got[i])) {
				printf("offset 0x%llx: the two forms differ\n",
				       (unsigned long long)offs[i]);
				return 5;
			}
			named += old[i] && old[i]->name;
		}
		if (resolve_0_1(e, argv[1], other, 1, offs, 1, got) != -ESTALE)
			return 6;
		if (resolve_0_2(e, argv[1], offs, 64, got, NULL) || !same(old[1], got[1]))
			return 8;
		/* an object file (argv[2]): 0.1 and 0.2 refuse it, 0.3 reads its sections */
		if (resolve_0_1(e, argv[2], NULL, 0, offs, 1, got) != -ENOEXEC ||
		    resolve_0_2(e, argv[2], offs, 1, got, NULL) != -ENOEXEC)
			return 9;
		{
			ADDRRES_OPTS(addrres_elf_resolve_opts, text, .section = ".text");

			offs[0] = 0;
			if (addrres_elf__resolve(e, argv[2], offs, 1, got, &text) || !got[0] ||
			    !got[0]->section || strcmp(got[0]->section, ".text"))
				return 10;
		}
		printf("%d named\n", named);
		addrres_elf_syms__free(old);
		addrres_elf__free(e);
		return named ? 0 : 7;
	}
	EOF
	so=$work/plain/libaddrres.so.$lib_version
	rc=0
	if ! out=$(nice "$HOST_CC" "${CFLAGS_STRICT[@]}" -I "$LIB/include" -o "$work/abi01" \
		"$work/abi01.c" -L "$work/plain" -laddrres 2>&1); then
		printf '%s\n' "$out" | tail -n 20 | ktap_diag
		ktap_result fail "$name" "the program does not build"
	elif ! nm -D "$work/abi01" | grep ' U addrres_elf__resolve@ADDRRES_0\.1$' >/dev/null ||
		! nm -D "$work/abi01" | grep ' U addrres_elf__resolve@ADDRRES_0\.2$' >/dev/null ||
		! nm -D "$work/abi01" | grep ' U addrres_elf__resolve@ADDRRES_0\.3$' >/dev/null; then
		nm -D "$work/abi01" | grep addrres_ | ktap_diag
		ktap_result fail "$name" "the program does not bind addrres_elf__resolve@ADDRRES_0.1, 0.2 and 0.3"
	elif ! nice "$HOST_CC" -g -c -o "$work/abi01.o" "$work/abi01.c" -I "$LIB/include"; then
		ktap_result fail "$name" "the object file does not build"
	elif out=$(LD_LIBRARY_PATH=$work/plain "$work/abi01" "$so" "$work/abi01.o" 2>&1) ||
		rc=$? && [ "$rc" != 0 ]; then
		printf '%s\n' "$out" | ktap_diag
		ktap_result fail "$name" "exit $rc"
	else
		ktap_result ok "$name ($out of 64 offsets)"
	fi
fi

# --- 5. LIBELF=0 -----------------------------------------------------------

name="libaddrres: LIBELF=0 links without libdw and libelf, and its ELF part says -EOPNOTSUPP"
if ! out=$(lib_make "$work/noelf-lib" LIBELF=0 "$work/noelf-lib/libaddrres.a" 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	ktap_result fail "$name" "make LIBELF=0 failed"
else
	cat >"$work/noelf.c" <<-'EOF'
	#include <addrres.h>
	#include <errno.h>
	#include <stdio.h>

	int main(void)
	{
		struct addrres_elf *e = (struct addrres_elf *)1;
		char msg[128];
		ADDRRES_OPTS(addrres_elf_opts, opts, .errbuf = msg, .errbuf_sz = sizeof(msg));
		int err = addrres_elf__open(&opts, &e);

		printf("%d %s %s\n", err == -EOPNOTSUPP, e ? "handle" : "NULL", msg);
		return 0;
	}
	EOF
	if ! out=$(nice "$HOST_CC" "${CFLAGS_STRICT[@]}" -I "$LIB/include" -o "$work/noelf" \
		"$work/noelf.c" "$work/noelf-lib/libaddrres.a" 2>&1); then
		printf '%s\n' "$out" | tail -n 20 | ktap_diag
		ktap_result fail "$name" "a program does not link against it without ${LIBADDRRES_ELF_LIBS[*]}"
	elif ! out=$("$work/noelf" 2>&1) || [ "${out%% (*}" != "1 NULL addrres_elf__open: libaddrres was built without elfutils" ]; then
		printf '%s\n' "$out" | ktap_diag
		ktap_result fail "$name" "addrres_elf__open() did not fail with -EOPNOTSUPP"
	else
		ktap_result ok "$name"
	fi
fi

# --- 6. stats.bytes against the heap ----------------------------------------

name="libaddrres: stats.bytes is what a handle holds (libc with libc6-dbg, 30 to 3,000 addresses)"
libc=$(ldd /bin/true | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if ! $plain_ok; then
	ktap_result fail "$name" "make with the default flags failed"
elif [ ! -f "$debug" ]; then
	ktap_result fail "$name" "no $debug: libc6-dbg is not installed (make deps)"
elif ! out=$(nice "$HOST_CC" "${CFLAGS_STRICT[@]}" -O2 -I "$LIB/include" -o "$work/stats_bytes" \
	"$HERE/stats_bytes.c" "$work/plain/libaddrres.a" "${LIBADDRRES_ELF_LIBS[@]}" 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	ktap_result fail "$name" "stats_bytes.c does not build"
elif ! out=$("$work/stats_bytes" "$libc" "$debug" 2>&1); then
	printf '%s\n' "$out" | ktap_diag
	ktap_result fail "$name" "stats.bytes is more than 20% off: $(printf '%s' "$out" | tail -n 1)"
else
	printf '%s\n' "$out" | ktap_diag
	ktap_result ok "$name"
fi
