# Makes inputs/bracket.step (the part the agent meshes) with FreeCAD. From the task folder:
#   docker run --rm --network none -e PYTHONDONTWRITEBYTECODE=1 -u "$(id -u):$(id -g)" -v "$PWD:/task" -w /task \
#     engiloop/freecad:latest freecadcmd hidden/make-input.py
# L-bracket, mm: base 60 x 40 x 6, wall 6 x 40 x 36 at X = 0, four D6.5 holes in the base at
# (25|48, 10|30), one D10 hole along X through the wall at (Y, Z) = (20, 24).
import FreeCAD as App
import Part
V = App.Vector

solid = Part.makeBox(60, 40, 6).fuse(Part.makeBox(6, 40, 36)).removeSplitter()
for x, y in [(25, 10), (48, 10), (25, 30), (48, 30)]:
    solid = solid.cut(Part.makeCylinder(3.25, 20, V(x, y, -5)))
solid = solid.cut(Part.makeCylinder(5, 20, V(-5, 20, 24), V(1, 0, 0)))
print("valid", solid.isValid(), "volume", round(solid.Volume, 3), solid.BoundBox)
solid.exportStep("inputs/bracket.step")
