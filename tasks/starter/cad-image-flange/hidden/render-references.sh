#!/bin/bash
# Makes the task's reference images and hidden/reference.stl from hidden/reference.scad with the
# apps themselves (OpenSCAD in engiloop/cli, under xvfb). Run from the task folder:
#   bash hidden/render-references.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
docker run --rm --network none -u "$(id -u):$(id -g)" -v "$here:/task" -w /task engiloop/cli:latest bash -c '
  set -e
  shot() { xvfb-run -a openscad --render --imgsize=640,480 --colorscheme=Tomorrow "$@" hidden/reference.scad; }
  shot -o inputs/view-iso.png --camera=0,0,12,55,0,25,260
  shot -o inputs/view-top.png --projection=ortho --camera=0,0,15,0,0,0,200
  shot -o inputs/view-front.png --projection=ortho --camera=0,0,15,90,0,0,200
  openscad -o hidden/reference.stl hidden/reference.scad
'
ls -l "$here/inputs" "$here/hidden/reference.stl"
