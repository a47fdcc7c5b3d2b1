/**
 * DOM building without HTML strings: every text goes through `textContent` (text nodes), so the
 * agent-written data a report shows can never become markup.
 */

/** What `h` and `s` accept as children: nodes, texts (made text nodes), nothing, or lists of them. */
export type Child = Node | string | number | null | undefined | false | Child[];

/** Attributes: strings and numbers are set, `true` sets an empty attribute, `on*` functions listen. */
export type Attrs = Record<string, string | number | boolean | null | undefined | ((ev: Event) => void)>;

function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else if (c instanceof Node) parent.appendChild(c);
    else parent.appendChild(document.createTextNode(String(c)));
  }
}

function setAttrs(el: Element, attrs: Attrs | null | undefined): void {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    // CSSOM, not the attribute: the page's CSP allows no inline style attributes.
    else if (k === 'style') (el as HTMLElement | SVGElement).style.cssText = String(v);
    else if (k === 'class') el.setAttribute('class', String(v));
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

/**
 * Makes an HTML element.
 * @example h('a', { href: '#/', class: 'nav' }, 'Overview')
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Makes an SVG element (`createElementNS`), attributes and children as for {@link h}. */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A section with a heading. */
export function section(title: string, attrs: Attrs | null, ...children: Child[]): HTMLElement {
  return h('section', { class: 'card', ...attrs }, h('h2', null, title), ...children);
}

/** A table from a header row and body rows (each cell a child). */
export function table(head: string[], rows: Child[][], attrs?: Attrs): HTMLTableElement {
  return h(
    'table',
    attrs ?? null,
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        head.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h(
      'tbody',
      null,
      rows.map((r) =>
        h(
          'tr',
          null,
          r.map((c) => h('td', null, c)),
        ),
      ),
    ),
  );
}
