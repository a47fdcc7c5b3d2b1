# Renders hidden/start.png for freecad-blender-render: the task's scene (material, camera, sun,
# world, Cycles settings) without the flange, i.e. what an empty or wrongly scaled scene renders.
#   blender -b --factory-startup -noaudio --python make_start.py -- start.png
import math
import sys
import bpy
from mathutils import Vector
out = sys.argv[sys.argv.index('--') + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
sc = bpy.context.scene
cam = bpy.data.objects.new('Camera', bpy.data.cameras.new('Camera'))
cam.location = (0.1, -0.1, 0.08)
cam.rotation_mode = 'QUATERNION'
cam.rotation_quaternion = (Vector((0, 0, 0.0125)) - cam.location).to_track_quat('-Z', 'Y')
cam.data.lens = 50
sc.collection.objects.link(cam)
sc.camera = cam
sun = bpy.data.objects.new('Sun', bpy.data.lights.new('Sun', type='SUN'))
sun.data.energy = 2
sun.rotation_euler = (math.radians(40), 0, math.radians(30))
sc.collection.objects.link(sun)
sc.world = bpy.data.worlds.new('World')
sc.world.use_nodes = False
sc.world.color = (0.1, 0.1, 0.1)
sc.render.engine = 'CYCLES'
sc.cycles.samples = 16
sc.cycles.seed = 0
sc.cycles.use_denoising = False
sc.render.resolution_x, sc.render.resolution_y = 200, 150
sc.render.resolution_percentage = 100
sc.render.image_settings.file_format = 'PNG'
sc.render.filepath = '/workspace/' + out
bpy.ops.render.render(write_still=True)
