/** Result sizes per bucket. The text types (working, long-term, user, outer, raw file) share `topK`. */
export interface BucketLimits {
  /** @default 10 */
  topK: number;
  /** ToolSchemaMemory. @default 6 */
  toolSchemaTopK: number;
  /** ToolTrajectoryMemory. @default 6 */
  toolTrajectoryTopK: number;
  /** SkillMemory. @default 3 */
  skillTopK: number;
  /** PreferenceMemory. @default 6 */
  preferenceTopK: number;
}

export const DEFAULT_BUCKET_LIMITS: BucketLimits = {
  topK: 10,
  toolSchemaTopK: 6,
  toolTrajectoryTopK: 6,
  skillTopK: 3,
  preferenceTopK: 6,
};
