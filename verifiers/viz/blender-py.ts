/**
 * The Python that verifiers run inside Blender (3.4, background mode). Each script opens the file
 * with `wm.open_mainfile` rather than on the command line: Blender given an unreadable file on its
 * command line carries on with its default scene, which would be checked instead of the delivery.
 * Results are printed as one JSON line between markers.
 */

/** Marker printed before the JSON result line. */
export const JSON_BEGIN = 'ENGILOOP_JSON_BEGIN';
/** Marker printed after it. */
export const JSON_END = 'ENGILOOP_JSON_END';

const PRELUDE = `
import bpy, sys, json, math
ARGS = sys.argv[sys.argv.index("--") + 1:]
def emit(obj):
    sys.stdout.write("\\n${JSON_BEGIN}\\n" + json.dumps(obj) + "\\n${JSON_END}\\n")
    sys.stdout.flush()
def open_or_fail(path):
    try:
        bpy.ops.wm.open_mainfile(filepath=path, load_ui=False)
    except Exception as e:
        emit({"error": "Blender could not open the file: " + str(e).strip().splitlines()[-1][:300]})
        sys.exit(0)
`;

/** `blender … --python dump.py -- FILE.blend`: prints the scene as JSON (see `SceneDump`). */
export const DUMP_SCENE_PY = `${PRELUDE}
open_or_fail(ARGS[0])
sc = bpy.context.scene
r = sc.render

def yfov(cam):
    w = r.resolution_x * r.pixel_aspect_x
    h = r.resolution_y * r.pixel_aspect_y
    aspect = w / h if h else 1.0
    fit = cam.sensor_fit
    if fit == "VERTICAL":
        return 2 * math.atan(cam.sensor_height / 2 / cam.lens)
    fov = 2 * math.atan(cam.sensor_width / 2 / cam.lens)
    if fit == "HORIZONTAL" or w >= h:
        return 2 * math.atan(math.tan(fov / 2) / aspect)
    return fov

def material(m):
    col, metallic, rough = list(m.diffuse_color), m.metallic, m.roughness
    if m.use_nodes and m.node_tree:
        for n in m.node_tree.nodes:
            if n.type == "BSDF_PRINCIPLED":
                col = list(n.inputs["Base Color"].default_value)
                metallic = n.inputs["Metallic"].default_value
                rough = n.inputs["Roughness"].default_value
                break
    return {"name": m.name, "baseColor": [float(c) for c in col], "metallic": float(metallic), "roughness": float(rough)}

def trs(m):
    loc, q, s = m.decompose()
    return {"translation": list(loc), "rotation": [q.x, q.y, q.z, q.w], "scale": list(s)}

def claims(o):
    # Custom properties are what the file says about itself: reported, never measured.
    keys = [k for k in o.keys() if not k.startswith("_") and k != "cycles"]
    if not keys:
        return None
    def plain(v):
        for conv in ("to_dict", "to_list"):
            if hasattr(v, conv):
                return getattr(v, conv)()
        return v if isinstance(v, (int, float, str, bool)) else str(v)
    text = json.dumps({k: plain(o[k]) for k in keys}, separators=(",", ":"))
    return "custom properties " + (text if len(text) <= 160 else text[:157] + "…")

objects = []
for o in sc.objects:
    d = {"name": o.name, "type": o.type.lower(), **trs(o.matrix_world), "local": trs(o.matrix_local),
         "parent": o.parent.name if o.parent else None,
         "materials": [sl.material.name for sl in o.material_slots if sl.material]}
    c = claims(o)
    if c:
        d["claims"] = c
    if o.type == "CAMERA":
        c = o.data
        t = {"PERSP": "perspective", "ORTHO": "orthographic"}.get(c.type, "panoramic")
        d["camera"] = {"type": t, "lensMm": c.lens}
        if t == "perspective":
            d["camera"]["yfov"] = yfov(c)
    if o.type == "LIGHT":
        l = o.data
        d["light"] = {"type": l.type.lower(), "energy": l.energy, "color": list(l.color)}
    objects.append(d)
emit({"objects": objects,
      "materials": [material(m) for m in bpy.data.materials if m.users > 0],
      "activeCamera": sc.camera.name if sc.camera else None,
      "render": {"engine": r.engine, "resolution": [r.resolution_x, r.resolution_y]}})
`;

/** How many packed images the render script writes out (`engiloop_packed_0` …). */
export const MAX_PACKED = 8;

/**
 * `blender … --python render.py -- FILE.blend OUT.png ENGINE WIDTH HEIGHT SAMPLES SEED`: renders the
 * scene's active camera with fixed settings (so renders of different files compare), writes every
 * packed image to `engiloop_packed_<i>` and prints `{"ok": true, "packed": [{file, image, filepath}]}`.
 * Cycles runs on the CPU without denoising; Workbench shades by material colour.
 */
export const RENDER_PY = `${PRELUDE}
MAX_PACKED = ${MAX_PACKED}
open_or_fail(ARGS[0])
out, engine, w, h, samples, seed = ARGS[1], ARGS[2], int(ARGS[3]), int(ARGS[4]), int(ARGS[5]), int(ARGS[6])
sc = bpy.context.scene
if sc.camera is None:
    emit({"error": "the scene has no active camera to render from"})
    sys.exit(0)
r = sc.render
r.engine = engine
r.resolution_x, r.resolution_y, r.resolution_percentage = w, h, 100
r.pixel_aspect_x = r.pixel_aspect_y = 1
r.use_border = False
r.film_transparent = False
r.image_settings.file_format = "PNG"
r.image_settings.color_mode = "RGBA"
r.image_settings.color_depth = "8"
sc.view_settings.view_transform = "Standard"
sc.view_settings.look = "None"
sc.view_settings.exposure = 0
sc.view_settings.gamma = 1
if engine == "CYCLES":
    sc.cycles.device = "CPU"
    sc.cycles.samples = samples
    sc.cycles.use_adaptive_sampling = False
    sc.cycles.use_denoising = False
    sc.cycles.seed = seed
    sc.cycles.use_animated_seed = False
elif engine == "BLENDER_WORKBENCH":
    sh = sc.display.shading
    sh.light = "STUDIO"
    sh.color_type = "MATERIAL"
    sc.display.render_aa = "8"
r.filepath = out
bpy.ops.render.render(write_still=True)
# Packed images travel inside the .blend (a texture, a backdrop): written out so the verifier can
# tell whether the scene merely shows a picture it was given.
packed = []
for im in bpy.data.images:
    pf = im.packed_file
    if pf is not None and len(packed) < MAX_PACKED and pf.size <= 32_000_000:
        name = "engiloop_packed_%d" % len(packed)
        with open("/workspace/" + name, "wb") as f:
            f.write(bytes(pf.data))
        packed.append({"file": name, "image": im.name, "filepath": im.filepath})
emit({"ok": True, "packed": packed})
`;
