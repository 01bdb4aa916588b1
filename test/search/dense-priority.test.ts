import { describe, expect, it } from 'vitest';
import { narrowedFilter } from '../../src/search/channels/dense-channel.js';
import type { Scope } from '../../src/model/scope.js';

describe('priority pass filter', () => {
  const filter = { scope: { tenant: 't', user: 'u' }, types: ['LongTermMemory' as const] };

  it('narrows the scope by the priority fields', () => {
    expect(narrowedFilter(filter, { session: 's1' })).toEqual({ ...filter, scope: { tenant: 't', user: 'u', session: 's1' } });
  });

  it('never takes the tenant and never widens or switches a fixed field', () => {
    const hostile = { tenant: 'other', session: 's1' } as unknown as Partial<Omit<Scope, 'tenant'>>;
    expect(narrowedFilter(filter, hostile)?.scope.tenant).toBe('t');
    expect(narrowedFilter(filter, { user: 'someone-else', session: 's1' })).toBeUndefined();
    expect(narrowedFilter(filter, { user: 'u' })).toBeUndefined();
    expect(narrowedFilter(filter, {})).toBeUndefined();
    expect(narrowedFilter(filter, undefined)).toBeUndefined();
  });
});
