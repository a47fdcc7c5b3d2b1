/**
 * Smoke tests of the app images (engiloop/freecad, engiloop/kicad, engiloop/blender): each app's key
 * commands work in a hardened tool container (uid 1000, read-only root, HOME=/tmp on a tmpfs, no
 * network), including the first-run traps the Dockerfiles fix.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRunTool } from '../../actors/sandbox/index.js';
import { asyncDispose } from '../../core/index.js';
import type { ToolResult } from '../../verifiers/index.js';
import { decodePng } from '../../verifiers/viz/index.js';
import { toolKit } from '../helpers/artifacts.js';

const kit = toolKit('images');
const runTool = createRunTool(kit.provider, { labels: kit.labels, memoryMb: 2048 });
afterAll(() => kit[asyncDispose]());

async function run(image: string, command: string, collect: string[] = []): Promise<ToolResult> {
  const r = await runTool({
    image: `engiloop/${image}:latest`,
    command,
    files: [],
    timeoutMs: 120_000,
    collect,
  });
  if (r.exitCode !== 0)
    throw new Error(`${command} → exit ${r.exitCode}\n${r.stderr.slice(-2000)}\n${r.stdout.slice(-2000)}`);
  return r;
}

describe('engiloop/freecad', () => {
  it('runs Part, FEM and Path in freecadcmd as uid 1000 with HOME=/tmp', async () => {
    const r = await run(
      'freecad',
      `id -u; echo HOME=$HOME
       freecadcmd -c "import FreeCAD, Part; print('volume', Part.makeBox(1,2,3).Volume)"
       freecadcmd -c "import ObjectsFem, femmesh.gmshtools; print('fem ok')"
       freecadcmd -c "import Path; print('path ok')"
       python3 -c "import FreeCAD, Part; print('system python', round(Part.makeBox(1,1,1).Volume, 6))"`,
    );
    expect(r.stdout).toMatch(/^1000\nHOME=\/tmp\n/);
    expect(r.stdout).toMatch(/volume 6\.0/);
    expect(r.stdout).toMatch(/fem ok/);
    expect(r.stdout).toMatch(/path ok/);
    expect(r.stdout).toMatch(/system python 1\.0/);
  });
  it('opens the GUI on the Part workbench (no Start page) and saves a screenshot under xvfb', async () => {
    // After showMainWindow() print goes to FreeCAD's report view: results are written to files.
    const script = [
      'import FreeCAD, FreeCADGui as Gui, os',
      'Gui.showMainWindow()',
      'doc = FreeCAD.newDocument("g"); doc.addObject("Part::Box", "B"); doc.recompute()',
      'v = Gui.activeDocument().activeView(); v.viewIsometric(); v.fitAll(); Gui.updateGui()',
      'v.saveImage("/workspace/shot.png", 160, 120, "White")',
      'open("/workspace/wb.txt", "w").write(Gui.activeWorkbench().name())',
      'os._exit(0)',
    ].join('\n');
    const r = await run(
      'freecad',
      `cat > gui.py <<'PY'\n${script}\nPY
       timeout 90 xvfb-run -a -s '-screen 0 1024x768x24' freecadcmd gui.py >/dev/null 2>&1; cat wb.txt`,
      ['shot.png'],
    );
    expect(r.stdout).toBe('PartWorkbench');
    const png = decodePng(r.files['shot.png'] ?? Buffer.alloc(0));
    expect([png.width, png.height]).toEqual([160, 120]);
  });
});

describe('engiloop/kicad', () => {
  it('imports pcbnew with the system python and writes a DRC report', async () => {
    const script = `
import pcbnew
print("version", pcbnew.Version())
b = pcbnew.BOARD()
for (x1, y1, x2, y2) in ((0, 0, 30, 0), (30, 0, 30, 20), (30, 20, 0, 20), (0, 20, 0, 0)):
    s = pcbnew.PCB_SHAPE(b); s.SetShape(pcbnew.SHAPE_T_SEGMENT); s.SetLayer(pcbnew.Edge_Cuts)
    s.SetStart(pcbnew.wxPointMM(x1, y1)); s.SetEnd(pcbnew.wxPointMM(x2, y2)); b.Add(s)
t = pcbnew.PCB_TRACK(b); t.SetStart(pcbnew.wxPointMM(5, 5)); t.SetEnd(pcbnew.wxPointMM(25, 5))
t.SetWidth(pcbnew.FromMM(0.25)); t.SetLayer(pcbnew.F_Cu); b.Add(t)
pcbnew.SaveBoard("/workspace/small.kicad_pcb", b)
ok = pcbnew.WriteDRCReport(pcbnew.LoadBoard("/workspace/small.kicad_pcb"), "/workspace/drc.rpt", pcbnew.EDA_UNITS_MILLIMETRES, True)
print("drc", ok)
`;
    const r = await run(
      'kicad',
      `cat > drc.py <<'PY'\n${script}\nPY\n/usr/bin/python3 drc.py && ls "$KICAD_CONFIG_HOME/6.0"`,
      ['drc.rpt'],
    );
    expect(r.stdout).toMatch(/version 6\.0\.\d+/);
    expect(r.stdout).toMatch(/drc True/);
    // The first-run dialogs are answered by the seeded library tables.
    expect(r.stdout).toMatch(/fp-lib-table\nsym-lib-table/);
    expect(r.files['drc.rpt']?.toString()).toMatch(/Found 1 DRC violations[\s\S]*track_dangling/);
  });
});

describe('engiloop/blender', () => {
  const scene = `import bpy, sys
eng = sys.argv[-1]
s = bpy.context.scene
s.render.engine = eng
s.render.resolution_x, s.render.resolution_y, s.render.resolution_percentage = 160, 120, 100
s.cycles.samples = 8; s.cycles.use_denoising = False
s.render.filepath = "/workspace/" + eng + ".png"
bpy.ops.render.render(write_still=True)
bpy.ops.export_scene.gltf(filepath="/workspace/cube.glb", export_format="GLB")
`;
  it('renders with Cycles headless and with Workbench under xvfb, and exports glTF, as uid 1000', async () => {
    const r = await run(
      'blender',
      `cat > r.py <<'PY'\n${scene}PY
       id -u
       blender -b --factory-startup -noaudio --python r.py -- CYCLES >cycles.log 2>&1
       xvfb-run -a blender -b --factory-startup -noaudio --python r.py -- BLENDER_WORKBENCH >wb.log 2>&1
       blender --version | head -1`,
      ['CYCLES.png', 'BLENDER_WORKBENCH.png', 'cube.glb'],
    );
    expect(r.stdout).toMatch(/^1000\nBlender 3\.4\.\d/);
    for (const f of ['CYCLES.png', 'BLENDER_WORKBENCH.png']) {
      const png = decodePng(r.files[f] ?? Buffer.alloc(0));
      expect([png.width, png.height], f).toEqual([160, 120]);
    }
    expect(r.files['cube.glb']?.subarray(0, 4).toString()).toBe('glTF');
  });
});
