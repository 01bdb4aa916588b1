/** Moved to src/model/formation so the store engine can implement and share it (the store sits below formation). */
export * from '../model/formation/normalize-turn-text.js';
