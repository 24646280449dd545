#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# fetch.sh DIST PACKAGE DEST: download Debian's kernel image package PACKAGE
# (a metapackage such as linux-image-amd64 is resolved to the image it
# depends on) from release DIST (bookworm, trixie, bullseye) and unpack it
# into DEST (DEST/boot/vmlinuz-*, DEST/boot/config-*). Prints the package
# file name on success. KARCH=arm64 fetches another architecture's package;
# PARTS='./bin/busybox' unpacks those paths of any package instead (the arm64
# guest's static busybox).
#
# The download uses a private apt configuration under $KDIR/apt/DIST
# (default .output/kernels): sources, lists and caches of its own, so the
# machine's /etc/apt and /var/lib/apt are never touched. It reuses the
# mirrors the machine's apt is configured with. Exit 3 and a reason on
# stderr when the package cannot be had (no mirror, no network, no such
# package): the caller reports the kernel as skipped.
set -euo pipefail
dist=$1 pkg=$2 dest=$3
KDIR=${KDIR:-.output/kernels}
case $KDIR in /*) ;; *) KDIR=$PWD/$KDIR ;; esac
arch=${KARCH:-$(dpkg --print-architecture)}
skip() { echo "$*" >&2; exit 3; }

# The mirrors this machine uses: the archive (the one serving the host's own
# release) and its security archive.
mirrors() {
	local f
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -e "$f" ] || continue
			# deb822: print "URI SUITE" for every suite of every stanza.
			awk '/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) s[i] = $i; n = NF }
			     /^$/ { if (u) for (i = 2; i <= n; i++) print u, s[i]; u = ""; n = 0 }
			     END { if (u) for (i = 2; i <= n; i++) print u, s[i] }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -e "$f" ] || continue
			sed -E -n 's/^deb +(\[[^]]*\] +)?([^ ]+) +([^ ]+).*/\2 \3/p' "$f"
		done
	} | sort -u
}
host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$host" ] || skip "cannot tell this machine's Debian release (/etc/os-release)"
archive=$(mirrors | awk -v s="$host" '$2 == s { print $1; exit }')
security=$(mirrors | awk -v s="$host-security" '$2 == s { print $1; exit }')
[ -n "$archive" ] || skip "no Debian mirror for $host in /etc/apt/sources.list*"

a=$KDIR/apt/$dist-$arch
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/parts" "$a/prefs"
{
	echo "deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive $dist main"
	[ -n "$security" ] &&
		echo "deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $security $dist-security main"
} >"$a/sources.list"
APT=(-o "Dir::Etc::sourcelist=$a/sources.list" -o "Dir::Etc::sourceparts=$a/parts"
	-o "Dir::Etc::preferencesparts=$a/prefs" -o "Dir::State::Lists=$a/lists"
	-o "Dir::Cache=$a/cache" -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
	-o "Acquire::Languages=none" -o "Debug::NoLocking=1")
# Lists a day old are refreshed; a failed refresh with old lists still tries them.
if [ -z "$(find "$a/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null)" ]; then
	timeout 600 apt-get "${APT[@]}" -qq update >"$a/update.log" 2>&1 ||
		[ -n "$(find "$a/lists" -maxdepth 1 -name '*Packages*')" ] ||
		skip "apt-get update for $dist failed: $(grep -E '^(E|W):' "$a/update.log" | head -2 | tr '\n' ' ')"
fi
# A metapackage depends on the versioned image package: follow it.
real=$pkg
for _ in 1 2; do
	dep=$(apt-cache "${APT[@]}" depends "$real" 2>/dev/null |
		sed -n -E 's/^ +Depends: (linux-image-[0-9][^ ]*)$/\1/p' | head -1)
	[ -n "$dep" ] || break
	real=$dep
done
apt-cache "${APT[@]}" show "$real" >/dev/null 2>&1 || skip "no package $real in $dist"
mkdir -p "$KDIR/debs"
(cd "$KDIR/debs" && timeout 900 apt-get "${APT[@]}" -qq download "$real" >"$a/download.log" 2>&1) ||
	skip "apt-get download $real ($dist) failed: $(grep -E '^(E|W):' "$a/download.log" | head -2 | tr '\n' ' ')"
deb=$(ls -t "$KDIR/debs/${real}_"*.deb | head -1)
rm -rf "$dest"
mkdir -p "$dest"
if [ -n "${PARTS:-}" ]; then
	# shellcheck disable=SC2086 # PARTS: one path pattern per word
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" --wildcards $PARTS ||
		skip "$deb has no $PARTS"
	basename "$deb"
	exit 0
fi
# The kernel and its config, and one module: brd (a RAM disk, no hardware),
# which kmod.sh loads to check that frames in a module resolve (Debian 13
# ships modules under /usr/lib and compressed; tar names what it did not find).
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" --wildcards './boot/*' \
	'./lib/modules/*/kernel/drivers/block/brd.ko*' './usr/lib/modules/*/kernel/drivers/block/brd.ko*' \
	2>/dev/null || :
ls "$dest"/boot/vmlinuz-* >/dev/null 2>&1 || skip "$deb has no /boot/vmlinuz-*"
basename "$deb"
