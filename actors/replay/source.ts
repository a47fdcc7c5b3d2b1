/** Where a replay reads an episode from: the JetStream log, or a file of stored messages. */
import { readFile } from 'node:fs/promises';
import { decodeEvent, type EpisodeEvent } from '../../streams/index.js';

/** Reads a `--raw` dump (one base64 msgpack message per line), decoding and upcasting each. */
export async function readEventsFile(path: string): Promise<EpisodeEvent[]> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  return lines.map((l, i) => decodeEvent(Buffer.from(l.trim(), 'base64'), { subject: path, seq: i + 1 }));
}
