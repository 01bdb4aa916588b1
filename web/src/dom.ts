/**
 * The only way the inspector builds DOM: elements are created one by one, strings become Text
 * nodes and attributes go through setAttribute. Nothing is ever parsed as HTML, so memory text
 * (untrusted input) always shows as text.
 */

/** What may be appended to an element. `null`, `undefined` and `false` are skipped. */
export type Child = Node | string | number | null | undefined | false;

/** Attributes, class, and event listeners of {@link el}. */
export interface ElProps {
  class?: string | undefined;
  /** `data-testid`, used by the end-to-end tests. */
  testid?: string | undefined;
  attrs?: Record<string, string | number | boolean | undefined> | undefined;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void } | undefined;
}

/** Appends children as nodes; strings and numbers become Text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
}

/** Creates an element. Event-handler attributes (`on…`) and `style` are refused. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElProps = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.testid) node.dataset.testid = props.testid;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (/^on/i.test(name) || name.toLowerCase() === 'style') throw new TypeError(`refusing attribute ${name}`);
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [type, listener] of Object.entries(props.on ?? {})) {
    node.addEventListener(type, listener as EventListener);
  }
  append(node, ...children);
  return node;
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A labelled form control. */
export function field(label: string, control: HTMLElement, testid?: string): HTMLLabelElement {
  return el('label', { class: 'field', testid }, el('span', { class: 'field-label' }, label), control);
}

/** `<select>` with the given options (value, label). */
export function select(options: Array<[string, string]>, value: string, testid?: string): HTMLSelectElement {
  const node = el('select', { testid });
  for (const [v, label] of options) node.appendChild(el('option', { attrs: { value: v } }, label));
  node.value = value;
  return node;
}

/** A short date-time (UTC) or a dash. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A number with a few decimals, or a dash. */
export function formatScore(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(3);
}

/** Text cut to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
