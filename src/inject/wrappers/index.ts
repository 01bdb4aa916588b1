export { wrapOpenAI } from './openai.js';
export { wrapAnthropic } from './anthropic.js';
export { wrapGoogleGenAI } from './google-genai.js';
export { wrapBedrock } from './bedrock.js';
export {
  engramMiddleware,
  type AiSdkSpecificationVersion,
  type EngramLanguageModelMiddleware,
  type EngramMiddlewareOptions,
} from './ai-sdk-middleware.js';
export { toInjector, type WrapperOptions } from './wrapper-options.js';
export { interceptClient, type MethodHandler, type OriginalMethod } from './intercept-client.js';
