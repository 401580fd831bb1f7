#!/usr/bin/env bash
# The guest's root for an ARCH whose ARCH_ROOT is "debian": Debian's
# packages of config/rootfs.conf, unpacked without running anything (the
# host cannot run foreign programs), plus harness/guest-boot as
# /addrres-boot.  Cached per arch and content; prints the root's path and
# lists the package versions it holds in $ARCH_BUILD/rootfs-packages.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=../config/rootfs.conf
. "$TOP/config/rootfs.conf"

[ "$ARCH_ROOT" = debian ] || die "ARCH=$ARCH boots the host's root (ARCH_ROOT=$ARCH_ROOT): nothing to build"
include=$(IFS=,; echo "${ROOTFS_PACKAGES[*]}")
key=$({
	echo "$ARCH_DEBIAN"
	cat "$TOP/config/rootfs.conf" "$TOP/harness/guest-boot" "$0"
} | sha256sum | cut -c1-16)
root=$CACHE_DIR/rootfs/$ARCH_DEBIAN-$key
manifest=.addrres-packages

if [ ! -f "$root/$manifest" ]; then
	log=$ARCH_BUILD/rootfs.log
	mkdir -p "$CACHE_DIR/rootfs" "$ARCH_BUILD"
	info "unpacking Debian $ROOTFS_SUITE $ARCH_DEBIAN packages into $root (log: $log)"
	rm -rf "$root.tmp"
	# The downloaded .debs are kept until their versions are listed.  A
	# mirror caught mid-sync serves index files of the wrong size: try again.
	for try in 1 2 3; do
		rm -rf "$root.tmp"
		mmdebstrap --variant=extract --arch="$ARCH_DEBIAN" --include="$include" \
			--skip=cleanup/apt/cache "$ROOTFS_SUITE" "$root.tmp" "${ROOTFS_MIRRORS[@]}" \
			>"$log" 2>&1 && break
		[ "$try" = 3 ] && rm -rf "$root.tmp" &&
			die "mmdebstrap could not make the $ARCH_DEBIAN root in 3 tries (a package name in config/rootfs.conf, or the mirror); see $log"
		warn "mmdebstrap failed (try $try of 3): $(grep -m 1 '^E:' "$log" || true)"
		sleep 20
	done
	debs=("$root.tmp"/var/cache/apt/archives/*.deb)
	[ -f "${debs[0]}" ] || die "mmdebstrap left no packages in $root.tmp/var/cache/apt/archives"
	for deb in "${debs[@]}"; do
		# shellcheck disable=SC2016 # dpkg-deb's format, not the shell's
		dpkg-deb --show --showformat='${Package} ${Version} ${Architecture}\n' "$deb"
	done | sort >"$root.tmp/$manifest.tmp"
	rm -f "${debs[@]}"
	# What the package scripts that did not run would have set up and
	# the guest needs: /bin/sh (dash's), awk and which (alternatives),
	# the users and groups.
	ln -sf dash "$root.tmp/bin/sh"
	ln -sf gawk "$root.tmp/usr/bin/awk"
	ln -sf which.debianutils "$root.tmp/usr/bin/which"
	cp "$root.tmp/usr/share/base-passwd/passwd.master" "$root.tmp/etc/passwd"
	cp "$root.tmp/usr/share/base-passwd/group.master" "$root.tmp/etc/group"
	install -m 755 "$TOP/harness/guest-boot" "$root.tmp/addrres-boot"
	# Where guest-init mounts the test kernel's modules, and where
	# tests/kernel-lines mounts a debug package's layout (no package
	# makes them).
	mkdir -p "$root.tmp/lib/modules" "$root.tmp/usr/lib/debug"
	mv "$root.tmp/$manifest.tmp" "$root.tmp/$manifest"
	# Roots made from an older config/rootfs.conf are of no further use.
	find "$CACHE_DIR/rootfs" -mindepth 1 -maxdepth 1 -name "$ARCH_DEBIAN-*" \
		! -name "${root##*/}.tmp" -exec rm -rf {} +
	mv "$root.tmp" "$root"
fi
cp "$root/$manifest" "$ARCH_BUILD/rootfs-packages.txt"
echo "$root"
