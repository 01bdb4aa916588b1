/**
 * What a scan of a text says about the parts of it: `nothingWithin` is true when every test that
 * ruled something out also rules it out of any part of the text that is bounded by non-word
 * characters or the text's ends (a literal absent from the text is absent from its parts; a
 * pattern without anchors or negative lookarounds that matches a part matches the whole). Such a
 * part needs no scan of its own: see {@link CleanStrings}. Filled by `detectSensitive` and
 * `checkInstructions` when given one; a caller may reuse one note for every scan.
 */
export interface ScanNote {
  nothingWithin: boolean;
}
