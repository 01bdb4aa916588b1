/** What the caller is currently about, for boosts. */
export interface BoostContext {
  userId?: string | undefined;
  sessionId?: string | undefined;
  tags?: string[] | undefined;
}
