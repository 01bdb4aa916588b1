import { afterAll, beforeAll } from 'vitest';
import { RemoteEngram } from '../../src/client/remote-engram.js';
import { runMemoryApiConformance } from '../api/conformance.js';
import { startHarness, type Harness } from '../server/server-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

runMemoryApiConformance('RemoteEngram over HTTP on 127.0.0.1', async (tenants) => {
  const keys = new Map(tenants.map((tenant) => [tenant, h.key({ tenant })]));
  const api = new RemoteEngram({ url: h.url, apiKey: (tenant) => keys.get(tenant) });
  return { api, cleanup: () => api.close() };
});
