export * from './provider-adapter.js';
export { openaiChat } from './openai-chat.js';
export { openaiResponses } from './openai-responses.js';
export { anthropicMessages } from './anthropic-messages.js';
export { bedrockConverse } from './bedrock-converse.js';
export { bedrockInvokeAnthropic } from './bedrock-invoke-anthropic.js';
export { googleGenai } from './google-genai.js';
export { aiSdkPrompt } from './ai-sdk-prompt.js';
export { providers, extractQuery, injectBlock } from './registry.js';
