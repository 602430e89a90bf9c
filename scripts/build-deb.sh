#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make deb: build the Debian packages orca-dkms and liborca with the
# Debian tooling (dpkg-buildpackage, debhelper, dh-dkms) from a copy of
# the tracked sources, then check them with lintian.  Output in
# build/deb: the .deb files, the .changes, and lintian.log.  Exits
# non-zero if the build fails or lintian reports an error.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
OUT=$BUILD_DIR/deb
VERSION=$(cat "$REPO/VERSION")
SRC=$OUT/src/orca-$VERSION

changelog=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version)
if [ "$changelog" != "$VERSION" ]; then
	echo "build-deb: debian/changelog says $changelog, VERSION says $VERSION" >&2
	exit 1
fi

rm -rf "$OUT"
mkdir -p "$SRC"
# The tracked files only (a clean clone's tree): nothing of build/.
if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$REPO" ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			# A tracked file deleted in the work tree is not shipped.
			[ -e "$REPO/$f" ] || continue
			mkdir -p "$SRC/$(dirname "$f")"
			cp -p "$REPO/$f" "$SRC/$f"
		done
else
	(cd "$REPO" && tar --exclude=./build --exclude=./.git -cf - .) | tar -C "$SRC" -xf -
fi

(cd "$SRC" && dpkg-checkbuilddeps && dpkg-buildpackage -us -uc -b) \
	>"$OUT/build.log" 2>&1 || {
	tail -n 40 "$OUT/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (log: $OUT/build.log)" >&2
	exit 1
}

changes=$(ls "$OUT"/src/orca_"$VERSION"_*.changes)
mv "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT"/
rm -rf "$OUT/src"
changes=$OUT/$(basename "$changes")

lintian --fail-on error "$changes" >"$OUT/lintian.log" 2>&1 || {
	cat "$OUT/lintian.log" >&2
	echo "build-deb: lintian reports errors" >&2
	exit 1
}
echo "build-deb: $(cd "$OUT" && printf '%s ' ./*.deb)in $OUT"
if [ -s "$OUT/lintian.log" ]; then
	echo "build-deb: lintian (no errors):"
	sed 's/^/  /' "$OUT/lintian.log"
fi
