# Builds inputs/start.blend for viz-place-objects (run by test/fixtures/viz/make-renders.ts):
#   blender -b --factory-startup -noaudio --python make_start.py -- start.blend
# A floor, a red cube, a green sphere and a blue cone bunched near the origin; a fixed camera.
import bpy, sys, math, os
out = os.path.abspath(sys.argv[sys.argv.index("--") + 1])
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
for m in list(bpy.data.materials):
    bpy.data.materials.remove(m)
def mat(name, rgb):
    m = bpy.data.materials.new(name)
    m.diffuse_color = (*rgb, 1)
    return m
bpy.ops.mesh.primitive_plane_add(size=8, location=(0, 0, 0))
bpy.context.object.name = "Floor"
bpy.context.object.data.materials.append(mat("FloorGrey", (0.7, 0.7, 0.7)))
bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, 0.5))
bpy.context.object.name = "Red"
bpy.context.object.data.materials.append(mat("RedPaint", (0.8, 0.1, 0.1)))
bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, location=(0.6, 0.6, 0.5))
bpy.context.object.name = "Green"
bpy.context.object.data.materials.append(mat("GreenPaint", (0.1, 0.7, 0.2)))
bpy.ops.mesh.primitive_cone_add(radius1=0.5, depth=1, location=(-0.6, 0.6, 0.5))
bpy.context.object.name = "Blue"
bpy.context.object.data.materials.append(mat("BluePaint", (0.1, 0.2, 0.8)))
bpy.ops.object.camera_add(location=(0, -7, 7), rotation=(math.radians(45), 0, 0))
bpy.context.object.name = "Camera"
bpy.context.scene.camera = bpy.context.object
sc = bpy.context.scene
sc.render.engine = "BLENDER_WORKBENCH"
sc.render.resolution_x, sc.render.resolution_y = 160, 120
bpy.ops.wm.save_as_mainfile(filepath=out, compress=True)
