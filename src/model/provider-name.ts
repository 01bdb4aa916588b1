/** The request shapes Engram can read a query from and inject a context block into. */
export const PROVIDER_NAMES = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'bedrock-converse',
  'bedrock-invoke-anthropic',
  'google-genai',
  'ai-sdk-prompt',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
