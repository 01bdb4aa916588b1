export * from './brave-search.js';
export * from './searxng-search.js';
export * from './tavily-search.js';
export * from './web-result.js';
export * from './web-to-memory.js';
