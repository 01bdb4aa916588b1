import { readFileSync } from 'node:fs';
import { EngramError } from '../model/errors.js';
import type { FusionCalibration } from '../recall/calibrate-fusion.js';

/** The environment variable naming a calibration file (`engram calibrate --save`). */
export const CALIBRATION_ENV = 'ENGRAM_RECALL_CALIBRATION';

const isTrust = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 1;

/**
 * Reads a calibration written by `engram calibrate --save` (the JSON of {@link FusionCalibration}):
 * its model and weights. A missing, unreadable or malformed file is a CONFIG_ERROR naming it.
 */
export function readCalibration(path: string): Pick<FusionCalibration, 'model' | 'weights'> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new EngramError('CONFIG_ERROR', `${CALIBRATION_ENV}: cannot read ${path}: ${(error as Error).message}`, {
      details: { path },
    });
  }
  const c = json as { model?: unknown; weights?: { base?: unknown; short?: unknown } | null };
  const weights = c?.weights;
  if (typeof c?.model !== 'string' || (weights !== null && !(isTrust(weights?.base) && isTrust(weights?.short)))) {
    throw new EngramError(
      'CONFIG_ERROR',
      `${CALIBRATION_ENV}: ${path} is not a calibration (model and weights {base, short} in [0, 1])`,
      { details: { path } },
    );
  }
  return {
    model: c.model,
    weights: weights === null ? null : { base: weights.base as number, short: weights.short as number },
  };
}
