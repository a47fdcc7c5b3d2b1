/**
 * Collects one output stream of one shell command: counts every byte, keeps at most a cap, and
 * watches for the command's end marker, which may arrive split across chunks.
 */

/**
 * Capture of stdout or stderr up to a sentinel. The sentinel is `marker` followed by a trailer
 * (possibly empty) and a newline; the trailer carries data such as the exit code.
 *
 * @example
 * const c = new Capture(Buffer.from('__END__'), 1024);
 * c.push(Buffer.from('hello __EN')); // false
 * c.push(Buffer.from('D__ 0\n'));    // true; c.text() === 'hello ', c.trailer === ' 0'
 */
export class Capture {
  /** Bytes the command wrote before the marker (kept or not). */
  totalBytes = 0;
  /** Text after the marker, up to the newline; set once the sentinel is complete. */
  trailer: string | undefined;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  /** Tail that might be the start of the marker; not yet counted as output. */
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes after the marker while the sentinel's newline has not come. */
  private afterMarker: Buffer | null = null;

  constructor(
    private readonly marker: Buffer,
    private readonly capBytes: number,
  ) {}

  /** More was written than the cap allows. */
  get truncated(): boolean {
    return this.totalBytes > this.keptBytes;
  }

  /** True once the sentinel line has been seen. */
  get done(): boolean {
    return this.trailer !== undefined;
  }

  /** Feeds a chunk; returns `done`. Data after the sentinel is ignored. */
  push(chunk: Buffer): boolean {
    if (this.done) return true;
    if (this.afterMarker !== null) return this.finishTrailer(Buffer.concat([this.afterMarker, chunk]));
    const buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const at = buf.indexOf(this.marker);
    if (at >= 0) {
      this.commit(buf.subarray(0, at));
      this.pending = Buffer.alloc(0);
      return this.finishTrailer(buf.subarray(at + this.marker.length));
    }
    // Hold back what could be the first bytes of a marker cut by the chunk boundary.
    const hold = Math.min(buf.length, this.marker.length - 1);
    this.commit(buf.subarray(0, buf.length - hold));
    this.pending = Buffer.from(buf.subarray(buf.length - hold));
    return false;
  }

  /** The kept output as UTF-8; a multibyte character cut by the cap is dropped, not mangled. */
  text(): string {
    const all = Buffer.concat(this.kept);
    return (this.truncated ? all.subarray(0, completeUtf8Length(all)) : all).toString('utf8');
  }

  private finishTrailer(rest: Buffer): boolean {
    const nl = rest.indexOf(0x0a);
    if (nl < 0) {
      this.afterMarker = Buffer.from(rest);
      return false;
    }
    this.afterMarker = null;
    this.trailer = rest.subarray(0, nl).toString('utf8');
    return true;
  }

  private commit(b: Buffer): void {
    if (b.length === 0) return;
    this.totalBytes += b.length;
    const room = this.capBytes - this.keptBytes;
    if (room <= 0) return;
    const take = Math.min(room, b.length);
    this.kept.push(Buffer.from(b.subarray(0, take)));
    this.keptBytes += take;
  }
}

/** Length of `b` without a trailing, incomplete UTF-8 sequence. */
export function completeUtf8Length(b: Buffer): number {
  // Walk back over at most 3 continuation bytes to the lead byte of the last character.
  for (let i = b.length - 1, back = 0; i >= 0 && back < 4; i--, back++) {
    const byte = b[i]!;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return b.length - i >= need ? b.length : i;
  }
  return b.length;
}
