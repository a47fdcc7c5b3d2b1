/** Every verifier registered by default, one list per domain (each domain folder owns its list). */
import { bimVerifiers } from './bim/index.js';
import { cadVerifiers } from './cad/index.js';
import { caeVerifiers } from './cae/index.js';
import { camVerifiers } from './cam/index.js';
import { dataVerifiers } from './data/index.js';
import { draftingVerifiers } from './drafting/index.js';
import { edaVerifiers } from './eda/index.js';
import { fileFormat } from './file.js';
import type { Verifier } from './types.js';
import { vizVerifiers } from './viz/index.js';

export const BUILTIN_VERIFIERS: readonly Verifier[] = [
  fileFormat,
  ...cadVerifiers,
  ...caeVerifiers,
  ...camVerifiers,
  ...bimVerifiers,
  ...edaVerifiers,
  ...vizVerifiers,
  ...draftingVerifiers,
  ...dataVerifiers,
];
