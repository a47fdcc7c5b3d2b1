/**
 * Base quantities against geometry: an IfcElementQuantity (`Qto_*BaseQuantities`) is what a model
 * says about an element; its mesh is what the element is. `ifc.model`'s `quantities_match_geometry`
 * compares the two, so a quantity set typed to match the task cannot stand in for the geometry.
 */
import { fmt } from '../judge-value.js';
import type { IfcElement, IfcFacts, IfcGeometryFacts } from './ifc-facts.js';
import type { IfcElementCheck } from './ifc-params.js';

/** A base quantity compared with the element's mesh. */
export interface QuantityClaim {
  key: string;
  claimed: number;
  unit: string;
  measured: number;
  /** What the geometry shows, e.g. `is 0.2 m thick`, `encloses 15 m³`. */
  shows: string;
  ok: boolean;
}

/**
 * The element's base quantities that its geometry can confirm, each against the measured value:
 * Height and Depth against the vertical extent (web-ifc's Y), Length and Width against the larger
 * and smaller horizontal extent (axis-aligned elements), GrossVolume (elements without openings)
 * and NetVolume against the mesh volume, and a slab's GrossArea/NetArea against volume ÷ thickness.
 * Lengths use `length_tol`, volumes and areas the relative `volume_tol`.
 */
export function quantityClaims(
  f: IfcFacts,
  e: IfcElement,
  g: IfcGeometryFacts,
  c: IfcElementCheck,
): QuantityClaim[] {
  const size = g.max.map((x, i) => x - g.min[i]!);
  const vertical = size[1]!;
  const wide = Math.max(size[0]!, size[2]!);
  const narrow = Math.min(size[0]!, size[2]!);
  const hasOpenings = [...f.voids.values()].includes(e.id);
  const out: QuantityClaim[] = [];
  for (const [key, v] of f.props.get(e.id) ?? []) {
    if (typeof v !== 'number' || !/^Qto_/.test(key)) continue;
    const name = key.slice(key.indexOf('.') + 1);
    const length = (measured: number, word: string): void =>
      void out.push({
        key,
        claimed: v,
        unit: 'm',
        measured,
        shows: `is ${fmt(measured)} m ${word}`,
        ok: Math.abs(v - measured) <= c.length_tol,
      });
    const relative = (measured: number, unit: string, verb: string): void =>
      void out.push({
        key,
        claimed: v,
        unit,
        measured,
        shows: `${verb} ${fmt(measured)} ${unit}`,
        ok: Math.abs(v - measured) <= c.volume_tol * Math.max(Math.abs(measured), 1e-9),
      });
    if (name === 'Depth') length(vertical, 'thick');
    else if (name === 'Height') length(vertical, 'high');
    else if (name === 'Length') length(wide, 'long');
    else if (name === 'Width') length(narrow, 'wide');
    else if (name === 'NetVolume' || (name === 'GrossVolume' && !hasOpenings))
      relative(g.volume, 'm³', 'encloses');
    else if ((name === 'GrossArea' || name === 'NetArea') && /^Qto_Slab/.test(key) && vertical > 0)
      relative(g.volume / vertical, 'm²', 'covers');
  }
  return out;
}
