import { Tokenizer } from '@huggingface/tokenizers';
import { EngramError } from '../../model/errors.js';

const sameIds = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * A Hugging Face `tokenizer.json` (WordPiece, Unigram, BPE… through `@huggingface/tokenizers`)
 * for one sentence at a time: the special tokens the tokenizer's post-processor adds around a
 * text (e.g. `[CLS] … [SEP]`, `<s> … </s>`) are kept when a long text is cut to `maxTokens`.
 */
export class SentenceTokenizer {
  private readonly tokenizer: Tokenizer;
  private readonly head: number[];
  private readonly tail: number[];
  /** Id used for padding positions (masked out). */
  readonly padId: number;

  constructor(
    tokenizerJson: object,
    tokenizerConfig: object,
    private readonly maxTokens: number,
  ) {
    try {
      this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
      // Where the post-processor puts a text: find the bare encoding inside the full one.
      const probe = 'hello world';
      const full = this.tokenizer.encode(probe).ids;
      const bare = this.tokenizer.encode(probe, { add_special_tokens: false }).ids;
      let at = -1;
      for (let i = 0; i + bare.length <= full.length && at < 0; i++) {
        if (sameIds(full.slice(i, i + bare.length), bare)) at = i;
      }
      this.head = at < 0 ? [] : full.slice(0, at);
      this.tail = at < 0 ? [] : full.slice(at + bare.length);
    } catch (cause) {
      throw new EngramError('CONFIG_ERROR', `tokenizer.json could not be used: ${(cause as Error).message}`, { cause });
    }
    if (this.head.length + this.tail.length >= maxTokens) {
      throw new EngramError('CONFIG_ERROR', `maxTokens ${maxTokens} leaves no room for text between special tokens`);
    }
    const padding = (tokenizerJson as { padding?: { pad_id?: unknown } }).padding;
    const padToken = (tokenizerConfig as { pad_token?: unknown }).pad_token;
    this.padId =
      typeof padding?.pad_id === 'number'
        ? padding.pad_id
        : ((typeof padToken === 'string' ? this.tokenizer.token_to_id(padToken) : undefined) ?? 0);
  }

  /** Token ids of one text with its special tokens, at most `maxTokens`. */
  encode(text: string): number[] {
    const room = this.maxTokens - this.head.length - this.tail.length;
    const ids = this.tokenizer.encode(text, { add_special_tokens: false }).ids;
    return [...this.head, ...(ids.length > room ? ids.slice(0, room) : ids), ...this.tail];
  }
}
