export { isSensitiveCategory, SENSITIVE_CATEGORIES, type SensitiveCategory } from '../model/safety-policy-patch.js';
