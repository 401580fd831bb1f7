# shellcheck shell=bash disable=SC2034 # the settings are for the scripts that source it
# Shared settings and helpers for the scripts in this directory.
# Source it; it sets no shell options of its own.  ARCH (default x86_64)
# selects the architecture from config/arch/.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# shellcheck source=../config/base.conf
. "$TOP/config/base.conf"
# shellcheck source=../config/identity.conf
. "$TOP/config/identity.conf"
# shellcheck source=../config/upstream.conf
. "$TOP/config/upstream.conf"
# shellcheck source=../config/mainline.conf
. "$TOP/config/mainline.conf"
# shellcheck source=../config/test.conf
. "$TOP/config/test.conf"

# The architectures the harness knows: one description each in
# config/arch/.  ARCH picks one (make ARCH=arm64 ...); commands that build
# or boot a single kernel default to x86_64.
all_arches() {
	local f
	for f in "$TOP"/config/arch/*.conf; do
		basename "$f" .conf
	done
}
ARCH=${ARCH:-x86_64}
[ -f "$TOP/config/arch/$ARCH.conf" ] ||
	{ printf 'error: ARCH=%s: no config/arch/%s.conf; known: %s\n' "$ARCH" "$ARCH" "$(all_arches | tr '\n' ' ')" >&2; exit 1; }
# shellcheck source=../config/arch/x86_64.conf
. "$TOP/config/arch/$ARCH.conf"

# The kernel base the series is applied to, each with its own series in
# patches/<base>/ and its own tree and builds: KERNEL_BASE=7.2 is mainline
# (config/mainline.conf), where the features are merged, and 6.1 (the
# default, config/base.conf) their backport to the LTS kernel.  The
# BASE_* settings below are those of the base chosen.
KERNEL_BASE=${KERNEL_BASE:-6.1}
all_bases() { printf '%s\n' 7.2 6.1; }
case $KERNEL_BASE in
6.1) BASE_CONF=config/base.conf BASE_PIN_VAR=BASE BASE_URL= ;;
7.2)
	BASE_PACKAGE=$MAINLINE_PACKAGE BASE_VERSION=$MAINLINE_VERSION
	BASE_SHA256=$MAINLINE_SHA256 BASE_TARBALL=$MAINLINE_TARBALL
	BASE_TOPDIR=$MAINLINE_TOPDIR BASE_URL=$MAINLINE_URL
	BASE_CONF=config/mainline.conf BASE_PIN_VAR=MAINLINE
	;;
*) printf 'error: KERNEL_BASE is 7.2 (mainline) or 6.1 (the backport), not %s\n' "$KERNEL_BASE" >&2; exit 1 ;;
esac

# Everything generated lives below BUILD_DIR (ignored by git), what belongs
# to one base below BASE_BUILD (BUILD_DIR itself for 6.1, which was the
# only base once), what belongs to one base and architecture below
# ARCH_BUILD; what is expensive to remake and independent of the checkout
# lives in CACHE_DIR.
BUILD_DIR=${BUILD_DIR:-$TOP/build}
CACHE_DIR=${ADDRRES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/addrres}
base_build() { # base
	if [ "$1" = 6.1 ]; then echo "$BUILD_DIR"; else echo "$BUILD_DIR/$1"; fi
}
BASE_BUILD=$(base_build "$KERNEL_BASE")
TREE=$BASE_BUILD/linux          # git repo: base commit + the series (all arches)
ARCH_BUILD=$BASE_BUILD/$ARCH
# The test kernel has the debugging of the debug.config fragments; the
# bench kernel (make bench) leaves it out, so that figures are not KASAN's;
# the upstream kernel is the bench kernel's configuration on the pinned
# upstream reference (config/upstream.conf), which `make bench` compares
# ours with, and the base kernel the same on the pinned base without the
# series, which shows what the series costs the paths it must not slow
# down.  The pristine kernel is the test kernel's configuration on the
# base without the series.  The series kernel is `make check-series`': the
# test kernel's configuration at one commit of the series, built from a
# worktree of the tree with W=1.  KERNEL_SRC is the source tree the flavor
# builds from.
KERNEL_FLAVOR=${KERNEL_FLAVOR:-test}
KERNEL_SRC=$TREE
case $KERNEL_FLAVOR in
test) OBJ=$ARCH_BUILD/obj ;;    # kernel object dir (O=)
bench) OBJ=$ARCH_BUILD/obj-bench ;;
# The test kernel with 64 KiB pages (pages64k.config; arm64), built and
# booted by hand for what depends on PAGE_SIZE: see config/kernel/README.md.
pages64k) OBJ=$ARCH_BUILD/obj-pages64k ;;
upstream)
	OBJ=$ARCH_BUILD/obj-upstream
	KERNEL_SRC=$CACHE_DIR/base/$UPSTREAM_PACKAGE-$UPSTREAM_VERSION
	;;
pristine)
	OBJ=$ARCH_BUILD/obj-pristine
	KERNEL_SRC=$CACHE_DIR/base/$BASE_PACKAGE-$BASE_VERSION
	;;
base)
	OBJ=$ARCH_BUILD/obj-base
	KERNEL_SRC=$CACHE_DIR/base/$BASE_PACKAGE-$BASE_VERSION
	;;
series)
	OBJ=$ARCH_BUILD/obj-series
	KERNEL_SRC=$BASE_BUILD/series-check/linux
	;;
*) printf 'error: KERNEL_FLAVOR is test, bench, pages64k, upstream, pristine, base or series, not %s\n' "$KERNEL_FLAVOR" >&2; exit 1 ;;
esac
# Names the mutant a kernel in $OBJ was built with (scripts/mutant.sh):
# the tree is restored after the run, the objects only by the next build.
MUTANT_MARK=$OBJ/mutant-built
KSFT_DIR=$ARCH_BUILD/kselftest  # installed kselftests the guest runs
# UAPI headers of ARCH_COMPAT_KERNEL, for the kselftests' 32-bit programs
COMPAT_HDR_DIR=$ARCH_BUILD/compat-headers
if [ "$KERNEL_FLAVOR" = series ]; then
	KSFT_DIR=$ARCH_BUILD/kselftest-series
	COMPAT_HDR_DIR=$ARCH_BUILD/compat-headers-series
fi
MODULES_DIR=mod-install         # below $OBJ: the kernel's modules, installed
BIN_DIR=$ARCH_BUILD/bin         # the demo and benchmarks, built for ARCH
# Console log and results of the last boot of the flavor's kernel: the
# tests' in vm/, a benchmark's apart (make bench may run during a check).
# VM_PART names a guest that runs beside the one in vm/ (the test run's
# guest suites: vm-suites/).
VM_DIR=$ARCH_BUILD/vm
[ "$KERNEL_FLAVOR" = test ] || VM_DIR=$ARCH_BUILD/vm-$KERNEL_FLAVOR
[ -z "${VM_PART:-}" ] || VM_DIR=$VM_DIR-$VM_PART
RESULTS_DIR=$BUILD_DIR/results  # KTAP files summarised by `make check`
# The expected results of `make check`, one list per label of its summary
# (host, each arch): every test by name, "pass" or "skip" with its reason
# (harness/ktap-summary -e; written by `make manifest`).
EXPECTED_DIR=$TOP/config/expected
# The label of this base and arch's results and expected-results list:
# the arch for 6.1 (the only base once), BASE-ARCH for the others.
LABEL=$ARCH
[ "$KERNEL_BASE" = 6.1 ] || LABEL=$KERNEL_BASE-$ARCH
PATCH_REL=patches/$KERNEL_BASE   # the series of the base, as messages name it
PATCH_DIR=$TOP/$PATCH_REL
SERIES=$PATCH_DIR/series
LOCALVERSION=-addrres           # `uname -r` suffix: proves our kernel booted

# The test kernel's build identity, fixed so two builds of the same tree
# report the same version strings.
export KBUILD_BUILD_TIMESTAMP="$BASE_COMMIT_DATE"
export KBUILD_BUILD_USER=addrres
export KBUILD_BUILD_HOST=addrres

info() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Print the patch file names of the series, in order, without comments.
series_patches() {
	[ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES"
}

# Stable patch ids of a stream of patches on stdin, one per line, in order.
patch_ids() {
	git patch-id --stable | cut -d' ' -f1
}

# Patch ids of the series files, in series order.  Fails, naming it, on a
# series entry with no patch file.
series_patch_ids() {
	local p patches
	patches=$(series_patches)
	for p in $patches; do
		[ -f "$PATCH_DIR/$p" ] ||
			die "$PATCH_REL/series names $p, but $PATCH_REL/$p does not exist"
		patch_ids <"$PATCH_DIR/$p"
	done
}

# Patch ids of base..HEAD of the generated tree, oldest first.
tree_patch_ids() {
	git -C "$TREE" log --reverse -p --format='commit %H' base..HEAD | patch_ids
}

tree_exists() {
	git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1
}

tree_is_dirty() {
	[ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]
}

nproc_jobs() { nproc 2>/dev/null || echo 2; }

# make in the kernel tree for ARCH, into OBJ: the one place that says how.
kmake() {
	make -C "$KERNEL_SRC" O="$OBJ" ARCH="$ARCH_KERNEL" CROSS_COMPILE="$ARCH_CROSS_COMPILE" \
		LOCALVERSION="$LOCALVERSION" "$@"
}

# libbpf for the programs built for ARCH: the host's libbpf-dev headers,
# and on an arch that boots a Debian root of its own, that root's libbpf1,
# the library its guest loads (the cross compilers have no libbpf-dev).
# Sets LIBBPF_CFLAGS and LIBBPF_LDFLAGS, empty where the host's libbpf
# serves.  -I rather than -isystem: the proc kselftests' compat build drops
# every -isystem word from CFLAGS.
libbpf_for_arch() {
	local root triplet root_libs dir=$ARCH_BUILD/libbpf
	LIBBPF_CFLAGS="" LIBBPF_LDFLAGS=""
	[ "$ARCH_ROOT" = debian ] || return 0
	root=$("$TOP/scripts/build-rootfs.sh")
	triplet=$($TARGET_CC -print-multiarch)
	root_libs=$root/usr/lib/$triplet
	[ -e "$root_libs/libbpf.so.1" ] ||
		die "no libbpf.so.1 in the $ARCH root $root_libs (config/rootfs.conf lists libbpf1)"
	rm -rf "$dir"
	mkdir -p "$dir/include" "$dir/lib"
	cp -r /usr/include/bpf "$dir/include/"
	ln -s "$root_libs/libbpf.so.1" "$dir/lib/libbpf.so"
	LIBBPF_CFLAGS="-I$dir/include"
	# libbpf's own dependencies (libelf, zlib) from the root, under /usr/lib
	# and /lib (the extracted root is not merged-/usr).
	LIBBPF_LDFLAGS="-L$dir/lib -Wl,-rpath-link,$root_libs:$root/lib/$triplet"
}

# The flags with which a program for ARCH links libaddrres with elfutils
# (LIBADDRRES_ELF_LIBS): LIBDW_CFLAGS and LIBDW_LDFLAGS, empty where the
# host's libraries serve (the x86_64 guest runs on the host's root).  An
# arch that boots a Debian root of its own links that root's libdw,
# libelf and liblzma (linux-perf brings them), libdeflate (libdeflate0)
# and libiberty.a (libiberty-dev, config/rootfs.conf), with the host's
# headers (the same on every arch): the cross compilers have none of them.
libdw_for_arch() {
	local root triplet root_libs dir=$ARCH_BUILD/libdw h l src
	LIBDW_CFLAGS="" LIBDW_LDFLAGS=""
	[ "$ARCH_ROOT" = debian ] || return 0
	root=$("$TOP/scripts/build-rootfs.sh")
	triplet=$($TARGET_CC -print-multiarch)
	root_libs=$root/usr/lib/$triplet
	rm -rf "$dir"
	mkdir -p "$dir/include" "$dir/lib"
	for h in libelf.h gelf.h dwarf.h elfutils lzma.h lzma libiberty libdeflate.h; do
		cp -r "/usr/include/$h" "$dir/include/" || die "no /usr/include/$h (make deps)"
	done
	for l in libdw.so.1 libelf.so.1 liblzma.so.5 libdeflate.so.0; do
		src=$root_libs/$l
		[ -e "$src" ] || src=$root/lib/$triplet/$l
		[ -e "$src" ] || die "no $l in the $ARCH root $root (config/rootfs.conf: linux-perf and libdeflate0 bring them)"
		ln -s "$src" "$dir/lib/${l%.so.*}.so"
	done
	[ -e "$root_libs/libiberty.a" ] ||
		die "no libiberty.a in the $ARCH root (config/rootfs.conf lists libiberty-dev)"
	ln -s "$root_libs/libiberty.a" "$dir/lib/libiberty.a"
	LIBDW_CFLAGS="-I$dir/include"
	LIBDW_LDFLAGS="-L$dir/lib -Wl,-rpath-link,$root_libs:$root/lib/$triplet"
}

# Install the loadable modules of the kernel built in $OBJ below
# $OBJ/$MODULES_DIR, where guest-init finds them for modprobe; make's output
# to LOG.  Says why on stderr when it fails.
install_kernel_modules() { # log
	rm -rf "${OBJ:?}/$MODULES_DIR"
	grep -qx 'CONFIG_MODULES=y' "$OBJ/.config" || return 0
	if ! kmake -s INSTALL_MOD_PATH="$OBJ/$MODULES_DIR" INSTALL_MOD_STRIP=1 modules_install >"$1" 2>&1; then
		warn "modules_install failed; see $1"
		return 1
	fi
	# Without depmod (package kmod) modules_install only warns, and
	# modprobe in the guest finds nothing.
	[ -f "$OBJ/$MODULES_DIR/lib/modules/$(cat "$OBJ/include/config/kernel.release")/modules.dep" ] && return 0
	warn "modules_install wrote no modules.dep (is depmod, package kmod, installed? make deps); see $1"
	return 1
}

# The kernel's compiler for ARCH (as ARCH_CROSS_COMPILE is when called),
# through ccache where there is one.  Paths below the build dir hash as
# relative ones, and the working directory (the object dir) is left out
# of the hash: ccache hashes it for every -g compile otherwise, so that
# another checkout of the project (CI's fresh clone) missed every kernel
# object (docs/figures.md, "Where make check's time goes").  The cost: an
# object served from the cache names the first checkout's object dir as
# its DWARF compilation directory.  The cache holds the four debug kernels.
export CCACHE_BASEDIR=$BUILD_DIR CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
cached_cc() { # cross-prefix ("" for the host)
	if command -v ccache >/dev/null 2>&1; then
		echo "ccache ${1}gcc"
	else
		echo "${1}gcc"
	fi
}
kernel_cc() { cached_cc "$ARCH_CROSS_COMPILE"; }

# The compiler for programs the guest of ARCH runs, and the flags every
# program of the project is built with.
TARGET_CC=${ARCH_CROSS_COMPILE}gcc
HOST_CC=${CC:-gcc}
CFLAGS_STRICT=(-std=gnu11 -Wall -Wextra -Werror)
# shellcheck disable=SC2054 # the commas are the option's
CFLAGS_SANITIZE=(-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all)
# What a program linked against libaddrres.a (with elfutils) links besides:
# its Libs.private (libaddrres/Makefile's LIBS_PRIVATE).
LIBADDRRES_ELF_LIBS=(-ldw -lelf -liberty -llzma -ldeflate)

# perf from a kernel source, without the optional libraries the tests do
# not use, so that it builds with the packages of scripts/deps.sh alone
# (compiled through ccache, cached_cc, as the kernel is):
# the tree's for the guests (scripts/build-tools.sh) and the host
# (tests/perf), 6.1.192's for the host.
PERF_MAKE_FLAGS=(
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_GTK2=1 NO_LIBBPF=1 NO_BPF_SKEL=1 NO_JVMTI=1
	NO_LIBUNWIND=1 NO_SLANG=1 NO_LIBAUDIT=1 NO_LIBCRYPTO=1 NO_LIBNUMA=1
	NO_LIBBABELTRACE=1 NO_LIBZSTD=1 NO_LIBCAP=1 NO_JEVENTS=1
	# 7.2's perf needs libtraceevent unless told not to, and builds a Rust
	# test workload wherever it finds rustc (6.1's knows neither option).
	NO_LIBTRACEEVENT=1 NO_RUST=1
)

# The `perf test` suites the series adds, and how many cases each has
# (tests/perf/run.sh runs them on the host, check-series at each commit
# that changes tools/perf).
declare -A PERF_SERIES_SUITES=(["kcore maps"]=3 ["kcore copy"]=2)

# The KTAP summariser, built with sanitizers: it is what decides a run.
KTAP_SUMMARY=$BUILD_DIR/harness/ktap-summary
build_ktap_summary() {
	local src=$TOP/harness/ktap-summary.c
	[ "$KTAP_SUMMARY" -nt "$src" ] && return 0
	mkdir -p "$(dirname "$KTAP_SUMMARY")"
	"$HOST_CC" "${CFLAGS_STRICT[@]}" "${CFLAGS_SANITIZE[@]}" -o "$KTAP_SUMMARY" "$src"
}
