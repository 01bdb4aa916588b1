export * from './api-key.js';
export * from './key-store.js';
export * from './key-admin.js';
export * from './principal-scope.js';
