#!/usr/bin/env bash
# fetch-ort.sh DEST_DIR — put ONNX Runtime's libonnxruntime.so.1 (linux/x64)
# into DEST_DIR, taken from the npm package onnxruntime-node@1.24.1.
#
# It only runs `npm pack` (a download of the tarball) and extracts one file;
# it never runs the package's install script. Idempotent: when DEST_DIR
# already holds the library with the pinned sha256 it does nothing.
set -euo pipefail

ORT_NPM_PKG="onnxruntime-node@1.24.1"
ORT_MEMBER="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
# sha256 of libonnxruntime.so.1 inside onnxruntime-node-1.24.1.tgz.
ORT_SHA256="53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4"

if [ $# -ne 1 ]; then
	echo "usage: $0 DEST_DIR" >&2
	exit 2
fi
dest=$1

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*) echo "fetch-ort.sh: only linux/x86_64 is handled; set GITNEXUS_ORT_LIB to your own libonnxruntime (>= 1.24)" >&2; exit 1 ;;
esac

target="$dest/libonnxruntime.so.1"
if [ -f "$target" ] && [ "$(sha256sum "$target" | cut -d' ' -f1)" = "$ORT_SHA256" ]; then
	echo "fetch-ort.sh: $target is already there (sha256 ok)" >&2
	exit 0
fi

command -v npm >/dev/null || { echo "fetch-ort.sh: npm is required (it downloads $ORT_NPM_PKG)" >&2; exit 1; }

mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "fetch-ort.sh: npm pack $ORT_NPM_PKG (about 86 MB; no install script is run)" >&2
(cd "$work" && npm pack --silent --ignore-scripts "$ORT_NPM_PKG" >/dev/null)
tgz=$(ls "$work"/onnxruntime-node-*.tgz)
tar -xzf "$tgz" -C "$work" "$ORT_MEMBER"

got=$(sha256sum "$work/$ORT_MEMBER" | cut -d' ' -f1)
if [ "$got" != "$ORT_SHA256" ]; then
	echo "fetch-ort.sh: sha256 mismatch for $ORT_MEMBER: got $got, want $ORT_SHA256" >&2
	exit 1
fi
# Write beside the target and rename, so an interrupted run leaves no half file.
cp "$work/$ORT_MEMBER" "$target.tmp"
chmod 0755 "$target.tmp"
mv -f "$target.tmp" "$target"
echo "fetch-ort.sh: wrote $target" >&2
