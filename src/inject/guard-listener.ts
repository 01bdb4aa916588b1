import type { InjectEvent, InjectEventListener } from './inject-event.js';

/** Delivers events to the listener, if any; a listener that throws never breaks the caller's call. */
export function guardListener(listener: InjectEventListener | undefined): (event: InjectEvent) => void {
  return (event) => {
    if (listener === undefined) return;
    try {
      listener(event);
    } catch {
      // A listener never breaks the caller's call.
    }
  };
}
