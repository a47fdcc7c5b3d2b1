/**
 * The sandbox images engiloop builds locally (no registry is reachable). Each has a folder under
 * deploy/images/<name>/; `base` is made by debootstrap + docker import, the rest by Dockerfile.
 */
export interface ImageDef {
  /** Short name for `--only`. */
  name: string;
  tag: string;
  kind: 'debootstrap' | 'dockerfile';
  /** For Dockerfile images: the image built FROM (must be built first). */
  from?: string;
}

export const IMAGES: readonly ImageDef[] = [
  { name: 'base', tag: 'engiloop/base:bookworm', kind: 'debootstrap' },
  { name: 'cli', tag: 'engiloop/cli:latest', kind: 'dockerfile', from: 'base' },
  { name: 'freecad', tag: 'engiloop/freecad:latest', kind: 'dockerfile', from: 'base' },
  { name: 'kicad', tag: 'engiloop/kicad:latest', kind: 'dockerfile', from: 'base' },
  { name: 'blender', tag: 'engiloop/blender:latest', kind: 'dockerfile', from: 'base' },
  { name: 'desktop', tag: 'engiloop/desktop:latest', kind: 'dockerfile', from: 'base' },
];
