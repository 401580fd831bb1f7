#!/usr/bin/env bash
# elf-bench (bench/elf-bench.c, README.md "elf-bench"), on the host:
# libaddrres against llvm-symbolizer and eu-addr2line, source lines and
# inlined functions on, the same addresses for the three, on
#  (a) a PIE and two shared libraries built here, -O2 -g, with functions
#      that inline others (generated: 600 functions a file);
#  (b) a C++ program (tests/libaddrres/fixtures/elf/cxx.cc), -O2 -g, built
#      with g++ and with clang++, at four points of each function;
#  (c) Debian's libc with its libc6-dbg debug file (DWARF compressed), at
#      3,000 function addresses (the middle of each function, evenly
#      chosen among them).
#   bench/elf-bench.sh [-r RUNS]
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

runs=7
while getopts r: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	*) die "usage: $0 [-r RUNS]" ;;
	esac
done

out=$BUILD_DIR/elf-bench
rm -rf "$out/gen" "$out/cache"
mkdir -p "$out/gen"
make -s -C "$TOP/libaddrres" OUTPUT="$out/libaddrres" CC="$HOST_CC" ||
	die "cannot build libaddrres for the host"
"$HOST_CC" "${CFLAGS_STRICT[@]}" -O2 -I "$TOP/libaddrres/include" -o "$out/elf-bench" \
	"$TOP/bench/elf-bench.c" "$out/libaddrres/libaddrres.a" "${LIBADDRRES_ELF_LIBS[@]}" ||
	die "cannot build bench/elf-bench.c for the host"

# gen_source NAME: 600 functions, each calling two static inline helpers
# (one inlined into the other), as an optimising compiler lays out a
# typical C library.
gen_source() {
	local name=$1
	{
		echo "volatile int ${name}_sink;"
		for ((i = 0; i < 600; i++)); do
			cat <<-EOF
			static inline __attribute__((always_inline)) int ${name}_leaf_$i(int x)
			{
				return x * $((i % 7 + 2)) + ${name}_sink;
			}
			static inline __attribute__((always_inline)) int ${name}_mid_$i(int x)
			{
				int y = ${name}_leaf_$i(x + $i);

				return y > $i ? y - ${name}_sink : y + 1;
			}
			__attribute__((noinline)) int ${name}_fn_$i(int x)
			{
				int s = 0;

				for (int k = 0; k < x; k++)
					s += ${name}_mid_$i(k) ^ ${name}_sink;
				return s;
			}
			EOF
		done
	} >"$out/gen/$name.c"
}

# mid_addrs FILE: the middle of each sized function, as hex ELF addresses.
mid_addrs() {
	nm -S --defined-only "$1" 2>/dev/null |
		awk '($3 == "T" || $3 == "t" || $3 == "W" || $3 == "i") && $2 != "" {
			printf "%x\n", strtonum("0x" $1) + int(strtonum("0x" $2) / 2) }' | sort -u
}

# every_nth FILE COUNT: COUNT lines of FILE, evenly spread.
every_nth() {
	local total
	total=$(wc -l <"$1")
	awk -v step=$((total > $2 ? total / $2 : 1)) -v max="$2" \
		'(NR - 1) % step == 0 && n < max { print; n++ }' "$1"
}

bench() {
	local label=$1 file=$2 addrs=$3
	shift 3
	echo "## $label"
	"$out/elf-bench" -r "$runs" -C "$out/cache" "$@" "$file" "$addrs"
	echo
}

echo "# elf-bench: libaddrres, llvm-symbolizer, eu-addr2line (host, $(uname -r))"
for tool in /usr/bin/llvm-symbolizer /usr/bin/eu-addr2line; do
	[ -x "$tool" ] || { echo "elf-bench skipped: no $tool (Debian's llvm and elfutils)"; exit 0; }
done

# (a) a PIE and its shared libraries, -O2 -g, built here.
for name in libbencha libbenchb prog; do
	gen_source "$name"
done
(cd "$out/gen" && "$HOST_CC" -O2 -g -fPIC -shared -o libbencha.so libbencha.c &&
	"$HOST_CC" -O2 -g -fPIC -shared -o libbenchb.so libbenchb.c &&
	printf 'int prog_fn_0(int);\nint main(int c, char **v) { (void)v; return prog_fn_0(c); }\n' >main.c &&
	"$HOST_CC" -O2 -g -fPIE -pie -o prog prog.c main.c -L. -lbencha -lbenchb) ||
	die "cannot build the generated program"
for f in prog libbencha.so libbenchb.so; do
	mid_addrs "$out/gen/$f" >"$out/gen/$f.addrs"
	bench "(a) $f: a -O2 -g PIE or shared library built here" "$out/gen/$f" "$out/gen/$f.addrs"
done

# (b) a C++ program (templates, the standard library, lambdas), -O2 -g,
# built with g++ and with clang++ (whose units have no .debug_aranges),
# asked at four points of each function.
spread_addrs() {
	nm -S --defined-only "$1" 2>/dev/null |
		awk '($3 == "T" || $3 == "t" || $3 == "W") && $2 != "" {
			a = strtonum("0x" $1); s = strtonum("0x" $2)
			for (k = 0; k < 4; k++) printf "%x\n", a + int(s * k / 4) }' | sort -u
}
cxx_src=$TOP/tests/libaddrres/fixtures/elf/cxx.cc
for cxx in g++ clang++; do
	bin=$out/gen/cxx-$cxx
	"$cxx" -O2 -g -o "$bin" "$cxx_src" || die "cannot build $cxx_src with $cxx"
	spread_addrs "$bin" >"$bin.addrs"
	bench "(b) tests/libaddrres/fixtures/elf/cxx.cc, $cxx -O2 -g ($(wc -l <"$bin.addrs") addresses)" "$bin" "$bin.addrs"
done

# (c) Debian's libc, its DWARF in libc6-dbg's debug file.
libc=$(ldd /bin/true | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
id=$(readelf -n "$libc" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if [ ! -f "$debug" ]; then
	echo "## (c) libc: skipped: no $debug (Debian's libc6-dbg is not installed)"
	exit 0
fi
mid_addrs "$debug" >"$out/libc.all"
every_nth "$out/libc.all" 3000 >"$out/libc.addrs"
bench "(c) $libc with libc6-dbg ($(wc -l <"$out/libc.addrs") function addresses)" \
	"$libc" "$out/libc.addrs"
