import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RecallTimings } from '../model/api.js';

/** Prometheus metrics of one server, in their own registry (no global state). */
export interface ServerMetrics {
  readonly registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeRecall(timings: RecallTimings): void;
  observeWrite(kind: 'add' | 'update' | 'delete' | 'remember', count: number): void;
  /** The text exposition format served at `/metrics`. */
  render(): Promise<string>;
}

/** Options of {@link createServerMetrics}. */
export interface ServerMetricsOptions {
  /** Include process metrics (CPU, memory, event loop lag). @default true */
  processMetrics?: boolean | undefined;
}

/** Request counts and latencies by route, recall stage latencies and write counts. */
export function createServerMetrics(options: ServerMetricsOptions = {}): ServerMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'engram_' });
  const requests = new Counter({
    name: 'engram_http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'engram_http_request_duration_seconds',
    help: 'HTTP request latency by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const stages = new Histogram({
    name: 'engram_recall_stage_duration_seconds',
    help: 'Recall latency by stage (embed, dense, lexical, rank, total).',
    labelNames: ['stage'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const writes = new Counter({
    name: 'engram_memory_writes_total',
    help: 'Memories added, updated or deleted.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  return {
    registry,
    observeRequest(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    observeRecall(t) {
      stages.observe({ stage: 'embed' }, t.embedMs / 1000);
      stages.observe({ stage: 'dense' }, t.denseMs / 1000);
      stages.observe({ stage: 'lexical' }, t.lexicalMs / 1000);
      stages.observe({ stage: 'rank' }, t.rankMs / 1000);
      stages.observe({ stage: 'total' }, t.totalMs / 1000);
    },
    observeWrite(kind, count) {
      if (count > 0) writes.inc({ kind }, count);
    },
    render: () => registry.metrics(),
  };
}
