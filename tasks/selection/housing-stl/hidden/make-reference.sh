#!/bin/bash
# Makes hidden/reference.stl from hidden/reference.scad with OpenSCAD in engiloop/cli.
# Run from anywhere: bash hidden/make-reference.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
docker run --rm --network none -u "$(id -u):$(id -g)" -v "$here:/task" -w /task engiloop/cli:latest \
  openscad -o hidden/reference.stl hidden/reference.scad
ls -l "$here/hidden/reference.stl"
