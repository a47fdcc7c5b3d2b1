import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCode } from '../../core/index.js';
import {
  BlobDigestError,
  BlobStore,
  EpisodeLog,
  externalize,
  internalize,
  sha256Hex,
  type ActionExecuted,
  type ObservationRecorded,
} from '../../streams/index.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';
import { executed, observed } from './fixtures.js';

let nats: TestNats;
let blobs: BlobStore;
let log: EpisodeLog;

beforeAll(async () => {
  nats = await startTestNats();
  blobs = await BlobStore.open(nats.nc);
  log = await EpisodeLog.open(nats.nc);
});
afterAll(() => nats?.close());

/** ~100 KiB of multi-byte output, so previews must cut on a character boundary. */
const bigOutput = Array.from({ length: 2000 }, (_, i) => `line ${i}: volume ≈ ${i * 3} mm³ ✓\n`).join('');

describe('BlobStore', () => {
  it('puts by digest, skips existing content, and gets it back verified', async () => {
    const bytes = Buffer.from('hello blobs');
    const digest = await blobs.put(bytes);
    expect(digest).toBe(sha256Hex(bytes));
    const before = (await blobs.os.info(digest))!.nuid;
    expect(await blobs.put(bytes)).toBe(digest);
    expect((await blobs.os.info(digest))!.nuid).toBe(before); // not uploaded again
    expect((await blobs.get(digest)).toString()).toBe('hello blobs');
  });

  it('reports BLOB_NOT_FOUND for an absent digest', async () => {
    await expect(blobs.get('0'.repeat(64))).rejects.toSatisfy((e) => hasCode(e, 'BLOB_NOT_FOUND'));
    await expect(blobs.get('not-a-digest')).rejects.toSatisfy((e) => hasCode(e, 'BLOB_NOT_FOUND'));
  });

  it('reports BLOB_DIGEST_MISMATCH when the stored bytes were replaced', async () => {
    const digest = await blobs.put(Buffer.from('original'));
    await blobs.os.putBlob({ name: digest }, Buffer.from('tampered'));
    const err = await blobs.get(digest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlobDigestError);
    expect(hasCode(err, 'BLOB_DIGEST_MISMATCH')).toBe(true);
    expect((err as Error).message).toContain(sha256Hex(Buffer.from('tampered')));
  });
});

describe('externalize / internalize', () => {
  it('moves stdout over 64 KiB to the store and restores it with a matching digest', async () => {
    const event = executed(1, bigOutput, 'small stderr');
    const out = (await externalize(event, blobs)) as ActionExecuted;
    expect(out.result.blobs).toEqual({ stdout: sha256Hex(Buffer.from(bigOutput)) });
    expect(Buffer.byteLength(out.result.stdout)).toBeLessThanOrEqual(16 * 1024);
    expect(bigOutput.startsWith(out.result.stdout)).toBe(true); // cut on a character boundary
    expect(out.result.stderr).toBe('small stderr');
    expect(event.result.stdout).toBe(bigOutput); // input not mutated

    // Through the log: the stored event is small, the full text comes back.
    const w = log.writer('ep-blob');
    await w.append(out);
    const [stored] = await log.read('ep-blob');
    const full = (await internalize(stored!, blobs)) as ActionExecuted;
    expect(full.result.stdout).toBe(bigOutput);
    expect(sha256Hex(Buffer.from(full.result.stdout))).toBe(out.result.blobs!.stdout);
  });

  it('externalises stderr and observation text too; small events pass unchanged', async () => {
    const both = (await externalize(executed(2, bigOutput, bigOutput), blobs)) as ActionExecuted;
    expect(both.result.blobs?.stdout).toBe(both.result.blobs?.stderr);
    const obs = (await externalize(observed(1, bigOutput), blobs)) as ObservationRecorded;
    expect(obs.textBlob).toBe(sha256Hex(Buffer.from(bigOutput)));
    expect(((await internalize(obs, blobs)) as ObservationRecorded).text).toBe(bigOutput);
    const small = executed(3);
    expect(await externalize(small, blobs)).toBe(small);
    expect(await internalize(small, blobs)).toBe(small);
  });
});
