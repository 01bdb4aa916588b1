export * from './compare-evals.js';
export * from './eval-case.js';
export * from './eval-metrics.js';
export * from './eval-ranker.js';
export * from './eval-setting.js';
export * from './format-eval-report.js';
export * from './run-eval.js';
