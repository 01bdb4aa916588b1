import { el } from './dom.js';

/**
 * The provider request as it would go out, pretty-printed, with the injected context block
 * marked. The block sits inside a JSON string, so it is located by its JSON-escaped form.
 */
export function outgoingRequest(request: Record<string, unknown>, block: string | null): HTMLElement {
  const json = JSON.stringify(request, null, 2);
  const pre = el('pre', { class: 'request', testid: 'outgoing-request' });
  const needle = block === null ? '' : JSON.stringify(block).slice(1, -1);
  const at = needle === '' ? -1 : json.indexOf(needle);
  if (at < 0) {
    pre.append(json);
    return pre;
  }
  pre.append(
    json.slice(0, at),
    el('mark', { class: 'injected', testid: 'injected-block', attrs: { title: 'injected by Engram' } }, needle),
    json.slice(at + needle.length),
  );
  return pre;
}
