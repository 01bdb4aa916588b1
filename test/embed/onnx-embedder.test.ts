import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/embed/embedder.js';
import { createLruEmbeddingCache } from '../../src/embed/lru-embedding-cache.js';
import { createOnnxEmbedder } from '../../src/embed/onnx/onnx-embedder.js';
import { SentenceTokenizer } from '../../src/embed/onnx/sentence-tokenizer.js';
import { resolveEmbedder } from '../../src/embed/resolve-embedder.js';
import { withCache } from '../../src/embed/with-cache.js';
import { expectCode } from '../support/expect-code.js';
import type { TinyEncoderWeights } from './tiny-encoder.js';
import { expectedVector, maxAbsDiff, writeTinyFolder } from './tiny-model-folder.js';
import {
  BPE_SYMBOLS,
  bpeTokenizer,
  UNIGRAM_PIECES,
  unigramTokenizer,
  WORDPIECE_PIECES,
  wordPieceTokenizer,
} from './tiny-tokenizers.js';

let root: string;
const open: Embedder[] = [];
const track = async (e: Promise<Embedder>): Promise<Embedder> => {
  const embedder = await e;
  open.push(embedder);
  return embedder;
};

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'engram-onnx-'));
});
afterAll(async () => {
  await Promise.all(open.map((e) => e.close?.()));
  await rm(root, { recursive: true, force: true });
});

describe('SentenceTokenizer on real tokenizer.json files', () => {
  it('WordPiece (BERT): lower-cases, strips accents, splits punctuation and sub-words, adds [CLS] … [SEP]', () => {
    const t = new SentenceTokenizer(wordPieceTokenizer(), {}, 64);
    expect(t.encode('Hello worlds!')).toEqual([2, 4, 5, 6, 7, 3]);
    expect(t.encode('Unbelievable, my dog runs FAST.')).toEqual([2, 16, 17, 18, 23, 12, 13, 14, 15, 22, 3]);
    expect(t.encode('Café')).toEqual([2, 29, 30, 3]);
    expect(t.encode('zebra')).toEqual([2, 1, 3]);
    expect(t.encode('')).toEqual([2, 3]);
  });

  it('cuts long texts to maxTokens and keeps the closing special token', () => {
    const t = new SentenceTokenizer(wordPieceTokenizer(), {}, 6);
    expect(t.encode('Unbelievable, my dog runs FAST.')).toEqual([2, 16, 17, 18, 23, 3]);
  });

  it('Unigram (sentencepiece, Metaspace): picks the most probable segmentation, adds <s> … </s>', () => {
    const t = new SentenceTokenizer(unigramTokenizer(), {}, 64);
    expect(t.encode('hello worlds!')).toEqual([0, 4, 5, 8, 9, 2]);
    expect(t.encode('green tea')).toEqual([0, 11, 12, 2]);
    expect(t.encode('query: hello')).toEqual([0, 15, 16, 4, 2]);
  });

  it('BPE: applies merges in rank order', () => {
    const t = new SentenceTokenizer(bpeTokenizer(), {}, 64);
    expect(t.encode('hello lower')).toEqual([0, 13, 17, 2]);
    expect(t.encode('hole')).toEqual([0, 4, 7, 6, 5, 2]);
    expect(t.encode('he')).toEqual([0, 10, 2]);
  });

  it('rejects a tokenizer.json it cannot use with CONFIG_ERROR', async () => {
    await expectCode((async () => new SentenceTokenizer({ model: { type: 'NoSuchModel' } }, {}, 64))(), 'CONFIG_ERROR');
    await expectCode((async () => new SentenceTokenizer(wordPieceTokenizer(), {}, 2))(), 'CONFIG_ERROR');
  });
});

describe('createOnnxEmbedder against a reference forward pass', () => {
  let wordPiece: TinyEncoderWeights;
  let unigram: TinyEncoderWeights;
  let bpe: TinyEncoderWeights;
  const wpDir = () => path.join(root, 'tiny-minilm');
  const e5Dir = () => path.join(root, 'tiny-e5-unigram');

  beforeAll(async () => {
    wordPiece = await writeTinyFolder(wpDir(), {
      tokenizer: wordPieceTokenizer(),
      vocab: WORDPIECE_PIECES.length + 4,
      sentenceTransformers: { pooling: 'mean', normalize: true },
    });
    unigram = await writeTinyFolder(e5Dir(), {
      tokenizer: unigramTokenizer(),
      vocab: UNIGRAM_PIECES.length + 4,
      seed: 11,
      hidden: 12,
      sentenceTransformers: { pooling: 'cls', normalize: false },
      prompts: { query: 'query: ', passage: 'passage: ' },
    });
    bpe = await writeTinyFolder(path.join(root, 'tiny-bpe'), {
      tokenizer: bpeTokenizer(),
      vocab: BPE_SYMBOLS.length + 4,
      seed: 5,
    });
  });

  it('WordPiece, mean pooling, normalised: the reference vectors, batched with padding and one by one', async () => {
    const e = await track(createOnnxEmbedder({ path: wpDir() }));
    expect(e.model).toBe('onnx:tiny-minilm');
    expect(e.dim).toBe(16);
    expect(e.asymmetric).toBe(false);
    const texts = ['Hello worlds!', 'Unbelievable, my dog runs FAST.', 'Café', 'zebra', ''];
    const ids = [
      [2, 4, 5, 6, 7, 3],
      [2, 16, 17, 18, 23, 12, 13, 14, 15, 22, 3],
      [2, 29, 30, 3],
      [2, 1, 3],
      [2, 3],
    ];
    const batched = await e.embed(texts);
    const single = await Promise.all(texts.map(async (t) => (await e.embed([t]))[0]!));
    ids.forEach((tokens, i) => {
      const expected = expectedVector(wordPiece, tokens, 'mean', true);
      expect(maxAbsDiff(batched[i]!, expected)).toBeLessThan(1e-4);
      expect(maxAbsDiff(single[i]!, expected)).toBeLessThan(1e-4);
    });
    // Different texts give different vectors (the check above cannot pass on a constant output).
    expect(maxAbsDiff(batched[0]!, batched[1]!)).toBeGreaterThan(0.05);
  });

  it('Unigram, CLS pooling without normalisation, e5 prompts for queries and documents', async () => {
    const e = await track(createOnnxEmbedder({ path: e5Dir() }));
    expect(e.model).toBe('onnx:tiny-e5-unigram');
    expect(e.dim).toBe(12);
    expect(e.asymmetric).toBe(true);
    const [query] = await e.embed(['hello'], { role: 'query' });
    const [document] = await e.embed(['hello'], { role: 'document' });
    const [byDefault] = await e.embed(['hello']);
    const expectedQuery = expectedVector(unigram, [0, 15, 16, 4, 2], 'cls', false);
    const expectedDocument = expectedVector(unigram, [0, 17, 16, 4, 2], 'cls', false);
    expect(maxAbsDiff(query!, expectedQuery)).toBeLessThan(1e-4);
    expect(maxAbsDiff(document!, expectedDocument)).toBeLessThan(1e-4);
    expect(maxAbsDiff(byDefault!, expectedDocument)).toBeLessThan(1e-4);
    expect(Math.hypot(...query!)).not.toBeCloseTo(1, 2);
  });

  it('BPE folder without sentence-transformers configs: mean pooling and unit vectors by default', async () => {
    const e = await track(createOnnxEmbedder({ path: path.join(root, 'tiny-bpe', 'model.onnx') }));
    expect(e.model).toBe('onnx:tiny-bpe');
    const [v] = await e.embed(['hello lower']);
    expect(maxAbsDiff(v!, expectedVector(bpe, [0, 13, 17, 2], 'mean', true))).toBeLessThan(1e-4);
  });

  it('options override the folder: pooling, normalisation, prefixes, id; workers agree', async () => {
    const e = await track(
      createOnnxEmbedder({
        path: e5Dir(),
        pooling: 'mean',
        normalize: true,
        queryPrefix: '',
        documentPrefix: '',
        id: 'my-e5',
        workers: 2,
        threads: 1,
        maxBatchTokens: 8,
      }),
    );
    expect(e.model).toBe('my-e5');
    expect(e.asymmetric).toBe(false);
    const vectors = await e.embed(['hello worlds!', 'green tea', 'hello', 'query: hello']);
    const expected = [
      [0, 4, 5, 8, 9, 2],
      [0, 11, 12, 2],
      [0, 4, 2],
      [0, 15, 16, 4, 2],
    ].map((ids) => expectedVector(unigram, ids, 'mean', true));
    vectors.forEach((v, i) => expect(maxAbsDiff(v, expected[i]!)).toBeLessThan(1e-4));
  });

  it('detects e5 prefixes from the folder name when no config declares them', async () => {
    const dir = path.join(root, 'multilingual-e5-tiny');
    await writeTinyFolder(dir, {
      tokenizer: unigramTokenizer(),
      vocab: UNIGRAM_PIECES.length + 4,
      seed: 11,
      hidden: 12,
    });
    const e = await track(createOnnxEmbedder({ path: dir, pooling: 'cls', normalize: false }));
    expect(e.asymmetric).toBe(true);
    const [query] = await e.embed(['hello'], { role: 'query' });
    expect(maxAbsDiff(query!, expectedVector(unigram, [0, 15, 16, 4, 2], 'cls', false))).toBeLessThan(1e-4);
  });

  it('withCache keeps queries and documents of an asymmetric model apart', async () => {
    const e = withCache(await track(createOnnxEmbedder({ path: e5Dir() })), createLruEmbeddingCache());
    expect(e.asymmetric).toBe(true);
    const [document] = await e.embed(['hello']);
    const [query] = await e.embed(['hello'], { role: 'query' });
    const [again] = await e.embed(['hello'], { role: 'query' });
    expect(maxAbsDiff(query!, document!)).toBeGreaterThan(0.01);
    expect(maxAbsDiff(query!, again!)).toBe(0);
  });

  it('resolves onnx:<path>, with pooling from ENGRAM_ONNX_POOLING', async () => {
    const e = await track(
      resolveEmbedder(`onnx:${e5Dir()}`, { env: { ENGRAM_ONNX_POOLING: 'mean', ENGRAM_ONNX_NORMALIZE: 'true' } }),
    );
    expect(e.model).toBe('onnx:tiny-e5-unigram');
    const [v] = await e.embed(['green tea'], { role: 'document' });
    const passage = new SentenceTokenizer(unigramTokenizer(), {}, 64).encode('passage: green tea');
    expect(maxAbsDiff(v!, expectedVector(unigram, passage, 'mean', true))).toBeLessThan(1e-4);
    await expectCode(resolveEmbedder(`onnx:${e5Dir()}`, { env: { ENGRAM_ONNX_POOLING: 'median' } }), 'CONFIG_ERROR');
    await expectCode(resolveEmbedder(`onnx:${e5Dir()}`, { env: { ENGRAM_ONNX_WORKERS: '0' } }), 'CONFIG_ERROR');
    const two = await track(
      resolveEmbedder(`onnx:${e5Dir()}`, { env: { ENGRAM_ONNX_WORKERS: '2', ENGRAM_ONNX_THREADS: '1' } }),
    );
    const [cls] = await two.embed(['green tea'], { role: 'document' });
    expect(maxAbsDiff(cls!, expectedVector(unigram, passage, 'cls', false))).toBeLessThan(1e-4);
    await expectCode(resolveEmbedder('onnx:', {}), 'CONFIG_ERROR');
  });
});

describe('createOnnxEmbedder errors', () => {
  it('a path that does not exist, a folder without a model or without tokenizer.json: CONFIG_ERROR', async () => {
    await expectCode(createOnnxEmbedder({ path: path.join(root, 'no-such-model') }), 'CONFIG_ERROR');
    const empty = path.join(root, 'empty');
    await writeTinyFolder(empty, { tokenizer: wordPieceTokenizer(), vocab: WORDPIECE_PIECES.length + 4 });
    await rm(path.join(empty, 'model.onnx'));
    await expectCode(createOnnxEmbedder({ path: empty }), 'CONFIG_ERROR');
    const noTokenizer = path.join(root, 'no-tokenizer');
    await writeTinyFolder(noTokenizer, { tokenizer: wordPieceTokenizer(), vocab: WORDPIECE_PIECES.length + 4 });
    await rm(path.join(noTokenizer, 'tokenizer.json'));
    await expectCode(createOnnxEmbedder({ path: noTokenizer }), 'CONFIG_ERROR');
    await writeFile(path.join(noTokenizer, 'tokenizer.json'), '{ not json');
    await expectCode(createOnnxEmbedder({ path: noTokenizer }), 'CONFIG_ERROR');
  });

  it('a corrupt model file: EMBEDDER_ERROR on embed, and the embedder can be closed', async () => {
    const dir = path.join(root, 'corrupt');
    await writeTinyFolder(dir, { tokenizer: wordPieceTokenizer(), vocab: WORDPIECE_PIECES.length + 4 });
    await writeFile(path.join(dir, 'model.onnx'), Buffer.from('this is not an onnx model at all'));
    const e = await track(createOnnxEmbedder({ path: dir }));
    await expectCode(e.embed(['hello']), 'EMBEDDER_ERROR');
    await expectCode(e.embed(['hello']), 'EMBEDDER_ERROR');
    await e.close?.();
    await expectCode(e.embed(['hello']), 'EMBEDDER_ERROR');
  });

  it('a model whose output differs from the declared dimension: EMBEDDER_ERROR', async () => {
    const dir = path.join(root, 'wrong-dim');
    await writeTinyFolder(dir, {
      tokenizer: wordPieceTokenizer(),
      vocab: WORDPIECE_PIECES.length + 4,
      declaredHidden: 32,
      sentenceTransformers: { pooling: 'mean', normalize: true },
    });
    const e = await track(createOnnxEmbedder({ path: dir }));
    expect(e.dim).toBe(32);
    await expectCode(e.embed(['hello']), 'EMBEDDER_ERROR');
  });
});
