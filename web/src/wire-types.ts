/** Shapes of the `/v1` API responses the inspector reads (a subset of the OpenAPI document). */

// The server's own list: one source for the memory types the API accepts.
import { MEMORY_TYPES, type MemoryType } from '../../src/model/memory-type.js';

export { MEMORY_TYPES, type MemoryType };

export const PROVIDERS = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'bedrock-converse',
  'bedrock-invoke-anthropic',
  'google-genai',
  'ai-sdk-prompt',
] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface Scope {
  tenant: string;
  user?: string;
  agent?: string;
  session?: string;
  collection?: string;
}

/** Narrowing sent with requests; the tenant always comes from the key. */
export interface RequestScope {
  user?: string;
  agent?: string;
  session?: string;
  collection?: string;
}

export interface MemorySource {
  type: string;
  id?: string;
  role?: string;
  content?: string;
  url?: string;
  title?: string;
}

export interface Memory {
  id: string;
  text: string;
  type: MemoryType;
  key: string | null;
  tags: string[];
  level: string | null;
  summary: string | null;
  background: string | null;
  sources: MemorySource[];
  scope: Scope;
  metadata: Record<string, unknown>;
  statedAt: string | null;
  createdAt: string;
  updatedAt: string;
  status: 'activated' | 'archived' | 'deleted';
  usage: { count: number; lastUsedAt: string | null };
  embedding: { model: string; dim: number } | null;
}

export interface Page {
  items: Memory[];
  nextCursor: string | null;
}

export interface WhoAmI {
  tenant: string;
  keyId: string;
  access: 'read' | 'read-write';
  collections: string[] | null;
  search: boolean;
  rerankers: string[];
}

export interface RecallHit {
  memory: Memory;
  score: number;
  explanation: {
    channels: string[];
    cosine: number;
    bm25: number;
    bm25Raw: number;
    denseWeight: number;
    lexicalWeight: number;
    fused: number;
    denseRank?: number;
    lexicalRank?: number;
    extra?: Record<string, number>;
  };
}

export interface RecallResponse {
  query: string;
  hits: RecallHit[];
  cut: RecallHit[];
  poolSize: number;
  timings: { embedMs: number; denseMs: number; lexicalMs: number; rankMs: number; totalMs: number };
  server?: { parseMs: number; recallMs: number; totalMs: number };
}

export interface SearchHit {
  memory: Memory;
  relevance: number;
  collection: string | null;
  explanation: {
    paths: string[];
    channels: Record<string, number>;
    cosine: number;
    bm25: number;
    lexicalWeight: number;
    fused: number;
    rerank?: { name: string; score: number };
    boost?: number;
    stage?: number;
  };
  rewritten?: string;
}

export interface SearchPlan {
  mode?: string;
  goal?: {
    keys?: string[];
    tags?: string[];
    rephrasedQuery?: string;
    memories?: string[];
    internetSearch?: boolean;
    goalType?: string;
  };
  info?: { mode?: string; fallback?: string };
  queryTexts?: string[];
  subQuestions?: string[];
  keywordTerms?: string[];
  paths?: string[];
  reranker?: string;
  stages?: Array<{ stage: number; canAnswer: boolean; phrases: string[]; error?: string }>;
}

/** `POST /v1/search`. */
export interface SearchResponse {
  query: string;
  hits: SearchHit[];
  plan: SearchPlan;
  timings: Record<string, number | Record<string, number>>;
  collections: { searched: Array<string | null>; denied: string[] };
  degraded: Record<string, string>;
}

export interface InjectResponse {
  request: Record<string, unknown>;
  injected: boolean;
  query: string | null;
  hits: Array<{ id: string; score: number }>;
  block: string | null;
}
