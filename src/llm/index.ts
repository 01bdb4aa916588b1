export * from './anthropic-chat.js';
export * from './chat-json.js';
export * from './chat-model.js';
export * from './extract-json.js';
export * from './http-json.js';
export * from './openai-compatible-chat.js';
export * from './resolve-chat-model.js';
