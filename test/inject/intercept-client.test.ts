import { describe, expect, it } from 'vitest';
import { interceptClient } from '../../src/inject/wrappers/intercept-client.js';

class Resource {
  constructor(readonly _client: Client) {}
  create(body: { n: number }): string {
    return `create ${body.n} via ${this._client.name()}`;
  }
  helper(n: number): string {
    // Like SDK helpers: calls back into the client's resource.
    return this._client.res.create({ n: n * 10 });
  }
}

class Client {
  #secret = 'root';
  readonly res = new Resource(this);
  name(): string {
    return this.#secret;
  }
}

describe('interceptClient', () => {
  it('replaces only the listed method, on a view; the client itself is unchanged', () => {
    const client = new Client();
    const seen: unknown[] = [];
    const wrapped = interceptClient(client, {
      'res.create': (original, args) => {
        seen.push(args[0]);
        return `wrapped(${String(original({ n: (args[0] as { n: number }).n + 1 }))})`;
      },
    });
    expect(wrapped.res.create({ n: 1 })).toBe('wrapped(create 2 via root)');
    expect(client.res.create({ n: 1 })).toBe('create 1 via root');
    expect(Object.prototype.hasOwnProperty.call(client.res, 'create')).toBe(false);
    expect(seen).toEqual([{ n: 1 }]);
  });

  it('root methods keep access to private fields; views are stable', () => {
    const client = new Client();
    const wrapped = interceptClient(client, { 'res.create': (original, args) => original(...args) });
    expect(wrapped.name()).toBe('root');
    expect(wrapped.res).toBe(wrapped.res);
    expect(wrapped.res.create).toBe(wrapped.res.create);
  });

  it('resource helpers that go through _client reach the replaced method', () => {
    const client = new Client();
    const calls: number[] = [];
    const wrapped = interceptClient(client, {
      'res.create': (original, args) => {
        calls.push((args[0] as { n: number }).n);
        return original(...args);
      },
    });
    expect(wrapped.res.helper(2)).toBe('create 20 via root');
    expect(calls).toEqual([20]);
    expect(client.res.helper(2)).toBe('create 20 via root');
    expect(calls).toEqual([20]);
  });
});
