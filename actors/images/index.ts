export { buildImages } from './build.js';
export { IMAGES } from './catalog.js';
export { ImageError, isImageUnknown, type ImageErrorCode } from './errors.js';
