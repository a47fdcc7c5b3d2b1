// Square-flanged bearing housing (the hidden reference of shape.similarity), mm, Z up:
// flange 80 x 80 x 10 centred on the Z axis, boss D50 up to Z = 36, bore D32 through,
// four D9 holes at (+-30, +-30).
$fn = 128;
difference() {
  union() {
    translate([-40, -40, 0]) cube([80, 80, 10]);
    cylinder(d = 50, h = 36);
  }
  translate([0, 0, -1]) cylinder(d = 32, h = 38);
  for (x = [-30, 30], y = [-30, 30]) translate([x, y, -1]) cylinder(d = 9, h = 12);
}
