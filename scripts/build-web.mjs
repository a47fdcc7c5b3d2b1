// Builds the report pages (actors/report/web) into dist/web: esbuild bundles main.ts into one
// classic script (an ES module would not load from file://), and index.html and app.css are copied.
// Run by `npm run build`; prints one line with the sizes; exits non-zero on any error.
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'actors/report/web');
const out = join(root, 'dist/web');

try {
  const t0 = performance.now();
  await mkdir(join(out, 'assets'), { recursive: true });
  await build({
    entryPoints: [join(src, 'main.ts')],
    outfile: join(out, 'assets/app.js'),
    bundle: true,
    format: 'iife',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  await copyFile(join(src, 'index.html'), join(out, 'index.html'));
  await copyFile(join(src, 'app.css'), join(out, 'assets/app.css'));
  const kib = async (f) => ((await stat(join(out, f))).size / 1024).toFixed(1);
  console.log(
    `build-web: dist/web in ${Math.round(performance.now() - t0)} ms · app.js ${await kib('assets/app.js')} KiB · app.css ${await kib('assets/app.css')} KiB · index.html ${await kib('index.html')} KiB`,
  );
} catch (e) {
  console.error(`build-web failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
