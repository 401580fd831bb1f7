# Shared settings and helpers for the scripts in this directory.
# Source it; it sets no shell options of its own.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# shellcheck source=../config/base.conf
. "$TOP/config/base.conf"
# shellcheck source=../config/identity.conf
. "$TOP/config/identity.conf"

# Everything generated lives below BUILD_DIR (ignored by git); what is
# expensive to remake and independent of the checkout lives in CACHE_DIR.
BUILD_DIR=${BUILD_DIR:-$TOP/build}
CACHE_DIR=${ADDRRES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/addrres}
TREE=$BUILD_DIR/linux           # git repo: base commit + the series
# The test kernel has the debugging of config/kernel/debug.config; the
# bench kernel (make bench) leaves it out, so that figures are not KASAN's.
KERNEL_FLAVOR=${KERNEL_FLAVOR:-test}
case $KERNEL_FLAVOR in
test) OBJ=$BUILD_DIR/obj ;;     # kernel object dir (O=)
bench) OBJ=$BUILD_DIR/obj-bench ;;
*) printf 'error: KERNEL_FLAVOR is test or bench, not %s\n' "$KERNEL_FLAVOR" >&2; exit 1 ;;
esac
KSFT_DIR=$BUILD_DIR/kselftest   # installed kselftests the guest runs
VM_DIR=$BUILD_DIR/vm            # console log and results of the last boot
RESULTS_DIR=$BUILD_DIR/results  # KTAP files summarised by `make check`
PATCH_DIR=$TOP/patches
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

# Patch ids of the series files, in series order.
series_patch_ids() {
	local p
	series_patches | while read -r p; do
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

# The KTAP summariser, built with sanitizers: it is what decides a run.
KTAP_SUMMARY=$BUILD_DIR/harness/ktap-summary
build_ktap_summary() {
	local src=$TOP/harness/ktap-summary.c
	[ "$KTAP_SUMMARY" -nt "$src" ] && return 0
	mkdir -p "$(dirname "$KTAP_SUMMARY")"
	${CC:-gcc} -std=gnu11 -Wall -Wextra -Werror -O1 -g \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-o "$KTAP_SUMMARY" "$src"
}
