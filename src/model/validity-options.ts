/** The world-time options of recall and search. */
export interface ValidityOptions {
  /**
   * Return what was valid at this instant (ISO-8601 or a Date) instead of now: a memory that
   * began later or had ended by then is left out.
   * @default now
   */
  asOf?: string | Date | undefined;
  /**
   * Also return memories that are not valid at that instant (superseded, ended, or not yet
   * begun); each such hit says so in `explanation.validity`. @default false
   */
  includeSuperseded?: boolean | undefined;
}
