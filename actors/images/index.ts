export { buildImages, imageHash, HASH_LABEL, type BuildOptions, type BuildLog } from './build.js';
export { IMAGES, buildCommandFor, type ImageDef } from './catalog.js';
