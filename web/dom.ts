// DOM building by construction: every value becomes a text node or a checked attribute, never markup.

export type Child = Node | string | number | bigint | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

const URL_ATTRIBUTES = new Set(['href', 'src']);

/** Same-origin paths and http(s) links only: a value from the API can never become `javascript:`. */
function safeUrl(value: string): string | null {
  if (value.startsWith('/') && !value.startsWith('//')) return value;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function applyAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) throw new Error(`event handler attributes are not allowed: ${name}`);
    let text = value === true ? '' : String(value);
    if (URL_ATTRIBUTES.has(name)) {
      const checked = safeUrl(text);
      if (checked === null) continue;
      text = checked;
    }
    element.setAttribute(name, text);
  }
}

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element with attributes and children (strings are text, so they are always escaped). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  applyAttributes(element, attributes);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  applyAttributes(element, attributes);
  append(element, children);
  return element;
}

/** Replaces everything inside `parent` with `children`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

export function requireElement<T extends Element = HTMLElement>(selector: string): T {
  const element = document.querySelector<T>(selector);
  if (element === null) throw new Error(`page shell is missing ${selector}`);
  return element;
}

export function meta(name: string): string | null {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? null;
}
