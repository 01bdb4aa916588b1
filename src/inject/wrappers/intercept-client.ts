/** Calls the original method on its original receiver. */
export type OriginalMethod = (...args: unknown[]) => unknown;

/** Replaces one SDK method: gets the original (bound to its real object) and the call's arguments. */
export type MethodHandler = (original: OriginalMethod, args: unknown[]) => unknown;

interface Node {
  handler?: MethodHandler;
  children: Map<string, Node>;
}

function buildTree(handlers: Readonly<Record<string, MethodHandler>>): Node {
  const root: Node = { children: new Map() };
  for (const [path, handler] of Object.entries(handlers)) {
    let node = root;
    for (const key of path.split('.')) {
      let child = node.children.get(key);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(key, child);
      }
      node = child;
    }
    node.handler = handler;
  }
  return root;
}

/**
 * A view of `client` in which the methods at the given dotted paths (e.g.
 * `'chat.completions.create'`) are replaced. Nothing is changed on the client, its resources or
 * their prototypes: other code holding the client sees the original behaviour.
 *
 * - Resources on the path are wrapped in their own Proxy (cached, so `a.chat === a.chat`).
 * - Other functions of the root client are bound to the real client (private fields keep
 *   working); functions of wrapped resources are called on the resource view, whose `_client`
 *   (the Stainless SDKs' back-reference to the root client) points to the wrapped client, so SDK
 *   helpers such as `chat.completions.stream()` / `parse()` or `messages.stream()` go through the
 *   replaced `create`.
 */
export function interceptClient<C extends object>(client: C, handlers: Readonly<Record<string, MethodHandler>>): C {
  const tree = buildTree(handlers);
  const views = new WeakMap<object, object>();
  const bound = new WeakMap<object, unknown>();
  const view = <T extends object>(target: T, node: Node, isRoot: boolean): T => {
    const cached = views.get(target);
    if (cached !== undefined) return cached as T;
    const wrappedMethods = new Map<string, unknown>();
    const proxy = new Proxy(target, {
      get(obj, prop) {
        const value: unknown = Reflect.get(obj, prop, obj);
        if (typeof prop === 'string') {
          const child = node.children.get(prop);
          if (child !== undefined) {
            if (child.handler !== undefined && typeof value === 'function') {
              let method = wrappedMethods.get(prop);
              if (method === undefined) {
                const handler = child.handler;
                const fn = value as (...a: unknown[]) => unknown;
                method = (...args: unknown[]): unknown => handler((...a: unknown[]) => Reflect.apply(fn, obj, a), args);
                wrappedMethods.set(prop, method);
              }
              return method;
            }
            if (typeof value === 'object' && value !== null) return view(value, child, false);
          }
          if (!isRoot && prop === '_client' && value === client) return rootView;
        }
        if (isRoot && typeof value === 'function') {
          let fn = bound.get(value);
          if (fn === undefined) {
            fn = (value as (...a: unknown[]) => unknown).bind(obj);
            bound.set(value, fn);
          }
          return fn;
        }
        return value;
      },
    });
    views.set(target, proxy);
    return proxy;
  };

  const rootView: C = view(client, tree, true);
  return rootView;
}
