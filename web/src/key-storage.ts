/** The API key lives only in this tab's sessionStorage (gone when the tab closes), never in the page. */
const KEY_NAME = 'engram.inspector.apiKey';

/** The stored key, or null. */
export function loadKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_NAME);
  } catch {
    return null;
  }
}

/** Stores the key for this tab. */
export function saveKey(key: string): void {
  sessionStorage.setItem(KEY_NAME, key);
}

/** Forgets the key. */
export function clearKey(): void {
  sessionStorage.removeItem(KEY_NAME);
}
