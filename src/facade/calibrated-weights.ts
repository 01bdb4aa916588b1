import type { Embedder } from '../embed/embedder.js';
import type { LexicalWeights } from '../recall/lexical-weights.js';
import type { RecallDefaults } from './engram-options.js';

/** The configured calibration's weights, when it was measured with this embedder; undefined otherwise. */
export function calibratedWeights(defaults: RecallDefaults, embedder: Embedder): LexicalWeights | undefined {
  const calibration = defaults.calibration;
  return calibration?.model === embedder.model ? (calibration.weights ?? undefined) : undefined;
}
