/**
 * Public surface of `actors/report/`: the static report (`engiloop report`), the live view
 * (`engiloop view`) and the data format the pages read. The pages themselves are in `web/`, bundled
 * for the browser by `scripts/build-web.mjs` into dist/web.
 */
export { writeReport } from './write.js';
export { serveLive } from './serve.js';
export type { TraceEpisodeFn } from './trace.js';
