// Made in engiloop/cli with: openscad -o part.stl part.scad (OpenSCAD 2021.01)
// 40 x 30 x 12 mm block with a 12 mm through-hole
difference() {
  cube([40, 30, 12]);
  translate([20, 15, -1]) cylinder(d = 12, h = 14, $fn = 64);
}
