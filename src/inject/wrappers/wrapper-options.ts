import { createInjector, type Injector, type InjectorOptions } from '../injector.js';

/** A wrapper takes injector options, or an injector shared between several wrappers. */
export type WrapperOptions = InjectorOptions | Injector;

export function toInjector(options: WrapperOptions): Injector {
  return 'prepare' in options && typeof options.prepare === 'function'
    ? options
    : createInjector(options as InjectorOptions);
}
