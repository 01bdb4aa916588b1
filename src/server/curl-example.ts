/**
 * A working example request against a running server, for `engram serve` to print: adds a
 * memory, then recalls it. `key` defaults to a placeholder the user replaces with a key from
 * `engram keys create`.
 */
export function curlExample(url: string, key = '$ENGRAM_API_KEY'): string {
  const auth = `-H "authorization: Bearer ${key}" -H 'content-type: application/json'`;
  return [
    `curl -s -X POST ${url}/v1/memories ${auth} \\`,
    `  -d '{"scope":{"user":"alice"},"memory":{"text":"Alice prefers green tea"}}'`,
    `curl -s -X POST ${url}/v1/recall ${auth} \\`,
    `  -d '{"scope":{"user":"alice"},"query":"what does Alice drink?"}'`,
  ].join('\n');
}
