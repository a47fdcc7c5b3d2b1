import { describe, expect, it } from 'vitest';
import { Capture, completeUtf8Length } from '../../actors/sandbox/capture.js';

const marker = Buffer.from('__ENGILOOP_abc__');

describe('Capture', () => {
  it('finds a sentinel split across chunks, byte by byte', () => {
    const c = new Capture(marker, 1024);
    const all = Buffer.from('hello\nworld__ENGILOOP_abc__ 42\nleftover');
    let done = false;
    for (const byte of all) done = c.push(Buffer.from([byte])) || done;
    expect(done).toBe(true);
    expect(c.text()).toBe('hello\nworld');
    expect(c.trailer).toBe(' 42');
    expect(c.truncated).toBe(false);
  });

  it('counts past the cap and keeps only the cap', () => {
    const c = new Capture(marker, 5);
    c.push(Buffer.from('0123456789'));
    c.push(Buffer.from('__ENGILOOP_abc__\n'));
    expect(c.text()).toBe('01234');
    expect(c.totalBytes).toBe(10);
    expect(c.truncated).toBe(true);
    expect(c.trailer).toBe('');
  });

  it('does not take a partial marker for output', () => {
    const c = new Capture(marker, 1024);
    c.push(Buffer.from('a__ENGILOOP_ab'));
    c.push(Buffer.from('x__ENGILOOP_abc__ 0\n'));
    expect(c.text()).toBe('a__ENGILOOP_abx');
  });

  it('drops a multibyte character cut by the cap', () => {
    const euro = Buffer.from('a€', 'utf8'); // 61 e2 82 ac
    expect(completeUtf8Length(euro)).toBe(4);
    expect(completeUtf8Length(euro.subarray(0, 3))).toBe(1);
    const c = new Capture(marker, 3);
    c.push(Buffer.concat([euro, Buffer.from('__ENGILOOP_abc__\n')]));
    expect(c.text()).toBe('a');
  });
});
