import type { Memory } from '../../model/memory.js';

/** The minimum a post-processing step needs of a hit. */
export interface Scored {
  memory: Memory;
  score: number;
}
