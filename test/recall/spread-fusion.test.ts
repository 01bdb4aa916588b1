import { describe, expect, it } from 'vitest';
import { memoryDocument, speakerNames, textDocument } from '../../src/text/pool-document.js';
import { fuseSpread } from '../../src/recall/spread-fusion.js';
import { DEFAULT_BM25, bm25Scores } from '../../src/text/bm25.js';
import { stemmedTokenize } from '../../src/text/tokenizer.js';

const options = { weights: { base: 0.5, short: 0.5 }, bm25: DEFAULT_BM25, contextWeight: 0.5 };
const z = (values: number[]): number[] => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
  return values.map((v) => (sd > 0 ? (v - mean) / sd : 0));
};

describe('fuseSpread', () => {
  const docs = [
    { ...textDocument(['walrus', 'swim']), speakers: ['ana'], cosine: 0.31 },
    { ...textDocument(['otter', 'nap']), speakers: ['bo'], cosine: 0.52 },
    { ...textDocument(['walrus', 'otter']), speakers: ['bo'], cosine: 0.12 },
    { ...textDocument(['heron']), speakers: ['ana'], cosine: 0.44 },
  ];

  it('orders the pool like the sum of the z-scores of its three signals, reported as their weighted mean', () => {
    const query = ['ana', 'walrus'];
    const result = fuseSpread(query, docs, options);
    const bm25 = [
      ...bm25Scores(
        query,
        docs.map((d) => d.tokens),
      ).normalized,
    ];
    const speaker = docs.map((d) => (d.speakers.includes('ana') ? 1 : 0));
    const zs = z(docs.map((d) => d.cosine)).map((c, i) => c + (z(bm25)[i] as number) + (z(speaker)[i] as number));
    const order = (scores: ArrayLike<number>): number[] =>
      docs.map((_, i) => i).sort((a, b) => (scores[b] as number) - (scores[a] as number));
    expect(order(result.fused)).toEqual(order(zs));
    expect(result.denseWeight + result.lexicalWeight + result.speakerWeight).toBeCloseTo(1, 12);
    docs.forEach((d, i) =>
      expect(result.fused[i]).toBeCloseTo(
        result.denseWeight * d.cosine +
          result.lexicalWeight * (bm25[i] as number) +
          result.speakerWeight * (speaker[i] as number),
        12,
      ),
    );
    expect([...result.speaker]).toEqual(speaker);
  });

  it('leaves out a signal that is constant over the pool: no word and no speaker matched means the cosine', () => {
    const result = fuseSpread(['zebra'], docs, options);
    expect(result.lexicalWeight).toBe(0);
    expect(result.speakerWeight).toBe(0);
    expect([...result.fused]).toEqual(docs.map((d) => d.cosine));
    expect([...fuseSpread([], docs, options).fused]).toEqual(docs.map((d) => d.cosine));
  });

  it('lets a memory match through its context, below a memory with the words in its own text', () => {
    const pool = [
      { tokens: ['ye', 'last', 'week'], context: ['did', 'you', 'see', 'aurora'], speakers: [], cosine: 0.2 },
      { tokens: ['aurora', 'photo'], context: [], speakers: [], cosine: 0.2 },
      { tokens: ['unrelated', 'chat'], context: [], speakers: [], cosine: 0.2 },
    ];
    const { fused } = fuseSpread(['aurora'], pool, options);
    expect(fused[1] as number).toBeGreaterThan(fused[0] as number);
    expect(fused[0] as number).toBeGreaterThan(fused[2] as number);
  });
});

describe('pool documents', () => {
  const memory = {
    text: 'Caroline: Yes, last week!',
    background: 'Melanie: Did you go to the support group?',
    statedAt: '2023-05-08T13:56:00.000Z',
    sources: [{ type: 'chat' as const, id: 'D1:3', role: 'Caroline', content: 'Yes, last week!' }],
    metadata: { speaker: 'Caroline Smith' },
  };

  it('reads the context from background and statedAt, and the speakers from chat roles and metadata', () => {
    const doc = memoryDocument(memory, stemmedTokenize);
    expect(doc.tokens).toEqual(stemmedTokenize(memory.text));
    expect(doc.context).toEqual([...stemmedTokenize(memory.background), ...stemmedTokenize('8 May 2023')]);
    expect(doc.speakers).toEqual(stemmedTokenize('Caroline Smith'));
    expect(speakerNames(memory)).toEqual(['Caroline', 'Caroline Smith']);
  });

  it('has no context or speakers for a memory that stores none', () => {
    const doc = memoryDocument(
      { text: 'User likes tea', background: null, statedAt: null, sources: [], metadata: {} },
      stemmedTokenize,
    );
    expect(doc).toEqual({ tokens: stemmedTokenize('User likes tea'), context: [], speakers: [] });
    expect(speakerNames({ sources: [{ type: 'doc', role: 'author' }], metadata: { speaker: 7 } })).toEqual([]);
  });
});
