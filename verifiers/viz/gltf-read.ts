/**
 * Reading glTF 2.0 (`.gltf` JSON with embedded or sibling resources, or binary `.glb`): the
 * container is sniffed, sibling resources are read from inside the artifacts folder only, and the
 * document is parsed with @gltf-transform/core into a `SceneDump` of the scene a viewer shows (the
 * default scene's node tree), with world and local transforms.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Logger, NodeIO, type Document, type Node } from '@gltf-transform/core';
import { ArtifactInvalidError } from '../errors.js';
import { isGlb } from '../magic.js';
import { decompose, type SceneDump, type SceneObject, type Vec3, type Quat } from './scene.js';

/** What kind of glTF `bytes` is, or why it is none. */
function sniffGltf(bytes: Buffer): { kind: 'glb' | 'json' } | { kind: 'invalid'; reason: string } {
  if (isGlb(bytes)) {
    const declared = bytes.readUInt32LE(8);
    if (declared !== bytes.length)
      return {
        kind: 'invalid',
        reason: `GLB header declares ${declared} bytes but the file has ${bytes.length} (truncated?)`,
      };
    return { kind: 'glb' };
  }
  const head = bytes.subarray(0, 64).toString('utf8').trimStart();
  if (head.startsWith('{')) return { kind: 'json' };
  return {
    kind: 'invalid',
    reason: 'neither a GLB (no "glTF" magic) nor glTF JSON (does not start with "{")',
  };
}

/** A glTF file ready to validate and parse: its kind, and the external resources it names. */
export interface GltfSource {
  kind: 'glb' | 'json';
  bytes: Buffer;
  /** External resources by URI as written in the file (JSON only; data: URIs stay inline). */
  resources: Record<string, Uint8Array<ArrayBuffer>>;
  json?: unknown;
}

/**
 * Sniffs `bytes` (read from `file`, inside `root`) and reads the resources a `.gltf` names. Throws
 * `ArtifactInvalidError` for anything that is not a glTF 2.0 container or names a file outside `root`.
 */
export async function loadGltfSource(bytes: Buffer, file: string, root: string): Promise<GltfSource> {
  const kind = sniffGltf(bytes);
  if (kind.kind === 'invalid') throw new ArtifactInvalidError(kind.reason);
  if (kind.kind === 'glb') return { kind: 'glb', bytes, resources: {} };
  let json: { asset?: { version?: string }; buffers?: { uri?: string }[]; images?: { uri?: string }[] };
  try {
    json = JSON.parse(bytes.toString('utf8')) as typeof json;
  } catch (err) {
    throw new ArtifactInvalidError(`not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (json.asset?.version === undefined || !String(json.asset.version).startsWith('2'))
    throw new ArtifactInvalidError(
      `not a glTF 2.0 asset (asset.version = ${JSON.stringify(json.asset?.version)})`,
    );
  const resources: Record<string, Uint8Array<ArrayBuffer>> = {};
  for (const r of [...(json.buffers ?? []), ...(json.images ?? [])]) {
    if (r.uri === undefined || r.uri.startsWith('data:') || r.uri in resources) continue;
    const full = path.resolve(path.dirname(file), decodeURIComponent(r.uri));
    if (!full.startsWith(path.resolve(root) + path.sep))
      throw new ArtifactInvalidError(`resource ${r.uri} points outside the delivered files`);
    try {
      resources[r.uri] = new Uint8Array(await readFile(full));
    } catch (err) {
      throw new ArtifactInvalidError(`resource ${r.uri} could not be read`, { cause: err });
    }
  }
  return { kind: 'json', bytes, resources, json };
}

/** Parses a loaded source with @gltf-transform/core. Throws `ArtifactInvalidError` when it cannot. */
export async function parseGltf(src: GltfSource): Promise<Document> {
  const io = new NodeIO().setLogger(new Logger(Logger.Verbosity.SILENT));
  try {
    if (src.kind === 'glb') return await io.readBinary(new Uint8Array(src.bytes));
    return await io.readJSON({ json: src.json as never, resources: src.resources });
  } catch (err) {
    throw new ArtifactInvalidError(`glTF could not be parsed: ${(err as Error).message}`, { cause: err });
  }
}

/** Compact JSON of a node's extras, or undefined when it has none. */
function claimsOf(node: Node): string | undefined {
  const x = node.getExtras();
  if (x === null || typeof x !== 'object' || Object.keys(x).length === 0) return undefined;
  const s = JSON.stringify(x);
  return `extras ${s.length > 160 ? `${s.slice(0, 157)}…` : s}`;
}

/**
 * The scene model of a parsed glTF document: the nodes of the default scene (or the first scene,
 * when none is marked default), with world and local transforms. Nodes outside it are listed in
 * `outside`: a viewer does not show them, so they never satisfy a check.
 */
export function gltfScene(doc: Document): SceneDump {
  const root = doc.getRoot();
  const scenes = root.listScenes();
  const shown = root.getDefaultScene() ?? scenes[0];
  const inShown = new Set<Node>();
  shown?.traverse((n) => void inShown.add(n));
  const objects: SceneObject[] = root
    .listNodes()
    .filter((n) => inShown.has(n))
    .map((node) => {
      const { t, r, s } = decompose(node.getWorldMatrix());
      const mesh = node.getMesh();
      const cam = node.getCamera();
      const o: SceneObject = {
        name: node.getName(),
        type: mesh ? 'mesh' : cam ? 'camera' : 'empty',
        translation: t,
        rotation: r,
        scale: s,
        local: {
          translation: [...node.getTranslation()] as Vec3,
          rotation: [...node.getRotation()] as Quat,
          scale: [...node.getScale()] as Vec3,
        },
        parent: node.getParentNode()?.getName() ?? null,
        materials: [...new Set((mesh?.listPrimitives() ?? []).map((p) => p.getMaterial()?.getName() ?? ''))],
      };
      const claims = claimsOf(node);
      if (claims !== undefined) o.claims = claims;
      if (cam)
        o.camera =
          cam.getType() === 'perspective'
            ? { type: 'perspective', yfov: cam.getYFov() }
            : { type: 'orthographic' };
      return o;
    });
  const where = new Map<Node, string>();
  for (const sc of scenes)
    if (sc !== shown) sc.traverse((n) => void (where.has(n) || where.set(n, `in scene "${sc.getName()}"`)));
  const outside = root
    .listNodes()
    .filter((n) => !inShown.has(n))
    .map((n) => ({ name: n.getName(), where: where.get(n) ?? 'in no scene' }));
  const materials = root.listMaterials().map((m) => {
    const [r, g, b, a] = m.getBaseColorFactor();
    return {
      name: m.getName(),
      baseColor: [r, g, b, a] as [number, number, number, number],
      metallic: m.getMetallicFactor(),
      roughness: m.getRoughnessFactor(),
    };
  });
  return {
    objects,
    materials,
    ...(shown === undefined || shown.getName() === '' ? {} : { scene: shown.getName() }),
    ...(outside.length > 0 ? { outside } : {}),
  };
}
