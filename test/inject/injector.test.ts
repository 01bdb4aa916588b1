import { describe, expect, it } from 'vitest';
import { createInjector, type InjectorOptions } from '../../src/inject/injector.js';
import type { InjectEvent } from '../../src/inject/inject-event.js';
import { openaiChat } from '../../src/inject/providers/openai-chat.js';
import { isEngramError, EngramError } from '../../src/model/errors.js';
import { FixedRecaller, HITS, RecordingWriter, SCOPE, deepFreeze, hit, memory } from './helpers/fixtures.js';

const REQUEST = deepFreeze({ model: 'm', messages: [{ role: 'user', content: 'what do I eat?' }] });

function setup(overrides: Partial<InjectorOptions> = {}, recaller = new FixedRecaller(HITS)) {
  const events: InjectEvent[] = [];
  const injector = createInjector({ recaller, scope: SCOPE, onEvent: (e) => events.push(e), ...overrides });
  return { injector, events, recaller };
}

describe('createInjector.prepare', () => {
  it('recalls with the scope and options and injects the block', async () => {
    const { injector, events, recaller } = setup({ recall: { limit: 3, threshold: 0.2 } });
    const call = await injector.prepare(openaiChat, REQUEST);
    expect(call.injected).toBe(true);
    expect(recaller.calls[0]?.query).toBe('what do I eat?');
    expect(recaller.calls[0]?.options).toMatchObject({ limit: 3, threshold: 0.2, scope: SCOPE });
    expect(recaller.calls[0]?.options.signal).toBeInstanceOf(AbortSignal);
    const sys = (call.request as { messages: Array<{ role: string; content: string }> }).messages[0];
    expect(sys?.role).toBe('system');
    expect(sys?.content).toContain('- User is allergic to peanuts. Stated at 2026-05-01 09:30');
    expect(events).toEqual([
      expect.objectContaining({ type: 'injected', provider: 'openai-chat', memories: 2, omittedMemories: 0 }),
    ]);
  });

  it.each<[string, Partial<InjectorOptions>, FixedRecaller, string]>([
    ['no hits', {}, new FixedRecaller([]), 'no-hits'],
    ['all below the threshold', {}, new FixedRecaller([], { cut: HITS }), 'below-threshold'],
    ['recall error', {}, new FixedRecaller(HITS, { fail: new Error('db down') }), 'recall-error'],
    ['recall past the budget', { budgetMs: 30 }, new FixedRecaller(HITS, { delayMs: 2000 }), 'timeout'],
    ['recall off', { recall: false }, new FixedRecaller(HITS), 'disabled'],
    ['scope resolver says none', { scope: () => null }, new FixedRecaller(HITS), 'no-scope'],
    [
      'scope resolver throws',
      {
        scope: () => {
          throw new Error('boom');
        },
      },
      new FixedRecaller(HITS),
      'recall-error',
    ],
    ['block bounds leave nothing', { block: { maxChars: 10 } }, new FixedRecaller(HITS), 'empty-block'],
  ])('%s: the same request object goes out and an event says why', async (_name, overrides, recaller, reason) => {
    const { injector, events } = setup(overrides, recaller);
    const started = performance.now();
    const call = await injector.prepare(openaiChat, REQUEST);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(call.request).toBe(REQUEST);
    expect(call.injected).toBe(false);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'skipped', reason });
    const event = events[0];
    if (event?.type === 'skipped' && (reason === 'timeout' || reason === 'recall-error')) {
      expect(isEngramError(event.error)).toBe(true);
    }
  });

  it('aborts the recall signal when the budget runs out', async () => {
    const recaller = new FixedRecaller(HITS, { delayMs: 5000 });
    const { injector } = setup({ budgetMs: 20 }, recaller);
    await injector.prepare(openaiChat, REQUEST);
    expect(recaller.calls[0]?.options.signal?.aborted).toBe(true);
  });

  it('keeps an EngramError from the recaller as is', async () => {
    const error = new EngramError('STORE_BUSY', 'busy', { isRetryable: true });
    const { injector, events } = setup({}, new FixedRecaller(HITS, { fail: error }));
    await injector.prepare(openaiChat, REQUEST);
    expect(events[0]).toMatchObject({ type: 'skipped', reason: 'recall-error', error });
  });

  it('an adapter that throws while injecting never fails the call', async () => {
    const { injector, events } = setup();
    const broken = {
      ...openaiChat,
      injectBlock: () => {
        throw new TypeError('bug');
      },
    };
    const call = await injector.prepare(broken, REQUEST);
    expect(call.request).toBe(REQUEST);
    expect(events.at(-1)).toMatchObject({ type: 'skipped', reason: 'recall-error' });
  });

  it('a request without user text is not recalled for', async () => {
    const { injector, events, recaller } = setup();
    const req = { messages: [{ role: 'system', content: 's' }] };
    expect((await injector.prepare(openaiChat, req)).request).toBe(req);
    expect(recaller.calls).toHaveLength(0);
    expect(events[0]).toMatchObject({ reason: 'no-query' });
  });

  it('resolves the scope per call from the request', async () => {
    const { injector, recaller } = setup({ scope: (r) => ({ tenant: 't', user: (r as { user: string }).user }) });
    await injector.prepare(openaiChat, { ...REQUEST, user: 'alice' });
    await injector.prepare(openaiChat, { ...REQUEST, user: 'bob' });
    expect(recaller.calls.map((c) => c.options.scope.user)).toEqual(['alice', 'bob']);
  });

  it('a throwing event listener never breaks the call', async () => {
    const injector = createInjector({
      recaller: new FixedRecaller(HITS),
      scope: SCOPE,
      onEvent: () => {
        throw new Error('listener');
      },
    });
    const call = await injector.prepare(openaiChat, REQUEST);
    expect(call.injected).toBe(true);
  });

  it('rejects a config without recaller or with a bad budget', () => {
    expect(() => createInjector({ scope: SCOPE })).toThrow(EngramError);
    expect(() => createInjector({ scope: SCOPE, recaller: new FixedRecaller([]), budgetMs: 0 })).toThrow(/budgetMs/);
    expect(createInjector({ scope: SCOPE, recall: false }).passThrough).toBe(true);
    expect(() => createInjector({ scope: SCOPE, recaller: new FixedRecaller([]), block: { tag: 'bad tag' } })).toThrow(
      /invalid block options/,
    );
    expect(() => createInjector({ scope: SCOPE, recaller: new FixedRecaller([]), block: { maxChars: -5 } })).toThrow(
      EngramError,
    );
  });

  it('passes the time budget through a slow scope resolver too', async () => {
    const { injector, events } = setup({
      budgetMs: 20,
      scope: () => new Promise((r) => setTimeout(() => r(SCOPE), 500)),
    });
    expect((await injector.prepare(openaiChat, REQUEST)).request).toBe(REQUEST);
    expect(events[0]).toMatchObject({ reason: 'timeout' });
  });

  it('states the cut in the block when hits exceed maxMemories', async () => {
    const many = Array.from({ length: 8 }, (_, i) => hit(memory(`fact ${i}`)));
    const { injector, events } = setup({ block: { maxMemories: 3 } }, new FixedRecaller(many));
    const call = await injector.prepare(openaiChat, REQUEST);
    expect(JSON.stringify(call.request)).toContain('(5 more memories omitted)');
    expect(events[0]).toMatchObject({ type: 'injected', memories: 3, omittedMemories: 5 });
  });
});

describe('capture', () => {
  it('stores the user message and the reply in the background, in the call scope', async () => {
    const writer = new RecordingWriter();
    const { injector, events } = setup({ capture: { writer, tags: ['chat'] } });
    const call = await injector.prepare(openaiChat, REQUEST);
    injector.captureResponse(openaiChat, call, { choices: [{ message: { content: 'Nothing with peanuts.' } }] });
    expect(writer.batches).toHaveLength(0); // not synchronous
    await injector.idle();
    expect(writer.batches).toHaveLength(1);
    expect(writer.batches[0]?.scope).toEqual(SCOPE);
    expect(writer.batches[0]?.inputs.map((i) => [i.text, i.sources?.[0]?.role, i.type, i.tags])).toEqual([
      ['what do I eat?', 'user', 'WorkingMemory', ['chat']],
      ['Nothing with peanuts.', 'assistant', 'WorkingMemory', ['chat']],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'captured', count: 2 });
  });

  it('captures a streamed reply once the stream completes, not before', async () => {
    const writer = new RecordingWriter();
    const { injector } = setup({ capture: { writer } });
    const call = await injector.prepare(openaiChat, REQUEST);
    const tap = injector.streamTap(openaiChat, call);
    tap.onChunk({ choices: [{ delta: { content: 'Hel' } }] });
    tap.onChunk({ choices: [{ delta: {} }] });
    tap.onChunk({ choices: [{ delta: { content: 'lo' } }] });
    await injector.idle();
    expect(writer.batches).toHaveLength(0);
    tap.onEnd(true);
    await injector.idle();
    expect(writer.batches[0]?.inputs[1]?.text).toBe('Hello');
  });

  it('an aborted stream stores nothing', async () => {
    const writer = new RecordingWriter();
    const { injector } = setup({ capture: { writer } });
    const tap = injector.streamTap(openaiChat, await injector.prepare(openaiChat, REQUEST));
    tap.onChunk({ choices: [{ delta: { content: 'Hel' } }] });
    tap.onEnd(false);
    await injector.idle();
    expect(writer.batches).toHaveLength(0);
  });

  it('a failing writer is reported as an event, never thrown', async () => {
    const writer = new RecordingWriter(new Error('disk full'));
    const { injector, events } = setup({ capture: { writer } });
    const call = await injector.prepare(openaiChat, REQUEST);
    expect(() =>
      injector.captureResponse(openaiChat, call, { choices: [{ message: { content: 'x' } }] }),
    ).not.toThrow();
    await injector.idle();
    const failed = events.find((e) => e.type === 'capture-failed');
    expect(failed).toBeDefined();
    expect(failed?.type === 'capture-failed' && failed.error.code).toBe('INTERNAL');
    expect(failed?.type === 'capture-failed' && (failed.error.cause as Error).message).toBe('disk full');
  });

  it('captures with recall off (scope still resolved)', async () => {
    const writer = new RecordingWriter();
    const injector = createInjector({ recall: false, scope: SCOPE, capture: { writer } });
    expect(injector.passThrough).toBe(false);
    const call = await injector.prepare(openaiChat, REQUEST);
    expect(call.request).toBe(REQUEST);
    injector.captureResponse(openaiChat, call, { choices: [{ message: { content: 'r' } }] });
    await injector.idle();
    expect(writer.batches).toHaveLength(1);
  });

  it('honours user: false / assistant: false', async () => {
    const writer = new RecordingWriter();
    const { injector } = setup({ capture: { writer, user: false } });
    injector.captureResponse(openaiChat, await injector.prepare(openaiChat, REQUEST), {
      choices: [{ message: { content: 'only me' } }],
    });
    await injector.idle();
    expect(writer.batches[0]?.inputs.map((i) => i.text)).toEqual(['only me']);
  });
});
