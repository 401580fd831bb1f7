#!/usr/bin/env bash
# Fetch the pinned base package, verify it, unpack it (no install) into the
# cache.  Prints the path of the unpacked tree on stdout.
set -eu
. "$(dirname "$0")/lib.sh"

deb_dir=$CACHE_DIR/debs
src_dir=$CACHE_DIR/base/$BASE_PACKAGE-$BASE_VERSION
deb=$deb_dir/${BASE_PACKAGE}_${BASE_VERSION}_all.deb

how_to_bump() {
	cat >&2 <<EOF
Versions of $BASE_PACKAGE that apt offers now:
$(apt-cache madison "$BASE_PACKAGE" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print "  " $2}' | sort -u)
To move the pin: choose one, 'apt-get download $BASE_PACKAGE=<version>',
put the version and its 'sha256sum' in config/base.conf, then run
'make tree FORCE=1' and fix any patch that no longer applies.
EOF
}

verify_deb() {
	local sum
	sum=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$sum" = "$BASE_SHA256" ] && return 0
	printf 'error: %s has sha256 %s,\n       but config/base.conf pins %s.\n' \
		"$1" "$sum" "$BASE_SHA256" >&2
	return 1
}

if [ -f "$src_dir/.unpacked" ]; then
	echo "$src_dir"
	exit 0
fi

mkdir -p "$deb_dir"
if [ ! -f "$deb" ]; then
	info "downloading $BASE_PACKAGE=$BASE_VERSION"
	if ! apt-cache show "$BASE_PACKAGE=$BASE_VERSION" >/dev/null 2>&1; then
		# A fresh machine may have no package lists yet.
		apt-get update -q >/dev/null 2>&1 || true
	fi
	if ! (cd "$deb_dir" && apt-get download -q -o APT::Sandbox::User=root "$BASE_PACKAGE=$BASE_VERSION" >&2); then
		printf 'error: apt cannot download the pinned base %s=%s (the version is gone from the mirror, or apt has no package lists: run apt-get update).\n' \
			"$BASE_PACKAGE" "$BASE_VERSION" >&2
		how_to_bump
		exit 1
	fi
	# apt-get download names the file with the epoch-escaped version.
	got=$(ls "$deb_dir"/"${BASE_PACKAGE}"_*"${BASE_VERSION#*:}"_*.deb 2>/dev/null | head -n 1)
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
dpkg-deb --fsys-tarfile "$deb" | tar -xO "$BASE_TARBALL" | xz -dT0 |
	tar -x -C "$src_dir.tmp"
[ -f "$src_dir.tmp/$BASE_TOPDIR/Makefile" ] ||
	die "$BASE_TARBALL in $deb did not unpack to $BASE_TOPDIR/ (check BASE_TARBALL/BASE_TOPDIR in config/base.conf)"
rm -rf "$src_dir"
mv "$src_dir.tmp/$BASE_TOPDIR" "$src_dir"
rmdir "$src_dir.tmp"
touch "$src_dir/.unpacked"
echo "$src_dir"
