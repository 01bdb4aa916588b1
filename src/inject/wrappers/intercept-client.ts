/** Calls the original method on its original receiver. */
export type OriginalMethod = (...args: unknown[]) => unknown;

/** Replaces one SDK method: gets the original (bound to its real object) and the call's arguments. */
export type MethodHandler = (original: OriginalMethod, args: unknown[]) => unknown;

interface Node {
  handler?: MethodHandler;
  /** Dotted path (from the root view) whose view this property returns instead. */
  alias?: string;
  children: Map<string, Node>;
}

function nodeAt(root: Node, path: string): Node {
  let node = root;
  for (const key of path.split('.')) {
    let child = node.children.get(key);
    if (child === undefined) {
      child = { children: new Map() };
      node.children.set(key, child);
    }
    node = child;
  }
  return node;
}

function buildTree(handlers: Readonly<Record<string, MethodHandler>>, aliases: Readonly<Record<string, string>>): Node {
  const root: Node = { children: new Map() };
  for (const [path, handler] of Object.entries(handlers)) nodeAt(root, path).handler = handler;
  for (const [path, target] of Object.entries(aliases)) nodeAt(root, path).alias = target;
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
 * - `aliases` maps a property path to another path of the view, for SDK objects that keep their
 *   own reference to a wrapped resource (e.g. `{ 'chats.modelsModule': 'models' }` for
 *   `@google/genai`, whose chat sessions call the models module they were created with). The
 *   alias applies only while the property still holds the object found at the target path.
 */
export function interceptClient<C extends object>(
  client: C,
  handlers: Readonly<Record<string, MethodHandler>>,
  aliases: Readonly<Record<string, string>> = {},
): C {
  const tree = buildTree(handlers, aliases);
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
          if (child?.alias !== undefined) {
            const target = resolvePath(child.alias);
            if (target.original === value) return target.view;
          }
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

  /** The original object and its view at a dotted path from the root. */
  const resolvePath = (path: string): { original: unknown; view: unknown } => {
    let original: unknown = client;
    let current: unknown = rootView;
    for (const key of path.split('.')) {
      if (typeof original !== 'object' || original === null) return { original: undefined, view: undefined };
      original = Reflect.get(original, key, original);
      current = Reflect.get(current as object, key);
    }
    return { original, view: current };
  };

  const rootView: C = view(client, tree, true);
  return rootView;
}
