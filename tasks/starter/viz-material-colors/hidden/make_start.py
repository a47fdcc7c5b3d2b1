# Builds inputs/start.blend for viz-material-colors (run by test/fixtures/viz/make-renders.ts):
#   blender -b --factory-startup -noaudio --python make_start.py -- start.blend
# A toy car: body, two wheels and a window, none with a material; camera and sun fixed.
import bpy, sys, math, os
out = os.path.abspath(sys.argv[sys.argv.index("--") + 1])
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
for m in list(bpy.data.materials):
    bpy.data.materials.remove(m)
def named(name):
    bpy.context.object.name = name
    bpy.context.object.data.name = name
bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, 0.9))
bpy.context.object.scale = (3, 1.4, 0.8)
named("Body")
for name, y in (("Wheel_L", 0.75), ("Wheel_R", -0.75)):
    bpy.ops.mesh.primitive_cylinder_add(radius=0.45, depth=0.2, location=(0.9, y, 0.45), rotation=(math.radians(90), 0, 0))
    named(name)
bpy.ops.mesh.primitive_plane_add(size=1, location=(0.2, -0.71, 1.05), rotation=(math.radians(90), 0, 0))
bpy.context.object.scale = (1.4, 0.4, 1)
named("Window")
bpy.ops.mesh.primitive_plane_add(size=20, location=(0, 0, 0))
named("Ground")
bpy.ops.object.camera_add(location=(4.5, -6, 3), rotation=(math.radians(70), 0, math.radians(37)))
bpy.context.object.name = "Camera"
bpy.context.scene.camera = bpy.context.object
bpy.ops.object.light_add(type="SUN", rotation=(math.radians(40), math.radians(20), math.radians(30)))
bpy.context.object.name = "Sun"
bpy.context.object.data.energy = 4
sc = bpy.context.scene
sc.world.color = (0.2, 0.2, 0.2)
sc.render.engine = "CYCLES"
sc.render.resolution_x, sc.render.resolution_y = 160, 120
bpy.ops.wm.save_as_mainfile(filepath=out, compress=True)
