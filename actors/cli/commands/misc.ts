/** `engiloop images build` and `engiloop verifiers`. */
import type { Command } from 'commander';
import { listVerifiers } from '../../../verifiers/index.js';
import { buildImages, IMAGES, isImageUnknown } from '../../images/index.js';
import { DockerSandboxProvider } from '../../sandbox/index.js';
import { CliExit, EXIT } from '../exit.js';
import { table } from '../table.js';

export function miscCommands(program: Command): void {
  const images = program.command('images').description('sandbox images');
  images
    .command('build')
    .description(
      `build sandbox images that are missing or out of date (${IMAGES.map((i) => i.name).join(', ')})`,
    )
    .option('--only <names>', 'comma-separated image names')
    .option('--force', 'rebuild even when up to date')
    .action(async (o: { only?: string; force?: boolean }) => {
      const provider = new DockerSandboxProvider();
      await provider.ping().catch((e: Error) => {
        throw new CliExit(EXIT.ENV, e.message);
      });
      const t0 = Date.now();
      const report = await buildImages(provider.docker, {
        ...(o.only ? { only: o.only.split(',').map((s) => s.trim()) } : {}),
        ...(o.force ? { force: true } : {}),
        log: (l) => console.error(l),
      }).catch((e: Error) => {
        throw new CliExit(isImageUnknown(e) ? EXIT.BAD_INPUT : EXIT.ENV, e.message);
      });
      for (const r of report) {
        const info = await provider.docker.getImage(r.tag).inspect();
        console.error(
          `${r.tag.padEnd(24)} ${r.action.padEnd(10)} ${(info.Size / 1e6).toFixed(0)} MB${r.ms ? `  ${(r.ms / 1000).toFixed(1)} s` : ''}`,
        );
      }
      console.error(`images ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });
  program
    .command('verifiers')
    .description('list the registered verifiers')
    .action(() =>
      console.log(
        table(
          ['name', 'description'],
          listVerifiers().map((v) => [v.name, v.description]),
        ),
      ),
    );
}
