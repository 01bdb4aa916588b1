import { HashedEmbedder } from '../support/hashed-embedder.js';
import {
  startLocalServer,
  type CannedReply,
  type LocalHttpServer,
  type ReceivedRequest,
} from '../support/local-http-server.js';

/** The reply of the local chat model to the docs' own calls. */
export const DOC_CHAT_REPLY = 'Try a peanut-free vegetable curry.';

/** Dimensions of the OpenAI embedding models the docs name. */
const OPENAI_DIMS: Record<string, number> = { 'text-embedding-3-small': 1536, 'text-embedding-3-large': 3072 };

const embedders = new Map<string, HashedEmbedder>();

async function embeddings(body: { model: string; input: string | string[] }): Promise<CannedReply> {
  const model = body.model;
  const embedder = embedders.get(model) ?? new HashedEmbedder({ dim: OPENAI_DIMS[model] ?? 64, model });
  embedders.set(model, embedder);
  const vectors = await embedder.embed(Array.isArray(body.input) ? body.input : [body.input]);
  return {
    json: {
      object: 'list',
      model,
      data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })),
    },
  };
}

function chat(body: { model: string }): CannedReply {
  // Engram's planner (ENGRAM_LLM) gets an empty plan and falls back; a docs example gets a reply.
  const content = body.model.startsWith('gpt-4o-mini') ? '{}' : DOC_CHAT_REPLY;
  return {
    json: {
      id: 'chatcmpl-docs',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/**
 * One local server for what the docs reach over HTTP, each in its real wire format: OpenAI
 * embeddings and chat completions (`/v1/...`), a BGE rerank service (`/rerank`) and SearXNG's
 * JSON search (`/search?format=json`).
 */
export function startDocServices(): Promise<LocalHttpServer> {
  return startLocalServer(async (request: ReceivedRequest) => {
    const path = new URL(request.url, 'http://local').pathname;
    if (request.method === 'POST' && path === '/v1/embeddings')
      return embeddings(request.body as { model: string; input: string[] });
    if (request.method === 'POST' && path === '/v1/chat/completions') return chat(request.body as { model: string });
    if (request.method === 'POST' && path === '/rerank') {
      const { documents } = request.body as { documents: string[] };
      return { json: { results: documents.map((_, index) => ({ index, relevance_score: 1 / (index + 1) })) } };
    }
    if (request.method === 'GET' && path === '/search') {
      return {
        json: {
          results: [
            {
              title: 'Choosing a plane seat',
              url: 'https://example.org/seats',
              content: 'Window or aisle: how to pick.',
            },
          ],
        },
      };
    }
    return { status: 404, json: { error: `no route ${request.method} ${path}` } };
  });
}
