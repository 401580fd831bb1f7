#!/usr/bin/env bash
# libaddrres's text parsers under libFuzzer (clang's), one test per target:
#   fuzz_ksyms     addrres_ksyms__open() on kallmodsyms/kallsyms text and a
#                  modules list, then find_addr, find_name and format on
#                  what it parsed;
#   fuzz_procmaps  addrres_procmaps__resolve() on maps text (METHOD_TEXT,
#                  small text_read_size values included);
#   fuzz_elf       addrres_elf__resolve() on mutated ELF files and debug
#                  files, seeded with tests/libaddrres/fixtures/elf/'s.
# Each target checks the library against a reference written from
# addrres.h and aborts on a difference (see the comments of fuzz_*.c).
#
# The library is built with clang -fsanitize=fuzzer-no-link,address,undefined
# (lib.sh's CFLAGS_SANITIZE, and the coverage that libFuzzer steers by)
# and LIBELF=0 for the text parsers (the text path then reads no build
# IDs: no input makes the library open a mapped file), with elfutils for
# fuzz_elf (elfutils itself is not instrumented: libFuzzer steers by the
# library's code), in a temporary directory with everything else.  For
# each target:
#  1. replay its regression inputs (regress-TARGET/, committed: one per
#     bug found) and the seeds made from tests/libaddrres/fixtures/;
#     a failure there fails the test;
#  2. fuzz for FUZZ_SECONDS (default 60; 0 replays only) from those, new
#     inputs going to a temporary corpus.
# The targets run side by side.
# A failure keeps the reproducer, the target and its log in
# build/libaddrres-fuzz/ and names them in the KTAP diagnostics; once the
# bug is fixed, the reproducer goes to regress-TARGET/.  Without clang or
# its libFuzzer runtime (libclang-rt-14-dev: make deps) the tests are
# skipped.  FUZZ_CC names another clang.  Prints KTAP.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/ktap.sh
. "$TOP/scripts/ktap.sh"

LIB=$TOP/libaddrres
HERE=$TOP/tests/libaddrres-fuzz
FIXTURES=$TOP/tests/libaddrres/fixtures
KEEP=$BUILD_DIR/libaddrres-fuzz
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
# Seconds one input may take before libFuzzer calls it a hang: each takes
# milliseconds, but a busy host with sanitizers can stall one for seconds.
INPUT_TIMEOUT=60
targets=(ksyms procmaps elf)
# Inputs up to: some 200 symbol lines; a maps line longer than the read
# buffer of the smallest text_read_size (PATH_MAX + 256 + 1 bytes).
declare -A max_len=([ksyms]=4096 [procmaps]=8192 [elf]=65536)
# What each target links besides the library (elfutils and libiberty for fuzz_elf).
declare -A libs=([ksyms]="" [procmaps]="" [elf]="${LIBADDRRES_ELF_LIBS[*]}")
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ktap_plan ${#targets[@]}

# Every target's test fails, or is skipped, for one reason.
all_results() { # verdict reason
	local t
	for t in "${targets[@]}"; do
		ktap_result "$1" "libaddrres-fuzz: fuzz_$t" "$2"
	done
}

if ! [[ $FUZZ_SECONDS =~ ^[0-9]+$ ]]; then
	all_results fail "FUZZ_SECONDS=$FUZZ_SECONDS is not a number of seconds"
	exit 0
fi

# --- the compiler and its libFuzzer runtime --------------------------------

cc=${FUZZ_CC:-}
if [ -z "$cc" ]; then
	for c in clang clang-14; do
		if command -v "$c" >/dev/null 2>&1; then
			cc=$c
			break
		fi
	done
fi
if [ -z "$cc" ] || ! command -v "$cc" >/dev/null 2>&1; then
	all_results skip "no clang${cc:+ ($cc)} to build libFuzzer targets with: make deps installs it"
	exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
	>"$work/probe.c"
if ! out=$(nice "$cc" -fsanitize=fuzzer "${CFLAGS_SANITIZE[@]}" -o "$work/probe" "$work/probe.c" 2>&1); then
	printf '%s\n' "$out" | tail -n 5 | ktap_diag
	all_results skip "$cc cannot link -fsanitize=fuzzer: not clang, or no libFuzzer runtime (libclang-rt-14-dev: make deps installs it)"
	exit 0
fi

# --- the library and the targets -------------------------------------------

# Only the static library: the shared one would not link (-z defs) without
# the sanitizers' runtimes, which only a program gets.
if ! out=$(nice make -s -C "$LIB" OUTPUT="$work/lib" CC="$cc" LIBELF=0 \
	EXTRA_CFLAGS="-fsanitize=fuzzer-no-link ${CFLAGS_SANITIZE[*]}" "$work/lib/libaddrres.a" 2>&1) ||
	! out=$(nice make -s -C "$LIB" OUTPUT="$work/lib-elf" CC="$cc" \
	EXTRA_CFLAGS="-fsanitize=fuzzer-no-link ${CFLAGS_SANITIZE[*]}" "$work/lib-elf/libaddrres.a" 2>&1); then
	printf '%s\n' "$out" | tail -n 20 | ktap_diag
	all_results fail "make of the library with $cc and the sanitizers failed"
	exit 0
fi
declare -A lib_dir=([ksyms]=lib [procmaps]=lib [elf]=lib-elf)

# --- the seeds: the fixtures of tests/libaddrres, with a header each --------

# A seed file $1 of header bytes $2 (printf escapes) and the sections that
# follow: files, "@@" between them.
seed() { # out header file...
	local out=$1 header=$2 first=1 f
	shift 2
	{
		# shellcheck disable=SC2059 # the header is escapes for printf
		printf "$header"
		for f in "$@"; do
			[ -n "$first" ] || printf '@@\n'
			first=
			cat "$f"
		done
	} >"$out"
}

mkdir -p "$work/seeds/ksyms" "$work/seeds/procmaps" "$work/seeds/elf"
# Queries of fuzz_ksyms, after the symbols and modules files.
cat >"$work/queries" <<'EOF'
helper
helper [ext4]
=helper [test_module]
init_one {x.o}
=init_one {dir/x.o}
uncore_msr_box_offset [intel-uncore] {uncore.o}
uclogic_params_init	[hid_uclogic] [hid-uclogic-test]
 _text
broken [x
twice {a} {b}
EOF
# The header of fuzz_ksyms: flags, a small size, an address delta.
k=$work/seeds/ksyms
seed "$k/kallmodsyms" '\014\007\020\000' "$FIXTURES/kallmodsyms" "$FIXTURES/modules" "$work/queries"
seed "$k/kallmodsyms-no-modules" '\002\000\001\000' "$FIXTURES/kallmodsyms" "$work/queries"
seed "$k/kallsyms" '\011\003\000\001' "$FIXTURES/kallsyms" "$FIXTURES/modules" "$work/queries"
seed "$k/kallsyms-source" '\021\000\000\000' "$FIXTURES/kallsyms" "$FIXTURES/modules"
seed "$k/kallmodsyms-source" '\020\000\000\000' "$FIXTURES/kallmodsyms" "$FIXTURES/modules"
seed "$k/restricted" '\000\000\000\000' "$FIXTURES/restricted" "$FIXTURES/modules" "$work/queries"
seed "$k/empty" '\000\000\000\000' "$FIXTURES/empty" "$FIXTURES/empty" "$work/queries"
seed "$k/corrupt.modules" '\004\011\000\000' "$FIXTURES/kallmodsyms" "$FIXTURES/corrupt.modules"
# Larger than the fuzzing's inputs (-max_len cuts them there), for the
# replay: more symbols than the first allocation holds (4096), some in
# loaded modules, names hashed to long chains; a name larger than a chunk
# of the string arena (64 KiB) after one that is not.
awk 'BEGIN {
	for (i = 0; i < 5000; i++)
		printf "%x %s s%d%s\n", 4096 + 16 * i, i % 5 ? "t" : "T", i % 1000,
			i % 7 ? "" : "\t[m" i % 3 "]"
	print "@@"
	print "m0 16384 0 - Live 0x0"
	print "@@"
	print "s7"
	print "s7 [m1]"
}' | { printf '\000\000\020\000'; cat; } >"$k/many-symbols"
{
	printf '\014\000\000\000ffffffff81000000 T _stext\nffffffff81000010 T '
	printf '%070000d\n' 0
} >"$k/long-name"
for f in "$FIXTURES"/corrupt-*.kallmodsyms; do
	seed "$k/$(basename "$f")" '\004\023\000\000' "$f" "$FIXTURES/modules"
done
for f in "$FIXTURES"/corrupt-*.kallsyms; do
	seed "$k/$(basename "$f")" '\005\005\000\000' "$f"
done
# The header of fuzz_procmaps: text_read_size, flags, the line selectors.
p=$work/seeds/procmaps
seed "$p/maps" '\000\016\377\377\377\377\377\377' "$FIXTURES/maps"
seed "$p/maps-read-1" '\001\001\125\125\125\125\125\125' "$FIXTURES/maps"
seed "$p/maps-read-7" '\007\060\252\252\252\252\252\252' "$FIXTURES/maps"
seed "$p/maps-read-64" '\100\006\344\344\344\344\344\344' "$FIXTURES/maps"
seed "$p/maps-auto" '\003\144\377\377\377\377\377\377' "$FIXTURES/maps"
# A line longer than the read buffer of text_read_size 1, which must grow;
# one longer than that of the default size (64 KiB) and than a chunk of
# the names (32 KiB), beyond -max_len, between lines with many addresses.
{
	printf '\001\000\003\000\000\000\000\000'
	printf '7f0000000000-7f0000001000 r--p 00000000 08:01 42 /'
	printf '%05000d\n' 0
} >"$p/long-line"
{
	printf '\000\200\077\000\000\000\000\000'
	printf '7f0000000000-7f0000001000 r--p 00000000 08:01 42 /lib\n'
	printf '7f0000001000-7f0000002000 r--p 00000000 08:01 43 /'
	printf '%070000d\n' 0
	printf '7f0000003000-7f0000004000 r--p 00000000 08:01 44 /lib\n'
} >"$p/huge-line"
for f in "$FIXTURES"/corrupt-*.maps; do
	seed "$p/$(basename "$f")" '\000\000\377\377\377\377\377\377' "$f"
	seed "$p/$(basename "$f" .maps)-read-5.maps" '\005\025\125\125\125\125\125\125' "$f"
done

# The header of fuzz_elf: flags (file offsets or ELF addresses, a debug
# file after "@@"), the seeds of the offsets; the files of test_elf.c.
e=$work/seeds/elf
if sh "$FIXTURES/elf/build.sh" "$work/elf" >"$work/elf.log" 2>&1; then
	for f in pie nopie lib.so lib-stripped.so lib-minidebuginfo.so lib-nobid-stripped.so \
		names.so syms.so syms-huge.so; do
		seed "$e/$f" '\000\001\020\040\100\002\003\004' "$work/elf/$f"
		seed "$e/$f.addrs" '\001\001\020\040\100\002\003\004' "$work/elf/$f"
	done
	# What a local user could plant where the debug file is looked for
	# (flag 32; byte 7: a FIFO, /dev/zero, /dev/null, a directory).
	for kind in 0 1 2 3; do
		seed "$e/lib-stripped.hostile-$kind" "\040\001\020\040\100\002\003\00$kind" \
			"$work/elf/lib-stripped.so"
		seed "$e/lib-nobid-stripped.hostile-$kind" "\040\001\020\040\100\002\003\00$kind" \
			"$work/elf/lib-nobid-stripped.so"
	done
	id=$(cat "$work/elf/lib.so.build-id")
	seed "$e/lib-stripped+debug" '\010\001\020\040\100\002\003\004' "$work/elf/lib-stripped.so" \
		"$work/elf/debug/.build-id/${id:0:2}/${id:2}.debug"
	seed "$e/lib-stripped+zlib-debug" '\010\001\020\040\100\002\003\004' \
		"$work/elf/lib-stripped.so" "$work/elf/debug-z/.build-id/${id:0:2}/${id:2}.debug"
	# Object files by section (flag 16; byte 7 picks .text or .text.names_outer):
	# one without a build ID, one with, one stripped with its debug file.
	seed "$e/lib.o" '\020\001\002\003\004\005\006\000' "$work/elf/lib.o"
	seed "$e/names-fs.o" '\020\000\001\002\003\004\005\001' "$work/elf/names-fs.o"
	id=$(cat "$work/elf/names-fs.o.build-id")
	seed "$e/names-fs-stripped+debug" '\030\000\001\002\003\004\005\001' \
		"$work/elf/names-fs-stripped.o" "$work/elf/debug-obj/.build-id/${id:0:2}/${id:2}.debug"
	# A shared library that says it is an object file (e_type 1): program
	# headers, and sections that have addresses, where libdwfl lays out.
	cp "$work/elf/lib.so" "$work/elf/lib-as-object"
	printf '\001\000' | dd of="$work/elf/lib-as-object" bs=1 seek=16 conv=notrunc status=none
	seed "$e/lib-as-object" '\020\001\002\003\004\005\006\000' "$work/elf/lib-as-object"
else
	tail -n 5 "$work/elf.log" >&2
	# Without them fuzz_elf starts from nothing: said, not hidden.
	printf 'fuzz_elf: tests/libaddrres/fixtures/elf/build.sh failed: no seeds\n' >&2
fi

# --- each target -----------------------------------------------------------

# The report in log $1: from the first line of the target's own message,
# a sanitizer's or libFuzzer's, to libFuzzer's SUMMARY line (the input
# follows it, in hex and base64), without the stack frames of libFuzzer,
# libc and abort(); at most 25 lines.
report() { # log
	local at
	at=$(grep -n -m 1 -E 'INVARIANT VIOLATED|ERROR: |runtime error' "$1" | cut -d: -f1 || true)
	tail -n +"${at:-1}" "$1" | sed '/^SUMMARY: /q' |
		grep -v -E '^ *#[0-9]+ .*( in (fuzzer::|__libc_start|_start |main |__sanitizer_print_stack_trace|__pthread_kill|raise|abort )|libc\.so)|^NOTE: libFuzzer|^ *Combine libFuzzer|^$' |
		head -n 25 || true
}

# Keep file $2 of target $1 (and the target and log $3) in KEEP; its path.
keep() { # target file log
	mkdir -p "$KEEP"
	cp "$work/fuzz_$1" "$KEEP/fuzz_$1"
	cp "$3" "$KEEP/fuzz_$1.log"
	cp "$2" "$KEEP/fuzz_$1-$(basename "$2")"
	echo "$KEEP/fuzz_$1-$(basename "$2")"
}

fuzz_target() { # target
	local t=$1 name="libaddrres-fuzz: fuzz_$1" bin=$work/fuzz_$1 out rc log kept
	local corpora=() inputs=() artifact stats start link=()
	read -r -a link <<<"${libs[$t]}"
	if ! out=$(nice "$cc" "${CFLAGS_STRICT[@]}" -fsanitize=fuzzer "${CFLAGS_SANITIZE[@]}" \
		-I "$LIB/include" -o "$bin" "$HERE/fuzz_$t.c" "$work/${lib_dir[$t]}/libaddrres.a" \
		"${link[@]}" 2>&1); then
		printf '%s\n' "$out" | tail -n 20 | ktap_diag
		ktap_result fail "$name" "compiling fuzz_$t.c failed"
		return
	fi
	corpora=("$work/seeds/$t")
	[ ! -d "$HERE/regress-$t" ] || corpora+=("$HERE/regress-$t")

	# 1. Each input once: the regression inputs, then the seeds.
	log=$work/$t.replay.log
	mapfile -t inputs < <(find "${corpora[@]}" -type f | sort)
	rc=0
	nice "$bin" -timeout="$INPUT_TIMEOUT" -rss_limit_mb=2048 "${inputs[@]}" >"$log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		artifact=$(sed -n 's/^Running: //p' "$log" | tail -n 1)
		kept=$(keep "$t" "$artifact" "$log")
		{
			echo "replaying $artifact failed (exit $rc); kept as $kept"
			echo "replay: $KEEP/fuzz_$t $kept"
			report "$log"
		} | ktap_diag
		ktap_result fail "$name" "a regression input or seed fails: $(basename "$artifact")"
		return
	fi
	if [ "$FUZZ_SECONDS" = 0 ]; then
		ktap_diag "fuzz_$t: replayed ${#inputs[@]} inputs; FUZZ_SECONDS=0: no fuzzing"
		ktap_result ok "$name"
		return
	fi

	# 2. Fuzz, new inputs to a corpus of the run's own.
	mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
	log=$work/$t.fuzz.log
	rc=0
	start=$SECONDS
	nice "$bin" -max_total_time="$FUZZ_SECONDS" -max_len="${max_len[$t]}" -timeout="$INPUT_TIMEOUT" \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/$t/" \
		"$work/corpus/$t" "${corpora[@]}" >"$log" 2>&1 || rc=$?
	# "#N DONE cov: C ft: F corp: U/S exec/s: E ..." and the final stats.
	stats=$(grep -E '^#[0-9]+' "$log" | tail -n 1 |
		sed -E 's/^#([0-9]+)[[:space:]]+[A-Z]+[[:space:]]+cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+)\/([^ ]+).*/\1 runs, cov \2 ft \3, corpus \4 inputs (\5)/' || true)
	stats+=", $(sed -n 's/^stat::average_exec_per_sec:[[:space:]]*//p' "$log" | tail -n 1) exec/s"
	stats+=" in $((SECONDS - start)) s, peak RSS $(sed -n 's/^stat::peak_rss_mb:[[:space:]]*//p' "$log" | tail -n 1) MB"
	if [ "$rc" = 0 ]; then
		ktap_diag "fuzz_$t: $stats"
		ktap_result ok "$name"
		return
	fi
	artifact=$(find "$work/artifacts/$t" -type f | sed -n '1,1p' || true)
	if [ -z "$artifact" ]; then
		{
			echo "libFuzzer exited $rc without a reproducer; its log:"
			tail -n 25 "$log"
		} | ktap_diag
		ktap_result fail "$name" "libFuzzer exited $rc"
		return
	fi
	kept=$(keep "$t" "$artifact" "$log")
	{
		echo "reproducer: $kept ($(wc -c <"$artifact") bytes); log: $KEEP/fuzz_$t.log"
		echo "replay: $KEEP/fuzz_$t $kept"
		echo "$stats"
		report "$log"
	} | ktap_diag
	ktap_result fail "$name" "$(basename "$artifact" | sed 's/-.*//') found in $((SECONDS - start)) s: reproducer $kept"
}

# The targets side by side, one CPU each; their results in target order,
# numbered as if one after the other (each gives exactly one).
i=0
pids=()
for t in "${targets[@]}"; do
	(KTAP_NUMBER=$i fuzz_target "$t") >"$work/$t.ktap" &
	pids+=($!)
	i=$((i + 1))
done
for pid in "${pids[@]}"; do
	wait "$pid" || true
done
for t in "${targets[@]}"; do
	cat "$work/$t.ktap"
done
