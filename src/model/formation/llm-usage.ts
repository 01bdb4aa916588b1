/**
 * What the LLM calls of one step cost, from the providers' usage fields (OpenAI
 * `prompt_tokens` / `completion_tokens`, Anthropic `input_tokens` / `output_tokens`). A call is
 * one `ChatModel.chat`: HTTP retries inside the client (429, 5xx) are not counted again, since
 * providers do not bill refused requests.
 */
export interface LlmUsage {
  /** Calls that returned an answer. */
  calls: number;
  /** Calls that failed (after the client's own retries). */
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Answered calls whose provider reported no usage (their tokens are missing from the sums). */
  callsWithoutUsage: number;
}
