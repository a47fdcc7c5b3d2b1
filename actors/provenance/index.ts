export { provenance } from './graph.js';
export { renderProvenance, renderDot } from './render.js';
