/**
 * A cheap, tokenizer-free token estimate used to bound the context block: one token per
 * CJK / kana / hangul character (BPE tokenizers rarely merge them), and one token per four other
 * characters. Rounded up. It errs on the high side for English prose, which is the safe side for
 * a budget.
 */
export function approximateTokens(text: string): number {
  let wide = 0;
  let narrow = 0;
  for (const ch of text) {
    if (WIDE.test(ch)) wide += 1;
    else narrow += 1;
  }
  return wide + Math.ceil(narrow / 4);
}

const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
