/**
 * Key names as agents write them (AutoCAD-Bench / computer-use style: `ctrl+s`, `Return`,
 * `ctrl+shift+z`, `esc`, `pagedown`) mapped to xdotool `key` arguments (X keysym names).
 * Pure: no I/O.
 */

/** Lower-case aliases → the X keysym (or xdotool modifier alias) they mean. */
const ALIASES: Readonly<Record<string, string>> = {
  enter: 'Return',
  return: 'Return',
  esc: 'Escape',
  escape: 'Escape',
  backspace: 'BackSpace',
  tab: 'Tab',
  space: 'space',
  spacebar: 'space',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  ins: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'Prior',
  page_up: 'Prior',
  pgup: 'Prior',
  pagedown: 'Next',
  page_down: 'Next',
  pgdn: 'Next',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  arrowup: 'Up',
  arrowdown: 'Down',
  arrowleft: 'Left',
  arrowright: 'Right',
  ctrl: 'ctrl',
  control: 'ctrl',
  shift: 'shift',
  alt: 'alt',
  option: 'alt',
  meta: 'meta',
  super: 'super',
  win: 'super',
  windows: 'super',
  cmd: 'super',
  command: 'super',
  capslock: 'Caps_Lock',
  numlock: 'Num_Lock',
  scrolllock: 'Scroll_Lock',
  print: 'Print',
  printscreen: 'Print',
  prtsc: 'Print',
  menu: 'Menu',
  pause: 'Pause',
  plus: 'plus',
  minus: 'minus',
};

/** Printable ASCII that is not a keysym name by itself (xdotool rejects `/`, `-`, `.` …). */
const PUNCTUATION: Readonly<Record<string, string>> = {
  '+': 'plus',
  '-': 'minus',
  '=': 'equal',
  '/': 'slash',
  '\\': 'backslash',
  '.': 'period',
  ',': 'comma',
  ';': 'semicolon',
  ':': 'colon',
  "'": 'apostrophe',
  '"': 'quotedbl',
  '`': 'grave',
  '~': 'asciitilde',
  '!': 'exclam',
  '@': 'at',
  '#': 'numbersign',
  $: 'dollar',
  '%': 'percent',
  '^': 'asciicircum',
  '&': 'ampersand',
  '*': 'asterisk',
  '(': 'parenleft',
  ')': 'parenright',
  '[': 'bracketleft',
  ']': 'bracketright',
  '{': 'braceleft',
  '}': 'braceright',
  '<': 'less',
  '>': 'greater',
  '?': 'question',
  _: 'underscore',
  '|': 'bar',
};

/** A key name the mapping refuses (empty, or characters no keysym name has). */
export class KeyNameError extends Error {
  override readonly name = 'KeyNameError';
}

/** One key: a single character, an alias, F1–F24, or a keysym name passed through. */
function keysym(token: string): string {
  const chars = [...token];
  if (chars.length === 1) {
    const c = chars[0]!;
    if (/^[A-Za-z0-9]$/.test(c)) return c;
    const p = PUNCTUATION[c];
    if (p) return p;
    // Any other character by code point: X maps keysym 0x1000000 + cp, named `U<hex>`.
    return `U${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  const f = /^f([1-9]|1[0-9]|2[0-4])$/i.exec(token);
  if (f) return `F${f[1]}`;
  const alias = ALIASES[token.toLowerCase()];
  if (alias) return alias;
  // Keysym names (KP_Enter, XF86AudioMute, eacute): letters, digits and `_` only.
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(token)) throw new KeyNameError(`"${token}" is not a key name`);
  return token;
}

/** `ctrl+shift+z` → parts; `ctrl++` means ctrl and the `+` key; a lone `+` is the `+` key. */
function chordParts(chord: string): string[] {
  if (chord === '+') return ['+'];
  const parts = chord.endsWith('++') ? [...chord.slice(0, -2).split('+'), '+'] : chord.split('+');
  if (parts.some((p) => p.length === 0)) throw new KeyNameError(`"${chord}" has an empty key between "+"`);
  return parts;
}

/**
 * Maps a `key` action's `keys` to xdotool `key` arguments, one per chord. Chords are separated by
 * whitespace and played in order; keys within a chord are joined by `+`. In a chord with other
 * keys, a single upper-case letter is lowered (`ctrl+S` is Ctrl+S as a person means it, not
 * Ctrl+Shift+S; write `ctrl+shift+s` for that). Names are case-insensitive aliases (`enter`, `esc`,
 * `pagedown`, `cmd`, `f5`) or X keysym names passed through (`Return`, `KP_Enter`).
 * Throws `KeyNameError` for an empty string, an empty key (`ctrl+`) or an impossible name.
 * Unknown but well-formed keysym names are passed through: xdotool reports them.
 *
 * @example toXdotoolKeys('ctrl+shift+z') // ['ctrl+shift+z']
 * @example toXdotoolKeys('esc ctrl+S')   // ['Escape', 'ctrl+s']
 * @example toXdotoolKeys('ctrl++')       // ['ctrl+plus']
 */
export function toXdotoolKeys(keys: string): string[] {
  const chords = keys.trim().split(/\s+/).filter(Boolean);
  if (chords.length === 0) throw new KeyNameError('no key given');
  return chords.map((chord) => {
    const syms = chordParts(chord).map(keysym);
    const combined = syms.length > 1;
    return syms.map((s) => (combined && /^[A-Z]$/.test(s) ? s.toLowerCase() : s)).join('+');
  });
}
