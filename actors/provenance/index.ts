export { provenance, type ProvenanceGraph, type ArtifactNode, type HandoffEdge } from './graph.js';
export { renderProvenance, renderDot } from './render.js';
