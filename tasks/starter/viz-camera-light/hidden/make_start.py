# Builds inputs/start.blend for viz-camera-light (run by test/fixtures/viz/make-renders.ts):
#   blender -b --factory-startup -noaudio --python make_start.py -- start.blend
# A floor, a red cube and a blue sphere; the camera looks the wrong way and there is no light.
import bpy, sys, math, os
out = os.path.abspath(sys.argv[sys.argv.index("--") + 1])
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
def mat(name, rgb):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    m.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (*rgb, 1)
    m.diffuse_color = (*rgb, 1)
    return m
bpy.ops.mesh.primitive_plane_add(size=12, location=(0, 0, 0))
bpy.context.object.name = "Floor"
bpy.context.object.data.materials.append(mat("Ground", (0.6, 0.6, 0.6)))
bpy.ops.mesh.primitive_cube_add(size=2, location=(-1.2, 0, 1))
bpy.context.object.name = "Cube"
bpy.context.object.data.materials.append(mat("Red", (0.8, 0.1, 0.1)))
bpy.ops.mesh.primitive_uv_sphere_add(radius=1, location=(1.6, 0.8, 1))
bpy.context.object.name = "Sphere"
bpy.ops.object.shade_smooth()
bpy.context.object.data.materials.append(mat("Blue", (0.1, 0.2, 0.8)))
bpy.ops.object.camera_add(location=(0, -10, 1), rotation=(math.radians(90), 0, math.radians(20)))
cam = bpy.context.object
cam.name = "Camera"
cam.data.lens = 35
sc = bpy.context.scene
sc.camera = cam
sc.world.color = (0.05, 0.05, 0.05)
sc.render.engine = "CYCLES"
sc.render.resolution_x, sc.render.resolution_y = 160, 120
bpy.ops.wm.save_as_mainfile(filepath=out, compress=True)
