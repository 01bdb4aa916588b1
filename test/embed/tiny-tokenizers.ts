/**
 * Real `tokenizer.json` files (the Hugging Face tokenizers format) with small vocabularies,
 * for the ONNX embedder tests: a BERT-style WordPiece, an XLM-R-style Unigram (sentencepiece)
 * and a byte-pair BPE tokenizer.
 */

const special = (id: number, content: string) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

/** The fields every tokenizer.json here shares: format version, no truncation or padding, its special tokens. */
const header = (specials: string[]) => ({
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: specials.map((t, i) => special(i, t)),
});

const template = (first: [string, number], last: [string, number]) => ({
  type: 'TemplateProcessing',
  single: [
    { SpecialToken: { id: first[0], type_id: 0 } },
    { Sequence: { id: 'A', type_id: 0 } },
    { SpecialToken: { id: last[0], type_id: 0 } },
  ],
  pair: [
    { SpecialToken: { id: first[0], type_id: 0 } },
    { Sequence: { id: 'A', type_id: 0 } },
    { SpecialToken: { id: last[0], type_id: 0 } },
    { Sequence: { id: 'B', type_id: 1 } },
    { SpecialToken: { id: last[0], type_id: 1 } },
  ],
  special_tokens: {
    [first[0]]: { id: first[0], ids: [first[1]], tokens: [first[0]] },
    [last[0]]: { id: last[0], ids: [last[1]], tokens: [last[0]] },
  },
});

/** WordPiece vocabulary: [PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3, then these pieces in order. */
export const WORDPIECE_PIECES = [
  'hello',
  'world',
  '##s',
  '!',
  'i',
  'like',
  'green',
  'tea',
  'my',
  'dog',
  'runs',
  'fast',
  'un',
  '##believ',
  '##able',
  'query',
  ':',
  'passage',
  '.',
  ',',
  'the',
  'cat',
  'sat',
  'on',
  'mat',
  'caf',
  '##e',
];

/** BERT-style: lower-casing and accent-stripping normaliser, punctuation split, [CLS] … [SEP]. */
export function wordPieceTokenizer(): object {
  const vocab: Record<string, number> = { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3 };
  WORDPIECE_PIECES.forEach((p, i) => (vocab[p] = i + 4));
  return {
    ...header(['[PAD]', '[UNK]', '[CLS]', '[SEP]']),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: template(['[CLS]', 2], ['[SEP]', 3]),
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

/** Unigram pieces after <s>=0, <pad>=1, </s>=2, <unk>=3, with their log-probabilities. */
export const UNIGRAM_PIECES: Array<[string, number]> = [
  ['▁hello', -2],
  ['▁world', -2],
  ['▁wor', -3],
  ['ld', -3],
  ['s', -4],
  ['!', -4],
  ['▁', -5],
  ['▁green', -2.5],
  ['▁tea', -2.5],
  ['▁te', -3.5],
  ['a', -4.5],
  ['▁query', -3],
  [':', -4],
  ['▁passage', -3],
  ['h', -6],
  ['e', -6],
  ['l', -6],
  ['o', -6],
];

/** XLM-R-style: Metaspace pre-tokeniser (▁ before words), Unigram model, <s> … </s>. */
export function unigramTokenizer(): object {
  return {
    ...header(['<s>', '<pad>', '</s>', '<unk>']),
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: template(['<s>', 0], ['</s>', 2]),
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: {
      type: 'Unigram',
      unk_id: 3,
      byte_fallback: false,
      vocab: [['<s>', 0], ['<pad>', 0], ['</s>', 0], ['<unk>', 0], ...UNIGRAM_PIECES],
    },
  };
}

/** BPE symbols after <s>=0, <pad>=1, </s>=2, <unk>=3; merges build "hello", "low", "er". */
export const BPE_SYMBOLS = ['h', 'e', 'l', 'o', 'w', 'r', 'he', 'll', 'hell', 'hello', 'lo', 'low', 'er', 'lower'];
export const BPE_MERGES = ['h e', 'l l', 'he ll', 'hell o', 'l o', 'lo w', 'e r', 'low er'];

/** Whitespace pre-tokeniser, BPE with merges in rank order, <s> … </s>. */
export function bpeTokenizer(): object {
  const vocab: Record<string, number> = { '<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3 };
  BPE_SYMBOLS.forEach((s, i) => (vocab[s] = i + 4));
  return {
    ...header(['<s>', '<pad>', '</s>', '<unk>']),
    normalizer: null,
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: template(['<s>', 0], ['</s>', 2]),
    decoder: null,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: BPE_MERGES,
    },
  };
}
