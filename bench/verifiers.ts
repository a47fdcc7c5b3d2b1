/**
 * `npm run bench:verifiers`: per verifier, the time to verify its reference artifact in-process
 * against the time the authoring (or reading) app takes to reopen the same file; then the images'
 * sizes and build times. One table, side by side, with the ratio.
 */
import { benchImages } from './images.js';
import { benchBimEdaVerifiers } from './verifiers-bim-eda.js';
import { benchCadVerifiers } from './verifiers-cad.js';
import { benchCaeCamVerifiers } from './verifiers-cae-cam.js';
import { benchVizVerifiers } from './verifiers-viz.js';

interface Row {
  verifier: string;
  inProcessMs: number;
  appReopenMs: number;
  app: string;
}

const rows: Row[] = [];
for (const [name, run] of [
  ['cad', () => benchCadVerifiers()],
  ['cae/cam', () => benchCaeCamVerifiers()],
  ['bim/eda', () => benchBimEdaVerifiers()],
  ['viz', () => benchVizVerifiers()],
] as const) {
  console.error(`verifiers: ${name}…`);
  rows.push(...((await run()) as Row[]));
}
const w = Math.max(...rows.map((r) => r.verifier.length), 8);
console.log(
  `${'verifier'.padEnd(w)}  ${'verify ms'.padStart(10)}  ${'app ms'.padStart(8)}  ${'app/verify'.padStart(10)}  app reopening the file`,
);
for (const r of rows)
  console.log(
    `${r.verifier.padEnd(w)}  ${r.inProcessMs.toFixed(1).padStart(10)}  ${r.appReopenMs.toFixed(0).padStart(8)}  ${(r.appReopenMs / r.inProcessMs).toFixed(1).padStart(9)}x  ${r.app}`,
  );
console.log(`\n${'image'.padEnd(24)}  ${'size MB'.padStart(8)}  ${'build s'.padStart(8)}`);
for (const i of await benchImages())
  console.log(
    `${i.tag.padEnd(24)}  ${String(i.sizeMb ?? '—').padStart(8)}  ${i.buildSeconds.toFixed(1).padStart(8)}  (${i.measured === 'now' ? 'measured now' : 'last measured build'})`,
  );
