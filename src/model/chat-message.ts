/** Roles of a chat exchange that Engram reads and writes. */
export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

/** One message of a chat exchange. System text may also be given as a `system` message. */
export interface ChatMessage {
  role: ChatRole;
  content: string;
}
