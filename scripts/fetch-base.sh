#!/usr/bin/env bash
# Fetch the pinned package of the base KERNEL_BASE names (6.1:
# config/base.conf; 7.2: config/mainline.conf, which apt does not list:
# that one file is downloaded from its pinned URL), verify it, unpack it
# (no install) into the cache.  Prints the path of the unpacked tree on
# stdout.  With --upstream, the same for the pinned upstream reference
# kernel of `make bench` (config/upstream.conf) instead.
#
# apt is asked only for what it already knows: `apt-get update` runs only
# when apt has no package lists for the package at all (a fresh machine),
# never because the pinned version is missing from them.
set -euo pipefail
# shellcheck source=lib.sh disable=SC1091
. "$(dirname "$0")/lib.sh"

pin_conf=$BASE_CONF pin_var=$BASE_PIN_VAR
after_bump="run 'make tree FORCE=1 KERNEL_BASE=$KERNEL_BASE' and fix any patch that no longer applies"
case ${1:-} in
"") ;;
--upstream)
	BASE_PACKAGE=$UPSTREAM_PACKAGE BASE_VERSION=$UPSTREAM_VERSION
	BASE_SHA256=$UPSTREAM_SHA256 BASE_TARBALL=$UPSTREAM_TARBALL
	BASE_TOPDIR=$UPSTREAM_TOPDIR BASE_URL=
	pin_conf=config/upstream.conf pin_var=UPSTREAM after_bump="run 'make bench'"
	;;
*) die "usage: [KERNEL_BASE=7.2|6.1] fetch-base.sh [--upstream]" ;;
esac

deb_dir=$CACHE_DIR/debs
src_dir=$CACHE_DIR/base/$BASE_PACKAGE-$BASE_VERSION
deb=$deb_dir/${BASE_PACKAGE}_${BASE_VERSION}_all.deb

# The versions of the package in apt's lists, newest first, one a line;
# nothing when apt has no lists for it (or no apt-cache at all).
apt_versions() {
	local out
	out=$(apt-cache madison "$BASE_PACKAGE" 2>/dev/null) || return 0
	printf '%s\n' "$out" | awk -F'|' 'NF >= 3 { gsub(/ /, "", $2); if (!seen[$2]++) print $2 }'
}

how_to_bump() {
	local versions
	versions=$(apt_versions)
	[ -n "$versions" ] || versions="(none: apt has no package lists for it; run apt-get update)"
	cat >&2 <<EOT
Versions of $BASE_PACKAGE that apt offers now:
$(printf '%s\n' "$versions" | sed 's/^/  /')
To move the pin: choose one, 'apt-get download $BASE_PACKAGE=<version>',
put the version and its 'sha256sum' in $pin_conf, then
$after_bump.
EOT
}

verify_deb() {
	local sum
	sum=$(sha256sum <"$1") || die "cannot compute the sha256 of $1"
	sum=${sum%% *}
	[ "$sum" = "$BASE_SHA256" ] && return 0
	printf 'error: %s has sha256 %s,\n       but %s pins %s.\n' \
		"$1" "$sum" "$pin_conf" "$BASE_SHA256" >&2
	return 1
}

if [ -f "$src_dir/.unpacked" ]; then
	echo "$src_dir"
	exit 0
fi

mkdir -p "$deb_dir"
if [ ! -f "$deb" ] && [ -n "$BASE_URL" ]; then
	info "downloading $BASE_PACKAGE=$BASE_VERSION from $BASE_URL"
	if ! curl -fsSL --retry 3 -o "$deb.part" "$BASE_URL"; then
		rm -f "$deb.part"
		die "cannot download $BASE_URL (gone from the pool once the suite moved on: move the pin, see $pin_conf)"
	fi
	mv "$deb.part" "$deb"
elif [ ! -f "$deb" ]; then
	info "downloading $BASE_PACKAGE=$BASE_VERSION"
	if [ -z "$(apt_versions)" ]; then
		# A fresh machine may have no package lists yet.  (A pinned
		# version missing from the lists is no reason to update them.)
		info "apt has no package lists for $BASE_PACKAGE: running apt-get update"
		apt-get update -q >/dev/null 2>&1 || warn "apt-get update failed"
	fi
	if ! (cd "$deb_dir" && apt-get download -q -o APT::Sandbox::User=root "$BASE_PACKAGE=$BASE_VERSION" >&2); then
		printf 'error: apt cannot download the pinned base %s=%s (the version is gone from the mirror, or apt has no package lists: run apt-get update).\n' \
			"$BASE_PACKAGE" "$BASE_VERSION" >&2
		how_to_bump
		exit 1
	fi
	# apt-get download names the file with the epoch-escaped version.
	got=
	for f in "$deb_dir/${BASE_PACKAGE}_"*"${BASE_VERSION#*:}"_*.deb; do
		if [ -f "$f" ]; then
			got=$f
			break
		fi
	done
	[ -n "$got" ] || die "apt-get download left no .deb in $deb_dir"
	[ "$got" = "$deb" ] || mv "$got" "$deb"
fi
if ! verify_deb "$deb"; then
	rm -f "$deb"
	echo "The download was removed; nothing was unpacked." >&2
	how_to_bump
	exit 1
fi

info "unpacking $deb (no install)"
rm -rf "$src_dir.tmp"
mkdir -p "$src_dir.tmp"
# Every stage of the pipeline must succeed (pipefail): a tarball that xz
# or tar reject must not pass for a tree because its first files came out.
if ! dpkg-deb --fsys-tarfile "$deb" | tar -xO "$BASE_TARBALL" | xz -dT0 |
	tar -x -C "$src_dir.tmp"; then
	rm -rf "$src_dir.tmp"
	cat >&2 <<EOT
error: cannot unpack $BASE_TARBALL from $deb
       (see the messages above); nothing was unpacked.  If the disk is full,
       make room in $CACHE_DIR and run this again.  Otherwise compare
       ${pin_var}_TARBALL in $pin_conf with 'dpkg-deb -c $deb'; if that is
       right, the .deb is damaged although its sha256 is the pinned one, so
       the pin is wrong too: delete the .deb and move the pin.
EOT
	how_to_bump
	exit 1
fi
[ -f "$src_dir.tmp/$BASE_TOPDIR/Makefile" ] ||
	die "$BASE_TARBALL in $deb did not unpack to $BASE_TOPDIR/ (check ${pin_var}_TARBALL/${pin_var}_TOPDIR in $pin_conf)"
rm -rf "$src_dir"
mv "$src_dir.tmp/$BASE_TOPDIR" "$src_dir"
rmdir "$src_dir.tmp"
touch "$src_dir/.unpacked"
echo "$src_dir"
