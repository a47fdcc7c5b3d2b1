// Reference flange: disc 80 x 10, hub 40 x 20 on top (30 overall), 20 mm bore,
// six 8 mm bolt holes on a 60 mm pitch circle. Centred on the Z axis, base at Z = 0.
$fn = 96;
difference() {
  union() {
    cylinder(d = 80, h = 10);
    cylinder(d = 40, h = 30);
  }
  translate([0, 0, -1]) cylinder(d = 20, h = 32);
  for (a = [0:60:300])
    rotate([0, 0, a]) translate([30, 0, -1]) cylinder(d = 8, h = 12);
}
