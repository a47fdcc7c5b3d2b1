/**
 * Reading a FreeCAD document (`.FCStd`, a zip): the objects listed in `Document.xml` (type, internal
 * name, label, visibility-independent) and the B-rep file each Part object's shape is stored in.
 */
import JSZip from 'jszip';
import { ArtifactInvalidError } from '../errors.js';
import { claim, type SelfClaim } from './claims.js';

/** One document object. */
export interface FcObject {
  /** FreeCAD type, e.g. `Part::Feature`, `PartDesign::Body`, `Part::Cut`. */
  type: string;
  /** Internal name (unique in the document). */
  name: string;
  /** User-visible label. */
  label: string;
  /** Zip entry of the stored shape (`PartShape.brp`), when the object has one. */
  shapeFile?: string;
  /**
   * What the object says about itself beside its shape: its description (Label2) and the values of
   * properties a user added (a `Volume` typed in). Not evidence.
   */
  claims: SelfClaim[];
}

/** A FreeCAD document opened from its bytes. */
export interface FcDocument {
  programVersion: string;
  objects: FcObject[];
  /** What the document says about itself: its Comment and Meta entries. Not evidence. */
  claims: SelfClaim[];
  /** Reads a zip entry (a stored shape). */
  entry(name: string): Promise<Buffer | null>;
}

/** Opens an FCStd file. Rejects with `ArtifactInvalidError` for a file that is not one. */
export async function readFcstd(bytes: Buffer): Promise<FcDocument> {
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50)
    throw new ArtifactInvalidError('not an FCStd file (not a zip archive)');
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
  } catch (err) {
    throw new ArtifactInvalidError(`corrupt FCStd zip: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  const doc = zip.file('Document.xml');
  if (doc === null) throw new ArtifactInvalidError('the FCStd archive has no Document.xml');
  let xml: string;
  try {
    xml = await doc.async('string');
  } catch (err) {
    throw new ArtifactInvalidError(`Document.xml could not be read: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return {
    ...parseDocumentXml(xml),
    async entry(name) {
      const f = zip.file(name);
      return f === null ? null : f.async('nodebuffer');
    },
  };
}

/** Parses `Document.xml`: the object list and, per object, its label and stored shape file. */
function parseDocumentXml(xml: string): Omit<FcDocument, 'entry'> {
  const root = /<Document\b([^>]*)>/.exec(xml);
  if (root === null) throw new ArtifactInvalidError('Document.xml has no <Document> element');
  const list = /<Objects\b[^>]*>([\s\S]*?)<\/Objects>/.exec(xml)?.[1] ?? '';
  const objects: FcObject[] = [];
  for (const m of list.matchAll(/<Object\s([^>]*?)\/?>/g)) {
    const attrs = attributes(m[1]!);
    if (attrs['name'] === undefined) continue;
    objects.push({ type: attrs['type'] ?? '', name: attrs['name'], label: attrs['name'], claims: [] });
  }
  const data = /<ObjectData\b[^>]*>([\s\S]*)<\/ObjectData>/.exec(xml)?.[1] ?? '';
  for (const block of data.split(/(?=<Object\s+name=)/)) {
    const name = /^<Object\s+name="([^"]*)"/.exec(block)?.[1];
    const obj = objects.find((o) => o.name === decode(name ?? ''));
    if (obj === undefined) continue;
    const label = /<Property\s+name="Label"[^>]*>\s*<String\s+value="([^"]*)"/.exec(block)?.[1];
    if (label !== undefined) obj.label = decode(label);
    const shape =
      /<Property\s+name="Shape"\s+type="Part::PropertyPartShape"[^>]*>\s*<Part\s+file="([^"]*)"/.exec(
        block,
      )?.[1];
    if (shape !== undefined && shape !== '') obj.shapeFile = decode(shape);
    for (const p of properties(block))
      if (p.name === 'Label2' || p.dynamic) {
        const c = claim(`Document.xml ${obj.name}.${p.name}`, `${p.name} = ${p.value}`);
        if (c !== null && p.value !== '') obj.claims.push(c);
      }
  }
  const head =
    /<Properties\b[^>]*>([\s\S]*?)<\/Properties>/.exec(xml.slice(0, xml.indexOf('<Objects')))?.[1] ?? '';
  const claims: SelfClaim[] = [];
  for (const p of properties(head))
    if ((p.name === 'Comment' || p.name === 'Meta' || p.dynamic) && p.value !== '') {
      const c = claim(`Document.xml ${p.name}`, p.value);
      if (c !== null) claims.push(c);
    }
  return { programVersion: attributes(root[1]!)['ProgramVersion'] ?? '', objects, claims };
}

/**
 * The properties of an object block: name, whether a user added it (dynamic properties carry a
 * `group`), and its value as text (String, Float, Integer, Bool, or Map items `key=value`).
 */
function properties(block: string): { name: string; dynamic: boolean; value: string }[] {
  const out: { name: string; dynamic: boolean; value: string }[] = [];
  for (const m of block.matchAll(/<Property\s([^>]*)>([\s\S]*?)<\/Property>/g)) {
    const a = attributes(m[1]!);
    const body = m[2]!;
    const values = [...body.matchAll(/<(?:String|Float|Integer|Bool)\s+value="([^"]*)"/g)].map((v) =>
      decode(v[1]!),
    );
    const items = [...body.matchAll(/<Item\s+key="([^"]*)"\s+value="([^"]*)"/g)].map(
      (v) => `${decode(v[1]!)}=${decode(v[2]!)}`,
    );
    const value = [...values.map(number), ...items].join(', ');
    out.push({ name: a['name'] ?? '', dynamic: a['group'] !== undefined, value });
  }
  return out;
}

/** `18183.1860000000015134` → `18183.186`; other text as it is. */
function number(s: string): string {
  const n = Number(s);
  return s.trim() !== '' && Number.isFinite(n) ? String(Number(n.toPrecision(12))) : s;
}

function attributes(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(/([\w:]+)="([^"]*)"/g)) out[m[1]!] = decode(m[2]!);
  return out;
}

function decode(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, '&');
}
