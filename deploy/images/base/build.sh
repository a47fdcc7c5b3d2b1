#!/usr/bin/env bash
# Builds engiloop's base image without a registry: a minbase Debian bookworm root made by
# debootstrap, imported with `docker import`. Usage: build.sh TAG [LABEL=VALUE ...]
set -euo pipefail
tag=${1:?usage: build.sh TAG [LABEL=VALUE ...]}; shift
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$(mktemp -d /var/tmp/engiloop-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "debootstrap --variant=minbase bookworm ($mirror)"
debootstrap --variant=minbase bookworm "$root" "$mirror" | while read -r line; do
  case "$line" in I:\ Retrieving*|I:\ Validating*|I:\ Unpacking*|I:\ Configuring*) ;; *) echo "$line";; esac
done
# Keep images small and apt quiet inside builds.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
changes=()
for kv in "$@"; do changes+=(--change "LABEL $kv"); done
echo "docker import -> $tag"
tar -C "$root" -c . | docker import "${changes[@]}" --change 'CMD ["/bin/bash"]' - "$tag" >/dev/null
echo "done"
